/**
 * The object store of the test API server: current objects per resource, one global
 * resourceVersion counter, and a bounded history of change events for watch replay.
 *
 * Stored objects are immutable once written; each keeps its JSON text so that lists and
 * watches serialize an object once however many clients read it. Compaction drops the
 * oldest events; a watch or a continue token older than the compacted version gets 410.
 *
 * @module
 */
import { objectKey } from 'kube-controller-kit';
import type { UnstructuredObject } from 'kube-controller-kit';

/** One stored object version. */
export interface StoredObject {
  /** The object (never mutated after it is stored). */
  readonly obj: UnstructuredObject;
  /** `JSON.stringify(obj)`, computed once. */
  readonly json: string;
  /** Its resourceVersion as a number. */
  readonly rv: number;
  /** Its namespace ('' for cluster-scoped). */
  readonly namespace: string;
  /** Its key: `namespace/name` or `name`. */
  readonly key: string;
}

/** The type of a stored change. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change in the history. */
export interface ChangeEvent {
  /** The version of this change. */
  readonly rv: number;
  /** What happened. */
  readonly type: ChangeType;
  /** Group/resource key of the object's resource. */
  readonly grKey: string;
  /** The object after the change (for DELETED: the final state, with the delete's version). */
  readonly object: StoredObject;
  /** The object before the change (MODIFIED and DELETED). */
  readonly prev: StoredObject | undefined;
  /** Serialized watch lines by variant, filled lazily by the watch fan-out. */
  readonly lines: Map<string, string>;
}

/** The key of an object: `namespace/name`, or `name` when cluster-scoped. */
export { objectKey };

class Table {
  readonly objects = new Map<string, StoredObject>();
  #sorted: string[] | undefined;

  sortedKeys(): string[] {
    this.#sorted ??= [...this.objects.keys()].sort();
    return this.#sorted;
  }

  set(o: StoredObject): void {
    if (!this.objects.has(o.key)) this.#sorted = undefined;
    this.objects.set(o.key, o);
  }

  delete(key: string): void {
    if (this.objects.delete(key)) this.#sorted = undefined;
  }
}

/** Store options. */
export interface StorageOptions {
  /** How many change events to keep for watch replay (older ones are compacted). */
  historySize: number;
}

/** The in-memory store. */
export class Storage {
  #rv: number;
  #compactedRv: number;
  readonly #tables = new Map<string, Table>();
  #history: ChangeEvent[] = [];
  #head = 0;
  readonly #historySize: number;
  readonly #listeners = new Set<(e: ChangeEvent) => void>();
  readonly #dropListeners = new Set<(grKey: string) => void>();

  /** @param options - history size. */
  constructor(options: StorageOptions) {
    this.#historySize = Math.max(1, options.historySize);
    this.#rv = 1000;
    this.#compactedRv = this.#rv;
  }

  /** The latest resourceVersion. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** The highest version compacted away: watches must start at or after it. */
  get compactedResourceVersion(): number {
    return this.#compactedRv;
  }

