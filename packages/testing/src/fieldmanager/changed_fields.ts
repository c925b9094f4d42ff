/**
 * The fields a write changes, written straight as `FieldsV1`: the added and modified paths
 * of {@link compare}, less the paths under a member of `reset` (its `recursiveDifference`)
 * and less the exact members of `strip` (its `difference`), encoded as
 * {@link setToFieldsV1} encodes them.
 *
 * This is what a writer owns after a write when nobody owned anything before (a create):
 * one walk of the two values, with no {@link FieldSet} built, no path copied per node and
 * no set compared or copied afterwards. The general bookkeeping (`updater.ts`) stays the
 * rule; this computes the same bytes for that one case faster. Leaves are the shared
 * {@link FIELDS_LEAF}, as {@link setToFieldsV1} writes them.
 *
 * @module
 */
import type { FieldsV1 } from 'kube-controller-kit';
import type { JsonValue, PathElement } from './path.js';
import { FIELDS_LEAF } from './fields_v1.js';
import { compareElements, fieldElement, serializeElement, serializeItemElement } from './path.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { untyped } from './schema.js';
import type { FieldSet } from './set.js';
import { deepEqual, fits, indexList, isEmpty, resolve } from './typed.js';

type Obj = { [k: string]: JsonValue };

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
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

/**
 * Sorts an object's keys as `Array.prototype.sort()` does (by UTF-16 code units), in
 * place: an insertion sort with `<` (an object has a few keys, and the default sort
 * compares through string conversion).
 */
function sortKeys(keys: string[]): void {
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
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
  const out: FieldsV1 = {};
  const n = walkChildren(lhs, rhs, t, out, filters, []);
  return n > 0 ? out : undefined;
}

/**
 * Walks the node at `pe`, with the filters of its parent's level: its `FieldsV1` value
 * (`{}` for a changed leaf, `.` first when the node is changed itself and has changes
 * below), or undefined when nothing changed there.
 */
function visit(
  l: JsonValue | undefined,
  r: JsonValue | undefined,
  t0: TypeNode,
  pe: PathElement,
  f: Filters,
  stack: PathElement[],
): FieldsV1 | undefined {
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
    walkChildren(l, r, t0, {}, NONE, stack);
    stack.pop();
    return undefined;
  }
  const stripped = f.strip !== undefined && f.strip.hasMember(pe);
  const t = resolve(t0, r);
  if (isLeafOf(l, r, t0, t)) {
    return !stripped && (l === undefined || !deepEqual(l, r)) ? FIELDS_LEAF : undefined;
  }
  let next = NONE;
  if (f !== NONE) {
    const reset = below(f.reset, pe);
    const strip = below(f.strip, pe);
    if (reset !== undefined || strip !== undefined) next = { reset, strip };
  }
  // A node that appears is itself added (known before its children are walked).
  const member = l === undefined && !stripped;
  const out: FieldsV1 = member ? { '.': FIELDS_LEAF } : {};
  stack.push(pe);
  const n = walkNode(l, r, t, out, next, stack);
  stack.pop();
  if (n > 0) return out;
  return member ? FIELDS_LEAF : undefined;
}

/**
 * Whether {@link compare} compares the two values as a whole (`t` is `t0` resolved for
 * `r`).
 */
function isLeafOf(l: JsonValue | undefined, r: JsonValue, t0: TypeNode, t: TypeNode): boolean {
  if (t.kind === 'scalar' || t.kind === 'untyped') return true;
  if (l !== undefined && resolve(t0, l).kind !== t.kind) return true;
  if (!fits(t, l) || !fits(t, r)) return true;
  if (t.kind === 'list') return t.listType === 'atomic' || (isEmpty(l) && isEmpty(r));
  return t.atomic || (isEmpty(l) && isEmpty(r));
}

/**
 * Writes the changed children of a (non-leaf) node into `out`, in the elements' order;
 * returns how many. A leaf has none.
 */
function walkChildren(
  l: JsonValue | undefined,
  r: JsonValue,
  t0: TypeNode,
  out: FieldsV1,
  f: Filters,
  stack: PathElement[],
): number {
  const t = resolve(t0, r);
  if (isLeafOf(l, r, t0, t)) return 0;
  return walkNode(l, r, t, out, f, stack);
}

