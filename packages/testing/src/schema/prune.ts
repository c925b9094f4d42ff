/**
 * Pruning of custom resources: fields the structural schema does not declare are dropped
 * (unless `x-kubernetes-preserve-unknown-fields`), as kube-apiserver does on every write,
 * and their paths are reported for `fieldValidation` (`Strict` rejects them, `Warn`
 * warns). `metadata` of the object and of embedded resources keeps only ObjectMeta's
 * fields.
 *
 * @module
 */
import type { StructuralSchema } from './structural.js';
import { childPath, indexPath, isObject } from './structural.js';

/** The fields of ObjectMeta (anything else under `metadata` is unknown). */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** What pruning removed, in the order kube-apiserver reports it. */
export interface PruneResult {
  /** Unknown fields under the object's own `metadata` (`metadata.junk`). */
  metadata: string[];
  /** Unknown fields the schema prunes, sorted (`spec.foo`). */
  pruned: string[];
  /** Unknown fields under embedded resources' `metadata`. */
  embeddedMetadata: string[];
}

/** All unknown field paths of a {@link PruneResult}, in kube-apiserver's order. */
export function unknownFields(r: PruneResult): string[] {
  return [...r.metadata, ...r.pruned.sort(), ...r.embeddedMetadata];
}

function pruneMeta(meta: unknown, path: string, into: string[]): void {
  if (!isObject(meta)) return;
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) {
      delete meta[k];
      into.push(childPath(path, k));
    }
  }
}

function walk(
  s: StructuralSchema | undefined,
  v: unknown,
  path: string,
  r: PruneResult,
  resourceRoot: boolean,
): void {
  if (Array.isArray(v)) {
    v.forEach((item, i) => walk(s?.items, item, indexPath(path, i), r, false));
    return;
  }
  if (!isObject(v)) return;
  const embedded = resourceRoot || s?.['x-kubernetes-embedded-resource'] === true;
  const preserve = s?.['x-kubernetes-preserve-unknown-fields'] === true;
  const props = s?.properties ?? {};
  const extra = isObject(s?.additionalProperties) ? s.additionalProperties : undefined;
  const mapLike = s?.additionalProperties === true || extra !== undefined;
  for (const k of Object.keys(v)) {
    const p = childPath(path, k);
    if (embedded && (k === 'apiVersion' || k === 'kind')) continue;
    if (embedded && k === 'metadata') {
      pruneMeta(v[k], p, path === '' ? r.metadata : r.embeddedMetadata);
      continue;
    }
    const cs = props[k] ?? extra;
    if (cs === undefined && !mapLike && !preserve && s !== undefined) {
      delete v[k];
      r.pruned.push(p);
      continue;
    }
    // Under preserve-unknown-fields without a schema for the field, nothing is pruned.
    if (cs !== undefined) walk(cs, v[k], p, r, false);
  }
}

/**
 * Prunes `obj` in place against `schema` (the root of a custom resource: `apiVersion`,
 * `kind` and `metadata` are kept) and reports what it removed.
 */
export function pruneObject(schema: StructuralSchema, obj: Record<string, unknown>): PruneResult {
  const r: PruneResult = { metadata: [], pruned: [], embeddedMetadata: [] };
  walk(schema, obj, '', r, true);
  return r;
}
