/**
 * The `scale` subresource: an object seen as an autoscaling/v1 `Scale` (desired and
 * observed replicas, label selector) and a Scale written back as the object's desired
 * replicas, as kube-apiserver serves `deployments/scale`.
 *
 * @module
 */
import { labelSelectorFromLabelSelector } from 'kube-controller-kit';
import type { UnstructuredObject } from 'kube-controller-kit';
import { applyJsonPatch, applyMergePatch, PatchError, strategicMerge } from './patch.js';
import type { ResourceType, ScaleSubresource } from './registry/types.js';
import { defaultOnRead, scaleOf, withReplicas } from './schema/index.js';
import type { CustomResourceSchema } from './schema/index.js';
import { badRequest, pathNotFound, statusError } from './status.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

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

/** The kind admission sees on a write through `/scale`. */
export const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** How a resource's `/scale` reads and writes its objects. */
export interface ScaleCodec {
  /** The Scale a GET answers and a patch applies to. */
  read(obj: UnstructuredObject): UnstructuredObject;
  /** The Scale admission sees (old and new). */
  admitted(obj: UnstructuredObject): UnstructuredObject;
  /** A Scale patched (the patch types `/scale` takes). */
  patch(scale: UnstructuredObject, contentType: string, body: unknown): unknown;
  /**
   * The object with a written Scale's desired replicas (a copy), carrying the Scale's
   * resourceVersion as the write's precondition; 400 for a Scale that is not one.
   */
  write(obj: UnstructuredObject, scale: unknown): UnstructuredObject;
}

/** 400 for a patch that does not parse, 422 for a JSON patch that does not apply. */
function patched(apply: () => unknown): unknown {
  try {
    return apply();
  } catch (err) {
    if (err instanceof PatchError) {
      if (err.code === 400) throw badRequest(err.message);
      throw statusError(
        422,
        'Invalid',
        'the server rejected our request due to an error in our request',
        {},
      );
    }
    throw err;
  }
}

/**
 * The `/scale` of a resource: a built-in's from its ScaleSubresource paths (./scale.ts's
 * rules), a custom resource's from its CRD's (`crs`, ./schema/scale.ts's rules: the
 * CRD's words, read-time defaults, merge and JSON patches).
 */
export function scaleCodec(type: ResourceType, crs: CustomResourceSchema | undefined): ScaleCodec {
  const admitted = (obj: UnstructuredObject): UnstructuredObject => toScale(type, obj);
  if (type.crdName === undefined) {
    return {
      read: admitted,
      admitted,
      patch: (scale, contentType, body) =>
        patched(() => {
          switch (contentType) {
            case 'application/merge-patch+json':
              return applyMergePatch(scale, body);
            case 'application/strategic-merge-patch+json':
              return strategicMerge(scale, body);
            case 'application/json-patch+json':
              return applyJsonPatch(scale, body);
            default:
              throw statusError(
                415,
                'UnsupportedMediaType',
                'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
              );
          }
        }),
      write: (obj, scale) => fromScale(type, obj, scale),
    };
  }
  const scale = crs?.scale;
  if (crs === undefined || scale === undefined) throw pathNotFound();
  return {
    read: (obj) => scaleOf(scale, defaultOnRead(crs, obj) ?? obj) as unknown as UnstructuredObject,
    admitted,
    patch: (current, contentType, body) =>
      patched(() => {
        if (contentType === 'application/json-patch+json') return applyJsonPatch(current, body);
        if (
          contentType === 'application/merge-patch+json' ||
          contentType === 'application/apply-patch+yaml'
        ) {
          if (!isObject(body)) throw new PatchError('merge patch must be a JSON object', 400);
          return applyMergePatch(current, body);
        }
        throw statusError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        );
      }),
    write: (obj, body) => {
      if (!isObject(body) || (body.kind !== undefined && body.kind !== 'Scale')) {
        throw badRequest(
          `the object provided is unrecognized (must be of type Scale): couldn't get version/kind; json parse error: expected a Scale`,
        );
      }
      const spec = isObject(body.spec) ? body.spec : {};
      const replicas = spec.replicas ?? 0;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
        throw badRequest(
          `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
        );
      }
      const meta = isObject(body.metadata) ? body.metadata : {};
      const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined;
      return withReplicas(scale, obj, replicas, rv);
    },
  };
}
