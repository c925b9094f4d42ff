/**
 * Owner references, in one place: setting them with controller-runtime's rules
 * ({@link setControllerReference}, {@link setOwnerReference}) and mapping a child object to
 * the key of the object that owns it ({@link ownerKeys}, controller-runtime's
 * `EnqueueRequestForOwner`).
 *
 * Rules of the setters (controllerutil):
 * - an object has at most one controller reference; setting a second one to another owner
 *   fails with {@link AlreadyOwnedError} naming the existing controller;
 * - a cluster-scoped owner may own a namespaced object; a namespaced owner may own only
 *   objects in its own namespace ({@link OwnerReferenceScopeError} otherwise);
 * - a reference to the same owner (same API group, kind and name; the version is ignored) is
 *   replaced in place, never added twice.
 *
 * @module
 */
import type { DeepReadonly } from '../cache/deep_readonly.js';
import type { KubeObject, OwnerReference } from '../client/types.js';
import { KubeControllerKitError } from '../util/errors.js';

/** Which owner references {@link ownerKeys} follows. */
export interface OwnerKeysOptions {
  /** The owner's kind, e.g. `Application`. */
  kind: string;
  /**
   * The owner's API version or group, e.g. `example.com/v1`. Only the **group** is
   * compared (an owner reference written under another version of the same kind still
   * matches). Absent: any group.
   */
  apiVersion?: string;
  /**
   * Follow only the reference with `controller: true` (default true). Set false to follow
   * every owner reference of the kind.
   */
  onlyController?: boolean;
  /**
   * The owner kind is cluster-scoped: keys are `name` instead of `namespace/name`
   * (default false: owners live in the child's namespace, as Kubernetes requires for
   * namespaced owners).
   */
  clusterScoped?: boolean;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The keys (`namespace/name`, or `name` for cluster-scoped owners) of the owners of `obj`
 * that match `options`: by default only its controller reference of that kind, so at most
 * one key. The owner's namespace is the child's: a namespaced object can only be owned by
 * objects in its own namespace (or by cluster-scoped ones).
 *
 * @example
 * ```ts
 * ownerKeys(deployment, { kind: 'Application', apiVersion: 'example.com/v1' }); // ['default/web']
 * ```
 */
export function ownerKeys(obj: DeepReadonly<KubeObject>, options: OwnerKeysOptions): string[] {
  const refs: readonly OwnerReference[] | undefined = obj.metadata?.ownerReferences;
  if (refs === undefined || refs.length === 0) return [];
  const group = options.apiVersion === undefined ? undefined : groupOf(options.apiVersion);
  const onlyController = options.onlyController ?? true;
  const namespace = options.clusterScoped === true ? '' : (obj.metadata?.namespace ?? '');
  const keys: string[] = [];
  for (const ref of refs) {
    if (ref.kind !== options.kind) continue;
    if (onlyController && ref.controller !== true) continue;
    if (group !== undefined && groupOf(ref.apiVersion ?? '') !== group) continue;
    if (typeof ref.name !== 'string' || ref.name === '') continue;
    const key = namespace === '' ? ref.name : `${namespace}/${ref.name}`;
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** The owner lacks apiVersion, kind, name or uid, so no reference to it can be made. */
export class InvalidOwnerError extends KubeControllerKitError {}

/**
 * The object already has a controller reference to another owner (controllerutil's
 * `AlreadyOwnedError`). {@link AlreadyOwnedError.owner} is the existing controller reference.
 */
export class AlreadyOwnedError extends KubeControllerKitError {
  /** The object's existing controller reference. */
  readonly owner: OwnerReference;
  /** `namespace/name` (or `name`) of the object that was to be owned. */
  readonly object: string;

  /** @param object - the owned object's key. @param owner - its existing controller. */
  constructor(object: string, owner: OwnerReference) {
    super(
      `Object ${object} is already owned by another ${owner.kind} controller ${owner.name}; ` +
        `an object has one controller owner: use setOwnerReference for a non-controller reference`,
    );
    this.owner = owner;
    this.object = object;
  }
}

/**
 * A namespaced owner was given for a cluster-scoped object or an object in another
 * namespace; Kubernetes' garbage collector would treat such a reference as unresolvable.
 */
export class OwnerReferenceScopeError extends KubeControllerKitError {}

/** Options of {@link setControllerReference}. */
export interface SetControllerReferenceOptions {
  /** Value of `blockOwnerDeletion` (default true, as controller-runtime). */
  blockOwnerDeletion?: boolean;
}

function objectKey(obj: DeepReadonly<KubeObject>): string {
  const ns = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? obj.metadata?.generateName ?? '';
  return ns === '' ? name : `${ns}/${name}`;
}

function referenceTo(owner: DeepReadonly<KubeObject>, what: string): OwnerReference {
  const apiVersion = owner.apiVersion ?? '';
  const kind = owner.kind ?? '';
  const name = owner.metadata?.name ?? '';
  const uid = owner.metadata?.uid ?? '';
  const missing = [
    apiVersion === '' ? 'apiVersion' : undefined,
    kind === '' ? 'kind' : undefined,
    name === '' ? 'metadata.name' : undefined,
    uid === '' ? 'metadata.uid' : undefined,
  ].filter((m): m is string => m !== undefined);
  if (missing.length > 0) {
    throw new InvalidOwnerError(
      `cannot set ${what} to owner "${objectKey(owner)}": it has no ${missing.join(', ')}; ` +
        `use the object as read from the API server (it carries uid), with apiVersion and kind set`,
    );
  }
  return { apiVersion, kind, name, uid };
}

function validateOwner(owner: DeepReadonly<KubeObject>, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace ?? '';
  if (ownerNs === '') return;
  const objNs = object.metadata?.namespace ?? '';
  if (objNs === '') {
    throw new OwnerReferenceScopeError(
      `cluster-scoped object "${objectKey(object)}" must not have a namespace-scoped owner ` +
        `(${owner.kind ?? '?'} "${objectKey(owner)}", namespace "${ownerNs}")`,
    );
  }
  if (objNs !== ownerNs) {
    throw new OwnerReferenceScopeError(
      `cross-namespace owner references are disallowed: owner ${owner.kind ?? '?'} "${objectKey(owner)}" ` +
        `is in namespace "${ownerNs}", object "${objectKey(object)}" in "${objNs}"`,
    );
  }
}

/**
 * True when two references name the same owner: same API group, kind and name.
 *
 * @internal
 */
export function referSameObject(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function upsert(object: KubeObject, ref: OwnerReference): void {
  const meta = (object.metadata ??= {});
  const refs = meta.ownerReferences ?? [];
  const i = refs.findIndex((r) => referSameObject(r, ref));
  if (i < 0) meta.ownerReferences = [...refs, ref];
  else meta.ownerReferences = refs.map((r, j) => (j === i ? ref : r));
}

/** The controller reference of `obj` (`controller: true`), if any (metav1 `GetControllerOf`). */
export function getControllerOf(obj: DeepReadonly<KubeObject>): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/**
 * Makes `owner` the controller of `object` (in place): a reference with `controller: true`
 * and `blockOwnerDeletion: true`, so the garbage collector deletes `object` with its owner
 * and `ownerKeys`/`Controller.owns` map it back.
 *
 * @throws AlreadyOwnedError when another owner already controls `object`.
 * @throws OwnerReferenceScopeError for a namespaced owner of a cluster-scoped object or of an
 *   object in another namespace.
 * @throws InvalidOwnerError when the owner lacks apiVersion, kind, name or uid.
 */
export function setControllerReference(
  owner: DeepReadonly<KubeObject>,
  object: KubeObject,
  options: SetControllerReferenceOptions = {},
): void {
  const ref: OwnerReference = {
    ...referenceTo(owner, 'a controller reference'),
    controller: true,
    blockOwnerDeletion: options.blockOwnerDeletion ?? true,
  };
  validateOwner(owner, object);
  const existing = getControllerOf(object);
  if (existing !== undefined && !referSameObject(existing, ref)) {
    throw new AlreadyOwnedError(objectKey(object), existing);
  }
  upsert(object, ref);
}

/**
 * Adds (or refreshes) a plain owner reference from `object` to `owner` (in place), without
 * `controller` or `blockOwnerDeletion`. A reference to the same owner is replaced.
 *
 * @throws OwnerReferenceScopeError / InvalidOwnerError as {@link setControllerReference}.
 */
export function setOwnerReference(owner: DeepReadonly<KubeObject>, object: KubeObject): void {
  const ref = referenceTo(owner, 'an owner reference');
  validateOwner(owner, object);
  upsert(object, ref);
}

/** Removes the reference to `owner` from `object` (in place); true when one was removed. */
export function removeOwnerReference(owner: KubeObject, object: KubeObject): boolean {
  const refs = object.metadata?.ownerReferences;
  if (refs === undefined) return false;
  const probe: OwnerReference = {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
  };
  const kept = refs.filter((r) => !referSameObject(r, probe));
  if (kept.length === refs.length) return false;
  (object.metadata ??= {}).ownerReferences = kept;
  return true;
}

/** True when `object` has a reference to `owner` (same group, kind and name). */
export function hasOwnerReference(owner: KubeObject, object: KubeObject): boolean {
  const probe: OwnerReference = {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata?.name ?? '',
    uid: '',
  };
  return (object.metadata?.ownerReferences ?? []).some((r) => referSameObject(r, probe));
}
