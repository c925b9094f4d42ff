/**
 * The shape every work queue shares (client-go's `TypedInterface` and
 * `TypedRateLimitingInterface`), so that workers and controllers run over the FIFO
 * {@link RateLimitingQueue} and the {@link PriorityQueue} alike.
 *
 * @module
 */
import type { QueueGetResult } from './queue.js';

/** What workers need of a queue: take an item, say when it is done, shut down. */
export interface WorkQueue<T> {
  /** Mark `item` as needing processing. */
  add(item: T): void;
  /** Wait for the next item (see {@link Queue.get}). */
  get(signal?: AbortSignal): Promise<QueueGetResult<T>>;
  /** Finish processing `item`. */
  done(item: T): void;
  /** Number of queued items, ready to be handed out. */
  len(): number;
  /** Number of items being processed. */
  processingLen(): number;
  /** Stop accepting adds; workers drain what is queued. */
  shutDown(): void;
  /** Shut down and resolve once nothing is being processed. */
  shutDownWithDrain(): Promise<void>;
  /** True once a shutdown was asked for. */
  shuttingDown(): boolean;
}

/** A {@link WorkQueue} with delays and a rate limiter (client-go's `TypedRateLimitingInterface`). */
export interface RateLimitingWorkQueue<T> extends WorkQueue<T> {
  /** Add `item` after `delayMs` milliseconds; an earlier pending time wins. */
  addAfter(item: T, delayMs: number): void;
  /** Add `item` after the rate limiter's delay (one more failure). */
  addRateLimited(item: T): void;
  /** Forget `item`'s failures. */
  forget(item: T): void;
  /** How many times `item` was requeued through the rate limiter. */
  numRequeues(item: T): number;
  /** Number of items waiting for their delay to pass. */
  waitingLen(): number;
}
