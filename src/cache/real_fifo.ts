/**
 * RealFIFO: the in-order queue that drives client-go's informers since 1.33.
 *
 * Unlike {@link DeltaFIFO} it keeps one flat list of deltas in arrival order, with no
 * per-key merging and no deduplication: every event is delivered, in the order the
 * reflector saw it. That is what a consumer wants that forwards events to handlers: the
 * handlers see the same sequence the server sent.
 *
 * Two modes for a relist (`replace()`) and a resync:
 * - **atomic** (`atomicEvents: true`, the default, client-go 1.36): a relist becomes one
 *   `ReplacedAll` delta with the whole list and a resync one `SyncAll` delta; bookmarks
 *   become `Bookmark` deltas. The consumer diffs `ReplacedAll` against its cache and
 *   applies it in one step, so readers of the cache never see half a relist.
 * - **non-atomic** (1.33–1.35): a relist first queues a tombstone `Deleted` for every
 *   queued or known key missing from the new list (unless its last queued delta is already
 *   a delete), then a `Replaced` delta per listed object; a resync queues `Sync` for every
 *   known key that has nothing queued.
 *
 * Consumption: `pop()` hands out one delta, `popBatch()` up to `maxBatch` consecutive
 * plain deltas with distinct keys. The pop rules are DeltaFIFO's (`fifo.ts`): one consumer
 * at a time, `isInInitialList` computed before processing, the initial-population count
 * dropping once `process` settled, and a batch never mixing initial-list items with later
 * ones.
 *
 * @module
 */
import { Deque } from '../util/deque.js';
import { PopGate } from './fifo.js';
import type { Delta, FIFOQueue, KeyFunction, KeyListerGetter, TransformFunc } from './fifo.js';
import { DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc } from './keys.js';

/** A relist as one delta (atomic mode): the consumer diffs it against its cache. */
export interface ReplacedAllDelta<T> {
  /** Discriminator. */
  readonly type: 'ReplacedAll';
  /** Every object of the new list, transformed. */
  readonly objects: readonly T[];
  /** The list's resourceVersion. */
  readonly resourceVersion: string;
}

/** A resync as one delta (atomic mode): the consumer re-delivers its cache as `Sync`. */
export interface SyncAllDelta {
  /** Discriminator. */
  readonly type: 'SyncAll';
}

/** A watch bookmark (atomic mode): the cache is current up to `resourceVersion`. */
export interface BookmarkDelta {
  /** Discriminator. */
  readonly type: 'Bookmark';
  /** The bookmark's resourceVersion. */
  readonly resourceVersion: string;
}

/** Anything a {@link RealFIFO} hands out. */
export type RealFIFODelta<T> = Delta<T> | ReplacedAllDelta<T> | SyncAllDelta | BookmarkDelta;

/** Processes one delta from {@link RealFIFO.pop}; may be async. */
export type RealFIFOProcessFunc<T> = (
  delta: RealFIFODelta<T>,
  isInInitialList: boolean,
) => void | Promise<void>;

/**
 * Processes a batch from {@link RealFIFO.popBatch}; may be async. `keys[i]` is the key of
 * `deltas[i]` under the FIFO's key function where the FIFO computed it to keep the batch's
 * keys distinct (plain deltas of a batch), `undefined` where it did not: a consumer whose
 * store uses the same key function names each object once.
 */
export type RealFIFOBatchProcessFunc<T> = (
  deltas: RealFIFODelta<T>[],
  isInInitialList: boolean,
  keys: readonly (string | undefined)[],
) => void | Promise<void>;

/** Options of {@link RealFIFO}. */
export interface RealFIFOOptions<T> {
  /** Key of an object; default `deletionHandlingMetaNamespaceKeyFunc`. */
  keyFunction?: KeyFunction<T>;
  /** The cache the deltas are applied to (for tombstones and resync in non-atomic mode). */
  knownObjects?: KeyListerGetter<T>;
  /** Applied to incoming objects, except tombstones and `Sync` deltas. */
  transformer?: TransformFunc<T>;
  /** Relist as one `ReplacedAll`, resync as one `SyncAll`, bookmarks queued. Default true. */
  atomicEvents?: boolean;
}

/** Default upper bound of {@link RealFIFO.popBatch}. */
export const defaultMaxBatch = 1000;

