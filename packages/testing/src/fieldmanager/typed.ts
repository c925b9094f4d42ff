/**
 * Operations on values by their type schema (structured-merge-diff's `typed`): the set of
 * fields a value sets, the comparison of two values (added, modified, removed fields),
 * the merge of an applied configuration into a live object, and the removal of fields.
 *
 * The rules, from structured-merge-diff:
 * - A scalar, an atomic list or map, and a list or map empty on both sides is a leaf.
 * - A field set to `null` or `{}` is itself a field; so is every item of a `set` or `map`
 *   list (its key element, `.` in FieldsV1) and every key of a map that is not a named
 *   field of a struct.
 * - A comparison reports the node of a subtree that appears or disappears along with
 *   its leaves.
 * - Merging keeps the live order of list items and inserts new ones after the last item
 *   the configuration shares with the live list.
 *
 * @module
 */
import { FieldManagerError } from './errors.js';
import type { FieldPath, JsonValue, PathElement } from './path.js';
import { fieldElement, keyElement, pathToString, serializeElement, valueElement } from './path.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { fieldType, scalar } from './schema.js';
import { FieldSet } from './set.js';

type Obj = { [k: string]: JsonValue };

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep equality of JSON values (key order ignored). */
export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const untypedList: ListType = {
  kind: 'list',
  elementType: { kind: 'untyped' },
  listType: 'atomic',
  keys: [],
};

/** The effective type of a value: untyped values take the shape of the value. */
export function resolve(t: TypeNode, v: JsonValue | undefined): TypeNode {
  if (t.kind !== 'untyped') return t;
  if (Array.isArray(v)) return untypedList;
  if (isObj(v)) {
    // One map type per untyped type (types are never changed once built).
    let m = UNTYPED_MAPS.get(t);
    if (m === undefined) {
      m = {
        kind: 'map',
        fields: new Map(),
        elementType: t,
        atomic: false,
        ...(t.struct ? { openStruct: true } : {}),
      };
      UNTYPED_MAPS.set(t, m);
    }
    return m;
  }
  return scalar;
}

const UNTYPED_MAPS = new WeakMap<TypeNode, MapType>();

/** Whether the value has the shape the type expects (null counts as an empty list or map). */
export function fits(t: TypeNode, v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (t.kind === 'list') return Array.isArray(v);
  if (t.kind === 'map') return isObj(v);
  return !Array.isArray(v) && !isObj(v);
}

/** Whether a value is absent, null, or an empty list or map. */
export function isEmpty(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'object') return false;
  // No key array built: any own key will do.
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) return false;
  return true;
}

function where(path: FieldPath): string {
  return path.length === 0 ? '' : `${pathToString(path)}: `;
}

function at(path: FieldPath, index: number): string {
  return `${where(path)}element ${index}: `;
}

/**
 * The path element of a list item: its key fields for a `map` list (missing keys take
 * their schema default), its value for a `set`. Throws for items that cannot be keyed.
 */
export function listItemElement(
  t: ListType,
  item: JsonValue,
  index: number,
  path: FieldPath,
): PathElement {
  // Only errors name the place: the text is built when one is thrown.
  if (t.listType === 'map' && t.keys.length > 0) {
    if (item === null) {
      throw new FieldManagerError(
        `${at(path, index)}associative list with keys may not have a null element`,
      );
    }
    if (!isObj(item)) {
      throw new FieldManagerError(
        `${at(path, index)}associative list with keys may not have non-map elements`,
      );
    }
    const elem = t.elementType.kind === 'map' ? t.elementType : undefined;
    const fields: [string, JsonValue][] = [];
    for (const k of t.keys) {
      const v = item[k];
      if (v !== undefined) fields.push([k, v]);
      else {
        const d = elem?.defaults?.get(k);
        if (d !== undefined) fields.push([k, d]);
      }
    }
    if (fields.length === 0) {
      throw new FieldManagerError(
        `${at(path, index)}associative list with keys has an element that omits all key fields ${JSON.stringify(t.keys)} (and doesn't have default values for any key fields)`,
      );
    }
    return keyElement(fields);
  }
  if (isObj(item)) {
    throw new FieldManagerError(
      `${at(path, index)}associative list without keys has an element that's a map type`,
    );
  }
  if (Array.isArray(item)) {
    throw new FieldManagerError(
      `${at(path, index)}not supported: associative list with lists as elements`,
    );
  }
  return valueElement(item);
}

