/**
 * The work queue: client-go's `workqueue.Typed[T]`.
 *
 * State is a FIFO plus two sets, `dirty` (items that need processing) and `processing`
 * (items a worker holds). The rules:
 *
 * - `add(x)` is ignored while shutting down, is a no-op when `x` is already dirty, and
 *   otherwise marks `x` dirty and queues it — **unless a worker is processing it**; then it
 *   is queued again when that worker calls `done(x)`.
 * - `get()` waits while the queue is empty and not shut down; it reports shutdown only when
 *   the queue is shut down **and** empty, so items queued before `shutDown()` are drained.
 *   It moves the item from dirty to processing.
 * - `done(x)` ends processing and re-queues `x` if it was added meanwhile. So an item is
 *   never processed by two workers at once, and any number of adds during processing
 *   collapse into one more run.
 * - `len()` counts queued items only (not items being processed).
 *
 * Item identity: strings and numbers compare by value. Any other item type needs a
 * `keyFn` that maps an item to a string or number; without one, objects compare by
 * reference (two equal-looking objects are two items).
 *
 * @module
 */
import { Deque } from '../util/deque.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { QueueMetrics, getDefaultMetricsProvider } from './metrics.js';
import type { MetricsProvider } from './metrics.js';
import { Waiters } from './waiters.js';

/** Options of every queue. */
export interface QueueOptions<T> {
  /** The queue's name; metrics are emitted only for named queues. */
  name?: string;
  /**
   * Maps an item to its identity. Defaults to the item itself, which is right for strings
   * and numbers; objects need one (e.g. `(o) => o.namespace + '/' + o.name`).
   */
  keyFn?: (item: T) => string | number;
  /** The source of time (default: the real clock). */
  clock?: Clock;
  /** Where metrics go (default: the provider set with `setDefaultMetricsProvider`). */
  metricsProvider?: MetricsProvider;
}

/** What {@link Queue.get} resolves to: an item to process, or the news that the queue is done. */
export type QueueGetResult<T> =
  | {
      /** False: an item was taken. */
      readonly shutdown: false;
      /** The item; call `done(item)` when finished with it. */
      readonly item: T;
    }
  | {
      /** True: the queue is shut down and drained; stop working. */
      readonly shutdown: true;
      /** Never set when shut down. */
      readonly item?: undefined;
    };

const SHUTDOWN: QueueGetResult<never> = Object.freeze({ shutdown: true });
const identity = (x: unknown): unknown => x;

/**
 * A deduplicating FIFO work queue where an item is never handed to two workers at once.
 *
 * @typeParam T - the item type; use string keys (`namespace/name`) as client-go does.
 *
 * @example
 * ```ts
 * const queue = new Queue<string>();
 * queue.add('default/web');
 * for await (const key of queue) {
 *   await reconcile(key); // done(key) is called for you, even if this throws
 * }
 * ```
 */
export class Queue<T> implements AsyncIterable<T> {
  /** The queue's clock. */
  protected readonly clock: Clock;
  /** The queue's metrics, when it has a name and a provider. @internal */
  protected readonly metrics: QueueMetrics | undefined;
  /** Maps an item to its identity. */
  protected readonly keyOf: (item: T) => unknown;

  readonly #items = new Deque<T>();
  /** dirty key → the item to queue for it. */
  readonly #dirty = new Map<unknown, T>();
  readonly #processing = new Set<unknown>();
  readonly #waiters = new Waiters<QueueGetResult<T>>();
  #shuttingDown = false;
  #drainWaiters: (() => void)[] = [];

  /** Create an empty queue. */
  constructor(options: QueueOptions<T> = {}) {
    this.clock = options.clock ?? realClock;
    this.keyOf = (options.keyFn as ((item: T) => unknown) | undefined) ?? identity;
    const provider = options.metricsProvider ?? getDefaultMetricsProvider();
    this.metrics =
      options.name !== undefined && options.name !== '' && provider !== undefined
        ? new QueueMetrics(options.name, provider, this.clock)
        : undefined;
  }

