/**
 * Waiting for informers to fill their caches (client-go's `cache.WaitForCacheSync`).
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';

/** How often {@link waitForCacheSync} polls, as client-go (100 ms). */
export const cacheSyncPollIntervalMs = 100;

/** Options of {@link waitForCacheSyncWithOptions}. */
export interface WaitForCacheSyncOptions {
  /** Source of time for the polling interval. */
  clock?: Clock;
  /** Poll interval in ms; default 100. */
  pollIntervalMs?: number;
}

/**
 * Resolve true once every function returns true (checked at once, then every 100 ms), or
 * false as soon as `signal` aborts. Never rejects. With no functions it resolves true.
 *
 * @example
 * ```ts
 * if (!(await waitForCacheSync(signal, pods.hasSynced.bind(pods), reg.hasSynced.bind(reg))))
 *   return; // stopped before the caches filled
 * ```
 */
export function waitForCacheSync(
  signal: AbortSignal,
  ...hasSyncedFns: (() => boolean)[]
): Promise<boolean> {
  return waitForCacheSyncWithOptions(signal, hasSyncedFns, {});
}

/** {@link waitForCacheSync} with a clock (for tests) and a poll interval. */
export async function waitForCacheSyncWithOptions(
  signal: AbortSignal,
  hasSyncedFns: readonly (() => boolean)[],
  options: WaitForCacheSyncOptions,
): Promise<boolean> {
  const clock = options.clock ?? realClock;
  const interval = options.pollIntervalMs ?? cacheSyncPollIntervalMs;
  for (;;) {
    if (signal.aborted) return false;
    if (hasSyncedFns.every((fn) => fn())) return true;
    try {
      await clock.sleep(interval, signal);
    } catch {
      return false;
    }
  }
}
