/**
 * The `scale` subresource: an object seen as an autoscaling/v1 `Scale` (desired and
 * observed replicas, label selector) and a Scale written back as the object's desired
 * replicas, as kube-apiserver serves `deployments/scale`.
 *
 * @module
 */
import { labelSelectorFromLabelSelector } from 'kube-controller-kit';
import type { UnstructuredObject } from 'kube-controller-kit';
import type { ResourceType, ScaleSubresource } from './registry.js';
import { badRequest } from './status.js';

function segments(path: string): string[] {
  return path
    .replace(/^\./, '')
    .split('.')
    .filter((s) => s !== '');
}

function read(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of segments(path)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function selectorOf(obj: UnstructuredObject, scale: ScaleSubresource): string | undefined {
  if (scale.labelSelectorPath !== undefined) {
    const v = read(obj, scale.labelSelectorPath);
    return typeof v === 'string' ? v : undefined;
  }
  const spec = read(obj, '.spec.selector');
  if (spec === null || typeof spec !== 'object') return undefined;
  try {
    return labelSelectorFromLabelSelector(spec).toString();
  } catch {
    return undefined;
  }
}

/** The Scale of an object. */
export function toScale(type: ResourceType, obj: UnstructuredObject): UnstructuredObject {
  const scale = type.scale;
  if (!scale) throw new Error(`${type.resource} has no scale subresource`);
  const m = obj.metadata ?? {};
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace !== undefined) metadata.namespace = m.namespace;
  metadata.uid = m.uid;
  metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp;
  const specReplicas = read(obj, scale.specReplicasPath);
  const statusReplicas = read(obj, scale.statusReplicasPath);
  const status: Record<string, unknown> = {
    replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
  };
  const selector = selectorOf(obj, scale);
  if (selector !== undefined) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}

/**
 * The object with the desired replicas of a written Scale, carrying the Scale's
 * resourceVersion as the write's precondition. 400 when the Scale has no integer replicas.
 */
export function fromScale(
  type: ResourceType,
  obj: UnstructuredObject,
  scaleObj: unknown,
): UnstructuredObject {
  const scale = type.scale;
  if (!scale) throw new Error(`${type.resource} has no scale subresource`);
  const replicas = read(scaleObj, '.spec.replicas') ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw badRequest(
      `spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`,
    );
  }
  const next = structuredClone(obj);
  const path = segments(scale.specReplicasPath);
  let cur = next as Record<string, unknown>;
  for (const p of path.slice(0, -1)) {
    const child = cur[p];
    if (child === null || typeof child !== 'object' || Array.isArray(child)) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[path[path.length - 1] ?? 'replicas'] = replicas;
  const rv = read(scaleObj, '.metadata.resourceVersion');
  const meta = (next.metadata ??= {});
  if (typeof rv === 'string' && rv !== '') meta.resourceVersion = rv;
  else delete meta.resourceVersion;
  return next;
}