/** {@link walkChildren} of a node known not to be a leaf, `t` resolved for `r`. */
function walkNode(
  l: JsonValue | undefined,
  r: JsonValue,
  t: TypeNode,
  out: FieldsV1,
  f: Filters,
  stack: PathElement[],
): number {
  if (t.kind === 'list') {
    return walkList(t, Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], out, f, stack);
  }
  if (t.kind !== 'map') return 0;
  const lo = isObj(l) ? l : undefined;
  const ro = isObj(r) ? r : undefined;
  let n = 0;
  if (ro !== undefined) {
    // Field elements order by name, as their keys (`f:` + name) do.
    const keys = Object.keys(ro);
    if (keys.length > 1) sortKeys(keys);
    for (const k of keys) {
      const pe = fieldElement(k);
      const v = visit(lo?.[k], ro[k], keyType(t, k), pe, f, stack);
      if (v !== undefined) {
        out[serializeElement(pe)] = v;
        n++;
      }
    }
  }
  if (lo !== undefined) {
    for (const k of Object.keys(lo)) {
      if (ro !== undefined && Object.hasOwn(ro, k)) continue;
      stack.push(fieldElement(k));
      checkRemoved(lo[k], keyType(t, k), stack);
      stack.pop();
    }
  }
  return n;
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
    const li = indexList(t, l, stack, serializeItemElement);
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

/** The indexes of `elems` in the elements' order (an insertion sort: lists are short). */
function itemOrder(elems: readonly PathElement[]): number[] {
  const order = new Array<number>(elems.length);
  for (let i = 0; i < elems.length; i++) {
    const pe = elems[i] as PathElement;
    let j = i - 1;
    while (j >= 0 && compareElements(elems[order[j] as number] as PathElement, pe) > 0) {
      order[j + 1] = order[j] as number;
      j--;
    }
    order[j + 1] = i;
  }
  return order;
}

function walkList(
  t: ListType,
  l: JsonValue[],
  r: JsonValue[],
  out: FieldsV1,
  f: Filters,
  stack: PathElement[],
): number {
  const li = l.length === 0 ? undefined : indexList(t, l, stack, serializeItemElement);
  const ri = indexList(t, r, stack, serializeItemElement);
  const order = itemOrder(ri.order);
  let n = 0;
  for (const i of order) {
    const pe = ri.order[i] as PathElement;
    const key = ri.keys[i] as string;
    const rl = ri.values.get(key) as JsonValue[];
    const ll = li?.values.get(key) ?? [];
    let v: FieldsV1 | undefined;
    if (ll.length <= 1 && rl.length <= 1) {
      v = visit(ll[0], rl[0], t.elementType, pe, f, stack);
    } else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqual(ll, rl)) v = memberOnly(pe, f);
    } else if (ll.length >= 2) {
      // Duplicated before, single now: the new item is added.
      v = visit(undefined, rl[0], t.elementType, pe, f, stack);
    } else {
      // Duplicated now: the item is owned as a whole.
      if (ll.length > 0) {
        stack.push(pe);
        checkRemoved(ll[0], t.elementType, stack);
        stack.pop();
      }
      v = memberOnly(pe, f);
    }
    if (v !== undefined) {
      out[key] = v;
      n++;
    }
  }
  // Items only on the old side are removed: nothing changed there.
  if (li === undefined) return n;
  for (let i = 0; i < li.order.length; i++) {
    const k = li.keys[i] as string;
    if (ri.values.has(k)) continue;
    const ll = li.values.get(k) as JsonValue[];
    if (ll.length > 1) continue;
    stack.push(li.order[i] as PathElement);
    checkRemoved(ll[0], t.elementType, stack);
    stack.pop();
  }
  return n;
}

/** The value of a path changed itself, with nothing below it (unless filtered out). */
function memberOnly(pe: PathElement, f: Filters): FieldsV1 | undefined {
  if (f.reset !== undefined && f.reset.hasMember(pe)) return undefined;
  if (f.strip !== undefined && f.strip.hasMember(pe)) return undefined;
  return FIELDS_LEAF;
}