  /** Mark `item` as needing processing (see the module rules). */
  add(item: T): void {
    if (this.#shuttingDown) return;
    const key = this.keyOf(item);
    if (this.#dirty.has(key)) return;
    this.metrics?.add(key);
    this.#dirty.set(key, item);
    if (this.#processing.has(key)) return;
    this.#push(item, key);
  }

  /**
   * Wait for the next item and mark it as being processed; call {@link Queue.done} when
   * finished with it. Resolves to `{ shutdown: true }` once the queue is shut down and
   * empty. With a signal, an abort rejects the wait with the signal's reason (no item is
   * taken).
   */
  get(signal?: AbortSignal): Promise<QueueGetResult<T>> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (this.#items.length > 0) {
      return Promise.resolve({ shutdown: false, item: this.#take() });
    }
    if (this.#shuttingDown) return Promise.resolve(SHUTDOWN);
    return this.#waiters.wait(signal);
  }

  /**
   * Finish processing `item`. If it was added again while being processed, it is queued
   * again now. Calling `done` for an item that is not being processed is a no-op.
   */
  done(item: T): void {
    const key = this.keyOf(item);
    if (!this.#processing.delete(key)) return;
    this.metrics?.done(key);
    const dirtyItem = this.#dirty.get(key);
    if (dirtyItem !== undefined || this.#dirty.has(key)) {
      this.#push(dirtyItem as T, key);
    } else if (this.#processing.size === 0 && this.#drainWaiters.length > 0) {
      this.#releaseDrainWaiters();
    }
  }

  /** Number of queued items (items being processed are not counted). */
  len(): number {
    return this.#items.length;
  }

  /** Number of items being processed. */
  processingLen(): number {
    return this.#processing.size;
  }

  /**
   * Stop accepting adds. Workers still get the items already queued; once the queue is
   * empty, every `get()` resolves to `{ shutdown: true }`. Also releases a pending
   * {@link Queue.shutDownWithDrain}.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    this.onShutDown();
    this.metrics?.stop();
    this.#waiters.resolveAll(SHUTDOWN);
    this.#releaseDrainWaiters();
  }

  /**
   * Shut down, and resolve once no item is being processed (workers still drain what was
   * queued). A later plain {@link Queue.shutDown} resolves it at once.
   */
  shutDownWithDrain(): Promise<void> {
    const drained =
      this.#processing.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    const pending = this.#drainWaiters.splice(0);
    this.#shuttingDown = true;
    this.shutDown();
    this.#drainWaiters.push(...pending);
    return drained;
  }

  /** True once {@link Queue.shutDown} or {@link Queue.shutDownWithDrain} was called. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Iterate over items until the queue is shut down and drained. `done(item)` is called
   * when the loop body finishes — also when it throws or breaks out of the loop.
   */
  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return queueItems(this);
  }

  /** Called by {@link Queue.shutDown} before waiters are released; subclasses drop their own state. */
  protected onShutDown(): void {}

  #push(item: T, key: unknown): void {
    if (this.#waiters.length === 0) {
      this.#items.push(item);
      return;
    }
    // A waiter exists only while the queue is empty: hand the item over directly.
    this.#startProcessing(key);
    this.#waiters.resolveNext({ shutdown: false, item });
  }

  #take(): T {
    // Called only when an item is queued (an item may itself be undefined).
    const item = this.#items.shift() as T;
    this.#startProcessing(this.keyOf(item));
    return item;
  }

  #startProcessing(key: unknown): void {
    this.metrics?.get(key);
    this.#processing.add(key);
    this.#dirty.delete(key);
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }
}

/**
 * The items of a work queue until it is shut down and drained, `done(item)` called when the
 * loop body finishes (also when it throws or breaks out): what both queues' async iterators
 * are.
 */
export async function* queueItems<T>(queue: {
  get(): Promise<QueueGetResult<T>>;
  done(item: T): void;
}): AsyncGenerator<T, void, undefined> {
  for (;;) {
    const r = await queue.get();
    if (r.shutdown) return;
    try {
      yield r.item;
    } finally {
      queue.done(r.item);
    }
  }
}
