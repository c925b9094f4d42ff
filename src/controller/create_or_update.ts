/**
 * `createOrUpdate` and `createOrPatch` with controller-runtime's `controllerutil` semantics:
 * read the object; when it does not exist, run `mutate` on the given object and create it;
 * otherwise run `mutate` on the object read from the server, compare with what was read, and
 * write only when something changed.
 *
 * - {@link createOrUpdate} writes with PUT (update); the result is `created`, `updated` or
 *   `unchanged`.
 * - {@link createOrPatch} sends a JSON merge patch of what `mutate` changed, and patches the
 *   `status` subresource separately when the status changed: `updatedStatus` (both) or
 *   `updatedStatusOnly`.
 *
 * `mutate` must not change `metadata.name` or `metadata.namespace` ({@link MutateIdentityError}).
 *
 * @module
 */
import { isNotFound } from '../client/errors.js';
import { NamespaceMismatchError } from '../client/resource_client.js';
import type { ResourceClient, WriteOptions } from '../client/resource_client.js';
import type { KubeObject } from '../client/types.js';
import { KubeControllerKitError } from '../util/errors.js';

/** What {@link createOrUpdate} / {@link createOrPatch} did (controllerutil's `OperationResult`). */
export type OperationResult =
  'created' | 'updated' | 'unchanged' | 'updatedStatus' | 'updatedStatusOnly';

/** The result of {@link createOrUpdate} / {@link createOrPatch}. */
export interface CreateOrUpdateResult<T> {
  /** What was done. */
  result: OperationResult;
  /** The object as the server returned it after the last write (or as read, when unchanged). */
  object: T;
}

/** The function that brings an object to the desired state (in place). */
export type MutateFn<T> = (obj: T) => void | Promise<void>;

/** `mutate` changed the object's name or namespace. */
export class MutateIdentityError extends KubeControllerKitError {}

/** The object given to createOrUpdate / createOrPatch has no name. */
export class MissingObjectNameError extends KubeControllerKitError {}

function identity(obj: KubeObject): string {
  const ns = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  return ns === '' ? name : `${ns}/${name}`;
}

/** The name and namespace `mutate` must keep. */
interface ObjectKey {
  name: string;
  namespace: string | undefined;
}

async function runMutate<T extends KubeObject>(
  mutate: MutateFn<T>,
  obj: T,
  key: ObjectKey,
): Promise<void> {
  await mutate(obj);
  const name = obj.metadata?.name;
  const namespace = obj.metadata?.namespace;
  const nsChanged = (namespace ?? '') !== (key.namespace ?? '') && namespace !== undefined;
  if (name !== key.name || nsChanged) {
    throw new MutateIdentityError(
      `the mutate function cannot change the object's name or namespace: it was ` +
        `"${key.namespace === undefined ? key.name : `${key.namespace}/${key.name}`}", ` +
        `mutate made it "${identity(obj)}"`,
    );
  }
}

function scopedClient<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
): { scoped: ResourceClient<T>; name: string; namespace: string | undefined } {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') {
    throw new MissingObjectNameError(
      `createOrUpdate/createOrPatch of a ${client.resource.kind} needs metadata.name (generateName cannot be matched to an existing object)`,
    );
  }
  if (!client.resource.namespaced) return { scoped: client, name, namespace: undefined };
  const own = obj.metadata?.namespace === '' ? undefined : obj.metadata?.namespace;
  if (own !== undefined && client.namespaceName !== undefined && own !== client.namespaceName) {
    throw new NamespaceMismatchError(
      `${client.resource.kind} "${own}/${name}" is in namespace "${own}" but the client is scoped to ` +
        `"${client.namespaceName}"; use .namespace("${own}") or fix metadata.namespace`,
    );
  }
  const namespace = own ?? client.namespaceName;
  const scoped =
    namespace === undefined || namespace === client.namespaceName
      ? client
      : client.namespace(namespace);
  return { scoped, name, namespace };
}

/** Plain-JSON deep copy (objects here are always JSON). */
function copy<T>(v: T): T {
  return structuredClone(v);
}

/**
 * Deep equality of JSON values, ignoring key order; `undefined` members count as absent.
 *
 * @internal
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/**
 * The RFC 7386 JSON merge patch that turns `before` into `after`: changed members with their
 * new value, removed members as `null`, objects recursively, arrays whole.
 */
