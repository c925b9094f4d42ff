/**
 * Read your own writes: Kubernetes 1.36's `pkg/controller/util/consistency`
 * `ConsistencyStore` (`WroteAt`, `EnsureReady`, `Clear`), over client-go 1.36's
 * `LastStoreSyncResourceVersion`.
 *
 * A controller that writes an object and reads it back from its cache a moment later may
 * read the state from before its write: the watch event has not arrived yet. The store
 * remembers, per key, the resourceVersion each write returned, and answers whether the
 * cache has caught up with it:
 *
 * - `wroteAt(key, rv)` records a write (the newest one per key counts);
 * - `ensureReady(key)` is true when no write of `key` is pending, or the cache's
 *   resourceVersion (`storeResourceVersion(key)`) is at least the written one — then the
 *   record is cleared; `ensureAllReady()` asks it of every pending key;
 * - `waitReady(key, { timeoutMs, signal })` waits (bounded, abortable) until
 *   `ensureReady(key)`, and rejects with a {@link StaleCacheError} that says in words which
 *   write the cache has not seen;
 * - `isOwnWrite(key, rv)` tells an event that is only the echo of this process's own write
 *   (JOSDK #3398): a controller skips it, while a change by someone else, with another
 *   resourceVersion, still triggers a reconcile;
 * - `clear(key)` forgets a key (e.g. when it was deleted).
 *
 * ResourceVersions are compared as integers, as the consistency package does (Kubernetes
 * documents them as opaque but etcd's are increasing integers); a non-numeric one cannot be
 * ordered and counts as seen.
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { KubeControllerKitError } from '../util/errors.js';

/** The cache has not seen a write of this process within the time allowed. */
export class StaleCacheError extends KubeControllerKitError {
  /** The key written. */
  readonly key: string;
  /** The resourceVersion the write returned. */
  readonly writtenResourceVersion: string;
  /** The resourceVersion the cache had reached. */
  readonly cacheResourceVersion: string;
  /** @param what - the cache; @param key - the key; @param written - the write's RV; @param seen - the cache's RV; @param waitedMs - how long was waited. */
  constructor(what: string, key: string, written: string, seen: string, waitedMs: number) {
    super(
      `stale cache: ${what} has seen resourceVersion ${seen || '(none)'} but this process wrote ${key} at resourceVersion ${written}; ` +
        `the watch event of that write has not arrived after ${waitedMs} ms (a slow or stalled watch); ` +
        'the read was not answered from the stale cache — retry later, or read from the API server',
    );
    this.key = key;
    this.writtenResourceVersion = written;
    this.cacheResourceVersion = seen;
  }
}

/** Options of {@link ConsistencyStore}. */
export interface ConsistencyStoreOptions {
  /** The cache's resourceVersion for `key` (e.g. `informer.lastStoreSyncResourceVersion()`). */
  storeResourceVersion: (key: string) => string;
  /** Names the cache in {@link StaleCacheError}s, e.g. `the configmaps cache`. */
  what?: string;
  /** Source of time for waits. Default the real clock. */
  clock?: Clock;
  /** How often a wait looks again, in ms. Default 5. */
  pollMs?: number;
}

/** Options of {@link ConsistencyStore.waitReady}. */
export interface WaitReadyOptions {
  /** How long to wait before giving up with a {@link StaleCacheError}. */
  timeoutMs: number;
  /** Aborts the wait (rejects with the signal's reason). */
  signal?: AbortSignal | undefined;
}

/** How many resourceVersions of own writes are remembered per key for echo detection. */
const OWN_WRITES_PER_KEY = 8;

const INTEGER = /^\d+$/;

/**
 * Whether the cache at resourceVersion `seen` has reached a write at `written`: integer
 * comparison. A `written` that is not an integer cannot be ordered and counts as reached;
 * a `seen` that is not one (`""`: nothing seen yet) has reached nothing.
 */
