/**
 * What the test API server's garbage collector needs to know, kept current from the
 * storage's change feed: where each object is by uid, and which objects name each uid in
 * their `metadata.ownerReferences` (kube-controller-manager's garbage collector keeps the
 * same graph, built from its informers).
 *
 * @module
 */
import type { OwnerReference } from 'kube-controller-kit';
import type { ChangeEvent, Storage, StoredObject } from './storage.js';

/** Where an object is stored: its resource's group/resource key and its object key. */
export interface ObjectLocation {
  /** The group/resource key of its resource. */
  readonly grKey: string;
  /** `namespace/name`, or `name` when cluster-scoped. */
  readonly key: string;
}

const sep = '\u0000';

/** uid → location, and owner uid → its dependents' locations. */
export class OwnerIndex {
  readonly #storage: Storage;
  readonly #byUid = new Map<string, ObjectLocation>();
  readonly #dependents = new Map<string, Set<string>>();

  /** Follows `storage` from now on (objects stored before are not indexed). */
  constructor(storage: Storage) {
    this.#storage = storage;
    storage.onChange((e) => this.#apply(e));
  }

  /** The stored object with this uid and its resource's key, if it is stored. */
  get(uid: string): { grKey: string; stored: StoredObject } | undefined {
    const at = this.#byUid.get(uid);
    if (at === undefined) return undefined;
    const stored = this.#storage.get(at.grKey, at.key);
    return stored?.obj.metadata?.uid === uid ? { grKey: at.grKey, stored } : undefined;
  }

  /** The locations of the objects that name `ownerUid` as an owner. */
  dependentsOf(ownerUid: string): ObjectLocation[] {
    const set = this.#dependents.get(ownerUid);
    if (set === undefined) return [];
    return [...set].map((s) => {
      const i = s.indexOf(sep);
      return { grKey: s.slice(0, i), key: s.slice(i + 1) };
    });
  }

  #apply(e: ChangeEvent): void {
    const prev = e.prev?.obj.metadata;
    const metaNow = e.type === 'DELETED' ? undefined : e.object.obj.metadata;
    // The dependents' key is built only when some owner reference needs it.
    const id =
      prev?.ownerReferences !== undefined || metaNow?.ownerReferences !== undefined
        ? `${e.grKey}${sep}${e.object.key}`
        : '';
    if (prev !== undefined) {
      if (prev.uid !== undefined) this.#byUid.delete(prev.uid);
      for (const ref of owners(prev.ownerReferences)) {
        const set = this.#dependents.get(ref);
        set?.delete(id);
        if (set?.size === 0) this.#dependents.delete(ref);
      }
    }
    if (e.type === 'DELETED') return;
    const meta = e.object.obj.metadata;
    if (meta?.uid !== undefined) this.#byUid.set(meta.uid, { grKey: e.grKey, key: e.object.key });
    for (const ref of owners(meta?.ownerReferences)) {
      let set = this.#dependents.get(ref);
      if (set === undefined) {
        set = new Set();
        this.#dependents.set(ref, set);
      }
      set.add(id);
    }
  }
}

function owners(refs: readonly OwnerReference[] | undefined): string[] {
  if (!Array.isArray(refs)) return [];
  const out: string[] = [];
  for (const r of refs as readonly unknown[]) {
    const uid = (r as { uid?: unknown } | null)?.uid;
    if (typeof uid === 'string') out.push(uid);
  }
  return out;
}