export function createMergePatch(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(before)) {
    if (v !== undefined && (!Object.hasOwn(after, k) || after[k] === undefined)) patch[k] = null;
  }
  for (const [k, v] of Object.entries(after)) {
    if (v === undefined) continue;
    const old = before[k];
    if (jsonEqual(old, v)) continue;
    patch[k] = isPlainObject(old) && isPlainObject(v) ? createMergePatch(old, v) : copy(v);
  }
  return patch;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The shared first step of {@link createOrUpdate} and {@link createOrPatch}: reads the object
 * by name; when it is absent, runs `mutate` on a copy of `obj` and creates it.
 */
async function readOrCreate<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: MutateFn<T>,
  options: WriteOptions,
): Promise<
  | { created: CreateOrUpdateResult<T> }
  | { scoped: ResourceClient<T>; name: string; key: ObjectKey; current: T }
> {
  const { scoped, name, namespace } = scopedClient(client, obj);
  const key = { name, namespace };
  try {
    const current = await scoped.get(name, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    return { scoped, name, key, current };
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const fresh = copy(obj);
    await runMutate(mutate, fresh, key);
    return { created: { result: 'created', object: await scoped.create(fresh, options) } };
  }
}

/**
 * Creates or updates `obj` (controllerutil `CreateOrUpdate`). Reads it by name (and
 * namespace); if absent, runs `mutate` on `obj` and creates it (`created`); otherwise runs
 * `mutate` on the object read and, when that changed anything, updates it with PUT
 * (`updated`, with the read resourceVersion, so a concurrent write fails with 409 Conflict —
 * wrap in `retryOnConflict`), else writes nothing (`unchanged`).
 *
 * @example
 * ```ts
 * const { result } = await createOrUpdate(configMaps, { metadata: { name: 'web', namespace: 'default' } }, (cm) => {
 *   cm.data = { greeting: 'hello' };
 *   setControllerReference(app, cm);
 * });
 * ```
 * @throws MutateIdentityError when `mutate` changes the name or namespace.
 * @throws ApiError when a read or write fails (other than the NotFound that leads to create).
 */
export async function createOrUpdate<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: MutateFn<T>,
  options: WriteOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  const read = await readOrCreate(client, obj, mutate, options);
  if ('created' in read) return read.created;
  const { scoped, key, current } = read;
  const existing = copy(current);
  await runMutate(mutate, current, key);
  if (jsonEqual(existing, current)) return { result: 'unchanged', object: existing };
  return { result: 'updated', object: await scoped.update(current, options) };
}

/**
 * Creates or patches `obj` (controllerutil `CreateOrPatch`). Like {@link createOrUpdate},
 * but an existing object is changed with a JSON merge patch of what `mutate` changed
 * outside `status`, and a separate merge patch of the `status` subresource when the status
 * changed. Results: `created`, `updated` (spec/metadata only), `updatedStatus` (both),
 * `updatedStatusOnly`, `unchanged`. On create, `status` is not written (servers ignore it on
 * create for resources with a status subresource).
 */
export async function createOrPatch<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: MutateFn<T>,
  options: WriteOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  const read = await readOrCreate(client, obj, mutate, options);
  if ('created' in read) return read.created;
  const { scoped, name, key, current } = read;
  const before = copy(current) as unknown as Record<string, unknown>;
  await runMutate(mutate, current, key);
  const after = copy(current) as unknown as Record<string, unknown>;
  const beforeStatus = before.status;
  const afterStatus = after.status;
  delete before.status;
  delete after.status;

  let result: OperationResult = 'unchanged';
  let object = current;
  if (!jsonEqual(before, after)) {
    object = await scoped.patch(name, createMergePatch(before, after), {
      ...options,
      type: 'merge',
    });
    result = 'updated';
  }
  if (
    (beforeStatus !== undefined || afterStatus !== undefined) &&
    !jsonEqual(beforeStatus, afterStatus)
  ) {
    const statusPatch = createMergePatch(
      { status: beforeStatus ?? {} },
      { status: afterStatus ?? {} },
    );
    object = await scoped.patch(name, statusPatch, {
      ...options,
      type: 'merge',
      subresource: 'status',
    });
    result = result === 'updated' ? 'updatedStatus' : 'updatedStatusOnly';
  }
  return { result, object };
}
