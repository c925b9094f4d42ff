/**
 * The structural schema of a custom resource version (the `openAPIV3Schema` of a CRD
 * version) as the test API server reads it, and the small helpers every schema rule
 * shares: field paths, deep equality and kube-apiserver's rendering of values in messages.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';

/** One `x-kubernetes-validations` rule. */
export interface ValidationRule {
  /** The CEL expression; must evaluate to true. */
  rule: string;
  /** Fixed message when the rule fails. */
  message?: string;
  /** CEL expression evaluating to the message (a string). */
  messageExpression?: string;
  /** Relative path (`.spec.x`, `['a.b']`, `[0]`) the error is reported at. */
  fieldPath?: string;
  /** Cause reason: `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`. */
  reason?: string;
}

/** A node of a structural schema (the subset of JSONSchemaProps the server enforces). */
export interface StructuralSchema {
  /** `object`, `array`, `string`, `integer`, `number` or `boolean`. */
  type?: string;
  /** Declared fields of an object. */
  properties?: Record<string, StructuralSchema>;
  /** Schema of the values of a map-like object. */
  additionalProperties?: StructuralSchema | boolean;
  /** Schema of the items of an array. */
  items?: StructuralSchema;
  /** Fields an object must have. */
  required?: string[];
  /** Allowed values. */
  enum?: unknown[];
  /** Regular expression a string must match (ECMA syntax; Go's RE2 in kube-apiserver). */
  pattern?: string;
  /** A format kube-openapi checks (`email`, `date-time`, `uuid`, …). */
  format?: string;
  /** Bounds of numbers. */
  minimum?: number;
  /** Bounds of numbers. */
  maximum?: number;
  /** Whether `minimum` excludes the bound. */
  exclusiveMinimum?: boolean;
  /** Whether `maximum` excludes the bound. */
  exclusiveMaximum?: boolean;
  /** A number must be a multiple of this. */
  multipleOf?: number;
  /** Bounds of string lengths (characters). */
  minLength?: number;
  /** Bounds of string lengths (characters). */
  maxLength?: number;
  /** Bounds of array lengths. */
  minItems?: number;
  /** Bounds of array lengths. */
  maxItems?: number;
  /** Bounds of object sizes. */
  minProperties?: number;
  /** Bounds of object sizes. */
  maxProperties?: number;
  /** Whether `null` is allowed. */
  nullable?: boolean;
  /** Value set when the field is absent. */
  default?: unknown;
  /** Value validations that must hold for at least one branch. */
  anyOf?: StructuralSchema[];
  /** Keep fields the schema does not declare. */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** The value is a Kubernetes object (apiVersion, kind, metadata). */
  'x-kubernetes-embedded-resource'?: boolean;
  /** The value is an integer or a string. */
  'x-kubernetes-int-or-string'?: boolean;
  /** `atomic`, `set` or `map`. */
  'x-kubernetes-list-type'?: string;
  /** The keys of a `map` list. */
  'x-kubernetes-list-map-keys'?: string[];
  /** CEL rules. */
  'x-kubernetes-validations'?: ValidationRule[];
}

/** A value is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The openAPIV3Schema of a CRD version (undefined when none). */
export function crdVersionSchema(
  crd: UnstructuredObject,
  version: string,
): StructuralSchema | undefined {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
  const v = versions.find((x) => isObject(x) && x.name === version);
  if (!isObject(v) || !isObject(v.schema)) return undefined;
  const s = v.schema.openAPIV3Schema;
  return isObject(s) ? s : undefined;
}

/** The scale subresource of a CRD version (undefined when not served). */
export interface ScaleSubresource {
  /** JSON path of the desired replicas, such as `.spec.replicas`. */
  specReplicasPath: string;
  /** JSON path of the observed replicas, such as `.status.replicas`. */
  statusReplicasPath: string;
  /** JSON path of the label selector string, such as `.status.selector`. */
  labelSelectorPath?: string;
}

/** The scale subresource a CRD version declares, if any. */
export function crdVersionScale(
  crd: UnstructuredObject,
  version: string,
): ScaleSubresource | undefined {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
  const v = versions.find((x) => isObject(x) && x.name === version);
  if (!isObject(v) || !isObject(v.subresources) || !isObject(v.subresources.scale)) {
    return undefined;
  }
  const s = v.subresources.scale;
  if (typeof s.specReplicasPath !== 'string' || typeof s.statusReplicasPath !== 'string') {
    return undefined;
  }
  const out: ScaleSubresource = {
    specReplicasPath: s.specReplicasPath,
    statusReplicasPath: s.statusReplicasPath,
  };
  if (typeof s.labelSelectorPath === 'string') out.labelSelectorPath = s.labelSelectorPath;
  return out;
}

/** `spec` + `replicas` → `spec.replicas`; the root (`''`) has no dot. */
export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** `spec.items` + 0 → `spec.items[0]`. */
export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** Deep equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy with JSON's semantics (the test server's one copy). */
export { jsonCopy as clone } from '../json_copy.js';

/** The JSON type name kube-openapi reports for a value: `string`, `integer`, `number`, … */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A number as Go's `%v` prints a float64 or int64 (`1e+21`, `1.5e-07`). */
export function goNumber(n: number): string {
  const s = String(n);
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(s);
  if (!m) return s;
  return `${m[1] ?? ''}e${m[2] ?? ''}${(m[3] ?? '').padStart(2, '0')}`;
}

/** A value as field errors print it after `Invalid value: ` (strings quoted, JSON else). */
export function renderValue(v: unknown): string {
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'null';
  return JSON.stringify(v);
}
