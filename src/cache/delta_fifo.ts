/**
 * DeltaFIFO: a queue of per-object change lists, with client-go's exact semantics.
 *
 * A *delta* is one change to one object: `Added`, `Updated`, `Deleted`, `Replaced` (the
 * object came back in a relist) or `Sync` (a periodic resync re-delivers the cached
 * object). The FIFO keeps, per object key, the list of deltas not yet processed, and a
 * queue of keys in first-change order. A key sits in the queue once however many deltas
 * pile up for it, and keeps its place when more arrive, so a consumer that falls behind
 * sees every change of an object at once, oldest first.
 *
 * Rules (client-go `tools/cache/delta_fifo.go`):
 * - Only the last two deltas of a key are ever merged, and only when both are `Deleted`:
 *   an object cannot be deleted twice, so the second is dropped (the tombstone one is the
 *   one dropped when the other is a real delete).
 * - `delete()` of an object that is neither queued nor in `knownObjects` is ignored: a
 *   relist has already reported it gone.
 * - `replace()` (a relist) queues `Replaced` (or `Sync` unless `emitDeltaTypeReplaced`) for
 *   every listed object, and a `Deleted` delta holding a {@link DeletedFinalStateUnknown}
 *   tombstone for every key that is queued or known but missing from the list: the object
 *   was deleted while the watch was down and its final state is unknown.
 * - `resync()` queues `Sync` for every known object **except** keys with pending deltas,
 *   so a stale cached copy never overtakes a newer queued change.
 * - `pop()` hands one key's deltas to a processing function; `isInInitialList` tells it
 *   whether they belong to the first relist. The FIFO reports `hasSynced()` once every
 *   item of the first `replace()` has been popped and processed (the pop rules, shared
 *   with RealFIFO, are in `fifo.ts`).
 *
 * Since client-go 1.33 informers are driven by the in-order {@link RealFIFO}; DeltaFIFO
 * stays public with these semantics for code that relies on them.
 *
 * @module
 */
import { Deque } from '../util/deque.js';
import { KubeControllerKitError } from '../util/errors.js';
import { FIFOClosedError, PopGate } from './fifo.js';
import type {
  Delta,
  Deltas,
  DeltaType,
  KeyFunction,
  KeyListerGetter,
  FIFOQueue,
  TransformFunc,
} from './fifo.js';
import { DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc } from './keys.js';

export { FIFOClosedError };
export type {
  Delta,
  Deltas,
  DeltaType,
  KeyFunction,
  KeyListerGetter,
  TransformFunc,
} from './fifo.js';

/** Options of {@link DeltaFIFO}. */
export interface DeltaFIFOOptions<T> {
  /** Key of an object; default `deletionHandlingMetaNamespaceKeyFunc` (`namespace/name`). */
  keyFunction?: KeyFunction<T>;
  /**
   * The cache the popped deltas are applied to. Enables deletion detection in `replace()`,
   * the unknown-delete check, and `resync()`.
   */
  knownObjects?: KeyListerGetter<T>;
  /** Emit `Replaced` instead of `Sync` for listed objects in `replace()` (informers set it). */
  emitDeltaTypeReplaced?: boolean;
  /**
   * Applied to every object on its way in, except tombstones and `Sync` deltas (whose
   * objects come from the cache and were transformed already).
   */
  transformer?: TransformFunc<T>;
}

/**
 * The function {@link DeltaFIFO.pop} hands a key's deltas to. It may be async: the FIFO
 * hands out no other item until it settles.
 */
export type PopProcessFunc<T> = (
  deltas: Deltas<T>,
  isInInitialList: boolean,
) => void | Promise<void>;

/** The newest delta of a list, or undefined for an empty list. */
export function newestDelta<T>(deltas: readonly Delta<T>[]): Delta<T> | undefined {
  return deltas[deltas.length - 1];
}

/** The oldest delta of a list, or undefined for an empty list. */
export function oldestDelta<T>(deltas: readonly Delta<T>[]): Delta<T> | undefined {
  return deltas[0];
}

/**
 * A producer/consumer queue of per-key deltas; see the module documentation for its rules.
 *
 * @typeParam T - the object type.
 */
export class DeltaFIFO<T> implements FIFOQueue<T, Deltas<T>> {
  readonly #items = new Map<string, Delta<T>[]>();
  /** Keys in queue order. A key is queued iff it is in `#items`. */
  readonly #queue = new Deque<string>();
  readonly #gate = new PopGate<Deltas<T>>(this, 'DeltaFIFO', () => 1);
  readonly #keyFunction: KeyFunction<T>;
  readonly #knownObjects: KeyListerGetter<T> | undefined;
  readonly #emitDeltaTypeReplaced: boolean;
  readonly #transformer: TransformFunc<T> | undefined;