/**
 * The fields a value sets (structured-merge-diff's `ToFieldSet`). With `allowDuplicates`
 * false (an applied configuration), two list items with the same key are an error; with
 * true (a stored object), the duplicated key is owned as a whole.
 */
export function toFieldSet(value: JsonValue, t: TypeNode, allowDuplicates = true): FieldSet {
  const set = new FieldSet();
  walkSet(value, t, [], set, allowDuplicates);
  return set;
}

function walkSet(
  v: JsonValue,
  t0: TypeNode,
  path: PathElement[],
  set: FieldSet,
  dup: boolean,
): void {
  const t = resolve(t0, v);
  if (!fits(t, v) || t.kind === 'scalar' || t.kind === 'untyped') {
    set.insert(path);
    return;
  }
  if (t.kind === 'list') {
    if (t.listType === 'atomic') {
      set.insert(path);
      return;
    }
    if (!Array.isArray(v)) return;
    const seen = new Map<string, number>();
    const pes = v.map((item, i) => listItemElement(t, item, i, path));
    for (const pe of pes) {
      const k = serializeElement(pe);
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    const done = new Set<string>();
    v.forEach((item, i) => {
      const pe = pes[i] as PathElement;
      const k = serializeElement(pe);
      if ((seen.get(k) ?? 0) > 1) {
        if (!dup) {
          throw new FieldManagerError(
            `${where(path)}duplicate entries for key ${pathToString([pe]).slice(0)}`,
          );
        }
        if (!done.has(k)) set.insert([...path, pe]);
        done.add(k);
        return;
      }
      walkSet(item, t.elementType, [...path, pe], set, dup);
      set.insert([...path, pe]);
    });
    return;
  }
  if (t.atomic) {
    set.insert(path);
    return;
  }
  if (!isObj(v)) return;
  for (const [k, child] of Object.entries(v)) {
    const { type, named } = fieldType(t, k);
    const p = [...path, fieldElement(k)];
    walkSet(child, type, p, set, dup);
    if (child === null || (isObj(child) && Object.keys(child).length === 0) || !named) {
      set.insert(p);
    }
  }
}

/** The result of comparing two values. */
export interface Comparison {
  /** Fields present only in the new value (with the nodes of new subtrees). */
  added: FieldSet;
  /** Leaves present in both with different values. */
  modified: FieldSet;
  /** Fields present only in the old value (with the nodes of removed subtrees). */
  removed: FieldSet;
}

/** Compares an old and a new value field by field (structured-merge-diff's `Compare`). */
export function compare(lhs: JsonValue, rhs: JsonValue, t: TypeNode): Comparison {
  const c: Comparison = {
    added: new FieldSet(),
    modified: new FieldSet(),
    removed: new FieldSet(),
  };
  compareWalk(lhs, rhs, t, [], c);
  return c;
}

function compareWalk(
  l: JsonValue | undefined,
  r: JsonValue | undefined,
  t0: TypeNode,
  path: PathElement[],
  c: Comparison,
): void {
  const t = resolve(t0, r !== undefined ? r : l);
  // A missing side takes the present side's shape (an untyped subtree added or removed).
  const tl = l === undefined ? t : resolve(t0, l);
  let leaf: boolean;
  if (
    t.kind !== tl.kind ||
    !fits(t, l) ||
    !fits(t, r) ||
    t.kind === 'scalar' ||
    t.kind === 'untyped'
  ) {
    leaf = true;
  } else if (t.kind === 'list') {
    leaf = t.listType === 'atomic' || (isEmpty(l) && isEmpty(r));
    if (!leaf) compareList(t, Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], path, c);
  } else if (t.atomic || (isEmpty(l) && isEmpty(r))) {
    leaf = true;
  } else {
    leaf = false;
    const lo = isObj(l) ? l : undefined;
    const ro = isObj(r) ? r : undefined;
    // Keys of the new side, then those only on the old side (no set built when one is absent).
    if (ro !== undefined) {
      for (const k of Object.keys(ro)) {
        compareWalk(lo?.[k], ro[k], fieldType(t, k).type, [...path, fieldElement(k)], c);
      }
    }
    if (lo !== undefined) {
      for (const k of Object.keys(lo)) {
        if (ro !== undefined && Object.prototype.hasOwnProperty.call(ro, k)) continue;
        compareWalk(lo[k], undefined, fieldType(t, k).type, [...path, fieldElement(k)], c);
      }
    }
  }
  if (leaf) {
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!deepEqual(l, r)) c.modified.insert(path);
  } else if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

