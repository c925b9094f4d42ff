/**
 * The fields a write changes, written straight as `FieldsV1`: the added and modified paths
 * of {@link compare}, less the paths under a member of `reset` (its `recursiveDifference`)
 * and less the exact members of `strip` (its `difference`), encoded as
 * {@link setToFieldsV1} encodes them.
 *
 * This is what a writer owns after a write when nobody owned anything before (a create):
 * one walk of the two values, with no {@link FieldSet} built, no path copied per node and
 * no set compared or copied afterwards. The general bookkeeping (`updater.ts`) stays the
 * rule; this computes the same bytes for that one case faster.
 *
 * @module
 */
import type { FieldsV1 } from '../../apimachinery/managed_fields.js';
import type { JsonValue, PathElement } from './path.js';
import { compareElements, fieldElement, serializeElement, serializeItemElement } from './path.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { untyped } from './schema.js';
import type { FieldSet } from './set.js';
import { deepEqual, fits, isEmpty, listItemElement, resolve } from './typed.js';

type Obj = { [k: string]: JsonValue };

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** One changed element below a node: its key, whether it is changed itself, and below it. */
interface Entry {
  readonly key: string;
  readonly pe: PathElement;
  readonly value: FieldsV1;
}

/** The filter sets at the current level (undefined once nothing below can match). */
interface Filters {
  readonly reset: FieldSet | undefined;
  readonly strip: FieldSet | undefined;
}

const NONE: Filters = { reset: undefined, strip: undefined };

function below(set: FieldSet | undefined, pe: PathElement): FieldSet | undefined {
  return set === undefined ? undefined : set.below(pe);
}

/** The type of a map's key (a named field, else the element type, else untyped). */
function keyType(t: MapType, k: string): TypeNode {
  return t.fields.get(k) ?? t.elementType ?? untyped;
}

/**
 * The `FieldsV1` of the fields added or modified from `lhs` to `rhs` (compared by type `t`),
 * without those under a member of `reset` and without the members of `strip`; `undefined`
 * when there are none. Throws `FieldManagerError` where {@link compare} does (a list item
 * that cannot be keyed).
 */
export function changedFieldsV1(
  lhs: JsonValue,
  rhs: JsonValue,
  t: TypeNode,
  reset: FieldSet,
  strip: FieldSet,
): FieldsV1 | undefined {
  const filters: Filters = {
    reset: reset.empty() ? undefined : reset,
    strip: strip.empty() ? undefined : strip,
  };
  const out = walkChildren(lhs, rhs, t, filters, []);
  return out === LEAF || out === undefined ? undefined : encode(out, false);
}

/** Marks a leaf node (compared as a whole). */
const LEAF: Entry[] = [];

/** Walks the node at `pe`, with the filters of its parent's level; its entry, if changed. */
function visit(
  l: JsonValue | undefined,
  r: JsonValue | undefined,
  t0: TypeNode,
  pe: PathElement,
  key: string,
  f: Filters,
  stack: PathElement[],
): Entry | undefined {
  // Only the removed paths are below a node missing on the new side: none is changed.
  if (r === undefined) {
    stack.push(pe);
    checkRemoved(l, t0, stack);
    stack.pop();
    return undefined;
  }
  if (f.reset !== undefined && f.reset.hasMember(pe)) {
    // Nothing below is kept, but the walk refuses what Compare refuses (an unkeyable item).
    stack.push(pe);
    walkChildren(l, r, t0, NONE, stack);
    stack.pop();
    return undefined;
  }
  let next = NONE;
  if (f !== NONE) {
    const reset = below(f.reset, pe);
    const strip = below(f.strip, pe);
    if (reset !== undefined || strip !== undefined) next = { reset, strip };
  }
  stack.push(pe);
  const children = walkChildren(l, r, t0, next, stack);
  stack.pop();
  let member = children === LEAF ? l === undefined || !deepEqual(l, r) : l === undefined;
  if (member && f.strip !== undefined && f.strip.hasMember(pe)) member = false;
  if (children === LEAF || children === undefined) {
    return member ? { key, pe, value: {} } : undefined;
  }
  return { key, pe, value: encode(children, member) };
}

/**
 * Walks the children of a node, as {@link compare} does: {@link LEAF} when the node is
 * compared as a whole, else its changed children (undefined when none).
 */