function isPlain<T>(d: RealFIFODelta<T>): d is Delta<T> {
  return d.type !== 'ReplacedAll' && d.type !== 'SyncAll' && d.type !== 'Bookmark';
}

/**
 * An ordered queue of single deltas with no merging; see the module documentation.
 *
 * @typeParam T - the object type.
 */
export class RealFIFO<T> implements FIFOQueue<T, RealFIFODelta<T>> {
  /** Starts small (it doubles as needed): 64 slots would be 0.5 KB per idle informer. */
  readonly #items = new Deque<RealFIFODelta<T>>(4);
  readonly #gate = new PopGate<RealFIFODelta<T>[]>(this, 'RealFIFO', batchLength);
  #lastResourceVersion = '';
  readonly #keyFunction: KeyFunction<T>;
  readonly #knownObjects: KeyListerGetter<T> | undefined;
  readonly #transformer: TransformFunc<T> | undefined;
  readonly #atomic: boolean;
  /** The keys of the batch {@link RealFIFO.#take} took last, handed to its `process`. */
  #takenKeys: (string | undefined)[] = [];

  /** @param options - key function, known objects, transformer, atomic mode. */
  constructor(options: RealFIFOOptions<T> = {}) {
    this.#keyFunction = options.keyFunction ?? deletionHandlingMetaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#transformer = options.transformer;
    this.#atomic = options.atomicEvents ?? true;
  }

  /** True when relists and resyncs are queued as single `ReplacedAll`/`SyncAll` deltas. */
  get atomicEvents(): boolean {
    return this.#atomic;
  }

  /** The key of an object or tombstone. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    if (obj instanceof DeletedFinalStateUnknown) return obj.key;
    return this.#keyFunction(obj);
  }

  /** Queue `Added`. */
  add(obj: T): void {
    this.#gate.populated();
    this.#push({ type: 'Added', object: this.#transform(obj) });
  }

  /** Queue `Updated`. */
  update(obj: T): void {
    this.#gate.populated();
    this.#push({ type: 'Updated', object: this.#transform(obj) });
  }

  /** Queue `Deleted` (every delete is delivered; there is no merging here). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#gate.populated();
    const object = obj instanceof DeletedFinalStateUnknown ? obj : this.#transform(obj);
    this.#push({ type: 'Deleted', object });
  }

  /** A relist; see the module documentation for the two modes. */
  replace(list: readonly T[], resourceVersion: string): void {
    this.#lastResourceVersion = resourceVersion;
    if (this.#atomic) {
      const objects = this.#transformer === undefined ? list : list.map((o) => this.#transform(o));
      this.#push({ type: 'ReplacedAll', objects, resourceVersion });
    } else {
      this.#replaceNonAtomic(list);
    }
    this.#gate.replaced(this.length);
  }

