/**
 * Retrying a read-modify-write on conflict (client-go's `util/retry`).
 *
 * {@link onError} runs `fn` up to `steps` times, sleeping one backoff step between
 * attempts (`steps - 1` sleeps at most). An error that is not retriable is thrown at
 * once; when the attempts run out, the **last** retriable error is thrown.
 * {@link retryOnConflict} is `onError` with {@link isConflict} (409 Conflict).
 *
 * `fn` must **re-read** the object on every attempt: retrying the same stale write only
 * fails again.
 *
 * @module
 */
import { isConflict } from '../client/errors.js';
import { Backoff } from '../util/backoff.js';
import type { BackoffOptions } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';

/**
 * client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart (±10 % jitter). For conflicts
 * between writers of the same object, which resolve quickly.
 */
export const DefaultRetry: Readonly<BackoffOptions> = Object.freeze({
  steps: 5,
  durationMs: 10,
  factor: 1,
  jitter: 0.1,
});

/**
 * client-go's `retry.DefaultBackoff`: 4 attempts with sleeps of about 10, 50 and 250 ms
 * (factor 5, ±10 % jitter). For waiting on something else to change.
 */
export const DefaultBackoff: Readonly<BackoffOptions> = Object.freeze({
  steps: 4,
  durationMs: 10,
  factor: 5,
  jitter: 0.1,
});

/** Options of {@link onError} and {@link retryOnConflict}. */
export interface RetryOptions {
  /** Source of time for the sleeps between attempts (default the real clock). */
  clock?: Clock;
  /** Aborting stops waiting: the pending sleep rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Randomness in [0, 1) for the jitter (tests pin it). */
  random?: () => number;
}

/**
 * Run `fn` until it succeeds, throws a non-retriable error, or `backoff.steps` attempts
 * have failed (then the last error is thrown). Resolves with `fn`'s result.
 *
 * @param backoff - attempts (`steps` ≥ 1) and the delays between them.
 * @param retriable - which errors are worth another attempt.
 * @param fn - the attempt; receives its 1-based number.
 * @throws RangeError when `backoff.steps` is below 1.
 */
export async function onError<R>(
  backoff: Readonly<BackoffOptions>,
  retriable: (error: unknown) => boolean,
  fn: (attempt: number) => Promise<R> | R,
  options: RetryOptions = {},
): Promise<R> {
  const steps = backoff.steps ?? 1;
  if (!(steps >= 1)) {
    throw new RangeError(`retry: backoff.steps must be at least 1, got ${String(steps)}`);
  }
  const clock = options.clock ?? realClock;
  const delays = new Backoff({ ...backoff, steps }, options.random);
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (err) {
      if (!retriable(err) || delays.stepsRemaining <= 1) throw err;
    }
    await clock.sleep(delays.step(), options.signal);
  }
}

/**
 * Run `fn` again while it fails with a 409 Conflict (client-go's `RetryOnConflict`), up to
 * `backoff.steps` attempts (default {@link DefaultRetry}: 5). Other errors are thrown at
 * once; when the attempts run out, the last conflict is thrown.
 *
 * @example
 * ```ts
 * await retryOnConflict(async () => {
 *   const app = await apps.get('web'); // re-read on every attempt
 *   app.status = { ...app.status, availableReplicas: 3 };
 *   return apps.updateStatus(app);
 * });
 * ```
 */
export function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R> | R,
  backoff: Readonly<BackoffOptions> = DefaultRetry,
  options: RetryOptions = {},
): Promise<R> {
  return onError(backoff, isConflict, fn, options);
}
