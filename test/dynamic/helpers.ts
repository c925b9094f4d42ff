// Shared helpers of the factory and dynamic tests.
import type { UnstructuredObject } from '../../src/client/types.js';
import { eventually } from '../support/eventually.js';

/** Polls `cond` (every 5 ms) until true; fails after `timeoutMs` naming `what`. */
export function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  return eventually(what, cond, timeoutMs);
}

/** Fast reflector backoff for tests. */
export const fastBackoff = { durationMs: 10, factor: 2, jitter: 0.2, capMs: 100, steps: 10 };

/** A CustomResourceDefinition for `<plural>.<group>` with versions v1 (storage) and v1beta1. */
export function makeCrd(
  plural: string,
  kind: string,
  options: {
    group?: string;
    scope?: 'Namespaced' | 'Cluster';
    labels?: Record<string, string>;
    v1beta1Served?: boolean;
  } = {},
): UnstructuredObject {
  const group = options.group ?? 'example.com';
  const schema = {
    openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      group,
      scope: options.scope ?? 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v1beta1', served: options.v1beta1Served ?? true, storage: false, schema },
      ],
    },
  };
}

/** A custom resource of `kind` in `example.com/v1` (or the given apiVersion). */
export function makeCr(
  kind: string,
  name: string,
  namespace = 'default',
  apiVersion = 'example.com/v1',
): UnstructuredObject {
  return {
    apiVersion,
    kind,
    metadata: { name, namespace },
    spec: { size: 3, color: 'blue' },
  };
}

/** The in-memory server's reference to CustomResourceDefinitions. */
export const crdRef = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };
