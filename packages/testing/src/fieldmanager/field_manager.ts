/**
 * The field manager of the test API server: kube-apiserver's managedFields pipeline over
 * the pure rules of this module.
 *
 * On every create, update and non-apply patch ({@link updateManagedFields}):
 * - the request's `metadata.managedFields` replace the stored ones when they decode, a
 *   single empty entry `[{}]` clears them, anything else (absent, `[]`, undecodable) keeps
 *   the stored ones; a subresource write always keeps the stored ones;
 * - an object stored without managedFields stays without them until an apply (creates
 *   are always tracked);
 * - the writer's `Update` entry owns what it owned plus what it added or changed, and
 *   takes those fields from every other manager; at most 10 `Update` entries are kept
 *   (the oldest merge into `ancient-changes`).
 *
 * On apply ({@link applyToObject}), an object without managedFields first gets a
 * `before-first-apply` `Update` entry owning all its fields; conflicts are a 409 with
 * kube-apiserver's message and `FieldManagerConflict` causes.
 *
 * @module
 */
import type { ApiError, ManagedFieldsEntry } from 'kube-controller-kit';
import { statusError } from '../status.js';
import { changedFieldsV1 } from './changed_fields.js';
import { FieldManagerError } from './errors.js';
import type { Managed } from './managed_fields.js';
import {
  conflictStatus,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
} from './managed_fields.js';
import type { JsonValue } from './path.js';
import { makePath } from './path.js';
import type { TypeNode } from './schema.js';
import { FieldSet } from './set.js';
import type { UpdaterContext } from './updater.js';
import { applyConfig, ConflictsError, updateSets } from './updater.js';

type Obj = { [k: string]: JsonValue };

/** What the field manager needs to know about the resource and the request. */
export interface FieldManagerScope {
  /** The object's type. */
  type: TypeNode;
  /** Dotted paths of structs every object of the type carries (built-ins). */
  implicitStructs: readonly string[];
  /** apiVersion of the request (`apps/v1`). */
  apiVersion: string;
  /** Kind of the resource. */
  kind: string;
  /** `''`, `status` or `scale`. */
  subresource: string;
  /** Whether the resource has a status subresource (its writes reset the other part). */
  statusSubresource: boolean;
  /** Now, RFC 3339 with seconds. */
  now: string;
}

/** Most `Update` entries kept; the oldest merge into `ancient-changes`. */
export const MAX_UPDATE_MANAGERS = 10;

/** The paths no manager owns (kube-apiserver's stripMeta set). */
export const STRIP = FieldSet.of(
  makePath('apiVersion'),
  makePath('kind'),
  makePath('metadata'),
  makePath('metadata', 'name'),
  makePath('metadata', 'namespace'),
  makePath('metadata', 'creationTimestamp'),
  makePath('metadata', 'selfLink'),
  makePath('metadata', 'uid'),
  makePath('metadata', 'clusterName'),
  makePath('metadata', 'generation'),
  makePath('metadata', 'managedFields'),
  makePath('metadata', 'resourceVersion'),
);

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// Sets are never changed once built: one of each, shared by every write.
const NO_RESETS = new FieldSet();
/** What a write through the status endpoint resets (a resource with a status subresource). */
export const STATUS_ENDPOINT_RESETS = FieldSet.of(makePath('metadata'), makePath('spec'));
/** What a write through the main endpoint resets (a resource with a status subresource). */
export const MAIN_ENDPOINT_RESETS = FieldSet.of(makePath('status'));

function resetFields(scope: FieldManagerScope): FieldSet {
  if (!scope.statusSubresource) return NO_RESETS;
  if (scope.subresource === 'status') return STATUS_ENDPOINT_RESETS;
  if (scope.subresource === '' || scope.subresource === 'scale') return MAIN_ENDPOINT_RESETS;
  return NO_RESETS;
}

function context(scope: FieldManagerScope): UpdaterContext {
  return {
    type: scope.type,
    apiVersion: scope.apiVersion,
    resetFields: resetFields(scope),
    stripSet: STRIP,
  };
}

const DOTTED = new Map<string, readonly string[]>();

/** `a.b` as `['a', 'b']`, split once per path (the paths are the built-ins' few). */
function splitDotted(dotted: string): readonly string[] {
  let parts = DOTTED.get(dotted);
  if (parts === undefined) {
    parts = dotted.split('.');
    DOTTED.set(dotted, parts);
  }
  return parts;
}

/**
 * The object without metadata.managedFields and with the type's implicit structs present
 * (`{}` where missing). Only the objects on the way to a change are copied (never the
 * object's own nested values, which stay shared and are never written).
 */
function comparable(obj: Obj, scope: FieldManagerScope): Obj {
  const out: Obj = { ...obj };
  const m = out.metadata;
  if (isObj(m) && m.managedFields !== undefined) {
    // A copy without the key (`delete` would leave the copy a slow dictionary).
    const meta: Obj = {};
    for (const k of Object.keys(m)) if (k !== 'managedFields') meta[k] = m[k] as JsonValue;
    out.metadata = meta;
  }
  // The objects copied so far (made when a path is missing: usually just `status`).
  let copied: Obj[] | undefined;
  for (const dotted of scope.implicitStructs) {
    const parts = splitDotted(dotted);
    // Nothing to add when the whole path is there (or blocked by a non-object).
    let cur: JsonValue | undefined = out;
    let missing = false;
    for (const part of parts) {
      const v: JsonValue | undefined = cur[part];
      if (v === undefined) {
        missing = true;
        break;
      }
      if (!isObj(v)) break;
      cur = v;
    }
    if (!missing) continue;
    copied ??= [out];
    let at: Obj = out;
    for (const part of parts) {
      const v = at[part];
      let next: Obj;
      if (v === undefined) next = {};
      else if (!isObj(v)) break;
      else if (copied.includes(v)) next = v;
      else next = { ...v };
      copied.push(next);
      at[part] = next;
      at = next;
    }
  }
  return out;
}

const EMPTY_COMPARABLES = new WeakMap<readonly string[], Map<string, Obj>>();

/**
 * `comparable(emptyObject(scope))`, built once per type and apiVersion (it is only read:
 * the walk never writes the values it compares).
 */
function emptyComparable(scope: FieldManagerScope): Obj {
  if (scope.implicitStructs.length === 0) return emptyObject(scope);
  let byVersion = EMPTY_COMPARABLES.get(scope.implicitStructs);
  if (byVersion === undefined) {
    byVersion = new Map();
    EMPTY_COMPARABLES.set(scope.implicitStructs, byVersion);
  }
  const key = `${scope.apiVersion} ${scope.kind}`;
  let obj = byVersion.get(key);
  if (obj === undefined) {
    obj = comparable(emptyObject(scope), scope);
    byVersion.set(key, obj);
  }
  return obj;
}

function emptyObject(scope: FieldManagerScope): Obj {
  return { apiVersion: scope.apiVersion, kind: scope.kind };
}

function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.sets].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const secs = (id: string): number => {
    const t = managed.times.get(id);
    return t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
  };
  updaters.sort((a, b) => secs(a) - secs(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i] as string;
    const vs = managed.sets.get(id);
    if (!vs) continue;
    const bucket = managerIdentifier({
      manager: 'ancient-changes',
      operation: 'Update',
      apiVersion: vs.apiVersion,
    });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.sets.has(bucket)) {
      const firstSet = managed.sets.get(first);
      managed.sets.delete(first);
      if (firstSet) managed.sets.set(bucket, firstSet);
    }
    const b = managed.sets.get(bucket);
    managed.sets.set(bucket, {
      set: vs.set.union(b?.set ?? new FieldSet()),
      apiVersion: vs.apiVersion,
      applied: vs.applied,
    });
    managed.sets.delete(id);
    managed.times.set(bucket, managed.times.get(id));
    length--;
  }
}

function withManagedFields(obj: Obj, managed: Managed): Obj {
  const meta: Obj = isObj(obj.metadata) ? { ...obj.metadata } : {};
  const entries = encodeManagedFields(managed);
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries as unknown as JsonValue;
  return { ...obj, metadata: meta };
}

function decodeOrEmpty(entries: unknown): Managed | undefined {
  try {
    return decodeManagedFields(entries);
  } catch {
    return undefined;
  }
}

function recordUpdate(
  live: Obj,
  next: Obj,
  managed: Managed,
  manager: string,
  scope: FieldManagerScope,
): Managed {
  const id = managerIdentifier({
    manager: manager === '' ? 'unknown' : manager,
    operation: 'Update',
    apiVersion: scope.apiVersion,
    subresource: scope.subresource,
  });
  const r = updateSets(
    comparable(live, scope),
    comparable(next, scope),
    managed.sets,
    id,
    context(scope),
  );
  const times = new Map(managed.times);
  if (r.touched) times.set(id, scope.now);
  for (const k of [...times.keys()]) if (!r.managers.has(k)) times.delete(k);
  const out = { sets: r.managers, times };
  capUpdateManagers(out);
  return out;
}

/**
 * {@link updateManagedFields} when nobody owned anything before (a create): the writer's
 * `Update` entry owns every field the object sets, less the reset and stripped ones —
 * what {@link recordUpdate} computes from an empty object, without its set bookkeeping.
 */
function createdFields(next: Obj, manager: string, scope: FieldManagerScope): Obj {
  const fields = changedFieldsV1(
    emptyComparable(scope),
    comparable(next, scope),
    scope.type,
    resetFields(scope),
    STRIP,
  );
  const meta: Obj = isObj(next.metadata) ? { ...next.metadata } : {};
  if (fields === undefined) {
    delete meta.managedFields;
    return { ...next, metadata: meta };
  }
  // The entry as encodeManagedFields writes it (its keys in the same order).
  const entry: ManagedFieldsEntry = {
    manager: manager === '' ? 'unknown' : manager,
    operation: 'Update',
    apiVersion: scope.apiVersion,
    time: scope.now,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
  };
  if (scope.subresource !== '') entry.subresource = scope.subresource;
  meta.managedFields = [entry] as unknown as JsonValue;
  return { ...next, metadata: meta };
}

/**
 * The object to store after a create (`live` undefined), update or non-apply patch by
 * `manager`, with its managedFields recorded. Never fails: an object whose fields cannot
 * be tracked is stored without managedFields, as kube-apiserver does.
 */
export function updateManagedFields(
  live: Obj | undefined,
  next: Obj,
  manager: string,
  scope: FieldManagerScope,
): Obj {
  const liveMeta = live && isObj(live.metadata) ? live.metadata : {};
  const nextMeta = isObj(next.metadata) ? next.metadata : {};
  let managed: Managed;
  const requested = nextMeta.managedFields;
  if (live === undefined && requested === undefined) {
    // A create without managedFields (the usual one): nothing to decode, nobody owned anything.
    try {
      return createdFields(next, manager, scope);
    } catch (err) {
      if (err instanceof FieldManagerError) return withManagedFields(next, emptyManaged());
      throw err;
    }
  }
  if (scope.subresource !== '' || requested === undefined) {
    managed = decodeOrEmpty(liveMeta.managedFields) ?? emptyManaged();
  } else if (isResetManagedFields(requested)) {
    managed = emptyManaged();
  } else {
    const fromRequest = decodeOrEmpty(requested);
    managed =
      fromRequest && fromRequest.sets.size > 0
        ? fromRequest
        : (decodeOrEmpty(liveMeta.managedFields) ?? emptyManaged());
  }
  const bare = withManagedFields(next, emptyManaged());
  if (managed.sets.size === 0 && live !== undefined) return bare;
  try {
    if (live === undefined && managed.sets.size === 0) return createdFields(next, manager, scope);
    return withManagedFields(
      next,
      recordUpdate(live ?? emptyObject(scope), bare, managed, manager, scope),
    );
  } catch (err) {
    if (err instanceof FieldManagerError) return bare;
    throw err;
  }
}

/**
 * Server-side apply of `patch` by `manager` onto `live` (undefined: the object does not
 * exist yet). Returns the object to store, with managedFields. Throws the server's
 * `ApiError`s: 409 on conflicts (unless `force`), 400 for a patch of another type or with
 * managedFields, 500 for a configuration that cannot be typed (e.g. a list item without
 * its key).
 */
export function applyToObject(
  live: Obj | undefined,
  patch: Obj,
  manager: string,
  force: boolean,
  scope: FieldManagerScope,
): Obj {
  const [group, version] = splitApiVersion(scope.apiVersion);
  const [pg, pv] = splitApiVersion(typeof patch.apiVersion === 'string' ? patch.apiVersion : '');
  const pk = typeof patch.kind === 'string' ? patch.kind : '';
  if (pg !== group || pv !== version || pk !== scope.kind) {
    throw statusError(400, 'BadRequest', `invalid object type: ${pg}/${pv}, Kind=${pk}`);
  }
  const patchMeta = isObj(patch.metadata) ? patch.metadata : {};
  if (patchMeta.managedFields !== undefined && patchMeta.managedFields !== null) {
    throw statusError(400, 'BadRequest', 'metadata.managedFields must be nil');
  }
  const current = live ?? emptyObject(scope);
  const liveMeta = isObj(current.metadata) ? current.metadata : {};
  let managed: Managed;
  try {
    managed = decodeManagedFields(liveMeta.managedFields);
  } catch (err) {
    throw statusError(
      500,
      'InternalError',
      `failed to decode managed fields: ${(err as Error).message}`,
    );
  }
  const liveCmp = withManagedFields(current, emptyManaged());
  if (managed.sets.size === 0) {
    managed = recordUpdate(emptyObject(scope), current, managed, 'before-first-apply', scope);
  }
  const id = managerIdentifier({ manager, operation: 'Apply', subresource: scope.subresource });
  let result: ReturnType<typeof applyConfig>;
  try {
    result = applyConfig(liveCmp, patch, managed.sets, id, force, context(scope));
  } catch (err) {
    if (err instanceof ConflictsError) throw applyConflict(err);
    if (err instanceof FieldManagerError) {
      const ns = typeof liveMeta.namespace === 'string' ? liveMeta.namespace : '';
      const name = typeof patchMeta.name === 'string' ? patchMeta.name : '';
      throw statusError(
        500,
        'InternalError',
        `failed to create typed patch object (${ns}/${name}; ${scope.apiVersion}, Kind=${scope.kind}): ${err.message}`,
      );
    }
    throw err;
  }
  const times = new Map(managed.times);
  for (const k of [...times.keys()]) if (!result.managers.has(k)) times.delete(k);
  let obj: Obj;
  if (result.obj !== undefined && isObj(result.obj)) {
    times.set(id, scope.now);
    obj = result.obj;
  } else {
    obj = current;
  }
  return withManagedFields(obj, { sets: result.managers, times });
}

function splitApiVersion(apiVersion: string): [string, string] {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

function applyConflict(err: ConflictsError): ApiError {
  const { message, causes } = conflictStatus(err.conflicts);
  return statusError(409, 'Conflict', message, { causes });
}
