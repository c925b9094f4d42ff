/**
 * Rate limiters: how long an item waits before it is retried. Same arithmetic as
 * client-go's `util/workqueue/default_rate_limiters.go`; delays are in milliseconds.
 *
 * A rate-limiting queue hands its limiter the item's key (the item itself for strings and
 * numbers), so per-item limiters keep one history per key.
 *
 * | limiter | delay of the n-th `when(x)` (n from 0) |
 * | --- | --- |
 * | {@link ItemExponentialFailureRateLimiter}(base, max) | `min(base·2ⁿ, max)` |
 * | {@link BucketRateLimiter}(qps, burst) | 0 for the first `burst` calls, then `1/qps` s apart (global) |
 * | {@link ItemFastSlowRateLimiter}(fast, slow, k) | `fast` for n < k, then `slow` |
 * | {@link MaxOfRateLimiter}(...ls) | max over all limiters (each one is called) |
 * | {@link WithMaxWaitRateLimiter}(l, max) | `min(l.when(x), max)` |
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { KubeControllerKitError } from '../util/errors.js';

/** Decides how long an item waits before being retried. */
export interface RateLimiter<K = unknown> {
  /** The delay in ms before `item` is retried; counts as one more failure. */
  when(item: K): number;
  /** Forget `item`'s history (call when it was processed successfully). */
  forget(item: K): void;
  /** How many times `item` has been requeued (failed) since it was last forgotten. */
  numRequeues(item: K): number;
}

/** A rate limiter was configured with an impossible value. */
export class InvalidRateLimiterError extends KubeControllerKitError {}

function checkNonNegative(what: string, value: number): void {
  if (!(value >= 0)) {
    throw new InvalidRateLimiterError(
      `rate limiter: ${what} must be a non-negative number of milliseconds, got ${String(value)}`,
    );
  }
}

/**
 * Per-item exponential backoff: the n-th failure of an item (from 0) waits
 * `baseDelayMs · 2ⁿ`, capped at `maxDelayMs`. Huge `n` cannot overflow: it is capped too.
 */
export class ItemExponentialFailureRateLimiter<K = unknown> implements RateLimiter<K> {
  readonly #failures = new Map<K, number>();

  /**
   * @param baseDelayMs - delay after the first failure.
   * @param maxDelayMs - the cap.
   */
  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
  ) {
    checkNonNegative('baseDelayMs', baseDelayMs);
    checkNonNegative('maxDelayMs', maxDelayMs);
  }

  /** {@inheritDoc RateLimiter.when} */
  when(item: K): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    if (this.baseDelayMs === 0) return 0;
    // 2 ** exp becomes Infinity for large exp; the comparison caps it.
    const backoff = this.baseDelayMs * 2 ** exp;
    return backoff < this.maxDelayMs ? backoff : this.maxDelayMs;
  }

  /** {@inheritDoc RateLimiter.forget} */
  forget(item: K): void {
    this.#failures.delete(item);
  }

  /** {@inheritDoc RateLimiter.numRequeues} */
  numRequeues(item: K): number {
    return this.#failures.get(item) ?? 0;
  }
}

/**
 * A global token bucket, as `golang.org/x/time/rate.Limiter(qps, burst).Reserve().Delay()`:
 * the bucket starts full with `burst` tokens and refills at `qps` tokens per second; every
 * `when` takes a token (going into debt when empty) and returns how long until that token
 * exists. It ignores the item, so `numRequeues` is always 0 and `forget` does nothing.
 * With `burst` 0 (or `qps` 0 once the burst is spent) no token ever comes: the delay is
 * `Infinity`, as in Go (`InfDuration`).
 */
export class BucketRateLimiter<K = unknown> implements RateLimiter<K> {
  readonly #clock: Clock;
  #tokens: number;
  #last = Number.NEGATIVE_INFINITY;
  #burstLeft: number;

  /**
   * @param qps - tokens added per second (`Infinity` for no limit).
   * @param burst - bucket size.
   * @param clock - the source of time.
   */
  constructor(
    readonly qps: number,
    readonly burst: number,
    clock: Clock = realClock,
  ) {
    if (!(qps >= 0))
      throw new InvalidRateLimiterError(`BucketRateLimiter: qps must be ≥ 0, got ${qps}`);
    if (!(burst >= 0) || !Number.isInteger(burst)) {
      throw new InvalidRateLimiterError(
        `BucketRateLimiter: burst must be an integer ≥ 0, got ${burst}`,
      );
    }
    this.#clock = clock;
    this.#tokens = burst;
    this.#burstLeft = burst;
  }