  /** @param options - key function, known objects, delta type for replace, transformer. */
  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.#keyFunction = options.keyFunction ?? deletionHandlingMetaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? false;
    this.#transformer = options.transformer;
  }

  /** The key of an object, a tombstone, or a delta list (its newest delta's object). */
  keyOf(obj: T | DeletedFinalStateUnknown<T> | Deltas<T>): string {
    if (Array.isArray(obj)) {
      const newest = newestDelta(obj);
      if (newest === undefined)
        throw new KubeControllerKitError('DeltaFIFO.keyOf: an empty delta list has no key');
      return this.keyOf(newest.object);
    }
    if (obj instanceof DeletedFinalStateUnknown) return obj.key;
    return this.#keyFunction(obj);
  }

  /** Queue an `Added` delta. */
  add(obj: T): void {
    this.#gate.populated();
    this.#queueAction('Added', 'Added', obj);
  }

  /** Queue an `Updated` delta. */
  update(obj: T): void {
    this.#gate.populated();
    this.#queueAction('Updated', 'Updated', obj);
  }

  /**
   * Queue a `Deleted` delta, unless the object is neither queued nor known (a relist
   * already reported it gone). Without `knownObjects`, only queued keys count.
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyOf(obj);
    this.#gate.populated();
    const queued = this.#items.has(key);
    if (
      !queued &&
      (this.#knownObjects === undefined || this.#knownObjects.getByKey(key) === undefined)
    ) {
      return;
    }
    this.#queueAction('Deleted', 'Deleted', obj);
  }

  /**
   * A relist: queue `Replaced` (or `Sync`) for every object in `list`, then a tombstone
   * delete for each queued key and each known key (without pending deltas) that is not in
   * `list`. The first call fixes how many items must be popped before `hasSynced()`.
   */
  replace(list: readonly T[], _resourceVersion?: string): void {
    const listed = new Set<string>();
    const action: DeltaType = this.#emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    for (const obj of list) {
      const key = this.keyOf(obj);
      listed.add(key);
      this.#queueAction(action, 'Replaced', obj, key);
    }

    let queuedDeletions = 0;
    // Snapshot: queueing a delete appends to the key's own list, never adds keys here.
    for (const [key, deltas] of [...this.#items]) {
      if (listed.has(key)) continue;
      let last: T | DeletedFinalStateUnknown<T> | undefined = newestDelta(deltas)?.object;
      if (last instanceof DeletedFinalStateUnknown) last = last.obj;
      queuedDeletions++;
      this.#queueAction('Deleted', 'Deleted', new DeletedFinalStateUnknown<T>(key, last as T), key);
    }

    if (this.#knownObjects !== undefined) {
      for (const key of this.#knownObjects.listKeys()) {
        if (listed.has(key)) continue;
        if (this.#items.has(key)) continue;
        const known = this.#knownObjects.getByKey(key);
        queuedDeletions++;
        this.#queueAction(
          'Deleted',
          'Deleted',
          new DeletedFinalStateUnknown<T>(key, known as T),
          key,
        );
      }
    }

    this.#gate.replaced(listed.size + queuedDeletions);
  }

  /**
   * Queue `Sync` for every known object whose key has no pending deltas (a pending change
   * is newer than the cached copy). A no-op without `knownObjects`.
   */
  resync(): void {
    if (this.#knownObjects === undefined) return;
    for (const key of this.#knownObjects.listKeys()) {
      const obj = this.#knownObjects.getByKey(key);
      if (obj === undefined) continue;
      const id = this.keyOf(obj);
      if (this.#items.has(id)) continue;
      this.#queueAction('Sync', 'Sync', obj, id);
    }
  }

  /**
   * Take the oldest key's deltas and run `process(deltas, isInInitialList)` on them.
   * Waits while the queue is empty; rejects with {@link FIFOClosedError} once the FIFO is
   * closed and drained. The key leaves the queue before `process` runs, and no other
   * `pop()` gets an item until `process` (sync or async) has settled, so a single consumer
   * can apply deltas to its cache in order; the initial-population count drops once it
   * settled. If `process` throws or rejects, `pop()` rejects with that error (the deltas
   * are not requeued, as in client-go ≥ 1.33).
   *
   * @returns the deltas that were processed.
   */
  pop(process: PopProcessFunc<T>): Promise<Deltas<T>> {
    return this.#gate.pop(this.#take, 1, process);
  }

  /** Removes the oldest key and returns its deltas (the gate calls it with a non-empty queue). */
  readonly #take = (): Deltas<T> => {
    const key = this.#queue.shift() as string;
    const deltas = this.#items.get(key) as Deltas<T>;
    this.#items.delete(key);
    return deltas;
  };

  /** True once the first `replace()` has been fully popped and processed, or an add/update/delete came first. */
  hasSynced(): boolean {
    return this.#gate.hasSynced();
  }

  /** Stop: pending and later `pop()` calls drain what is queued, then reject with {@link FIFOClosedError}. */
  close(): void {
    this.#gate.close();
  }

  /** True after {@link DeltaFIFO.close}. */
  isClosed(): boolean {
    return this.#gate.closed;
  }

  /** The queued keys, in queue order. */
  listKeys(): string[] {
    return [...this.#queue];
  }

  /** How many keys are queued. */
  get length(): number {
    return this.#queue.length;
  }

  #queueAction(
    type: DeltaType,
    internalType: DeltaType,
    obj: T | DeletedFinalStateUnknown<T>,
    knownKey?: string,
  ): void {
    const key = knownKey ?? this.keyOf(obj);
    let object = obj;
    if (
      this.#transformer !== undefined &&
      internalType !== 'Sync' &&
      !(obj instanceof DeletedFinalStateUnknown)
    ) {
      object = this.#transformer(obj);
    }
    const existing = this.#items.get(key);
    if (existing === undefined) {
      this.#items.set(key, [{ type, object }]);
      this.#queue.push(key);
      this.#gate.wake();
      return;
    }
    existing.push({ type, object });
    dedupDeltas(existing);
  }
}

/**
 * Merge the last two deltas when both are deletes: keep the older one, unless it is a
 * tombstone and the newer one a real delete. Nothing else is merged.
 */
function dedupDeltas<T>(deltas: Delta<T>[]): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 1] as Delta<T>;
  const b = deltas[n - 2] as Delta<T>;
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return;
  deltas[n - 2] = b.object instanceof DeletedFinalStateUnknown ? a : b;
  deltas.length = n - 1;
}
