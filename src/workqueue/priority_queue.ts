/**
 * The priority queue: controller-runtime's `priorityqueue.PriorityQueue` (design
 * `designs/priorityqueue.md`, the default queue of its controllers since v0.23), with
 * client-go's work queue contract.
 *
 * Every item has a priority (higher first, default 0). The rules:
 *
 * - **Order.** Ready items are handed out by priority, highest first; within one priority
 *   first-in first-out, where "in" is the moment the item became ready (an item whose delay
 *   passed queues behind the items already ready at its priority).
 * - **One entry per item.** `add(x, { priority, after, rateLimited })` of an item already
 *   queued (ready or waiting) keeps the **highest** priority and the **earliest** ready
 *   time: a ready item stays ready whatever delay a later add asks for; a waiting item moves
 *   to the earlier time; a plain add makes a waiting item ready at once. An item raised to a
 *   higher priority queues at the end of that priority.
 * - **`rateLimited`** asks the rate limiter for a delay (one more failure) and uses the
 *   shorter of it and `after` (when `after` is set).
 * - **client-go's contract.** An item is never handed to two workers at once: an item added
 *   while a worker holds it is held back and queued when that worker calls `done`, keeping
 *   the highest priority asked for meanwhile. `get()` drains what is ready after
 *   `shutDown()` (items still waiting are dropped) and `shutDownWithDrain()` waits for the
 *   items in flight, as {@link Queue} does. (controller-runtime's own queue drops its items
 *   on shutdown; this one keeps client-go's promise so the Controller's drain works alike.)
 * - **`len()`** counts ready items (not the waiting ones, not the ones being processed).
 * - **Metrics** under client-go's names as {@link Queue}; the depth is reported by priority
 *   (`workqueue_depth{name,priority}`) when the provider has `newDepthWithPriorityMetric`.
 *   An add counts when the item becomes ready (as controller-runtime counts it); a delayed
 *   add counts as a retry.
 *
 * Ready items sit in one FIFO per priority (a raised item leaves a stale entry behind that
 * is skipped), waiting items on the delaying queue's min-heap, so add, get and done cost
 * O(1) for ready items and O(log n) for delayed ones.
 *
 * @module
 */
import { Deque } from '../util/deque.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { WaitingHeap } from './heap.js';
import type { WaitingEntry } from './heap.js';
import { QueueMetrics, getDefaultMetricsProvider } from './metrics.js';
import { queueItems } from './queue.js';
import type { QueueOptions } from './queue.js';
import { defaultControllerRateLimiter } from './rate_limiters.js';
import type { RateLimiter } from './rate_limiters.js';
import { Waiters } from './waiters.js';

/**
 * The priority of events that change nothing: objects of an informer's initial list,
 * resyncs, and updates that keep the resourceVersion (controller-runtime's
 * `handler.LowPriority`).
 */
export const LowPriority = -100;

/** How an item is added to a {@link PriorityQueue} (controller-runtime's `AddOpts`). */
export interface PriorityAddOptions {
  /** Higher is handed out first. Default 0. */
  priority?: number;
  /** Make the item ready only after this many milliseconds. Default 0 (at once). */
  after?: number;
  /**
   * Ask the rate limiter for the delay (one more failure); with `after` as well, the shorter
   * of the two wins.
   */
  rateLimited?: boolean;
}

/** Options of a {@link PriorityQueue}. */
export interface PriorityQueueOptions<T> extends QueueOptions<T> {
  /** Spaces `rateLimited` adds (default {@link defaultControllerRateLimiter} on the queue's clock). */
  rateLimiter?: RateLimiter;
}

/** What {@link PriorityQueue.get} resolves to: an item with its priority, or shutdown. */
export type PriorityQueueGetResult<T> =
  | {
      /** False: an item was taken. */
      readonly shutdown: false;
      /** The item; call `done(item)` when finished with it. */
      readonly item: T;
      /** The priority it was queued with. */
      readonly priority: number;
    }
  | {
      /** True: the queue is shut down and drained; stop working. */
      readonly shutdown: true;
      /** Never set when shut down. */
      readonly item?: undefined;
    };

/** In a priority FIFO; on the waiting heap; ready but held by a worker (queued on `done`). */
type State = 'ready' | 'waiting' | 'parked';

interface Entry<T> extends WaitingEntry<T> {
  priority: number;
  state: State;
  /** False once the entry was replaced in its FIFO (raised priority) or handed out. */
  live: boolean;
}

const SHUTDOWN: PriorityQueueGetResult<never> = Object.freeze({ shutdown: true });
const identity = (x: unknown): unknown => x;

/**
 * A deduplicating work queue that hands out the highest priority first, with delays and a
 * rate limiter; never gives one item to two workers at once.
 *
 * @typeParam T - the item type; use string keys (`namespace/name`).
 *
 * @example
 * ```ts
 * const queue = new PriorityQueue<string>({ name: 'apps' });
 * queue.add('default/old', { priority: LowPriority }); // from the initial list
 * queue.add('default/changed'); // a real change: priority 0, handed out first
 * const next = await queue.get(); // { item: 'default/changed', priority: 0 }
 * ```
 */