/** A list's items grouped by their path element (see {@link indexList}). */
export interface ListIndex {
  /** Each distinct element, in the order first seen. */
  readonly order: PathElement[];
  /** The serialized key of each element of `order`, at the same position. */
  readonly keys: string[];
  /** The items under each key (more than one when the list repeats a key). */
  readonly values: Map<string, JsonValue[]>;
}

/**
 * Groups a list's items by their path element, keyed by `serialize` (by default the kept
 * {@link serializeElement}; a walk that serializes each element once passes
 * `serializeItemElement`).
 */
export function indexList(
  t: ListType,
  list: JsonValue[],
  path: FieldPath,
  serialize: (pe: PathElement) => string = serializeElement,
): ListIndex {
  const order: PathElement[] = [];
  const keys: string[] = [];
  const values = new Map<string, JsonValue[]>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as JsonValue;
    const pe = listItemElement(t, item, i, path);
    const k = serialize(pe);
    const got = values.get(k);
    if (got) got.push(item);
    else {
      values.set(k, [item]);
      order.push(pe);
      keys.push(k);
    }
  }
  return { order, keys, values };
}

function compareList(
  t: ListType,
  l: JsonValue[],
  r: JsonValue[],
  path: PathElement[],
  c: Comparison,
): void {
  const li = indexList(t, l, path);
  const ri = indexList(t, r, path);
  const all = [...li.order];
  for (const pe of ri.order) if (!li.values.has(serializeElement(pe))) all.push(pe);
  for (const pe of all) {
    const k = serializeElement(pe);
    const ll = li.values.get(k) ?? [];
    const rl = ri.values.get(k) ?? [];
    const p = [...path, pe];
    if (ll.length <= 1 && rl.length <= 1) {
      compareWalk(ll[0], rl[0], t.elementType, p, c);
    } else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqual(ll, rl)) c.modified.insert(p);
    } else if (ll.length >= 2) {
      if (rl.length > 0) compareWalk(undefined, rl[0], t.elementType, p, c);
      c.removed.insert(p);
    } else {
      if (ll.length > 0) compareWalk(ll[0], undefined, t.elementType, p, c);
      c.added.insert(p);
    }
  }
}

/**
 * Merges an applied configuration into a live value (structured-merge-diff's `Merge`):
 * leaves and atomic values are taken from the configuration, maps merged key by key,
 * `set` and `map` lists item by item.
 */
export function merge(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  t: TypeNode,
): JsonValue | undefined {
  return mergeWalk(lhs, rhs, t, []);
}

