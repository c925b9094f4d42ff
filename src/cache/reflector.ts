/**
 * The Reflector keeps a store in step with the API server: list, then watch from the
 * list's resourceVersion, forever, recovering from every failure.
 *
 * It is an explicit state machine (see `docs/reflector.md`):
 *
 * ```
 *            ┌─────── list ok ───────┐
 *  Listing ──┤                       ▼
 *     ▲      └ error ─▶ BackingOff  Watching ── clean close / idle ──▶ Watching
 *     │                  │   ▲          │  ── 429 / conn refused ─▶ BackingOff ─▶ Watching
 *     └──────────────────┘   └──────────┘  ── 410 / other error ──▶ BackingOff ─▶ Listing
 * ```
 *
 * Each state is one method that returns the next state. Backoff is a separate layer
 * ({@link DelayWithReset}): the `BackingOff` state only sleeps for its next delay (or a
 * server's Retry-After, whichever is longer) and moves on.
 *
 * The rules are client-go's (`tools/cache/reflector.go`): see the method docs.
 *
 * @module
 */
import {
  isGone,
  isResourceExpired,
  isTooLargeResourceVersion,
  isTooManyRequests,
  isPermanentError,
  ApiError,
} from '../client/errors.js';
import type { ListOptions, ObjectList, WatchEvent } from '../client/types.js';
import type { BackoffOptions } from '../util/backoff.js';
import { defaultBackoffResetMs, defaultReflectorBackoff, DelayWithReset } from '../util/backoff.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage, isAbortError, KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { KeyFunction } from './fifo.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import type { ListerWatcher } from './listwatch.js';
import type { SharedTimers } from './shared_timers.js';
import { sharedTimers } from './shared_timers.js';

/** What a reflector writes to: DeltaFIFO, RealFIFO and the Indexer all fit. */
export interface ReflectorStore<T> {
  /** An object was added. */
  add(obj: T): void;
  /** An object was modified. */
  update(obj: T): void;
  /** An object was deleted. */
  delete(obj: T): void;
  /** The full list, replacing everything (a relist). */
  replace(list: T[], resourceVersion: string): void;
  /** Periodic resync. */
  resync(): void;
  /** The store is current up to this resourceVersion (optional). */
  bookmark?(resourceVersion: string): void;
}

/**
 * How a reflector lists and watches: one object, which informers (`reflector`), factories
 * and the CRD manager (`informerOptions.reflector`) pass to the reflector unchanged, so
 * every default lives here, in the reflector. Every field is optional.
 */
export interface ReflectorTuning {
  /**
   * Page size of lists. When set, every list is paged with it. When unset, lists use 500 per
   * page, except lists at a specific resourceVersion (not `""`/`"0"`), which are unpaged so
   * the watch cache can serve them (client-go's rule).
   */
  pageSize?: number;
  /**
   * Try a streaming list (a watch with `sendInitialEvents`) before listing: no giant list
   * response to hold and parse, so a faster sync and a far lower memory peak (see
   * docs/performance.md). A stream that breaks before its end bookmark falls back to a
   * list for that attempt only; a server that rejects or ignores the parameters turns
   * streaming lists off for good. Default {@link defaultWatchListEnabled} (true, as
   * client-go 1.35+'s `WatchListClient`).
   */
  watchList?: boolean;
  /** Backoff between failures. Default 800 ms, ×2, jitter 1.0, cap 30 s. */
  backoff?: BackoffOptions;
  /** Start the backoff over when this long has passed since its last reset. Default 2 min. */
  backoffResetMs?: number;
  /**
   * Restart a watch that delivers no event (bookmarks included) for this long, in ms: the
   * connection is presumed dead. The clock measures the server's silence only: it stands
   * still while the consumer holds the stream (a `watcher()` whose buffer is full), so
   * a slow consumer never makes a healthy watch look dead. 0 disables. Default: one minute longer than the longest
   * watch timeout the reflector asks the server for (2 × `minWatchTimeoutSeconds`, so
   * 11 min by default), so a quiet resource's watch is closed by the server, never
   * reported idle.
   */
  idleTimeoutMs?: number;
  /** Watches ask the server for a timeout uniformly random in [min, 2·min] s. Default 300. */
  minWatchTimeoutSeconds?: number;
}