export class PriorityQueue<T> implements AsyncIterable<T> {
  /** The queue's rate limiter; it sees item keys. */
  readonly rateLimiter: RateLimiter;
  readonly #clock: Clock;
  readonly #metrics: QueueMetrics | undefined;
  readonly #keyOf: (item: T) => unknown;

  /** Every queued item (ready, waiting or parked) by key. */
  readonly #entries = new Map<unknown, Entry<T>>();
  /** priority → FIFO of ready entries (some stale); an empty FIFO is kept for reuse. */
  readonly #fifos = new Map<number, Deque<Entry<T>>>();
  /** The priorities whose FIFO is not empty, highest first. */
  #priorities: number[] = [];
  #readyCount = 0;
  readonly #heap = new WaitingHeap<T>();
  /** key → priority of the items workers hold. */
  readonly #processing = new Map<unknown, number>();
  #seq = 0;
  #timer: Timer | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  readonly #waiters = new Waiters<PriorityQueueGetResult<T>>();
  #shuttingDown = false;
  #drainWaiters: (() => void)[] = [];

  /** Create an empty priority queue. */
  constructor(options: PriorityQueueOptions<T> = {}) {
    this.#clock = options.clock ?? realClock;
    this.#keyOf = (options.keyFn as ((item: T) => unknown) | undefined) ?? identity;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
    const provider = options.metricsProvider ?? getDefaultMetricsProvider();
    this.#metrics =
      options.name !== undefined && options.name !== '' && provider !== undefined
        ? new QueueMetrics(options.name, provider, this.#clock)
        : undefined;
  }

  /**
   * Add `item` with a priority, a delay, or the rate limiter's delay (controller-runtime's
   * `AddWithOpts`); plain `add(item)` is priority 0, ready at once. A duplicate keeps the
   * highest priority and the earliest ready time. Ignored once the queue is shutting down.
   */
  add(item: T, options: PriorityAddOptions = {}): void {
    if (this.#shuttingDown) return;
    const key = this.#keyOf(item);
    const priority = options.priority ?? 0;
    let after = options.after ?? 0;
    if (options.rateLimited === true) {
      const limited = this.rateLimiter.when(key);
      if (!(after > 0) || limited < after) after = limited;
    }
    let readyAt = 0;
    if (after > 0) {
      readyAt = this.#clock.now() + after;
      this.#metrics?.retry();
    }
    const existing = this.#entries.get(key);
    if (existing === undefined) {
      if (readyAt === 0 && this.#waiters.length > 0 && !this.#processing.has(key)) {
        // A worker waits (so nothing is ready): hand the item over without queueing it.
        this.#seq++;
        this.#metrics?.add(key, priority);
        this.#processing.set(key, priority);
        this.#metrics?.get(key, priority);
        this.#waiters.resolveNext({ shutdown: false, item, priority });
        return;
      }
      const entry: Entry<T> = {
        item,
        key,
        readyAt,
        seq: this.#seq++,
        index: -1,
        priority,
        state: 'waiting',
        live: true,
      };
      this.#entries.set(key, entry);
      if (readyAt === 0) this.#makeReady(entry);
      else {
        this.#heap.push(entry);
        this.#arm();
      }
      return;
    }
    if (existing.state === 'waiting') {
      existing.priority = Math.max(existing.priority, priority);
      if (readyAt === 0) {
        this.#heap.remove(existing);
        this.#makeReady(existing);
        this.#arm();
      } else if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.#heap.decreased(existing);
        this.#arm();
      }
      return;
    }
    // Ready or parked: it stays so; only a higher priority changes anything.
    if (priority <= existing.priority) return;
    this.#metrics?.changePriority(existing.priority, priority);
    if (existing.state === 'parked') {
      existing.priority = priority;
      return;
    }
    // Leave the old FIFO entry behind as stale and queue a fresh one at the new priority.
    existing.live = false;
    const raised: Entry<T> = { ...existing, priority, seq: this.#seq++, live: true };
    this.#entries.set(key, raised);
    this.#fifo(priority).push(raised);
  }

  /** Add `item` at priority 0 after `delayMs` milliseconds. */
  addAfter(item: T, delayMs: number): void {
    this.add(item, { after: delayMs });
  }

  /** Add `item` at priority 0 after the rate limiter's delay (one more failure). */
  addRateLimited(item: T): void {
    this.add(item, { rateLimited: true });
  }

  /**
   * Wait for the highest-priority ready item and mark it as being processed; call
   * {@link PriorityQueue.done} when finished. Resolves to `{ shutdown: true }` once the queue
   * is shut down and nothing is ready. An aborted signal rejects the wait (no item taken).
   */
  get(signal?: AbortSignal): Promise<PriorityQueueGetResult<T>> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (this.#readyCount > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(SHUTDOWN);
    return this.#waiters.wait(signal);
  }

  /**
   * Finish processing `item`; if it was added meanwhile it is queued now, at the highest
   * priority asked for. A no-op for an item that is not being processed.
   */
  done(item: T): void {
    const key = this.#keyOf(item);
    if (!this.#processing.delete(key)) return;
    this.#metrics?.done(key);
    const parked = this.#entries.get(key);
    if (parked?.state === 'parked') {
      parked.state = 'ready';
      this.#enqueueReady(parked);
    } else if (this.#processing.size === 0 && this.#drainWaiters.length > 0) {
      this.#releaseDrainWaiters();
    }
  }

  /** The priority `item` was handed out with, while a worker holds it. */
  processingPriority(item: T): number | undefined {
    return this.#processing.get(this.#keyOf(item));
  }

  /** Forget `item`'s failures; call it when the item was processed successfully. */
  forget(item: T): void {
    this.rateLimiter.forget(this.#keyOf(item));
  }

  /** How many times `item` was added with `rateLimited`. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(this.#keyOf(item));
  }

  /** Number of ready items (not waiting, not being processed). */
  len(): number {
    return this.#readyCount;
  }

  /** Number of items waiting for their delay to pass. */
  waitingLen(): number {
    return this.#heap.size;
  }

  /** Number of items being processed. */
  processingLen(): number {
    return this.#processing.size;
  }

  /**
   * Stop accepting adds and drop the waiting items. Workers still get the ready items; then
   * every `get()` resolves to `{ shutdown: true }`. Releases a pending drain.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    while (this.#heap.size > 0) {
      const e = this.#heap.pop() as Entry<T>;
      this.#entries.delete(e.key);
    }
    this.#metrics?.stop();
    this.#waiters.resolveAll(SHUTDOWN);
    this.#releaseDrainWaiters();
  }

  /** Shut down, and resolve once no item is being processed. */
  shutDownWithDrain(): Promise<void> {
    const drained =
      this.#processing.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    const pending = this.#drainWaiters.splice(0);
    this.shutDown();
    this.#drainWaiters.push(...pending);
    return drained;
  }

  /** True once a shutdown was asked for. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Iterate over items (highest priority first) until shut down and drained; `done` is called for you. */
  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return queueItems(this);
  }

  /** A new (or previously waiting) entry became ready. */
  #makeReady(entry: Entry<T>): void {
    entry.readyAt = 0;
    entry.seq = this.#seq++;
    if (this.#processing.has(entry.key)) {
      entry.state = 'parked';
      this.#metrics?.add(entry.key, entry.priority);
      return;
    }
    entry.state = 'ready';
    this.#metrics?.add(entry.key, entry.priority);
    this.#enqueueReady(entry);
  }

  /** Put a ready entry in its FIFO, or hand it straight to a waiting worker. */
  #enqueueReady(entry: Entry<T>): void {
    if (this.#waiters.length === 0) {
      this.#readyCount++;
      this.#fifo(entry.priority).push(entry);
      return;
    }
    // A worker waits only while nothing is ready: hand the item over directly.
    this.#waiters.resolveNext(this.#handOut(entry));
  }

  /** The FIFO of `priority`, listed among the non-empty ones (FIFOs are kept for reuse). */
  #fifo(priority: number): Deque<Entry<T>> {
    let fifo = this.#fifos.get(priority);
    if (fifo === undefined) {
      fifo = new Deque<Entry<T>>();
      this.#fifos.set(priority, fifo);
    }
    if (fifo.length === 0) {
      const ps = this.#priorities;
      let i = 0;
      while (i < ps.length && ps[i]! > priority) i++;
      ps.splice(i, 0, priority);
    }
    return fifo;
  }

