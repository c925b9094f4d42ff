/**
 * What the two FIFOs share (client-go `tools/cache/fifo.go`): the delta types, the
 * {@link FIFOQueue} contract a reflector fills and one consumer pops, and the `PopGate`
 * that both `DeltaFIFO` and `RealFIFO` pop through.
 *
 * The gate's rules, the same for both queues:
 *
 * - **One consumer at a time.** A pop waits for the previous pop's `process` to settle
 *   (sync or async), so a consumer applies items to its cache in order.
 * - **Waiting.** A pop on an empty queue waits until an item is queued; once the queue is
 *   closed, pops drain what is queued and then reject with {@link FIFOClosedError}.
 * - **Initial population.** The first `replace()` (unless an add, update or delete came
 *   first) fixes how many items form the initial list. `isInInitialList` is computed
 *   before the item is taken, and a batch never mixes initial-list items with later ones; the count drops once `process` has settled (returned,
 *   resolved, thrown or rejected). So `hasSynced()` turns true only after the last item of
 *   the initial list was processed: an observer never sees a synced queue whose cache still
 *   misses that item. This is what client-go's callers observe: RealFIFO decrements after
 *   processing (deferred), and DeltaFIFO's `HasSynced` takes the lock that `Pop` holds
 *   while it processes.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';
import type { DeletedFinalStateUnknown } from './keys.js';

/** The kinds of change a delta records. */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/** One change to one object. A `Deleted` delta may carry a tombstone instead of the object. */
export interface Delta<T> {
  /** What happened. */
  readonly type: DeltaType;
  /** The object after the change, or a tombstone for a delete whose final state is unknown. */
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** The pending changes of one object, oldest first; never empty. */
export type Deltas<T> = Delta<T>[];

/** Computes an object's key (client-go's `KeyFunc`); tombstones must map to their `key`. */
export type KeyFunction<T> = (obj: T | DeletedFinalStateUnknown<T>) => string;

/** What a FIFO needs of the cache it feeds: the keys it holds and a lookup (an Indexer fits). */
export interface KeyListerGetter<T> {
  /** Every key in the cache. */
  listKeys(): string[];
  /** The cached object of `key`, or undefined. */
  getByKey(key: string): T | undefined;
}

/** Rewrites an object before it is queued (e.g. to drop `managedFields`). */
export type TransformFunc<T> = (obj: T) => T;

/** `pop()` on a FIFO that is closed and drained. */
export class FIFOClosedError extends KubeControllerKitError {
  /** @param what - which queue was closed. */
  constructor(what = 'DeltaFIFO') {
    super(`${what}: closed and empty; stop popping (the informer is shutting down)`);
  }
}

/** Processes one popped item; may be async (the queue hands out nothing else until it settles). */
export type FIFOProcessFunc<I> = (item: I, isInInitialList: boolean) => void | Promise<void>;

/**
 * The contract of a FIFO (client-go's `cache.Queue`, named apart from the work queue): a
 * reflector fills it (`add`, `update`, `delete`, `replace`, `resync`), one consumer pops
 * it, and it knows when the initial list has been processed. `DeltaFIFO` pops one key's {@link Deltas}; `RealFIFO` one delta at a
 * time (or a batch).
 *
 * @typeParam T - the object type.
 * @typeParam I - what `pop` hands to `process`.
 */
export interface FIFOQueue<T, I> {
  /** An object was added. */
  add(obj: T): void;
  /** An object was modified. */
  update(obj: T): void;
  /** An object was deleted (or is known only by its tombstone). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** A relist: the full list at `resourceVersion`. */
  replace(list: readonly T[], resourceVersion: string): void;
  /** A periodic resync of the known objects. */
  resync(): void;
  /**
   * Waits for an item, takes it, runs `process` on it and resolves with it; rejects with
   * {@link FIFOClosedError} once closed and drained, or with `process`'s error.
   */
  pop(process: FIFOProcessFunc<I>): Promise<I>;
  /** True once the items of the initial list have all been processed. */
  hasSynced(): boolean;
  /** Stop: pops drain what is queued, then reject with {@link FIFOClosedError}. */
  close(): void;
  /** True after `close()`. */
  isClosed(): boolean;
  /** How many items are queued. */
  readonly length: number;
}

const ignore = (): undefined => undefined;

/**
 * The pop side of a FIFO, written once: the one-consumer gate, the wait for an item, the
 * wake-up, closing, and the initial-population count (see the module documentation).
 * Internal to the FIFOs.
 *
 * @typeParam B - what one pop takes from the queue (a key's deltas, a batch).
 */
export class PopGate<B> {
  readonly #queue: { readonly length: number };
  readonly #what: string;
  readonly #count: (taken: B) => number;
  #popping: Promise<unknown> = Promise.resolve();
  /** Who waits for an item; `[w]` when one does (pushing onto `[]` would reserve 17 slots). */
  #waiters: (() => void)[] | undefined;
  #closed = false;
  #populated = false;
  #initialPopulationCount = 0;

