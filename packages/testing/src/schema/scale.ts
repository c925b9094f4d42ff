/**
 * The scale subresource of custom resources (`/scale`, autoscaling/v1 `Scale`), driven by
 * the CRD version's `subresources.scale` paths, and the checks kube-apiserver makes on
 * those paths when a custom resource is written.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import type { ScaleSubresource } from './structural.js';
import { goNumber, isObject } from './structural.js';

const MAX_INT32 = 2147483647;

/** An autoscaling/v1 Scale. */
export interface Scale {
  /** `autoscaling/v1`. */
  apiVersion: 'autoscaling/v1';
  /** `Scale`. */
  kind: 'Scale';
  /** Name, namespace, uid, resourceVersion and creationTimestamp of the scaled object. */
  metadata: Record<string, unknown>;
  /** Desired replicas (omitted when 0). */
  spec: { replicas?: number };
  /** Observed replicas and the label selector string. */
  status: { replicas: number; selector?: string };
}

function fields(jsonPath: string): string[] {
  return jsonPath.replace(/^\./, '').split('.');
}

function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  return '<nil>';
}

function goValue(v: unknown): string {
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue(v[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  return typeof v === 'bigint' ? v.toString() : '';
}

type Nested<T> = { value: T | undefined; error?: string };

/** unstructured.NestedFieldNoCopy + a type check, with apimachinery's error wording. */
function nested<T>(
  obj: unknown,
  jsonPath: string,
  want: 'int64' | 'string',
  check: (v: unknown) => v is T,
): Nested<T> {
  const fs = fields(jsonPath);
  let cur: unknown = obj;
  for (let i = 0; i < fs.length; i++) {
    if (!isObject(cur)) {
      if (cur === undefined || cur === null) return { value: undefined };
      const at = `.${fs.slice(0, i).join('.')}`;
      return {
        value: undefined,
        error: `${at} accessor error: ${goValue(cur)} is of the type ${goType(cur)}, expected map[string]interface{}`,
      };
    }
    cur = cur[fs[i] ?? ''];
  }
  if (cur === undefined) return { value: undefined };
  if (!check(cur)) {
    return {
      value: undefined,
      error: `.${fs.join('.')} accessor error: ${goValue(cur)} is of the type ${goType(cur)}, expected ${want}`,
    };
  }
  return { value: cur };
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isString = (v: unknown): v is string => typeof v === 'string';

function replicaCauses(obj: unknown, jsonPath: string): StatusCause[] {
  const r = nested(obj, jsonPath, 'int64', isInt);
  if (r.error !== undefined) {
    return [
      { reason: 'FieldValueInvalid', field: jsonPath, message: `Invalid value: 0: ${r.error}` },
    ];
  }
  const n = r.value ?? 0;
  if (n < 0) {
    return [
      {
        reason: 'FieldValueInvalid',
        field: jsonPath,
        message: `Invalid value: ${n}: should be a non-negative integer`,
      },
    ];
  }
  if (n > MAX_INT32) {
    return [
      {
        reason: 'FieldValueInvalid',
        field: jsonPath,
        message: `Invalid value: ${n}: should be less than or equal to ${MAX_INT32}`,
      },
    ];
  }
  return [];
}

/** kube-apiserver's checks of `specReplicasPath` on a write of the object. */
export function validateScaleSpec(scale: ScaleSubresource, obj: unknown): StatusCause[] {
  return replicaCauses(obj, scale.specReplicasPath);
}

/** kube-apiserver's checks of `statusReplicasPath` and `labelSelectorPath`. */
export function validateScaleStatus(scale: ScaleSubresource, obj: unknown): StatusCause[] {
  const out = replicaCauses(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath !== undefined) {
    const sel = nested(obj, scale.labelSelectorPath, 'string', isString);
    if (sel.error !== undefined) {
      out.push({
        reason: 'FieldValueInvalid',
        field: scale.labelSelectorPath,
        message: `Invalid value: "": ${sel.error}`,
      });
    }
  }
  return out;
}

/** The Scale of a custom resource. */
export function scaleOf(scale: ScaleSubresource, obj: UnstructuredObject): Scale {
  const m = obj.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
    if (m[k] !== undefined && m[k] !== '') metadata[k] = m[k];
  }
  const spec = nested(obj, scale.specReplicasPath, 'int64', isInt).value ?? 0;
  const status = nested(obj, scale.statusReplicasPath, 'int64', isInt).value ?? 0;
  const out: Scale = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: spec === 0 ? {} : { replicas: spec },
    status: { replicas: status },
  };
  if (scale.labelSelectorPath !== undefined) {
    const sel = nested(obj, scale.labelSelectorPath, 'string', isString).value;
    if (sel !== undefined && sel !== '') out.status.selector = sel;
  }
  return out;
}

/**
 * The object with `specReplicasPath` set to `replicas` (intermediate objects created),
 * and its resourceVersion replaced by the Scale's (a precondition when not empty).
 */
export function withReplicas(
  scale: ScaleSubresource,
  obj: UnstructuredObject,
  replicas: number,
  resourceVersion: string | undefined,
): UnstructuredObject {
  const out = JSON.parse(JSON.stringify(obj)) as UnstructuredObject;
  const fs = fields(scale.specReplicasPath);
  let cur: Record<string, unknown> = out;
  for (const f of fs.slice(0, -1)) {
    const next = cur[f];
    if (!isObject(next)) cur[f] = {};
    cur = cur[f] as Record<string, unknown>;
  }
  cur[fs[fs.length - 1] ?? ''] = replicas;
  const meta = (out.metadata ??= {});
  if (resourceVersion !== undefined && resourceVersion !== '')
    meta.resourceVersion = resourceVersion;
  else delete meta.resourceVersion;
  return out;
}