  /** Take the first live entry of the highest priority (called only when one is ready). */
  #take(): PriorityQueueGetResult<T> {
    for (;;) {
      const priority = this.#priorities[0]!;
      const fifo = this.#fifos.get(priority)!;
      const entry = fifo.shift();
      if (fifo.length === 0) this.#priorities.shift();
      if (entry === undefined || !entry.live) continue;
      this.#readyCount--;
      return this.#handOut(entry);
    }
  }

  #handOut(entry: Entry<T>): PriorityQueueGetResult<T> {
    entry.live = false;
    this.#entries.delete(entry.key);
    this.#processing.set(entry.key, entry.priority);
    this.#metrics?.get(entry.key, entry.priority);
    return { shutdown: false, item: entry.item, priority: entry.priority };
  }

  /** Make sure a timer is set for the earliest waiting item. */
  #arm(): void {
    const top = this.#heap.peek();
    if (top === undefined) {
      this.#timer?.cancel();
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (top.readyAt >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (!Number.isFinite(top.readyAt)) return;
    this.#timerAt = top.readyAt;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), top.readyAt - this.#clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    for (;;) {
      const top = this.#heap.peek();
      if (top === undefined || top.readyAt > now) break;
      this.#heap.pop();
      this.#makeReady(top as Entry<T>);
    }
    this.#arm();
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }
}
