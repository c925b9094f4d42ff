/**
 * The rate-limiting queue: client-go's `workqueue.TypedRateLimitingInterface`.
 *
 * `addRateLimited(x)` is `addAfter(x, limiter.when(key(x)))`; `forget(x)` clears the
 * limiter's history of `x` and `numRequeues(x)` reads it. **Call `forget` when an item was
 * processed successfully**, or its next failure waits as if it had never succeeded.
 *
 * @module
 */
import { DelayingQueue } from './delaying_queue.js';
import type { DelayingQueueOptions } from './delaying_queue.js';
import { defaultControllerRateLimiter } from './rate_limiters.js';
import type { RateLimiter } from './rate_limiters.js';

/** Options of a {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> extends DelayingQueueOptions<T> {
  /** The limiter (default: {@link defaultControllerRateLimiter} on the queue's clock). */
  rateLimiter?: RateLimiter;
}

/** A {@link DelayingQueue} whose retries are spaced by a {@link RateLimiter}. */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  /** The queue's rate limiter; it sees item keys. */
  readonly rateLimiter: RateLimiter;

  /** Create an empty rate-limiting queue. */
  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
  }

  /** Add `item` after the delay the rate limiter gives it (one more failure). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(this.keyOf(item)));
  }

  /** Forget `item`'s failures; call it when the item was processed successfully. */
  forget(item: T): void {
    this.rateLimiter.forget(this.keyOf(item));
  }

  /** How many times `item` was requeued through {@link RateLimitingQueue.addRateLimited}. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(this.keyOf(item));
  }
}
