/**
 * The garbage collector of the test API server, as kube-controller-manager's: an object
 * marked for deletion with the `orphan` finalizer leaves its dependents (they lose their
 * reference to it); with `foregroundDeletion` its dependents are deleted first and it goes
 * once none that blocks it (`blockOwnerDeletion`) is left; when an object goes, each
 * dependent with no other owner left is deleted (in the background). It acts through the
 * store (deletes follow the API's rules), at once, inside the request that caused it.
 *
 * @module
 */
import type { OwnerReference, UnstructuredObject } from 'kube-controller-kit';
import type { ControllerStore, Held } from './controller_store.js';
import type { OwnerIndex } from './owner_index.js';
import { groupResourceKey } from './registry/resource_registry.js';
import { jsonCopy as clone } from './json_copy.js';

/** The collector over an owner graph. */
export class GarbageCollector {
  readonly #owners: OwnerIndex;
  readonly #store: ControllerStore;

  /** @param owners - the owner graph; @param store - what it acts through. */
  constructor(owners: OwnerIndex, store: ControllerStore) {
    this.#owners = owners;
    this.#store = store;
  }

  /**
   * After an object went: its dependents are collected, and an owner deleted in the
   * foreground that waited for it is looked at again.
   */
  objectRemoved(obj: UnstructuredObject): void {
    const uid = obj.metadata?.uid;
    if (uid !== undefined) this.#collectDependentsOf(uid);
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      const owner = this.#held(ref.uid);
      if (owner?.stored.obj.metadata?.finalizers?.includes('foregroundDeletion') === true) {
        this.collectFor(owner);
      }
    }
  }

  /**
   * The garbage collector's work for an object held by its finalizer (`orphan`: its
   * dependents lose their reference to it; `foregroundDeletion`: its dependents are deleted,
   * and once none that blocks it is left it goes), as kube-controller-manager's collector
   * does — here at once, inside the request that caused it.
   */
  collectFor(owner: Held): void {
    const owners = this.#owners;
    const uid = owner.stored.obj.metadata?.uid;
    if (uid === undefined) return;
    const finalizers = owner.stored.obj.metadata?.finalizers ?? [];
    if (finalizers.includes('orphan')) {
      for (const dep of this.#dependents(uid)) this.#dropOwnerRefs(dep, (r) => r.uid === uid);
      this.#dropFinalizer(owner, 'orphan');
      return;
    }
    if (!finalizers.includes('foregroundDeletion')) return;
    for (const dep of this.#dependents(uid)) {
      const meta = dep.stored.obj.metadata;
      if (meta?.deletionTimestamp !== undefined) continue;
      // In the foreground only where there is something below to wait for, as the collector.
      const below = meta?.uid !== undefined && owners.dependentsOf(meta.uid).length > 0;
      this.#store.delete(
        dep.type,
        dep.stored.namespace,
        meta?.name ?? '',
        below ? { propagationPolicy: 'Foreground' } : {},
      );
    }
    const current = this.#held(uid);
    if (current === undefined) return;
    const blocked = this.#dependents(uid).some((d) =>
      (d.stored.obj.metadata?.ownerReferences ?? []).some(
        (r) => r.uid === uid && r.blockOwnerDeletion === true,
      ),
    );
    if (!blocked) this.#dropFinalizer(current, 'foregroundDeletion');
  }

  /**
   * After an object is gone: each dependent that has no other owner left is deleted (in the
   * background); one that still has an owner only loses its references to the missing ones.
   */
  #collectDependentsOf(uid: string): void {
    const owners = this.#owners;
    for (const dep of this.#dependents(uid)) {
      const refs = dep.stored.obj.metadata?.ownerReferences ?? [];
      const alive = refs.some((r) => r.uid !== uid && owners.get(r.uid) !== undefined);
      if (alive) {
        this.#dropOwnerRefs(dep, (r) => owners.get(r.uid) === undefined);
      } else if (dep.stored.obj.metadata?.deletionTimestamp === undefined) {
        this.#store.delete(dep.type, dep.stored.namespace, dep.stored.obj.metadata?.name ?? '');
      }
    }
  }

  /** The stored object with this uid, with its resource type. */
  #held(uid: string): Held | undefined {
    const found = this.#owners.get(uid);
    const type = found === undefined ? undefined : this.#store.registry.byKey(found.grKey);
    return type === undefined || found === undefined ? undefined : { type, stored: found.stored };
  }

  /** The stored dependents of an owner, with their resource types. */
  #dependents(uid: string): Held[] {
    const out: Held[] = [];
    for (const at of this.#owners.dependentsOf(uid)) {
      const type = this.#store.registry.byKey(at.grKey);
      const stored = this.#store.storage.get(at.grKey, at.key);
      if (type !== undefined && stored !== undefined) out.push({ type, stored });
    }
    return out;
  }

  #dropOwnerRefs(dep: Held, drop: (ref: OwnerReference) => boolean): void {
    const refs = dep.stored.obj.metadata?.ownerReferences ?? [];
    const kept = refs.filter((r) => !drop(r));
    if (kept.length === refs.length) return;
    const next = clone(dep.stored.obj);
    const m = (next.metadata ??= {});
    if (kept.length === 0) delete m.ownerReferences;
    else m.ownerReferences = kept;
    this.#commitModified(dep, next);
  }

  /** Removes one of the collector's finalizers; an object marked for deletion with none left goes. */
  #dropFinalizer(held: Held, finalizer: string): void {
    const next = clone(held.stored.obj);
    const m = (next.metadata ??= {});
    const left = (m.finalizers ?? []).filter((f) => f !== finalizer);
    if (left.length === 0) delete m.finalizers;
    else m.finalizers = left;
    if (m.deletionTimestamp !== undefined && left.length === 0) {
      this.#store.remove(held.type, held.stored.namespace, next);
      return;
    }
    this.#commitModified(held, next);
  }

  /** Stores the collector's change to an object (no field manager: it writes directly). */
  #commitModified(held: Held, next: UnstructuredObject): void {
    const { type, stored } = held;
    this.#store.storage.commit(
      'MODIFIED',
      groupResourceKey(type.group, type.resource),
      stored.namespace,
      next.metadata?.name ?? '',
      next,
    );
  }
}
