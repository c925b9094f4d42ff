/**
 * OpenAPI v3 value validation of custom resources, worded as kube-apiserver (kube-openapi's
 * validator) words its field errors, with validation ratcheting on update.
 *
 * Ratcheting (GA in Kubernetes 1.33): on update, a value that is deep-equal to the value at
 * the same place in the old object is not validated again, so an object that became
 * invalid when its CRD tightened can still be updated elsewhere. Values are correlated
 * through object fields and through the items of `x-kubernetes-list-type: map` lists (by
 * their keys); items of other lists are not correlated (the whole list must be unchanged).
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { formatValid } from './formats.js';
import type { StructuralSchema } from './structural.js';
import {
  childPath,
  deepEqual,
  indexPath,
  isObject,
  jsonTypeOf,
  goNumber,
  renderValue,
} from './structural.js';

/** Where a value sits and what it is compared with. */
export interface SchemaValidationOptions {
  /** The field path of the value (`''` for a whole object, `status` for a status update). */
  path?: string;
  /**
   * The prefix dropped from paths inside messages: kube-apiserver validates a status update
   * against the status schema alone, so its messages say `replicas in body` for the field
   * `status.replicas`.
   */
  messageRoot?: string;
  /** The old value at the same place (updates only): unchanged values are ratcheted. */
  old?: unknown;
  /** Whether {@link SchemaValidationOptions.old} is given (an update). */
  hasOld?: boolean;
}

/** Cause reasons after which kube-apiserver skips CEL rules (they could not type-check). */
export const BLOCKING_REASONS: ReadonlySet<string> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

interface Walk {
  out: StatusCause[];
  messageRoot: string;
}

function msgPath(w: Walk, path: string): string {
  if (w.messageRoot === '') return path;
  if (path === w.messageRoot) return path;
  return path.startsWith(`${w.messageRoot}.`) ? path.slice(w.messageRoot.length + 1) : path;
}

function cause(w: Walk, reason: string, field: string, message: string): void {
  w.out.push({ reason, message, field });
}

/** An enum value as kube-apiserver lists it: every value quoted (`"a"`, `"1"`). */
function supportedValue(e: unknown): string {
  return JSON.stringify(typeof e === 'string' ? e : renderValue(e));
}

function typeMatches(s: StructuralSchema, v: unknown): boolean {
  if (s['x-kubernetes-int-or-string'] === true) {
    return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  }
  switch (s.type) {
    case undefined:
    case '':
      return true;
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function declaredType(s: StructuralSchema): string {
  return s['x-kubernetes-int-or-string'] === true ? 'integer,string' : (s.type ?? '');
}

function validateNumber(w: Walk, s: StructuralSchema, v: number, path: string): void {
  const p = msgPath(w, path);
  if (s.multipleOf !== undefined) {
    // kube-openapi checks an integral value against the factor truncated to an integer.
    const factor = Number.isInteger(v) ? Math.trunc(s.multipleOf) : s.multipleOf;
    if (factor <= 0) {
      cause(
        w,
        'FieldValueInvalid',
        path,
        `Invalid value: ${goNumber(factor)}: factor MultipleOf declared for ${p} must be positive: ${goNumber(factor)}`,
      );
    } else {
      const q = v / factor;
      if (Math.abs(q - Math.round(q)) > 1e-9) {
        cause(
          w,
          'FieldValueInvalid',
          path,
          `Invalid value: ${goNumber(v)}: ${p} in body should be a multiple of ${goNumber(factor)}`,
        );
      }
    }
  }
  if (s.maximum !== undefined) {
    const ex = s.exclusiveMaximum === true;
    if (ex ? v >= s.maximum : v > s.maximum) {
      cause(
        w,
        'FieldValueInvalid',
        path,
        `Invalid value: ${goNumber(v)}: ${p} in body should be less than ${ex ? '' : 'or equal to '}${goNumber(s.maximum)}`,
      );
    }
  }
  if (s.minimum !== undefined) {
    const ex = s.exclusiveMinimum === true;
    if (ex ? v <= s.minimum : v < s.minimum) {
      cause(
        w,
        'FieldValueInvalid',
        path,
        `Invalid value: ${goNumber(v)}: ${p} in body should be greater than ${ex ? '' : 'or equal to '}${goNumber(s.minimum)}`,
      );
    }
  }
}

function validateString(w: Walk, s: StructuralSchema, v: string, path: string): void {
  const p = msgPath(w, path);
  const len = [...v].length;
  if (s.maxLength !== undefined && len > s.maxLength) {
    cause(w, 'FieldValueTooLong', path, `Too long: may not be more than ${s.maxLength} bytes`);
  } else if (s.minLength !== undefined && len < s.minLength) {
    cause(
      w,
      'FieldValueInvalid',
      path,
      `Invalid value: ${renderValue(v)}: ${p} in body should be at least ${s.minLength} chars long`,
    );
  } else if (s.pattern !== undefined && !patternMatches(s.pattern, v)) {
    cause(
      w,
      'FieldValueInvalid',
      path,
      `Invalid value: ${renderValue(v)}: ${p} in body should match '${s.pattern}'`,
    );
  }
  if (s.format !== undefined && !formatValid(s.format, v)) {
    cause(
      w,
      'FieldValueTypeInvalid',
      path,
      `Invalid value: ${renderValue(v)}: ${p} in body must be of type ${s.format}: ${renderValue(v)}`,
    );
  }
}

const patternCache = new Map<string, RegExp | null>();

/** Go RE2 patterns as ECMAScript regular expressions (unanchored, like RE2's MatchString). */
function patternMatches(pattern: string, v: string): boolean {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    patternCache.set(pattern, re);
  }
  return re === null ? true : re.test(v);
}

/** The key object of a `map` list item (`{"name":"x"}`), in the declared key order. */
export function mapListKey(keys: readonly string[], item: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(item)) return out;
  for (const k of keys) if (item[k] !== undefined) out[k] = item[k];
  return out;
}