/** Options of {@link Reflector}: its {@link ReflectorTuning} and what it is wired to. */
export interface ReflectorOptions<T> extends ReflectorTuning {
  /** Name in logs and errors, e.g. `pods` or `default/pods`. Default `reflector`. */
  name?: string;
  /** Call `store.resync()` this often while watching; 0 (default) disables. */
  resyncPeriodMs?: number;
  /** Asked before each resync; a false answer skips it. */
  shouldResync?: () => boolean;
  /**
   * The former name of {@link ReflectorTuning.watchList}; `watchList` wins when both are set.
   *
   * @deprecated Use `watchList`.
   */
  watchListEnabled?: boolean;
  /** Key of an object, for the streaming list's buffer. Default `namespace/name`. */
  keyFunction?: KeyFunction<T>;
  /**
   * Applied to each object of a streaming list as it arrives, before it is buffered (as
   * client-go's temporary store does), so a transform such as `stripManagedFields` lowers
   * the memory peak of the sync. Must be idempotent: the store may apply it again.
   */
  transform?: (obj: T) => T;
  /** Source of time. */
  clock?: Clock;
  /** Where to log. */
  logger?: Logger;
  /** Called with every error that ends a list or a watch; must return quickly. Default: log it. */
  watchErrorHandler?: (error: unknown, reflector: Reflector<T>) => void;
  /** Source of randomness in [0, 1) (tests pin it). */
  random?: () => number;
}

/**
 * Whether reflectors (and so informers and factories) start with a streaming list when not
 * told otherwise: true, as client-go 1.35+. The one place this default lives.
 */
export const defaultWatchListEnabled = true;

/**
 * The default idle timeout for a reflector whose watches ask for `timeoutSeconds`
 * from min to 2·min seconds: the longest of those plus one minute, in ms.
 */
export function defaultIdleTimeoutMs(minWatchTimeoutSeconds: number): number {
  return (2 * minWatchTimeoutSeconds + 60) * 1000;
}

/** The last error that ended a list or a watch, and since when that cause has persisted. */
export interface LastError {
  /** The error (an `ApiError` for an answer of the server). */
  readonly error: unknown;
  /** Clock time (ms) of the first failure in the current run of this same cause. */
  readonly sinceMs: number;
}

/**
 * An answer that retrying cannot fix by itself (400, 401, 403, 404): bad request,
 * credentials, permissions, a resource the server does not serve.
 */
function isPermanent(err: unknown): err is ApiError {
  return err instanceof ApiError && [400, 401, 403, 404].includes(err.code);
}

/** What makes two errors "the same cause" for logging and {@link LastError.sinceMs}. */
function causeOf(err: unknown): string {
  if (err instanceof ApiError) return `${err.code} ${err.message}`;
  return err instanceof Error ? `${err.name} ${err.message}` : String(err);
}

/** A watch that the server closed within a second without sending anything. */
export class VeryShortWatchError extends KubeControllerKitError {
  /** @param name - the reflector. */
  constructor(name: string) {
    super(
      `${name}: unexpected watch close: the watch lasted less than a second and delivered no events; relisting after backoff`,
    );
  }
}

/** A watch that delivered nothing (not even a bookmark) for longer than the idle timeout. */
export class WatchIdleTimeoutError extends KubeControllerKitError {
  /** @param name - the reflector; @param idleMs - the timeout that elapsed. */
  constructor(name: string, idleMs: number) {
    super(
      `${name}: the watch delivered nothing for ${idleMs} ms; presuming the connection dead and re-watching`,
    );
  }
}

/** A server that rejects or ignores streaming lists (`sendInitialEvents`). */
export class WatchListUnsupportedError extends KubeControllerKitError {
  /** @param name - the reflector; @param why - what the server did. */
  constructor(name: string, why: string, options?: ErrorOptions) {
    super(
      `${name}: the server does not support streaming lists (${why}); falling back to paged lists`,
      options,
    );
  }
}

/** The reflector is already running. */
export class ReflectorAlreadyRunningError extends KubeControllerKitError {
  /** @param name - the reflector. */
  constructor(name: string) {
    super(`${name}: run() called while already running; each reflector runs once at a time`);
  }
}

/** The states of the run loop; each is handled by one method. */
type State =
  | { readonly phase: 'Listing' }
  | { readonly phase: 'Watching' }
  | {
      readonly phase: 'BackingOff';
      readonly then: 'Listing' | 'Watching';
      readonly minDelayMs: number;
    };

const LISTING: State = { phase: 'Listing' };
const WATCHING: State = { phase: 'Watching' };