  /** Subscribes to every committed change; returns the unsubscribe function. */
  onChange(listener: (e: ChangeEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Subscribes to dropped tables (a resource no longer stored); returns the unsubscribe function. */
  onDropTable(listener: (grKey: string) => void): () => void {
    this.#dropListeners.add(listener);
    return () => this.#dropListeners.delete(listener);
  }

  #table(grKey: string): Table {
    let t = this.#tables.get(grKey);
    if (!t) {
      t = new Table();
      this.#tables.set(grKey, t);
    }
    return t;
  }

  /** The current object at a key. */
  get(grKey: string, key: string): StoredObject | undefined {
    return this.#tables.get(grKey)?.objects.get(key);
  }

  /** Current objects of a resource in key order, optionally in one namespace. */
  list(grKey: string, namespace?: string): StoredObject[] {
    const t = this.#tables.get(grKey);
    if (!t) return [];
    const out: StoredObject[] = [];
    for (const k of t.sortedKeys()) {
      const o = t.objects.get(k);
      if (o && (namespace === undefined || o.namespace === namespace)) out.push(o);
    }
    return out;
  }

  /** Whether a resource holds any object in `namespace` (stops at the first). */
  hasAnyIn(grKey: string, namespace: string): boolean {
    const t = this.#tables.get(grKey);
    if (!t) return false;
    for (const o of t.objects.values()) if (o.namespace === namespace) return true;
    return false;
  }

  /** How many objects a resource holds. */
  count(grKey: string): number {
    return this.#tables.get(grKey)?.objects.size ?? 0;
  }

  /**
   * The objects of a resource as they were at version `rv` (which must not be compacted),
   * in key order.
   */
  listAt(grKey: string, rv: number, namespace?: string): StoredObject[] {
    if (rv >= this.#rv) return this.list(grKey, namespace);
    const t = this.#tables.get(grKey);
    const state = new Map<string, StoredObject>(t ? t.objects : []);
    for (let i = this.#history.length - 1; i >= this.#head; i--) {
      const e = this.#history[i];
      if (!e || e.rv <= rv) break;
      if (e.grKey !== grKey) continue;
      if (e.type === 'ADDED') state.delete(e.object.key);
      else if (e.prev) state.set(e.prev.key, e.prev);
    }
    const keys = [...state.keys()].sort();
    const out: StoredObject[] = [];
    for (const k of keys) {
      const o = state.get(k);
      if (o && (namespace === undefined || o.namespace === namespace)) out.push(o);
    }
    return out;
  }

  /**
   * Commits a change: assigns the next resourceVersion to `obj`, stores it (or removes it
   * for DELETED), records the event and notifies listeners.
   */
  commit(
    type: ChangeType,
    grKey: string,
    namespace: string,
    name: string,
    obj: UnstructuredObject,
  ): StoredObject {
    const rv = ++this.#rv;
    const meta = (obj.metadata ??= {});
    meta.resourceVersion = String(rv);
    const key = objectKey(namespace, name);
    const stored: StoredObject = { obj, json: JSON.stringify(obj), rv, namespace, key };
    const table = this.#table(grKey);
    const prev = table.objects.get(key);
    if (type === 'DELETED') table.delete(key);
    else table.set(stored);
    const event: ChangeEvent = { rv, type, grKey, object: stored, prev, lines: new Map() };
    this.#history.push(event);
    if (this.#history.length - this.#head > this.#historySize) {
      this.#compactTo(this.#history.length - this.#historySize);
    }
    for (const l of this.#listeners) l(event);
    return stored;
  }

  #compactTo(index: number): void {
    const last = this.#history[index - 1];
    if (last) this.#compactedRv = Math.max(this.#compactedRv, last.rv);
    this.#head = index;
    if (this.#head > 4096 && this.#head * 2 > this.#history.length) {
      this.#history = this.#history.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Drops all history up to now: watches and continue tokens from before get 410. */
  compact(): void {
    this.#compactTo(this.#history.length);
    this.#compactedRv = this.#rv;
  }

  /**
   * The history after version `rv` (exclusive) for one resource, or `undefined` when
   * `rv` is older than the compacted version.
   */
  eventsAfter(grKey: string, rv: number): ChangeEvent[] | undefined {
    if (rv < this.#compactedRv) return undefined;
    // Binary search the first event with version > rv.
    let lo = this.#head;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.#history[mid];
      if (e && e.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: ChangeEvent[] = [];
    for (let i = lo; i < this.#history.length; i++) {
      const e = this.#history[i];
      if (e && e.grKey === grKey) out.push(e);
    }
    return out;
  }

  /** Removes every object of a resource without events (used when a table is dropped). */
  dropTable(grKey: string): void {
    this.#tables.delete(grKey);
    for (const l of this.#dropListeners) l(grKey);
  }
}
