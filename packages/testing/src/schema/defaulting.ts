/**
 * Defaulting of custom resources from the schema's `default` values, as kube-apiserver
 * applies it on every write (after pruning) and on every read (get, list, watch: objects
 * stored before a default was added get it when read).
 *
 * A missing field with a default gets a copy of it, and the copy is defaulted in turn. A
 * `null` in a field that is not `nullable` is replaced by the default, or dropped when
 * there is none (kube-apiserver's `PruneNonNullableNullsWithoutDefaults`).
 *
 * @module
 */
import type { StructuralSchema } from './structural.js';
import { clone, isObject } from './structural.js';

function walk(s: StructuralSchema | undefined, v: unknown, dry: boolean): boolean {
  if (s === undefined) return false;
  let changed = false;
  if (Array.isArray(v)) {
    for (const item of v) {
      changed = walk(s.items, item, dry) || changed;
      if (changed && dry) return true;
    }
    return changed;
  }
  if (!isObject(v)) return false;
  const props = s.properties ?? {};
  for (const [k, cs] of Object.entries(props)) {
    const cur = v[k];
    if (cur === undefined || (cur === null && cs.nullable !== true)) {
      if (dry && (cs.default !== undefined || cur === null)) return true;
      if (cs.default !== undefined) {
        v[k] = clone(cs.default);
        changed = true;
      } else if (cur === null) {
        delete v[k];
        changed = true;
      }
    }
  }
  const extra = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
  for (const [k, child] of Object.entries(v)) {
    const cs = props[k] ?? extra;
    if (cs !== undefined) changed = walk(cs, child, dry) || changed;
    if (changed && dry) return true;
  }
  return changed;
}

/** Applies the schema's defaults to `obj` in place; true when anything changed. */
export function applyDefaults(schema: StructuralSchema, obj: unknown): boolean {
  return walk(schema, obj, false);
}

/** Whether {@link applyDefaults} would change `obj` (without copying or changing it). */
export function needsDefaults(schema: StructuralSchema, obj: unknown): boolean {
  return walk(schema, obj, true);
}

/** Whether a schema declares any default (reads need no defaulting otherwise). */
export function hasDefaults(schema: StructuralSchema | undefined): boolean {
  if (schema === undefined) return false;
  if (schema.default !== undefined) return true;
  if (Object.values(schema.properties ?? {}).some(hasDefaults)) return true;
  if (isObject(schema.additionalProperties) && hasDefaults(schema.additionalProperties)) {
    return true;
  }
  return hasDefaults(schema.items);
}