/** Where the store stands: the data every state of the run loop reads and updates. */
interface SyncPosition {
  /** The resourceVersion of the last list, event or bookmark applied (`""` before any). */
  resourceVersion: string;
  /** A 410 made `resourceVersion` unusable: the next list asks for `""`. */
  resourceVersionUnavailable: boolean;
  /** The first `"0"` list came back paged (the watch cache is off): keep paging. */
  paginatedResult: boolean;
  /** False while a watch started at `""`/`"0"` has delivered only ADDED events. */
  trackingStarted: boolean;
}

/** What handling one watch event asks of the watch loop. */
type EventResult =
  | { readonly kind: 'continue' }
  | { readonly kind: 'stop' } // end quietly, as an error-free close
  | { readonly kind: 'synced' } // streaming list complete: start the resync timer
  | { readonly kind: 'fail'; readonly error: unknown }; // end the watch with this error

const CONTINUE: EventResult = { kind: 'continue' };
const STOP: EventResult = { kind: 'stop' };
const SYNCED: EventResult = { kind: 'synced' };

/** How a single watch ended. */
type WatchOutcome =
  | { readonly kind: 'closed' } // clean close or broken connection: re-watch
  | { readonly kind: 'idle' } // idle timeout: re-watch
  | { readonly kind: 'aborted' }
  | { readonly kind: 'error'; readonly error: unknown };

const initialEventsEndAnnotation = 'k8s.io/initial-events-end';

/** A long list or streaming list logs its progress every this many objects… */
const progressEveryObjects = 10_000;
/** …or every this many ms, whichever comes first (streaming lists). */
const progressEveryMs = 5_000;

/**
 * The synchronous `takeBuffered()` of a watch iterator that has one (the library's
 * decoder), bound to it; `undefined` for any other iterator (each event then takes a
 * `next()`).
 */
function bufferedTaker<T>(
  iterator: AsyncIterator<WatchEvent<T>>,
): (() => WatchEvent<T> | undefined) | undefined {
  const take = (iterator as { takeBuffered?: unknown }).takeBuffered;
  if (typeof take !== 'function') return undefined;
  return () => (take as () => WatchEvent<T> | undefined).call(iterator);
}

/**
 * The optional `held()` of a watch iterator whose consumer can hold it (the
 * `watcher()`'s gate over a full buffer), bound to it: a promise that settles when the
 * consumer lets go, or `undefined` when it does not hold the stream now. While it holds,
 * the reflector reads nothing and its idle clock stands still: a consumer's pause is not
 * the server's silence.
 */
function holdWaiter<T>(
  iterator: AsyncIterator<WatchEvent<T>>,
): (() => Promise<void> | undefined) | undefined {
  const held = (iterator as { held?: unknown }).held;
  if (typeof held !== 'function') return undefined;
  return () => (held as () => Promise<void> | undefined).call(iterator);
}

/** Find the first error in a cause chain carrying a Node network `code`. */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Connection refused (the server is down or restarting): retry the watch after backoff. */
function isConnectionRefused(err: unknown): boolean {
  return networkCode(err) === 'ECONNREFUSED';
}

/**
 * Why a failed streaming-list request shows that the server cannot stream, or undefined
 * when the error says nothing about streaming (a bad selector, a permission problem…).
 */
function watchListRejection(err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.code === 422) return `it answered ${errorMessage(err)}`;
  if (err.code === 400 && /sendInitialEvents|resourceVersionMatch|watch-?list/i.test(err.message))
    return `it answered ${errorMessage(err)}`;
  return undefined;
}