function correlateItem(
  s: StructuralSchema,
  item: unknown,
  old: unknown,
): { old: unknown; hasOld: boolean } {
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(old)) {
    return { old: undefined, hasOld: false };
  }
  const key = mapListKey(keys, item);
  const found: unknown = (old as unknown[]).find((o) => deepEqual(mapListKey(keys, o), key));
  return found === undefined ? { old: undefined, hasOld: false } : { old: found, hasOld: true };
}

function validateAnyOf(w: Walk, s: StructuralSchema, v: unknown, path: string): void {
  const branches = s.anyOf ?? [];
  if (branches.length === 0) return;
  const results = branches.map((b) => {
    const sub: Walk = { out: [], messageRoot: w.messageRoot };
    walk(sub, b, v, path, undefined, false, false);
    return sub.out;
  });
  if (results.some((r) => r.length === 0)) return;
  cause(
    w,
    'FieldValueInvalid',
    '<nil>',
    `Invalid value: "": "${msgPath(w, path)}" must validate at least one schema (anyOf)`,
  );
  w.out.push(...(results[0] ?? []));
}

function walk(
  w: Walk,
  s: StructuralSchema,
  v: unknown,
  path: string,
  old: unknown,
  hasOld: boolean,
  root: boolean,
): void {
  if (hasOld && deepEqual(v, old)) return; // ratcheted: unchanged values are not re-validated
  if (v === null && s.nullable === true) return;
  const p = msgPath(w, path);
  if (!typeMatches(s, v) || (v === null && s.type !== undefined)) {
    const actual = jsonTypeOf(v);
    cause(
      w,
      'FieldValueTypeInvalid',
      path,
      `Invalid value: "${actual}": ${p} in body must be of type ${declaredType(s)}: "${actual}"`,
    );
    if (s.type === 'integer' && actual === 'number') {
      // kube-openapi's format check of integers reports a fraction a second time.
      cause(
        w,
        'FieldValueInvalid',
        '<nil>',
        `Invalid value: "": Checked value must be of type integer (default format) in ${p}`,
      );
    }
    validateAnyOf(w, s, v, path);
    return;
  }
  if (s.enum !== undefined && !s.enum.some((e) => deepEqual(e, v))) {
    cause(
      w,
      'FieldValueNotSupported',
      path,
      `Unsupported value: ${renderValue(v)}: supported values: ${s.enum.map(supportedValue).join(', ')}`,
    );
  }
  if (typeof v === 'number') validateNumber(w, s, v, path);
  else if (typeof v === 'string') validateString(w, s, v, path);
  else if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) {
      cause(
        w,
        'FieldValueInvalid',
        path,
        `Invalid value: ${v.length}: ${p} in body should have at least ${s.minItems} items`,
      );
    }
    if (s.maxItems !== undefined && v.length > s.maxItems) {
      cause(
        w,
        'FieldValueTooMany',
        path,
        `Too many: ${v.length}: must have at most ${s.maxItems} items`,
      );
    }
    if (s.items) {
      const items = s.items;
      v.forEach((item, i) => {
        const c = hasOld ? correlateItem(s, item, old) : { old: undefined, hasOld: false };
        walk(w, items, item, indexPath(path, i), c.old, c.hasOld, false);
      });
    }
  } else if (isObject(v)) {
    const count = Object.keys(v).length;
    if (s.minProperties !== undefined && count < s.minProperties) {
      cause(
        w,
        'FieldValueInvalid',
        path,
        `Invalid value: ${count}: ${p} in body should have at least ${s.minProperties} properties`,
      );
    }
    if (s.maxProperties !== undefined && count > s.maxProperties) {
      cause(
        w,
        'FieldValueTooMany',
        path,
        `Too many: ${count}: must have at most ${s.maxProperties} items`,
      );
    }
    for (const r of s.required ?? []) {
      if (v[r] === undefined) cause(w, 'FieldValueRequired', childPath(path, r), 'Required value');
    }
    const oldObj = hasOld && isObject(old) ? old : undefined;
    const props = s.properties ?? {};
    const extra = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
    for (const [k, child] of Object.entries(v)) {
      if (root && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
      const cs = props[k] ?? (k in props ? undefined : extra);
      if (cs === undefined) continue;
      const childHasOld = oldObj !== undefined && k in oldObj;
      walk(w, cs, child, childPath(path, k), oldObj?.[k], childHasOld, false);
    }
  }
  validateAnyOf(w, s, v, path);
}