  /** {@inheritDoc RateLimiter.when} */
  when(_item: K): number {
    if (this.qps === Number.POSITIVE_INFINITY) return 0;
    if (this.qps === 0) {
      // x/time/rate: with a zero limit, only the burst is ever allowed.
      if (this.#burstLeft >= 1) {
        this.#burstLeft -= 1;
        return 0;
      }
      return Number.POSITIVE_INFINITY;
    }
    if (this.burst < 1) return Number.POSITIVE_INFINITY;
    let now = this.#clock.now();
    if (now < this.#last) now = this.#last;
    const elapsedMs = now - this.#last;
    let tokens = this.#tokens + (elapsedMs / 1000) * this.qps;
    if (!(tokens <= this.burst)) tokens = this.burst;
    tokens -= 1;
    this.#tokens = tokens;
    this.#last = now;
    if (tokens >= 0) return 0;
    // Go truncates the wait to whole nanoseconds.
    return Math.trunc((-tokens / this.qps) * 1e9) / 1e6;
  }

  /** Does nothing: the bucket is global. */
  forget(_item: K): void {}

  /** Always 0: the bucket is global. */
  numRequeues(_item: K): number {
    return 0;
  }
}

/** `fastDelayMs` for the first `maxFastAttempts` attempts of an item, then `slowDelayMs`. */
export class ItemFastSlowRateLimiter<K = unknown> implements RateLimiter<K> {
  readonly #attempts = new Map<K, number>();

  /**
   * @param fastDelayMs - delay of the first `maxFastAttempts` attempts.
   * @param slowDelayMs - delay of later attempts.
   * @param maxFastAttempts - how many attempts are fast.
   */
  constructor(
    readonly fastDelayMs: number,
    readonly slowDelayMs: number,
    readonly maxFastAttempts: number,
  ) {
    checkNonNegative('fastDelayMs', fastDelayMs);
    checkNonNegative('slowDelayMs', slowDelayMs);
  }

  /** {@inheritDoc RateLimiter.when} */
  when(item: K): number {
    const n = (this.#attempts.get(item) ?? 0) + 1;
    this.#attempts.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  /** {@inheritDoc RateLimiter.forget} */
  forget(item: K): void {
    this.#attempts.delete(item);
  }

  /** {@inheritDoc RateLimiter.numRequeues} */
  numRequeues(item: K): number {
    return this.#attempts.get(item) ?? 0;
  }
}

/**
 * The longest delay of several limiters. Every limiter is called on every `when` (so each
 * one's history advances); `numRequeues` is the largest, `forget` forgets in all.
 */
export class MaxOfRateLimiter<K = unknown> implements RateLimiter<K> {
  readonly #limiters: readonly RateLimiter<K>[];

  /** @param limiters - the limiters to combine. */
  constructor(...limiters: RateLimiter<K>[]) {
    this.#limiters = limiters;
  }

  /** {@inheritDoc RateLimiter.when} */
  when(item: K): number {
    let max = 0;
    for (const l of this.#limiters) {
      const d = l.when(item);
      if (d > max) max = d;
    }
    return max;
  }

  /** {@inheritDoc RateLimiter.forget} */
  forget(item: K): void {
    for (const l of this.#limiters) l.forget(item);
  }

  /** {@inheritDoc RateLimiter.numRequeues} */
  numRequeues(item: K): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** Caps another limiter's delay at `maxDelayMs`. */
export class WithMaxWaitRateLimiter<K = unknown> implements RateLimiter<K> {
  /**
   * @param limiter - the limiter to cap.
   * @param maxDelayMs - the longest delay returned.
   */
  constructor(
    readonly limiter: RateLimiter<K>,
    readonly maxDelayMs: number,
  ) {
    checkNonNegative('maxDelayMs', maxDelayMs);
  }

  /** {@inheritDoc RateLimiter.when} */
  when(item: K): number {
    const d = this.limiter.when(item);
    return d > this.maxDelayMs ? this.maxDelayMs : d;
  }

  /** {@inheritDoc RateLimiter.forget} */
  forget(item: K): void {
    this.limiter.forget(item);
  }

  /** {@inheritDoc RateLimiter.numRequeues} */
  numRequeues(item: K): number {
    return this.limiter.numRequeues(item);
  }
}

/**
 * client-go's `DefaultControllerRateLimiter`: the larger of per-item exponential backoff
 * (5 ms doubling to 1000 s) and a global bucket of 10 qps with burst 100.
 */
export function defaultControllerRateLimiter<K = unknown>(
  clock: Clock = realClock,
): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1000 * 1000),
    new BucketRateLimiter<K>(10, 100, clock),
  );
}

/** client-go's `DefaultItemBasedRateLimiter`: per-item exponential backoff, 1 ms doubling to 1000 s. */
export function defaultItemBasedRateLimiter<K = unknown>(): RateLimiter<K> {
  return new ItemExponentialFailureRateLimiter<K>(1, 1000 * 1000);
}