export function resourceVersionAtLeast(seen: string, written: string): boolean {
  if (!INTEGER.test(written)) return true;
  if (!INTEGER.test(seen)) return false;
  const a = seen.replace(/^0+(?=\d)/, '');
  const b = written.replace(/^0+(?=\d)/, '');
  if (a.length !== b.length) return a.length > b.length;
  return a >= b;
}

/** Remembers this process's writes per key; see the module rules. */
export class ConsistencyStore {
  readonly #storeRV: (key: string) => string;
  readonly #what: string;
  readonly #clock: Clock;
  readonly #pollMs: number;
  /** key → the newest resourceVersion written and not yet seen by the cache. */
  readonly #pending = new Map<string, string>();
  /** key → resourceVersions written by this process whose events may still arrive. */
  readonly #own = new Map<string, string[]>();

  /** Create an empty store. */
  constructor(options: ConsistencyStoreOptions) {
    this.#storeRV = options.storeResourceVersion;
    this.#what = options.what ?? 'the cache';
    this.#clock = options.clock ?? realClock;
    this.#pollMs = options.pollMs ?? 5;
  }

  /** Record that this process wrote `key` and the server answered `resourceVersion`. */
  wroteAt(key: string, resourceVersion: string | undefined): void {
    if (resourceVersion === undefined || resourceVersion === '') return;
    const prev = this.#pending.get(key);
    if (prev === undefined || resourceVersionAtLeast(resourceVersion, prev)) {
      this.#pending.set(key, resourceVersion);
    }
    let own = this.#own.get(key);
    if (own === undefined) this.#own.set(key, (own = []));
    own.push(resourceVersion);
    if (own.length > OWN_WRITES_PER_KEY) own.shift();
  }

  /** True when the cache has seen the last write of `key` (or there is none); clears it then. */
  ensureReady(key: string): boolean {
    const written = this.#pending.get(key);
    if (written === undefined) return true;
    if (!resourceVersionAtLeast(this.#storeRV(key), written)) return false;
    this.#pending.delete(key);
    return true;
  }

  /** {@link ConsistencyStore.ensureReady} of every key with a pending write. */
  ensureAllReady(): boolean {
    let ready = true;
    for (const key of [...this.#pending.keys()]) if (!this.ensureReady(key)) ready = false;
    return ready;
  }

  /**
   * True (once) when `resourceVersion` is one this process wrote for `key`: the event is
   * the echo of its own write.
   */
  isOwnWrite(key: string, resourceVersion: string | undefined): boolean {
    const own = this.#own.get(key);
    if (own === undefined || resourceVersion === undefined) return false;
    const i = own.indexOf(resourceVersion);
    if (i < 0) return false;
    own.splice(i, 1);
    if (own.length === 0) this.#own.delete(key);
    return true;
  }

  /** Forget everything about `key`. */
  clear(key: string): void {
    this.#pending.delete(key);
    this.#own.delete(key);
  }

  /** Number of keys whose last write the cache has not been seen to reach. */
  pendingLen(): number {
    return this.#pending.size;
  }

  /**
   * Wait until the cache has seen the last write of `key` (of every key when `key` is
   * undefined).
   *
   * @throws {@link StaleCacheError} after `timeoutMs`; the signal's reason when aborted.
   */
  async waitReady(key: string | undefined, options: WaitReadyOptions): Promise<void> {
    const ready = (): boolean =>
      key === undefined ? this.ensureAllReady() : this.ensureReady(key);
    if (ready()) return;
    const started = this.#clock.now();
    for (;;) {
      options.signal?.throwIfAborted();
      const waited = this.#clock.now() - started;
      if (waited >= options.timeoutMs) {
        const k = key ?? this.#pending.keys().next().value ?? '';
        throw new StaleCacheError(
          this.#what,
          k,
          this.#pending.get(k) ?? '',
          this.#storeRV(k),
          waited,
        );
      }
      await this.#clock.sleep(Math.min(this.#pollMs, options.timeoutMs - waited), options.signal);
      if (ready()) return;
    }
  }
}
