/**
 * A finalizer helper after kube-rs's `finalizer()`: it runs your `apply` while the object
 * lives and your `cleanup` once when it is being deleted, and makes sure the object is not
 * removed from the cluster before cleanup succeeded.
 *
 * One call per reconcile, with the object from the cache:
 *
 * | object state                               | what happens                                  |
 * | ------------------------------------------ | --------------------------------------------- |
 * | live, without the finalizer                | add the finalizer, then `apply(patched)`      |
 * | live, with the finalizer                   | `apply(obj)`                                  |
 * | deleting (`deletionTimestamp`), with it    | `cleanup(obj)`, then remove the finalizer     |
 * | deleting, without it                       | nothing (resolves `undefined`)                |
 *
 * - `apply` never runs on a deleting object.
 * - The finalizer is removed **only after `cleanup` resolved**; if cleanup throws, the
 *   error propagates (the controller requeues the key with backoff) and the object stays.
 * - Both writes are JSON patches guarded by a `test` operation (the finalizer list, or the
 *   resourceVersion when there is no list), so a concurrent change makes the write fail
 *   with {@link FinalizerConflictError} (a 409 Conflict: `isConflict(err)` is true)
 *   instead of overwriting another writer's finalizers. The controller then reconciles
 *   again with fresh state.
 * - `cleanup` may therefore run more than once (a failed removal, a crash): make it
 *   idempotent.
 *
 * Unlike kube-rs, `apply` runs right after the finalizer was added, in the same call, so a
 * controller filtered by `generationChanged` (which a metadata-only patch does not pass)
 * still applies its first reconcile.
 *
 * @module
 */
import { ApiError, isNotFound } from '../client/errors.js';
import type { PatchOptions, ResourceClient } from '../client/resource_client.js';
import type { KubeObject } from '../client/types.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import { KubeControllerKitError } from '../util/errors.js';

/**
 * What to do with an object guarded by a finalizer.
 *
 * @typeParam T - the object type.
 * @typeParam R - what `apply` resolves to (e.g. a `ReconcileResult`).
 * @typeParam C - what `cleanup` resolves to (by default the same as `apply`).
 */
export interface FinalizerHandlers<T extends KubeObject, R, C = R> {
  /** Bring a live object to its desired state (never called for a deleting object). */
  apply(obj: DeepReadonly<T>): Promise<R> | R;
  /**
   * Release what the object holds outside its own record; must be idempotent. It may
   * return another type than `apply` (typically nothing while `apply` returns a result).
   */
  cleanup(obj: DeepReadonly<T>): Promise<C> | C;
}

/** Options of {@link applyFinalizer}'s writes. */
export interface ApplyFinalizerOptions {
  /** Cancels the patch requests. */
  signal?: AbortSignal;
  /** The field manager recorded for the patches. */
  fieldManager?: string;
}

/**
 * A finalizer patch lost a race: the object changed between the read and the write (its
 * `test` operation failed). Extends {@link ApiError} as a 409 Conflict, so `isConflict`
 * recognises it and the controller retries with fresh state.
 */
export class FinalizerConflictError extends ApiError {
  /** The finalizer being added or removed. */
  readonly finalizer: string;

  /**
   * @param what - `adding` or `removing`; @param finalizer - its name;
   * @param object - which object (`resource "ns/name"`); @param cause - the server's error.
   */
  constructor(what: 'adding' | 'removing', finalizer: string, object: string, cause: unknown) {
    super(
      {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 409,
        reason: 'Conflict',
        message: `${what} finalizer "${finalizer}" on ${object} failed: the object changed since it was read; reconcile again with the current object (a controller requeues it)`,
      },
      { cause },
    );
    this.finalizer = finalizer;
  }
}

/** The finalizer name or the object given to {@link applyFinalizer} is unusable. */
export class InvalidFinalizerError extends KubeControllerKitError {}

type PatchOp =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/**
 * Whether the JSON patch failed to apply. kube-apiserver answers a patch that does not apply
 * (a failed `test`, a path that moved) with a generic 422 that keeps no cause ("the server
 * rejected our request due to an error in our request"); some servers and proxies keep the
 * cause ("testing value … failed"). The patches sent here are well-formed, so either means
 * the object changed since it was read.
 */