function walkChildren(
  l: JsonValue | undefined,
  r: JsonValue,
  t0: TypeNode,
  f: Filters,
  stack: PathElement[],
): Entry[] | undefined {
  const t = resolve(t0, r);
  const tl = l === undefined ? t : resolve(t0, l);
  if (
    t.kind !== tl.kind ||
    !fits(t, l) ||
    !fits(t, r) ||
    t.kind === 'scalar' ||
    t.kind === 'untyped'
  ) {
    return LEAF;
  }
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || (isEmpty(l) && isEmpty(r))) return LEAF;
    return walkList(t, Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], f, stack);
  }
  if (t.atomic || (isEmpty(l) && isEmpty(r))) return LEAF;
  const lo = isObj(l) ? l : undefined;
  const ro = isObj(r) ? r : undefined;
  let out: Entry[] | undefined;
  if (ro !== undefined) {
    for (const k in ro) {
      if (!Object.hasOwn(ro, k)) continue;
      const pe = fieldElement(k);
      const e = visit(lo?.[k], ro[k], keyType(t, k), pe, serializeElement(pe), f, stack);
      if (e !== undefined) (out ??= []).push(e);
    }
  }
  if (lo !== undefined) {
    for (const k in lo) {
      if (!Object.hasOwn(lo, k) || (ro !== undefined && Object.hasOwn(ro, k))) continue;
      stack.push(fieldElement(k));
      checkRemoved(lo[k], keyType(t, k), stack);
      stack.pop();
    }
  }
  return out;
}

/**
 * Walks a subtree only the old side has, as {@link compare} does: nothing there is changed,
 * but an item that cannot be keyed is refused all the same.
 */
function checkRemoved(l: JsonValue | undefined, t0: TypeNode, stack: PathElement[]): void {
  if (l === undefined || l === null || typeof l !== 'object') return;
  const t = resolve(t0, l);
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || !Array.isArray(l) || l.length === 0) return;
    const li = indexList(t, l, stack);
    for (let i = 0; i < li.order.length; i++) {
      const ll = li.values.get(li.keys[i] as string) as JsonValue[];
      if (ll.length > 1) continue;
      stack.push(li.order[i] as PathElement);
      checkRemoved(ll[0], t.elementType, stack);
      stack.pop();
    }
    return;
  }
  if (t.kind !== 'map' || t.atomic || !isObj(l)) return;
  for (const k of Object.keys(l)) {
    stack.push(fieldElement(k));
    checkRemoved(l[k], keyType(t, k), stack);
    stack.pop();
  }
}

function indexList(
  t: ListType,
  list: JsonValue[],
  stack: PathElement[],
): { order: PathElement[]; keys: string[]; values: Map<string, JsonValue[]> } {
  const order: PathElement[] = [];
  const keys: string[] = [];
  const values = new Map<string, JsonValue[]>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as JsonValue;
    const pe = listItemElement(t, item, i, stack);
    const k = serializeItemElement(pe);
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

function walkList(
  t: ListType,
  l: JsonValue[],
  r: JsonValue[],
  f: Filters,
  stack: PathElement[],
): Entry[] | undefined {
  const li = l.length === 0 ? undefined : indexList(t, l, stack);
  const ri = indexList(t, r, stack);
  let out: Entry[] | undefined;
  for (let i = 0; i < ri.order.length; i++) {
    const pe = ri.order[i] as PathElement;
    const key = ri.keys[i] as string;
    const rl = ri.values.get(key) as JsonValue[];
    const ll = li?.values.get(key) ?? [];
    let e: Entry | undefined;
    if (ll.length <= 1 && rl.length <= 1) {
      e = visit(ll[0], rl[0], t.elementType, pe, key, f, stack);
    } else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqual(ll, rl)) e = memberOnly(pe, key, f);
    } else if (ll.length >= 2) {
      // Duplicated before, single now: the new item is added.
      e = visit(undefined, rl[0], t.elementType, pe, key, f, stack);
    } else {
      // Duplicated now: the item is owned as a whole.
      if (ll.length > 0) {
        stack.push(pe);
        checkRemoved(ll[0], t.elementType, stack);
        stack.pop();
      }
      e = memberOnly(pe, key, f);
    }
    if (e !== undefined) (out ??= []).push(e);
  }
  // Items only on the old side are removed: nothing changed there.
  if (li === undefined) return out;
  for (let i = 0; i < li.order.length; i++) {
    const k = li.keys[i] as string;
    if (ri.values.has(k)) continue;
    const ll = li.values.get(k) as JsonValue[];
    if (ll.length > 1) continue;
    stack.push(li.order[i] as PathElement);
    checkRemoved(ll[0], t.elementType, stack);
    stack.pop();
  }
  return out;
}

/** The entry of a path changed itself, with nothing below it. */
function memberOnly(pe: PathElement, key: string, f: Filters): Entry | undefined {
  if (f.reset !== undefined && f.reset.hasMember(pe)) return undefined;
  if (f.strip !== undefined && f.strip.hasMember(pe)) return undefined;
  return { key, pe, value: {} };
}

function byElement(a: Entry, b: Entry): number {
  // Field names order as their keys do (`f:` + name); other elements by their own order.
  if (a.pe.kind === 'field' && b.pe.kind === 'field') {
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  }
  return compareElements(a.pe, b.pe);
}

/** A level's FieldsV1, `.` first when the node is itself a member, then its elements in order. */
function encode(entries: Entry[], self: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (self) out['.'] = {};
  if (entries.length > 1) entries.sort(byElement);
  for (const e of entries) out[e.key] = e.value;
  return out;
}