/**
 * Validates a value against a structural schema; returns kube-apiserver's causes (empty
 * when valid). The root of a custom resource skips `apiVersion`, `kind` and `metadata`
 * (ObjectMeta has its own validation).
 */
export function validateSchema(
  schema: StructuralSchema,
  value: unknown,
  options: SchemaValidationOptions = {},
): StatusCause[] {
  const path = options.path ?? '';
  const w: Walk = { out: [], messageRoot: options.messageRoot ?? '' };
  walk(w, schema, value, path, options.old, options.hasOld === true, path === '');
  return w.out;
}

/**
 * The `x-kubernetes-list-type` invariants: no duplicate items in a `set` list, no two
 * items with the same keys in a `map` list (`spec.ports[1]: Duplicate value: {"name":"x"}`).
 */
export function validateListTypes(
  schema: StructuralSchema,
  value: unknown,
  path = '',
): StatusCause[] {
  const out: StatusCause[] = [];
  const visit = (s: StructuralSchema, v: unknown, p: string): void => {
    if (Array.isArray(v)) {
      const type = s['x-kubernetes-list-type'];
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      v.forEach((item, i) => {
        if (type === 'set') {
          if (v.slice(0, i).some((x) => deepEqual(x, item))) {
            out.push({
              reason: 'FieldValueDuplicate',
              field: indexPath(p, i),
              message: `Duplicate value: ${renderValue(item)}`,
            });
          }
        } else if (type === 'map' && isObject(item)) {
          const key = mapListKey(keys, item);
          if (v.slice(0, i).some((x) => deepEqual(mapListKey(keys, x), key))) {
            out.push({
              reason: 'FieldValueDuplicate',
              field: indexPath(p, i),
              message: `Duplicate value: ${JSON.stringify(key)}`,
            });
          }
        }
      });
      if (s.items) {
        const items = s.items;
        v.forEach((item, i) => visit(items, item, indexPath(p, i)));
      }
    } else if (isObject(v)) {
      const props = s.properties ?? {};
      const extra = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
      for (const [k, child] of Object.entries(v)) {
        const cs = props[k] ?? extra;
        if (cs) visit(cs, child, childPath(p, k));
      }
    }
  };
  visit(schema, value, path);
  return out;
}

/**
 * `x-kubernetes-embedded-resource` values must name their `apiVersion` and `kind`
 * (`spec.template.kind: Required value`).
 */
export function validateEmbeddedResources(
  schema: StructuralSchema,
  value: unknown,
  path = '',
): StatusCause[] {
  const out: StatusCause[] = [];
  const visit = (s: StructuralSchema, v: unknown, p: string): void => {
    if (Array.isArray(v)) {
      if (s.items) {
        const items = s.items;
        v.forEach((item, i) => visit(items, item, indexPath(p, i)));
      }
      return;
    }
    if (!isObject(v)) return;
    if (s['x-kubernetes-embedded-resource'] === true) {
      for (const f of ['apiVersion', 'kind']) {
        if (typeof v[f] !== 'string' || v[f] === '') {
          out.push({
            reason: 'FieldValueRequired',
            field: childPath(p, f),
            message: 'Required value',
          });
        }
      }
    }
    const props = s.properties ?? {};
    const extra = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
    for (const [k, child] of Object.entries(v)) {
      const cs = props[k] ?? extra;
      if (cs) visit(cs, child, childPath(p, k));
    }
  };
  visit(schema, value, path);
  return out;
}