function isFailedTest(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.code !== 422) return false;
  const texts = [err.message, ...(err.details?.causes ?? []).map((c) => c.message ?? '')];
  return texts.some((t) =>
    /\btest(ing value| failed)|rejected our request due to an error in our request/i.test(t),
  );
}

/**
 * Run `handlers.apply` or `handlers.cleanup` for `obj` under the finalizer `finalizerName`
 * (see the module rules). Resolves with what the handler returned, or `undefined` when
 * nothing ran (a deleting object without this finalizer).
 *
 * @param client - a client of the object's resource (scoped or not; the object's
 *   namespace is used).
 * @param finalizerName - a qualified name, e.g. `example.com/cleanup`.
 * @param obj - the object as last seen (usually from a lister: a read-only cached object,
 *   which is never modified).
 * @throws {@link FinalizerConflictError} when the object changed concurrently;
 *   {@link InvalidFinalizerError} for an empty finalizer name or an object without a name;
 *   any error of the handlers or of the API server.
 *
 * @example
 * ```ts
 * reconcile: async (key) => {
 *   const app = lister.tryGet(key);
 *   if (!app) return;
 *   return applyFinalizer(apps, 'example.com/cleanup', app, {
 *     apply: (a) => ensureChildren(a),
 *     cleanup: (a) => deleteExternalRecord(a),
 *   });
 * }
 * ```
 */
export async function applyFinalizer<T extends KubeObject, R, C = R>(
  client: ResourceClient<T>,
  finalizerName: string,
  obj: NoInfer<T> | DeepReadonly<NoInfer<T>>,
  handlers: FinalizerHandlers<T, R, C>,
  options: ApplyFinalizerOptions = {},
): Promise<R | C | undefined> {
  if (typeof finalizerName !== 'string' || finalizerName === '') {
    throw new InvalidFinalizerError(
      'applyFinalizer needs a non-empty finalizer name, e.g. "example.com/cleanup"',
    );
  }
  const view = obj as unknown as DeepReadonly<T>;
  const meta = (obj as unknown as KubeObject).metadata;
  const name = meta?.name;
  if (name === undefined || name === '') {
    throw new InvalidFinalizerError(
      `applyFinalizer: the ${client.resource.resource} object has no metadata.name; pass an object read from the API server or a cache`,
    );
  }
  const namespace = client.resource.namespaced ? (meta?.namespace ?? '') : '';
  const scoped =
    !client.resource.namespaced || namespace === (client.namespaceName ?? '')
      ? client
      : client.namespace(namespace);
  const describe = `${client.resource.resource} "${namespace === '' ? name : `${namespace}/${name}`}"`;
  const patchOptions: PatchOptions = { type: 'json' };
  if (options.signal !== undefined) patchOptions.signal = options.signal;
  if (options.fieldManager !== undefined) patchOptions.fieldManager = options.fieldManager;

  const finalizers = meta?.finalizers;
  const index = finalizers?.indexOf(finalizerName) ?? -1;

  if (meta?.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) {
    if (index < 0) return undefined;
    const result = await handlers.cleanup(view);
    const ops: PatchOp[] = [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizerName },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ];
    try {
      await scoped.patch(name, ops, patchOptions);
    } catch (err) {
      if (isNotFound(err)) return result; // already gone: nothing left to hold
      if (isFailedTest(err))
        throw new FinalizerConflictError('removing', finalizerName, describe, err);
      throw err;
    }
    return result;
  }

  if (index >= 0) return handlers.apply(view);

  const ops: PatchOp[] = [];
  if (finalizers !== undefined) {
    ops.push({ op: 'test', path: '/metadata/finalizers', value: [...finalizers] });
    ops.push({ op: 'add', path: '/metadata/finalizers/-', value: finalizerName });
  } else {
    const rv = meta?.resourceVersion;
    if (rv !== undefined && rv !== '') {
      ops.push({ op: 'test', path: '/metadata/resourceVersion', value: rv });
    }
    ops.push({ op: 'add', path: '/metadata/finalizers', value: [finalizerName] });
  }
  let patched: T;
  try {
    patched = await scoped.patch(name, ops, patchOptions);
  } catch (err) {
    if (isFailedTest(err)) throw new FinalizerConflictError('adding', finalizerName, describe, err);
    throw err;
  }
  return handlers.apply(patched as unknown as DeepReadonly<T>);
}