  /**
   * @param queue - the FIFO (its `length` says whether there is anything to take).
   * @param what - the FIFO's name, for {@link FIFOClosedError}.
   * @param count - how many queued items a taken value stands for.
   */
  constructor(queue: { readonly length: number }, what: string, count: (taken: B) => number) {
    this.#queue = queue;
    this.#what = what;
    this.#count = count;
  }

  /**
   * After the previous pop settled, wait for an item, `take(max)` it and run `process` on
   * it; the initial-population count drops by its size once `process` settled.
   */
  pop(
    take: (max: number) => B,
    max: number,
    process: (taken: B, isInInitialList: boolean) => void | Promise<void>,
  ): Promise<B> {
    const run = this.#popping.then(
      () => this.#pop(take, max, process),
      () => this.#pop(take, max, process),
    );
    this.#popping = run.catch(ignore);
    return run;
  }

  async #pop(
    take: (max: number) => B,
    max: number,
    process: (taken: B, isInInitialList: boolean) => void | Promise<void>,
  ): Promise<B> {
    while (this.#queue.length === 0) {
      if (this.#closed) throw new FIFOClosedError(this.#what);
      await new Promise<void>((resolve) => this.#wait(resolve));
    }
    const isInInitialList = !this.hasSynced();
    // A batch never mixes the tail of the initial list with later items (client-go).
    const remaining = this.#initialPopulationCount;
    const taken = take(remaining > 0 && remaining < max ? remaining : max);
    try {
      await process(taken, isInInitialList);
    } finally {
      if (this.#initialPopulationCount > 0) {
        this.#initialPopulationCount = Math.max(
          0,
          this.#initialPopulationCount - this.#count(taken),
        );
      }
    }
    return taken;
  }

  /** An add, update or delete: from now on the queue is populated. */
  populated(): void {
    this.#populated = true;
  }

  /** A `replace()` that queued `count` items: the initial list, when it is the first event. */
  replaced(count: number): void {
    if (this.#populated) return;
    this.#populated = true;
    this.#initialPopulationCount = count;
  }

  /** True once populated and the initial list was processed. */
  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /**
   * Call `callback` once when something is queued or the queue closes: at once when either
   * is already so. A consumer parks this way between pops, holding no pending pop.
   */
  onReady(callback: () => void): void {
    if (this.#queue.length > 0 || this.#closed) callback();
    else this.#wait(callback);
  }

  #wait(callback: () => void): void {
    if (this.#waiters === undefined) this.#waiters = [callback];
    else this.#waiters.push(callback);
  }

  /** Wake a waiting pop (something was queued). */
  wake(): void {
    const waiters = this.#waiters;
    if (waiters === undefined) return;
    this.#waiters = undefined;
    for (const w of waiters) w();
  }

  /** Close: waiting pops wake up, and reject once the queue is empty. */
  close(): void {
    this.#closed = true;
    this.wake();
  }

  /** True after {@link PopGate.close}. */
  get closed(): boolean {
    return this.#closed;
  }
}