function resourceVersionOf(obj: unknown): string | undefined {
  const rv = (obj as { metadata?: { resourceVersion?: unknown } } | null)?.metadata
    ?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

/**
 * Lists and watches one kind of object into a store, for as long as its signal is live.
 *
 * @typeParam T - the object type.
 */
export class Reflector<T> {
  /** The name used in logs and errors. */
  readonly name: string;
  readonly #lw: ListerWatcher<T>;
  readonly #store: ReflectorStore<T>;
  readonly #clock: Clock;
  /** The watch's idle and resync deadlines: one timer of the clock for every reflector's. */
  readonly #timers: SharedTimers;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #resyncPeriodMs: number;
  readonly #shouldResync: (() => boolean) | undefined;
  readonly #pageSize: number | undefined;
  readonly #idleTimeoutMs: number;
  readonly #minWatchTimeoutSeconds: number;
  readonly #keyFunction: KeyFunction<T>;
  readonly #transform: ((obj: T) => T) | undefined;
  readonly #backoffOptions: BackoffOptions;
  readonly #backoffResetMs: number;
  readonly #watchErrorHandler: (error: unknown, reflector: Reflector<T>) => void;
  #watchListEnabled: boolean;
  #running = false;
  /** What the loop knows about where the store stands; every state reads and updates it. */
  readonly #sync: SyncPosition = {
    resourceVersion: '',
    resourceVersionUnavailable: false,
    paginatedResult: false,
    trackingStarted: true,
  };
  #lastError: (LastError & { readonly cause: string }) | undefined;
  /** Permanent causes already logged at error level since the last healthy watch. */
  #loggedCauses: Set<string> | undefined;

  /**
   * @param listerWatcher - where objects come from.
   * @param store - where they go.
   * @param options - tuning; every field has client-go's default.
   */
  constructor(
    listerWatcher: ListerWatcher<T>,
    store: ReflectorStore<T>,
    options: ReflectorOptions<T> = {},
  ) {
    this.name = options.name ?? 'reflector';
    this.#lw = listerWatcher;
    this.#store = store;
    this.#clock = options.clock ?? realClock;
    this.#timers = sharedTimers(this.#clock);
    this.#logger = options.logger ?? defaultLogger;
    this.#random = options.random ?? Math.random;
    this.#resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.#shouldResync = options.shouldResync;
    this.#pageSize = options.pageSize;
    this.#watchListEnabled =
      options.watchList ?? options.watchListEnabled ?? defaultWatchListEnabled;
    this.#minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
    this.#idleTimeoutMs =
      options.idleTimeoutMs ?? defaultIdleTimeoutMs(this.#minWatchTimeoutSeconds);
    this.#keyFunction = options.keyFunction ?? deletionHandlingMetaNamespaceKeyFunc;
    this.#transform = options.transform;
    this.#backoffOptions = options.backoff ?? defaultReflectorBackoff;
    this.#backoffResetMs = options.backoffResetMs ?? defaultBackoffResetMs;
    this.#watchErrorHandler =
      options.watchErrorHandler ?? ((err) => this.#defaultErrorHandler(err));
  }

  /** The resourceVersion of the last list, event or bookmark applied to the store (`""` before the first). */
  lastSyncResourceVersion(): string {
    return this.#sync.resourceVersion;
  }

  /**
   * The last error that ended a list or a watch, and since when (clock ms) that same
   * cause has persisted; undefined once a watch has started again. For readiness checks.
   */
  lastError(): LastError | undefined {
    const e = this.#lastError;
    return e === undefined ? undefined : { error: e.error, sinceMs: e.sinceMs };
  }

  /**
   * List and watch until `signal` aborts, retrying every failure with backoff. Resolves
   * (never rejects) once aborted and everything it started — requests, streams, timers —
   * has stopped.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new ReflectorAlreadyRunningError(this.name);
    this.#running = true;
    const delay = new DelayWithReset(this.#backoffOptions, {
      resetAfterMs: this.#backoffResetMs,
      clock: this.#clock,
      random: this.#random,
    });
    let state: State = LISTING;
    try {
      while (!signal.aborted) {
        switch (state.phase) {
          case 'Listing':
            state = await this.#listing(signal);
            break;
          case 'Watching':
            state = await this.#watching(signal);
            break;
          case 'BackingOff':
            state = await this.#backingOff(state, delay, signal);
            break;
        }
      }
    } finally {
      this.#running = false;
    }
  }

  // ── Listing ──────────────────────────────────────────────────────────────────────────

  /**
   * Fill the store with a full list (or a streaming list), then watch. On failure: report,
   * back off, list again.
   */
  async #listing(signal: AbortSignal): Promise<State> {
    try {
      if (this.#watchListEnabled) {
        const next = await this.#watchList(signal);
        if (next !== undefined) return next;
      }
      await this.#list(signal);
      return WATCHING;
    } catch (err) {
      if (signal.aborted) return LISTING;
      this.#reportError(err);
      return backoffThen('Listing', err);
    }
  }

  /** The resourceVersion to list at: `""` after a 410, `"0"` at first, else the last one synced. */
  #relistResourceVersion(): string {
    if (this.#sync.resourceVersionUnavailable) return '';
    if (this.#sync.resourceVersion === '') return '0';
    return this.#sync.resourceVersion;
  }

  /**
   * One full list into `store.replace()`. A 410 Gone/Expired or "too large resourceVersion"
   * marks the version unavailable and relists at once with `""`.
   */
  async #list(signal: AbortSignal): Promise<void> {
    const resourceVersion = this.#relistResourceVersion();
    const startedAt = this.#clock.now();
    let result: { list: ObjectList<T>; paginated: boolean };
    try {
      result = await this.#pagedList(resourceVersion, signal);
    } catch (err) {
      if (signal.aborted || !(isGone(err) || isTooLargeResourceVersion(err))) throw err;
      this.#logger.info(
        `${this.name}: list at resourceVersion ${resourceVersion} failed; relisting with ""`,
        {
          error: errorMessage(err),
        },
      );
      this.#sync.resourceVersionUnavailable = true;
      result = await this.#pagedList('', signal);
    }
    if (resourceVersion === '0' && result.paginated) this.#sync.paginatedResult = true;
    const listRV = result.list.metadata.resourceVersion ?? '';
    this.#store.replace(result.list.items, listRV);
    this.#setLastSyncResourceVersion(listRV);
    this.#sync.resourceVersionUnavailable = false;
    this.#logger.info(
      `${this.name}: listed ${result.list.items.length} objects in ${this.#clock.now() - startedAt} ms; resourceVersion ${listRV}`,
    );
  }

  /**
   * client-go's pager: pages of `limit` joined with `continue` tokens; continuation pages
   * drop the resourceVersion; a 410 on a later page falls back to one unpaged list at the
   * original resourceVersion.
   */
  async #pagedList(
    resourceVersion: string,
    signal: AbortSignal,
  ): Promise<{ list: ObjectList<T>; paginated: boolean }> {
    let limit: number | undefined = this.#pageSize ?? 500;
    if (
      this.#pageSize === undefined &&
      !this.#sync.paginatedResult &&
      resourceVersion !== '' &&
      resourceVersion !== '0'
    ) {
      limit = undefined; // let the watch cache serve it
    }
    let options: ListOptions =
      limit === undefined ? { resourceVersion } : { resourceVersion, limit };
    let items: T[] | undefined;
    let listRV = '';
    let paginated = false;
    for (;;) {
      let page: ObjectList<T>;
      try {
        page = await this.#lw.list(options, signal);
      } catch (err) {
        if (
          options.continue === undefined ||
          !(isResourceExpired(err) || isGone(err)) ||
          signal.aborted
        )
          throw err;
        this.#logger.info(
          `${this.name}: continue token expired while paging; listing everything in one request`,
        );
        const full = await this.#lw.list({ resourceVersion }, signal);
        return { list: full, paginated };
      }
      const token = page.metadata.continue ?? '';
      if (token === '' && items === undefined) return { list: page, paginated };
      if (items === undefined) {
        items = [];
        listRV = page.metadata.resourceVersion ?? '';
      }
      const before = items.length;
      for (const item of page.items) items.push(item);
      if (
        Math.floor(items.length / progressEveryObjects) > Math.floor(before / progressEveryObjects)
      )
        this.#logger.debug(`${this.name}: listing: ${items.length} objects so far`);
      if (token === '')
        return { list: { metadata: { resourceVersion: listRV }, items }, paginated };
      options = limit === undefined ? { continue: token } : { limit, continue: token };
      paginated = true;
    }
  }

  /**
   * A streaming list: a watch with `sendInitialEvents` whose events fill a buffer until the
   * bookmark annotated `k8s.io/initial-events-end`; then `store.replace()` and the same
   * stream continues as the watch. Returns undefined to fall back to a plain list: for
   * this attempt only when the stream broke, idled or failed before the end bookmark; for
   * good when the server showed it cannot stream (a 422, a 400 about the streaming
   * parameters, or a bookmark without the end annotation).
   */
  async #watchList(signal: AbortSignal): Promise<State | undefined> {
    const resourceVersion = this.#sync.resourceVersionUnavailable ? '' : this.#sync.resourceVersion;
    const options: ListOptions = {
      resourceVersion,
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: this.#watchTimeoutSeconds(),
    };
    const buffer = new Map<string, T>();
    let unsupported: string | undefined;
    let synced = false;
    const startedAt = this.#clock.now();
    let received = 0;
    let lastProgressAt = startedAt;
    const outcome = await this.#runWatch(options, signal, (event): EventResult => {
      if (synced) return this.#applyEvent(event);
      if (
        ++received % progressEveryObjects === 0 ||
        this.#clock.now() - lastProgressAt >= progressEveryMs
      ) {
        lastProgressAt = this.#clock.now();
        this.#logger.info(
          `${this.name}: streaming list: ${received} events so far, ${buffer.size} objects, ${lastProgressAt - startedAt} ms`,
        );
      }
      switch (event.type) {
        case 'ADDED':
        case 'MODIFIED': {
          const obj = this.#transform === undefined ? event.object : this.#transform(event.object);
          buffer.set(this.#keyFunction(obj), obj);
          return CONTINUE;
        }
        case 'DELETED':
          buffer.delete(this.#keyFunction(event.object));
          return CONTINUE;
        case 'ERROR':
          return {
            kind: 'fail',
            error: new ApiError(event.object, { context: `${this.name}: streaming list` }),
          };
        case 'BOOKMARK': {
          const annotations = (
            event.object as { metadata?: { annotations?: Record<string, string> } }
          ).metadata?.annotations;
          if (annotations?.[initialEventsEndAnnotation] !== 'true') {
            unsupported = 'a bookmark arrived without the initial-events-end annotation';
            return STOP;
          }
          const rv = resourceVersionOf(event.object) ?? '';
          const count = buffer.size;
          this.#store.replace([...buffer.values()], rv);
          buffer.clear();
          this.#logger.info(
            `${this.name}: streamed ${count} objects in ${this.#clock.now() - startedAt} ms; resourceVersion ${rv}`,
          );
          this.#setLastSyncResourceVersion(rv);
          this.#sync.resourceVersionUnavailable = false;
          synced = true;
          this.#sync.trackingStarted = true;
          return SYNCED;
        }
      }
    });
    if (outcome.kind === 'aborted') return LISTING;
    if (!synced) {
      const err = outcome.kind === 'error' ? outcome.error : undefined;
      if (err !== undefined && (isGone(err) || isTooLargeResourceVersion(err))) {
        this.#sync.resourceVersionUnavailable = true;
        throw err;
      }
      if (isTooManyRequests(err) || isConnectionRefused(err)) throw err as Error;
      const why = unsupported ?? watchListRejection(err);
      if (why !== undefined) {
        // The server showed it cannot stream: stop asking for the reflector's lifetime.
        this.#watchListEnabled = false;
        this.#logger.warn(new WatchListUnsupportedError(this.name, why).message);
        return undefined;
      }
      // One blip (a dropped connection, an idle timeout, an error) is not "unsupported":
      // list this time, stream again at the next relist (client-go's fallback).
      const what =
        outcome.kind === 'idle'
          ? `delivered nothing for ${this.#idleTimeoutMs} ms`
          : outcome.kind === 'closed'
            ? 'ended'
            : `failed: ${errorMessage(err)}`;
      // A refusal that retrying cannot fix is said once by the list that follows (it fails
      // the same way, or succeeds); at info it would be said at every retry.
      this.#logger[isPermanentError(err) ? 'debug' : 'info'](
        `${this.name}: the streaming list ${what} before the initial-events-end bookmark; listing instead for this attempt`,
      );
      return undefined;
    }
    return this.#afterWatch(outcome);
  }

  // ── Watching ─────────────────────────────────────────────────────────────────────────

  /** Watch from the last synced resourceVersion and decide, from how it ended, what next. */
  async #watching(signal: AbortSignal): Promise<State> {
    const options: ListOptions = {
      resourceVersion: this.#sync.resourceVersion,
      timeoutSeconds: this.#watchTimeoutSeconds(),
      allowWatchBookmarks: true,
    };
    this.#sync.trackingStarted = options.resourceVersion !== '' && options.resourceVersion !== '0';
    const outcome = await this.#runWatch(options, signal, (event) => this.#applyEvent(event));
    return this.#afterWatch(outcome);
  }

  /**
   * - clean close (or a dropped connection) → re-watch at once;
   * - idle timeout → re-watch at once;
   * - 429 or connection refused → backoff, re-watch without relisting;
   * - 410 Gone, very short watch, malformed stream, anything else → backoff, relist (at the
   *   last resourceVersion; a 410 there relists with `""`).
   */
  #afterWatch(outcome: WatchOutcome): State {
    switch (outcome.kind) {
      case 'aborted':
        return WATCHING;
      case 'closed':
        return WATCHING;
      case 'idle':
        this.#reportError(new WatchIdleTimeoutError(this.name, this.#idleTimeoutMs));
        return WATCHING;
      case 'error': {
        const err = outcome.error;
        if (isGone(err) || isTooLargeResourceVersion(err)) {
          this.#logger.info(
            `${this.name}: relisting because resourceVersion ${this.#sync.resourceVersion} is too old (${errorMessage(err)})`,
          );
        }
        this.#reportError(err);
        if (isTooManyRequests(err) || isConnectionRefused(err)) return backoffThen('Watching', err);
        return backoffThen('Listing', err);
      }
    }
  }

  /** `min·(1 + random)` seconds: spreads watch restarts over [min, 2·min]. */
  #watchTimeoutSeconds(): number {
    return Math.floor(this.#minWatchTimeoutSeconds * (this.#random() + 1));
  }

  /**
   * Start one watch and feed its events to `onEvent` until it ends. Handles the idle
   * timeout, the resync timer, the very-short-watch rule and cleanup: when this resolves,
   * the stream is closed and no timer is left.
   *
   * `onEvent` says what next: go on, stop quietly (an error-free close), start the resync
   * timer (streaming list done), or fail the watch with an error.
   */
  async #runWatch(
    options: ListOptions,
    signal: AbortSignal,
    onEvent: (event: WatchEvent<T>) => EventResult,
  ): Promise<WatchOutcome> {
    const watchAc = new AbortController();
    const onAbort = (): void => watchAc.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let idleTimer: Timer | undefined;
    let resyncTimer: Timer | undefined;
    let idled = false;
    /** The consumer holds the stream (see {@link holdWaiter}): the idle clock stands still. */
    let holding = false;
    let failure: unknown;
    let lastActivity = this.#clock.now();
    const startedAt = lastActivity;
    let eventCount = 0;

    const armIdle = (delayMs: number): void => {
      idleTimer = this.#timers.setTimeout(() => {
        if (holding) return armIdle(this.#idleTimeoutMs);
        const quietFor = this.#clock.now() - lastActivity;
        if (quietFor < this.#idleTimeoutMs) return armIdle(this.#idleTimeoutMs - quietFor);
        idled = true;
        watchAc.abort(new WatchIdleTimeoutError(this.name, this.#idleTimeoutMs));
      }, delayMs);
    };
    const armResync = (): void => {
      if (this.#resyncPeriodMs <= 0) return;
      resyncTimer = this.#timers.setTimeout(() => {
        try {
          if (this.#shouldResync === undefined || this.#shouldResync()) this.#store.resync();
          armResync();
        } catch (err) {
          failure = err;
          watchAc.abort(err);
        }
      }, this.#resyncPeriodMs);
    };

    try {
      let stream: AsyncIterable<WatchEvent<T>>;
      try {
        stream = await this.#lw.watch(options, watchAc.signal);
      } catch (err) {
        if (signal.aborted) return { kind: 'aborted' };
        return { kind: 'error', error: err };
      }
      this.#logger.debug(
        `${this.name}: ${options.sendInitialEvents === true ? 'streaming list' : 'watch'} started from resourceVersion ${JSON.stringify(options.resourceVersion ?? '')}`,
      );
      // The server accepted a watch: whatever failed before is over.
      this.#lastError = undefined;
      this.#loggedCauses = undefined;
      if (this.#idleTimeoutMs > 0) armIdle(this.#idleTimeoutMs);
      if (options.sendInitialEvents !== true) armResync();
      try {
        // As `for await`, but after each `next()` the events the decoder already holds are
        // taken synchronously (one promise per chunk read, not per event); the iterator is
        // closed when the loop is left early, as `for await` does.
        const iterator = stream[Symbol.asyncIterator]();
        const takeBuffered = bufferedTaker(iterator);
        const held = holdWaiter(iterator);
        let closeIterator = true;
        try {
          for (;;) {
            const hold = held?.();
            if (hold !== undefined) {
              holding = true;
              try {
                await hold;
              } finally {
                holding = false;
                lastActivity = this.#clock.now();
              }
            }
            let step: IteratorResult<WatchEvent<T>>;
            try {
              step = await iterator.next();
            } catch (err) {
              closeIterator = false;
              throw err;
            }
            if (step.done === true) {
              closeIterator = false;
              break;
            }
            lastActivity = this.#clock.now();
            let event: WatchEvent<T> | undefined = step.value;
            do {
              eventCount++;
              const result = onEvent(event);
              if (result.kind === 'stop') return { kind: 'closed' };
              if (result.kind === 'synced') armResync();
              else if (result.kind === 'fail') return { kind: 'error', error: result.error };
              if (watchAc.signal.aborted) break;
              event = takeBuffered?.();
            } while (event !== undefined);
            if (watchAc.signal.aborted) break;
          }
        } finally {
          if (closeIterator) await iterator.return?.();
        }
      } catch (err) {
        if (signal.aborted) return { kind: 'aborted' };
        if (failure !== undefined) return { kind: 'error', error: failure };
        if (idled) return { kind: 'idle' };
        if (
          isAbortError(err, watchAc.signal) ||
          err instanceof ApiError ||
          networkCode(err) === undefined
        ) {
          return { kind: 'error', error: err };
        }
        // A dropped connection (ECONNRESET, socket hang up…) ends the watch like a close.
        this.#logger.debug(`${this.name}: watch connection dropped`, { error: errorMessage(err) });
      }
      if (signal.aborted) return { kind: 'aborted' };
      if (failure !== undefined) return { kind: 'error', error: failure };
      if (idled) return { kind: 'idle' };
      if (eventCount === 0 && this.#clock.now() - startedAt < 1000) {
        return { kind: 'error', error: new VeryShortWatchError(this.name) };
      }
      return { kind: 'closed' };
    } finally {
      idleTimer?.cancel();
      resyncTimer?.cancel();
      signal.removeEventListener('abort', onAbort);
      watchAc.abort();
    }
  }

  /**
   * Apply one watch event to the store and track the resourceVersion. A watch started at
   * `""` or `"0"` begins with synthetic ADDED events in no particular version order, so
   * tracking starts only at the first event of another type.
   */
  #applyEvent(event: WatchEvent<T>): EventResult {
    if (event.type === 'ERROR')
      return {
        kind: 'fail',
        error: new ApiError(event.object, { context: `${this.name}: watch` }),
      };
    const obj = event.object;
    if (obj === null || typeof obj !== 'object') {
      this.#logger.warn(
        `${this.name}: skipping a ${event.type} event whose object is not an object`,
      );
      return CONTINUE;
    }
    try {
      switch (event.type) {
        case 'ADDED':
          this.#store.add(obj);
          break;
        case 'MODIFIED':
          this.#store.update(obj);
          break;
        case 'DELETED':
          this.#store.delete(obj);
          break;
        case 'BOOKMARK': {
          const rv = resourceVersionOf(obj);
          if (rv !== undefined) this.#store.bookmark?.(rv);
          break;
        }
      }
    } catch (err) {
      this.#logger.error(`${this.name}: unable to apply a ${event.type} event to the store`, {
        error: errorMessage(err),
      });
    }
    const rv = resourceVersionOf(obj);
    if (rv !== undefined && (this.#sync.trackingStarted || event.type !== 'ADDED')) {
      this.#sync.trackingStarted = true;
      this.#setLastSyncResourceVersion(rv);
    }
    return CONTINUE;
  }

  #setLastSyncResourceVersion(rv: string): void {
    this.#sync.resourceVersion = rv;
  }

  // ── BackingOff ───────────────────────────────────────────────────────────────────────

  /** Sleep for the next backoff delay, or the server's Retry-After if longer. */
  async #backingOff(
    state: Extract<State, { phase: 'BackingOff' }>,
    delay: DelayWithReset,
    signal: AbortSignal,
  ): Promise<State> {
    const ms = Math.max(delay.next(), state.minDelayMs);
    this.#logger.debug(`${this.name}: backing off`, { ms: Math.round(ms), then: state.then });
    try {
      await this.#clock.sleep(ms, signal);
    } catch {
      return state; // aborted: the run loop stops
    }
    return state.then === 'Listing' ? LISTING : WATCHING;
  }

  // ── Errors ───────────────────────────────────────────────────────────────────────────

  #reportError(err: unknown): void {
    const cause = causeOf(err);
    const sinceMs = this.#lastError?.cause === cause ? this.#lastError.sinceMs : this.#clock.now();
    this.#lastError = { error: err, sinceMs, cause };
    try {
      this.#watchErrorHandler(err, this);
    } catch (handlerError) {
      this.#logger.error(`${this.name}: the watch error handler threw`, {
        error: errorMessage(handlerError),
      });
    }
  }

  #defaultErrorHandler(err: unknown): void {
    if (isPermanent(err)) {
      // Once per distinct cause at error level, in the server's words; repeats at debug.
      const cause = causeOf(err);
      const message = `${this.name}: ${errorMessage(err)}; retrying with backoff`;
      if (this.#loggedCauses?.has(cause) === true) {
        this.#logger.debug(message);
      } else {
        (this.#loggedCauses ??= new Set()).add(cause);
        this.#logger.error(message, { code: err.code, reason: err.reason });
      }
      return;
    }
    if (isGone(err)) {
      this.#logger.debug(`${this.name}: watch closed: ${errorMessage(err)}`);
    } else {
      this.#logger.warn(`${this.name}: ${errorMessage(err)}`);
    }
  }
}

function backoffThen(then: 'Listing' | 'Watching', err: unknown): State {
  const retryAfter = err instanceof ApiError ? err.retryAfterSeconds : undefined;
  return {
    phase: 'BackingOff',
    then,
    minDelayMs: retryAfter !== undefined && retryAfter > 0 ? retryAfter * 1000 : 0,
  };
}
