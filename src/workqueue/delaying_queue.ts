/**
 * The delaying queue: client-go's `workqueue.TypedDelayingInterface`.
 *
 * `addAfter(x, d)` adds `x` once `d` ms have passed on the queue's clock:
 *
 * - it counts as a retry in the metrics (even when `d ≤ 0`);
 * - `d ≤ 0` adds at once;
 * - waiting items sit on a binary min-heap ordered by ready time (O(log n) per call);
 * - **a duplicate waiting item keeps the earlier time** (a later, longer delay is ignored);
 * - one clock timer is armed for the earliest waiting item and re-armed as it changes;
 * - `shutDown()` drops the items still waiting, and `addAfter` is ignored afterwards.
 *
 * @module
 */
import type { Timer } from '../util/clock.js';
import { WaitingHeap } from './heap.js';
import type { WaitingEntry } from './heap.js';
import { Queue } from './queue.js';
import type { QueueOptions } from './queue.js';

/** Options of a {@link DelayingQueue}. */
export type DelayingQueueOptions<T> = QueueOptions<T>;

/** A {@link Queue} that can add items after a delay. */
export class DelayingQueue<T> extends Queue<T> {
  readonly #heap = new WaitingHeap<T>();
  readonly #waiting = new Map<unknown, WaitingEntry<T>>();
  #seq = 0;
  #timer: Timer | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  /** Create an empty delaying queue. */
  constructor(options: DelayingQueueOptions<T> = {}) {
    super(options);
  }

  /**
   * Add `item` after `delayMs` milliseconds (at once when `delayMs ≤ 0`). If the item is
   * already waiting, it keeps whichever ready time is earlier.
   */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.metrics?.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const key = this.keyOf(item);
    const existing = this.#waiting.get(key);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.#heap.decreased(existing);
      }
    } else {
      const entry: WaitingEntry<T> = { item, key, readyAt, seq: this.#seq++, index: -1 };
      this.#waiting.set(key, entry);
      this.#heap.push(entry);
    }
    this.#arm();
  }

  /** Number of items waiting for their delay to pass. */
  waitingLen(): number {
    return this.#heap.size;
  }

  /** @inheritDoc */
  protected override onShutDown(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#heap.clear();
    this.#waiting.clear();
    super.onShutDown();
  }

  /** Make sure a timer is set for the earliest waiting item. */
  #arm(): void {
    const top = this.#heap.peek();
    if (top === undefined || top.readyAt >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    // An item that never becomes ready (an infinite delay) needs no timer.
    if (!Number.isFinite(top.readyAt)) return;
    this.#timerAt = top.readyAt;
    this.#timer = this.clock.setTimeout(() => this.#fire(), top.readyAt - this.clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (;;) {
      const top = this.#heap.peek();
      if (top === undefined || top.readyAt > now) break;
      this.#heap.pop();
      this.#waiting.delete(top.key);
      this.add(top.item);
    }
    this.#arm();
  }
}
