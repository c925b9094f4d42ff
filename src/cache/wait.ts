/**
 * Waiting for informers to fill their caches (client-go's `cache.WaitForCacheSync`).
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { ApiError } from '../client/errors.js';
import { errorMessage, KubeControllerKitError } from '../util/errors.js';
import type { LastError } from './reflector.js';

/** How often {@link waitForCacheSync} polls, as client-go (100 ms). */
export const cacheSyncPollIntervalMs = 100;

/** Options of {@link waitForCacheSyncWithOptions}. */
export interface WaitForCacheSyncOptions {
  /** Source of time for the polling interval and the timeout. */
  clock?: Clock;
  /** Poll interval in ms; default 100. */
  pollIntervalMs?: number;
  /**
   * Give up after this long (ms) and throw {@link CacheSyncTimeoutError}. Default: wait
   * until every cache synced or the signal aborts.
   */
  timeoutMs?: number;
  /** Names of the functions, in order, for the timeout error. Default `#1`, `#2`, … */
  names?: readonly string[];
  /** The controller that waits, named in the timeout error. */
  controller?: string;
}

/** Something that fills a cache and can say why it has not: an informer. */
export interface SyncSource {
  /** Name in the timeout error (an informer's name). */
  readonly name: string;
  /** True once its cache is filled. */
  hasSynced(): boolean;
  /** The last error that kept it from syncing, if it knows one. */
  lastError?(): LastError | undefined;
}

/** One cache that had not synced when {@link CacheSyncTimeoutError} was thrown. */
export interface NotSynced {
  /** Its name. */
  readonly name: string;
  /** Its last error, when it reported one. */
  readonly lastError: LastError | undefined;
}

/**
 * Each cache that has not synced, with its last error and how long that error has lasted:
 * `secrets/v1 (last error, for 800 ms: forbidden: …)`; an `ApiError` in its own words,
 * without the request.
 */
export function describeNotSynced(notSynced: readonly NotSynced[], nowMs: number): string {
  return notSynced
    .map((n) => {
      if (n.lastError === undefined) return `${n.name} (no error reported)`;
      const err = n.lastError.error;
      const text = err instanceof ApiError ? err.summary : errorMessage(err);
      return `${n.name} (last error, for ${Math.max(0, nowMs - n.lastError.sinceMs)} ms: ${text})`;
    })
    .join('; ');
}

/** Options of {@link CacheSyncTimeoutError}. */
export interface CacheSyncTimeoutErrorOptions {
  /** The controller whose caches did not sync (its `cacheSyncTimeoutMs` passed). */
  readonly controller?: string;
}

/**
 * Waiting for caches to sync gave up after its timeout; names those that did not sync and
 * the last error of each (a controller's `cacheSyncTimeoutMs`, controller-runtime's
 * `CacheSyncTimeout`, also names the controller).
 */
export class CacheSyncTimeoutError extends KubeControllerKitError {
  /** The timeout that elapsed (ms). */
  readonly timeoutMs: number;
  /** The caches that had not synced, with their last errors. */
  readonly notSynced: readonly NotSynced[];
  /** The controller that gave up waiting, when a controller did. */
  readonly controller: string | undefined;

  /**
   * @param timeoutMs - the timeout that elapsed.
   * @param notSynced - the caches that had not synced.
   * @param nowMs - clock time, to say how long each error has lasted.
   * @param options - the controller that waited.
   */
  constructor(
    timeoutMs: number,
    notSynced: readonly NotSynced[],
    nowMs: number,
    options: CacheSyncTimeoutErrorOptions = {},
  ) {
    const who = options.controller === undefined ? '' : `controller ${options.controller}: `;
    super(
      `${who}caches did not sync within ${timeoutMs} ms: ${notSynced.length} not synced: ${describeNotSynced(notSynced, nowMs)}`,
    );
    this.timeoutMs = timeoutMs;
    this.notSynced = notSynced;
    this.controller = options.controller;
  }
}

/**
 * Resolve true once every function returns true (checked at once, then every 100 ms), or
 * false as soon as `signal` aborts. Never rejects. With no functions it resolves true.
 * For a timeout, use {@link waitForCacheSyncWithOptions} or {@link waitForInformersSync}.
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

/**
 * {@link waitForCacheSync} with a clock (for tests), a poll interval and a timeout.
 *
 * @throws {@link CacheSyncTimeoutError} when `timeoutMs` elapses first, naming the
 *   functions (by `names`) that still returned false.
 */
export function waitForCacheSyncWithOptions(
  signal: AbortSignal,
  hasSyncedFns: readonly (() => boolean)[],
  options: WaitForCacheSyncOptions,
): Promise<boolean> {
  return waitForInformersSync(
    signal,
    hasSyncedFns.map((fn, i) => ({ name: options.names?.[i] ?? `#${i + 1}`, hasSynced: fn })),
    options,
  );
}

/**
 * Resolve true once every source (informers, registrations with a name) has synced, or
 * false as soon as `signal` aborts.
 *
 * @example
 * ```ts
 * await waitForInformersSync(signal, [pods, services], { timeoutMs: 60_000 });
 * // CacheSyncTimeoutError: caches did not sync within 60000 ms: 1 not synced:
 * //   pods (last error, for 59800 ms: pods is forbidden: …)
 * ```
 *
 * @throws {@link CacheSyncTimeoutError} when `timeoutMs` elapses first, naming each source
 *   that did not sync and its last error.
 */
export async function waitForInformersSync(
  signal: AbortSignal,
  sources: readonly SyncSource[],
  options: Omit<WaitForCacheSyncOptions, 'names'> = {},
): Promise<boolean> {
  const clock = options.clock ?? realClock;
  const interval = options.pollIntervalMs ?? cacheSyncPollIntervalMs;
  const deadline = options.timeoutMs === undefined ? undefined : clock.now() + options.timeoutMs;
  for (;;) {
    if (signal.aborted) return false;
    if (sources.every((s) => s.hasSynced())) return true;
    let wait = interval;
    if (deadline !== undefined) {
      const left = deadline - clock.now();
      if (left <= 0) {
        const notSynced = sources
          .filter((s) => !s.hasSynced())
          .map((s) => ({ name: s.name, lastError: s.lastError?.() }));
        throw new CacheSyncTimeoutError(options.timeoutMs as number, notSynced, clock.now(), {
          ...(options.controller !== undefined ? { controller: options.controller } : {}),
        });
      }
      wait = Math.min(wait, left);
    }
    try {
      await clock.sleep(wait, signal);
    } catch {
      return false;
    }
  }
}