function mergeWalk(
  l: JsonValue | undefined,
  r: JsonValue | undefined,
  t0: TypeNode,
  path: PathElement[],
): JsonValue | undefined {
  if (r === undefined) return l;
  if (l === undefined) return r;
  const t = resolve(t0, r);
  if (
    t.kind !== resolve(t0, l).kind ||
    !fits(t, l) ||
    !fits(t, r) ||
    t.kind === 'scalar' ||
    t.kind === 'untyped'
  ) {
    return r;
  }
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || (isEmpty(l) && isEmpty(r))) return r;
    return mergeList(t, Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], path);
  }
  if (t.atomic || (isEmpty(l) && isEmpty(r))) return r;
  const lo = isObj(l) ? l : {};
  const ro = isObj(r) ? r : {};
  const out: Obj = {};
  for (const k of new Set([...Object.keys(lo), ...Object.keys(ro)])) {
    const v = mergeWalk(lo[k], ro[k], fieldType(t, k).type, [...path, fieldElement(k)]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function mergeList(t: ListType, l: JsonValue[], r: JsonValue[], path: PathElement[]): JsonValue[] {
  const rpes = r.map((item, i) => listItemElement(t, item, i, path));
  const robs = new Map<string, JsonValue>();
  rpes.forEach((pe, i) => {
    const k = serializeElement(pe);
    if (robs.has(k)) {
      throw new FieldManagerError(`${where(path)}duplicate entries for key ${pathToString([pe])}`);
    }
    robs.set(k, r[i] as JsonValue);
  });
  const lpes = l.map((item, i) => listItemElement(t, item, i, path));
  const lobs = new Map<string, JsonValue | undefined>();
  lpes.forEach((pe, i) => {
    const k = serializeElement(pe);
    lobs.set(k, lobs.has(k) ? null : l[i]);
  });
  const shared = rpes.filter((pe) => lobs.has(serializeElement(pe))).map(serializeElement);
  let next: string | undefined = shared.shift();
  const merged = new Set<string>();
  const out: JsonValue[] = [];
  const push = (v: JsonValue | undefined): void => {
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lpes.length || ri < rpes.length) {
    if (li < lpes.length && ri < rpes.length) {
      const lk = serializeElement(lpes[li] as PathElement);
      const rk = serializeElement(rpes[ri] as PathElement);
      if (lk === rk) {
        merged.add(lk);
        push(
          mergeWalk(lobs.get(lk) ?? undefined, robs.get(rk), t.elementType, [
            ...path,
            lpes[li] as PathElement,
          ]),
        );
        li++;
        ri++;
        next = shared.shift();
        continue;
      }
      if (robs.has(lk) && next !== undefined && next !== lk) {
        li++;
        continue;
      }
    }
    if (li < lpes.length) {
      const lk = serializeElement(lpes[li] as PathElement);
      if (!robs.has(lk)) {
        push(mergeWalk(l[li], undefined, t.elementType, [...path, lpes[li] as PathElement]));
        li++;
        continue;
      } else if (merged.has(lk)) {
        li++;
      }
    }
    if (ri < rpes.length) {
      const pe = rpes[ri] as PathElement;
      const rk = serializeElement(pe);
      merged.add(rk);
      const lv = lobs.get(rk);
      push(mergeWalk(lv === null ? undefined : lv, robs.get(rk), t.elementType, [...path, pe]));
      ri++;
      if (next !== undefined && next === rk) next = shared.shift();
    }
  }
  return out;
}

/**
 * Removes the fields of a set from a value (structured-merge-diff's `RemoveItems`). A map
 * or list left empty by the removal disappears with it, as the server stores it.
 */
export function removeItems(
  v: JsonValue | undefined,
  set: FieldSet,
  t0: TypeNode,
): JsonValue | undefined {
  if (v === undefined || set.empty()) return v;
  const t = resolve(t0, v);
  if (t.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0 || t.listType === 'atomic') return v;
    const out: JsonValue[] = [];
    v.forEach((item, i) => {
      const pe = listItemElement(t, item, i, []);
      if (set.has([pe])) return;
      const sub = set.withPrefix(pe);
      const kept = sub.empty() ? item : removeItems(item, sub, t.elementType);
      if (kept !== undefined) out.push(kept);
    });
    return out.length > 0 ? out : undefined;
  }
  if (t.kind !== 'map' || !isObj(v) || Object.keys(v).length === 0 || t.atomic) return v;
  const out: Obj = {};
  for (const [k, child] of Object.entries(v)) {
    const pe = fieldElement(k);
    if (set.has([pe])) continue;
    const sub = set.withPrefix(pe);
    const kept = sub.empty() ? child : removeItems(child, sub, fieldType(t, k).type);
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The set plus the named struct fields on the way to its paths (owning `.spec.replicas`
 * then also covers `.spec` when `spec` is a struct field, not when it is a map key).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t0: TypeNode): FieldSet {
  const out = new FieldSet();
  const t: TypeNode =
    t0.kind === 'untyped'
      ? {
          kind: 'map',
          fields: new Map(),
          atomic: false,
          elementType: t0,
          ...(t0.struct ? { openStruct: true } : {}),
        }
      : t0;
  for (const m of set.members()) out.addMember(m);
  for (const { pe, set: child } of set.children()) {
    let childType: TypeNode = { kind: 'untyped' };
    if (pe.kind === 'field' && t.kind === 'map') {
      const f = fieldType(t, pe.name);
      childType = f.type;
      if (f.named) out.addMember(pe);
    } else if (pe.kind !== 'field' && t.kind === 'list') {
      childType = t.elementType;
    }
    out.setChild(pe, ensureNamedFieldsAreMembers(child, childType));
  }
  return out;
}
