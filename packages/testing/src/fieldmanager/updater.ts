/**
 * Ownership bookkeeping of updates and applies (structured-merge-diff's `merge.Updater`),
 * over managers keyed by their identifier.
 *
 * - An **update** takes every field it adds or changes from its other owners (never a
 *   conflict) and keeps what it already owned; a removed field leaves every owner.
 * - An **apply** owns exactly the fields of its configuration. A field it sets to another
 *   value than the live one, owned by another manager, is a conflict unless forced
 *   (forcing takes the field over). A field it owned before and no longer applies is
 *   removed from the object unless another manager still owns it.
 *
 * @module
 */
import type { FieldPath, JsonValue } from './path.js';
import type { TypeNode } from './schema.js';
import { FieldSet } from './set.js';
import {
  compare,
  deepEqual,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  toFieldSet,
} from './typed.js';

/** The fields one manager owns. */
export interface VersionedSet {
  /** The owned fields. */
  set: FieldSet;
  /** apiVersion of the manager's last write. */
  apiVersion: string;
  /** True for an `Apply` manager. */
  applied: boolean;
}

/** Managers by identifier. */
export type ManagedSets = Map<string, VersionedSet>;

/** One field another manager owns, found by an apply. */
export interface Conflict {
  /** The identifier of the owning manager. */
  manager: string;
  /** The field. */
  path: FieldPath;
}

/** Apply conflicts (thrown by {@link applyConfig} unless forced). */
export class ConflictsError extends Error {
  /** Every conflict, grouped by manager (managers in identifier order). */
  readonly conflicts: Conflict[];
  /** @param conflicts - the conflicts. */
  constructor(conflicts: Conflict[]) {
    super(`${conflicts.length} apply conflict(s)`);
    this.name = 'ConflictsError';
    this.conflicts = conflicts;
  }
}

/** Parameters shared by updates and applies. */
export interface UpdaterContext {
  /** The object's type. */
  type: TypeNode;
  /** apiVersion of the request. */
  apiVersion: string;
  /** Fields the request's endpoint resets (status on the main resource, the rest on status). */
  resetFields: FieldSet;
  /** Exact paths no manager owns (apiVersion, kind, metadata.name, …). */
  stripSet: FieldSet;
}

function filtered(set: FieldSet, ctx: UpdaterContext): FieldSet {
  return set.recursiveDifference(ctx.resetFields);
}

function copy(managers: ManagedSets): ManagedSets {
  return new Map([...managers].map(([k, v]) => [k, { ...v }]));
}

function takeOver(
  oldObj: JsonValue,
  newObj: JsonValue,
  managers: ManagedSets,
  workflow: string,
  force: boolean,
  ctx: UpdaterContext,
): { managers: ManagedSets; added: FieldSet; modified: FieldSet; removed: FieldSet } {
  const c = compare(oldObj, newObj, ctx.type);
  const added = filtered(c.added, ctx);
  const modified = filtered(c.modified, ctx);
  const removed = filtered(c.removed, ctx);
  const changed = modified.union(added);
  const conflicts = new Map<string, FieldSet>();
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    const clash = vs.set.intersection(changed);
    if (!clash.empty()) conflicts.set(manager, clash);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const manager of [...conflicts.keys()].sort()) {
      for (const path of (conflicts.get(manager) as FieldSet).paths()) list.push({ manager, path });
    }
    throw new ConflictsError(list);
  }
  const out = copy(managers);
  for (const [manager, vs] of out) {
    if (manager === workflow) continue;
    let set = vs.set;
    const clash = conflicts.get(manager);
    if (clash) set = set.difference(clash);
    if (!removed.empty()) set = set.difference(removed);
    if (set.empty()) out.delete(manager);
    else vs.set = set;
  }
  return { managers: out, added, modified, removed };
}

/**
 * Records an update by `manager` from `liveObj` to `newObj`: the manager owns what it owned
 * plus every field it added or changed; those fields leave their other owners.
 */
export function updateSets(
  liveObj: JsonValue,
  newObj: JsonValue,
  managers: ManagedSets,
  manager: string,
  ctx: UpdaterContext,
): { managers: ManagedSets; touched: boolean } {
  const r = takeOver(liveObj, newObj, managers, manager, true, ctx);
  const prev = r.managers.get(manager);
  const op = r.modified.union(r.added).difference(ctx.stripSet);
  if (op.empty()) {
    if (prev) {
      const set = prev.set.difference(r.removed);
      if (set.empty()) r.managers.delete(manager);
      else prev.set = set;
    }
    return { managers: r.managers, touched: false };
  }
  const set = (prev?.set.difference(r.removed) ?? new FieldSet()).union(op);
  r.managers.set(manager, { set, apiVersion: ctx.apiVersion, applied: false });
  return { managers: r.managers, touched: true };
}

/**
 * Applies `config` for `manager` onto `liveObj`. Returns the new object (`undefined` when
 * it equals the live one) and the managers; throws {@link ConflictsError} unless `force`.
 */
export function applyConfig(
  liveObj: JsonValue,
  config: JsonValue,
  managers: ManagedSets,
  manager: string,
  force: boolean,
  ctx: UpdaterContext,
): { obj: JsonValue | undefined; managers: ManagedSets } {
  let newObj: JsonValue = merge(liveObj, config, ctx.type) ?? {};
  const last = managers.get(manager);
  const set = filtered(toFieldSet(config, ctx.type, false), ctx);
  const next = copy(managers);
  next.set(manager, { set, apiVersion: ctx.apiVersion, applied: true });
  newObj = prune(newObj, next, last, ctx);
  const r = takeOver(liveObj, newObj, next, manager, force, ctx);
  const own = r.managers.get(manager);
  if (own) own.set = own.set.difference(ctx.stripSet);
  if (own && own.set.empty()) r.managers.delete(manager);
  return { obj: deepEqual(liveObj, newObj) ? undefined : newObj, managers: r.managers };
}

/** Removes what the manager applied last time and no longer applies, unless someone owns it. */
function prune(
  merged: JsonValue,
  managers: ManagedSets,
  last: VersionedSet | undefined,
  ctx: UpdaterContext,
): JsonValue {
  if (!last || last.set.empty()) return merged;
  const t = ctx.type;
  const named = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, t);
  let pruned = removeItems(merged, named(last.set), t) ?? {};
  // Add back the items someone owns.
  let owned = new FieldSet();
  for (const vs of managers.values()) owned = owned.union(vs.set);
  const mergedSet = named(toFieldSet(merged, t));
  const prunedSet = named(toFieldSet(pruned, t));
  pruned = removeItems(merged, mergedSet.difference(prunedSet.union(named(owned))), t) ?? {};
  // Add back the items the manager never owned (dangling).
  const prunedSet2 = named(toFieldSet(pruned, t));
  return (
    removeItems(merged, mergedSet.difference(prunedSet2).intersection(named(last.set)), t) ?? {}
  );
}