  /**
   * A periodic resync: one `SyncAll` in atomic mode; otherwise `Sync` for each known key
   * that has nothing queued (a no-op without `knownObjects`).
   */
  resync(): void {
    if (this.#atomic) {
      this.#push({ type: 'SyncAll' });
      return;
    }
    if (this.#knownObjects === undefined) return;
    const queued = new Set<string>();
    for (const d of this.#items) {
      if (isPlain(d)) queued.add(this.keyOf(d.object));
    }
    for (const key of this.#knownObjects.listKeys()) {
      if (queued.has(key)) continue;
      const obj = this.#knownObjects.getByKey(key);
      if (obj === undefined) continue;
      this.#push({ type: 'Sync', object: obj });
    }
  }

  /** Record a bookmark; in atomic mode it is also queued for the consumer. */
  bookmark(resourceVersion: string): void {
    this.#lastResourceVersion = resourceVersion;
    if (this.#atomic) this.#push({ type: 'Bookmark', resourceVersion });
  }

  /** The resourceVersion of the last relist or bookmark. */
  lastResourceVersion(): string {
    return this.#lastResourceVersion;
  }

  /**
   * Take the oldest delta and run `process` on it; waits while empty, rejects with
   * `FIFOClosedError` once closed and drained, rejects with `process`'s error if it
   * fails (the delta is not requeued).
   */
  async pop(process: RealFIFOProcessFunc<T>): Promise<RealFIFODelta<T>> {
    const [delta] = await this.popBatch(
      (batch, initial) => process(batch[0] as RealFIFODelta<T>, initial),
      1,
    );
    return delta as RealFIFODelta<T>;
  }

  /**
   * Take up to `maxBatch` consecutive plain deltas with distinct keys (or one
   * `ReplacedAll`/`SyncAll`/`Bookmark` alone) and run `process` on them, with the keys the
   * FIFO computed for them. A delta whose key cannot be computed closes the batch: it is
   * taken alone (as the first of a batch), with no key, as client-go's `PopBatch` does.
   */
  popBatch(
    process: RealFIFOBatchProcessFunc<T>,
    maxBatch = defaultMaxBatch,
  ): Promise<RealFIFODelta<T>[]> {
    // The gate runs `process` right after `#take` (synchronously), so the keys are the batch's.
    return this.#gate.pop(this.#take, Math.max(1, maxBatch), (batch, initial) =>
      process(batch, initial, this.#takenKeys),
    );
  }

  /**
   * Call `callback` once when a delta is queued or the FIFO closes (at once when either is
   * already so): a consumer that pops only then holds no pending pop while the FIFO is
   * empty, as the informer does.
   */
  onReady(callback: () => void): void {
    this.#gate.onReady(callback);
  }

  /** True once the items queued by the first `replace()` have been processed (or an add/update/delete came first). */
  hasSynced(): boolean {
    return this.#gate.hasSynced();
  }

  /** Stop: pops drain what is queued, then reject with `FIFOClosedError`. */
  close(): void {
    this.#gate.close();
  }

  /** True after {@link RealFIFO.close}. */
  isClosed(): boolean {
    return this.#gate.closed;
  }

  /** How many deltas are queued. */
  get length(): number {
    return this.#items.length;
  }

  /**
   * Removes the next delta, and with it the plain deltas that may share its batch; their
   * keys go to `#takenKeys`.
   */
  readonly #take = (max: number): RealFIFODelta<T>[] => {
    const first = this.#items.shift() as RealFIFODelta<T>;
    const batch: RealFIFODelta<T>[] = [first];
    const keys: (string | undefined)[] = [];
    this.#takenKeys = keys;
    if (!isPlain(first) || max <= 1) return batch;
    let firstKey: string;
    try {
      firstKey = this.keyOf(first.object);
    } catch {
      keys.push(undefined); // the consumer names it (and reports why it cannot)
      return batch;
    }
    keys.push(firstKey);
    const seen = new Set<string>();
    seen.add(firstKey);
    while (batch.length < max) {
      const next = this.#items.peek();
      if (next === undefined || !isPlain(next)) break;
      let key: string;
      try {
        key = this.keyOf(next.object);
      } catch {
        break; // it heads the next batch
      }
      if (seen.has(key)) break;
      seen.add(key);
      batch.push(next);
      keys.push(key);
      this.#items.shift();
    }
    return batch;
  };

  #replaceNonAtomic(list: readonly T[]): void {
    const listed = new Set<string>();
    for (const obj of list) listed.add(this.keyOf(obj));
    const lastQueued = new Map<string, Delta<T>>();
    for (const d of this.#items) {
      if (isPlain(d)) lastQueued.set(this.keyOf(d.object), d);
    }
    for (const [key, last] of lastQueued) {
      if (listed.has(key) || last.type === 'Deleted') continue;
      const obj = last.object instanceof DeletedFinalStateUnknown ? last.object.obj : last.object;
      this.#push({ type: 'Deleted', object: new DeletedFinalStateUnknown<T>(key, obj) });
    }
    if (this.#knownObjects !== undefined) {
      for (const key of this.#knownObjects.listKeys()) {
        if (listed.has(key) || lastQueued.has(key)) continue;
        const known = this.#knownObjects.getByKey(key);
        this.#push({ type: 'Deleted', object: new DeletedFinalStateUnknown<T>(key, known as T) });
      }
    }
    for (const obj of list) this.#push({ type: 'Replaced', object: this.#transform(obj) });
  }

  #transform(obj: T): T {
    return this.#transformer === undefined ? obj : this.#transformer(obj);
  }

  #push(delta: RealFIFODelta<T>): void {
    this.#items.push(delta);
    this.#gate.wake();
  }
}

function batchLength(batch: readonly unknown[]): number {
  return batch.length;
}
