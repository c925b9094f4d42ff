/**
 * SharedIndexInformer: one list-and-watch of a resource feeding an indexed cache and any
 * number of event handlers (client-go's `tools/cache/shared_informer.go`).
 *
 * Pipeline: a {@link Reflector} lists and watches into an in-order {@link RealFIFO} in
 * atomic mode (client-go 1.36: a relist is one `ReplacedAll` delta, a resync one
 * `SyncAll`); the informer pops batches and, **with no `await` between the pop and the
 * cache update**, applies each delta to the {@link Indexer} and queues notifications to
 * every handler's own unbounded buffer (see `processor.ts`). Rules:
 *
 * - Added/Updated/Replaced/Sync: the cache decides. A key already cached is updated and
 *   handlers get `onUpdate(old, new)`; otherwise it is added and they get `onAdd`.
 * - Deleted: removed from the cache; handlers get `onDelete` with the object or a
 *   {@link DeletedFinalStateUnknown} tombstone.
 * - A relist (`ReplacedAll`): tombstones for cached keys missing from the list, the cache
 *   swapped in one step, every `onDelete`, then `onUpdate`/`onAdd` per listed object.
 * - An update whose old and new objects share a resourceVersion is a *sync*: it goes only
 *   to handlers due for resync.
 * - A handler's failure is reported through `onHandlerError` and the logger; the cache and
 *   the other handlers are unaffected.
 *
 * @module
 */
import type { GroupResource, KubeObject } from '../client/types.js';
import type { BackoffOptions } from '../util/backoff.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage, KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { FIFOClosedError } from './fifo.js';
import type { Delta, TransformFunc } from './fifo.js';
import type { Indexers, ReadonlyIndexer } from './indexer.js';
import { Indexer, metaNamespaceIndexFunc, namespaceIndex } from './indexer.js';
import { DeletedFinalStateUnknown } from './keys.js';
import { Lister } from './listers.js';
import type { ListerWatcher } from './listwatch.js';
import type { HandlerErrorHook, ResourceEventHandler } from './processor.js';
import { NotificationKind, ProcessorListener, SharedProcessor } from './processor.js';
import { RealFIFO } from './real_fifo.js';
import type { RealFIFODelta } from './real_fifo.js';
import { CacheMutationDetector, cacheMutationDetectorFromEnv } from './mutation_detector.js';
import type { CacheMutationError } from './mutation_detector.js';
import { Reflector } from './reflector.js';
import type { LastError, ReflectorTuning } from './reflector.js';

/** The smallest per-handler resync period; shorter ones are raised to it (client-go's). */
export const minimumResyncPeriodMs = 1000;

/** Called with every error that ends one of the reflector's lists or watches. */
export type WatchErrorHandler = (error: unknown) => void;

/** Options of {@link SharedIndexInformer}. */
export interface SharedIndexInformerOptions<T> {
  /** Name in logs and errors, e.g. `pods`. Default: the group resource, else `informer`. */
  name?: string;
  /** Names the resource in the lister's NotFound errors. Default `{ group: '', resource: name }`. */
  groupResource?: GroupResource;
  /**
   * Default resync period of handlers added without one, and the resync check period.
   * 0 (default) disables resync.
   */
  resyncPeriodMs?: number;
  /** Index functions; default `{ namespace: metaNamespaceIndexFunc }`. */
  indexers?: Indexers<T>;
  /** Rewrites each object before it is cached (e.g. {@link stripManagedFields}). */
  transform?: TransformFunc<T>;
  /** Source of time. */
  clock?: Clock;
  /** Where to log. */
  logger?: Logger;
  /** Called with every error a handler throws or rejects with. */
  onHandlerError?: HandlerErrorHook;
  /** Called with every error that ends a list or watch. Default: log it. */
  watchErrorHandler?: WatchErrorHandler;
  /**
   * How the informer's reflector lists and watches (streaming list, page size, timeouts,
   * backoff), passed to it as is: the defaults are the reflector's (see
   * {@link ReflectorTuning}; streaming lists are on). A field set here wins over the
   * deprecated flat option of the same meaning.
   *
   * @example
   * ```ts
   * new SharedIndexInformer(lw, { reflector: { watchList: false, pageSize: 100 } });
   * ```
   */
  reflector?: ReflectorTuning;
  /** @deprecated Use `reflector.pageSize`. */
  pageSize?: number;
  /** @deprecated Use `reflector.watchList`. */
  watchList?: boolean;
  /** @deprecated Use `reflector.idleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** @deprecated Use `reflector.backoff`. */
  backoff?: BackoffOptions;
  /** @deprecated Use `reflector.backoffResetMs`. */
  backoffResetMs?: number;
  /** @deprecated Use `reflector.minWatchTimeoutSeconds`. */
  minWatchTimeoutSeconds?: number;
  /** Reflector: randomness in [0, 1) (tests pin it). */
  random?: () => number;
  /** Largest number of deltas applied per FIFO pop. Default 1000. */
  maxBatch?: number;
  /**
   * client-go's cache mutation detector: keep a copy of every cached object and report a
   * {@link CacheMutationError} (naming the key and the field path) when one was mutated —
   * checked every `cacheMutationCheckPeriodMs` and on each update or delete of that key.
   * Default: on when `KUBE_CACHE_MUTATION_DETECTOR=true`. Costly: tests and debugging.
   */
  detectCacheMutations?: boolean;
  /** How often the mutation detector checks every cached object (ms). Default 1000. */
  cacheMutationCheckPeriodMs?: number;
  /** Called with each cache mutation found (after it is logged at error level). */
  onCacheMutation?: (error: CacheMutationError) => void;
}

/** Options of {@link SharedIndexInformer.addEventHandler}. */
export interface AddEventHandlerOptions {
  /** This handler's resync period; default the informer's. 0 disables; see the clamping rules. */
  resyncPeriodMs?: number;
  /** Name of the handler in logs and in `onHandlerError`. */
  name?: string;
  /**
   * Where this handler's messages go — its failures and the resync clamping warnings
   * (client-go 1.33 `HandlerOptions.Logger`); default the informer's logger.
   */
  logger?: Logger;
}

/** The handle of one added handler. */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced and every initial-list `onAdd` queued to this
   * handler has been processed.
   */
  hasSynced(): boolean;
}

/** An operation that must happen before `run()` was attempted after it. */
export class InformerAlreadyStartedError extends KubeControllerKitError {
  /** @param name - the informer; @param what - the operation. */
  constructor(name: string, what: string) {
    super(`${name}: informer has already started; call ${what} before run()`);
  }
}

/** An operation that needs a live informer was attempted after it stopped. */
export class InformerStoppedError extends KubeControllerKitError {
  /** @param name - the informer; @param what - the operation. */
  constructor(name: string, what: string) {
    super(
      `${name}: informer was stopped; ${what} is not possible any more — create a new informer`,
    );
  }
}

/** `removeEventHandler` got something that no informer handed out. */
export class InvalidRegistrationError extends KubeControllerKitError {
  /** @param name - the informer. */
  constructor(name: string) {
    super(
      `${name}: removeEventHandler needs the registration returned by addEventHandler of an informer`,
    );
  }
}

class Registration<T extends KubeObject> implements ResourceEventHandlerRegistration {
  readonly informer: SharedIndexInformer<T>;
  readonly listener: ProcessorListener<T>;
  constructor(informer: SharedIndexInformer<T>, listener: ProcessorListener<T>) {
    this.informer = informer;
    this.listener = listener;
  }
  hasSynced(): boolean {
    return this.informer.hasSynced() && this.listener.pendingInitial === 0;
  }
}

/** The reflector tuning of informer options: the deprecated flat fields, then `reflector` over them. */
function reflectorTuningOf<T>(o: SharedIndexInformerOptions<T>): ReflectorTuning {
  const flat: ReflectorTuning = {
    ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
    ...(o.watchList !== undefined ? { watchList: o.watchList } : {}),
    ...(o.idleTimeoutMs !== undefined ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
    ...(o.backoff !== undefined ? { backoff: o.backoff } : {}),
    ...(o.backoffResetMs !== undefined ? { backoffResetMs: o.backoffResetMs } : {}),
    ...(o.minWatchTimeoutSeconds !== undefined
      ? { minWatchTimeoutSeconds: o.minWatchTimeoutSeconds }
      : {}),
  };
  return o.reflector === undefined ? flat : { ...flat, ...o.reflector };
}

function resourceVersionOf(obj: unknown): string | undefined {
  return (obj as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
}

/**
 * A shared informer with an indexed cache. See the module documentation.
 *
 * @typeParam T - the object type.
 */
export class SharedIndexInformer<T extends KubeObject> {
  /** Name in logs and errors. */
  readonly name: string;
  readonly #lw: ListerWatcher<T>;
  readonly #options: SharedIndexInformerOptions<T>;
  readonly #indexer: Indexer<T>;
  readonly #processor: SharedProcessor<T>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #storeResourceVersion = '';
  readonly #groupResource: GroupResource;
  readonly #defaultResyncMs: number;
  #resyncCheckPeriodMs: number;
  #transform: TransformFunc<T> | undefined;
  #watchErrorHandler: WatchErrorHandler | undefined;
  #started = false;
  #stopped = false;
  #fifo: RealFIFO<T> | undefined;
  #reflector: Reflector<T> | undefined;
  #lister: Lister<T> | undefined;
  #handlerCount = 0;
  readonly #mutations: CacheMutationDetector | undefined;
  readonly #mutationErrors: CacheMutationError[] = [];

  /**
   * @param listerWatcher - where objects come from (see `listWatchFromClient`).
   * @param options - name, resync, indexers, transform, hooks and reflector tuning.
   */
  constructor(listerWatcher: ListerWatcher<T>, options: SharedIndexInformerOptions<T> = {}) {
    this.#lw = listerWatcher;
    this.#options = options;
    this.name = options.name ?? options.groupResource?.resource ?? 'informer';
    this.#groupResource = options.groupResource ?? { group: '', resource: this.name };
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#defaultResyncMs = Math.max(0, options.resyncPeriodMs ?? 0);
    this.#resyncCheckPeriodMs = this.#defaultResyncMs;
    this.#transform = options.transform;
    this.#watchErrorHandler = options.watchErrorHandler;
    this.#indexer = new Indexer<T>({
      indexers: options.indexers ?? { [namespaceIndex]: metaNamespaceIndexFunc },
    });
    this.#processor = new SharedProcessor<T>(this.#clock);
    if (options.detectCacheMutations ?? cacheMutationDetectorFromEnv()) {
      this.#mutations = new CacheMutationDetector(this.name);
    }
  }

  /** Every cache mutation the detector found so far (empty when it is off). */
  cacheMutations(): readonly CacheMutationError[] {
    return this.#mutationErrors;
  }

  #reportMutation(err: CacheMutationError | undefined): void {
    if (err === undefined) return;
    this.#mutationErrors.push(err);
    this.#logger.error(err.message, { key: err.key, path: err.path });
    try {
      this.#options.onCacheMutation?.(err);
    } catch (hookError) {
      this.#logger.error(`${this.name}: onCacheMutation threw`, {
        error: errorMessage(hookError),
      });
    }
  }

  #checkMutations(signal: AbortSignal): void {
    const detector = this.#mutations;
    if (detector === undefined || signal.aborted) return;
    const period = this.#options.cacheMutationCheckPeriodMs ?? 1000;
    let timer: Timer | undefined;
    const tick = (): void => {
      for (const err of detector.checkAll()) this.#reportMutation(err);
      if (!signal.aborted) timer = this.#clock.setTimeout(tick, period);
    };
    timer = this.#clock.setTimeout(tick, period);
    signal.addEventListener('abort', () => timer?.cancel(), { once: true });
  }

  /** True once the first list has been applied to the cache. */
  hasSynced(): boolean {
    return this.#fifo?.hasSynced() ?? false;
  }

  /** The resourceVersion of the last list, event or bookmark seen (`""` before any). */
  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? '';
  }

  /**
   * The last error that ended one of the reflector's lists or watches (an `ApiError` for
   * a 403, a 404…) and since when (clock ms) that cause has persisted; undefined before
   * any error and once a watch has started again. Use it in readiness checks and to say
   * why an informer does not sync.
   */
  lastError(): LastError | undefined {
    return this.#reflector?.lastError();
  }

  /** True once `run()` has returned (its signal aborted). */
  isStopped(): boolean {
    return this.#stopped;
  }

  /** The resync check period currently in effect (ms; 0 = no resync). */
  get resyncCheckPeriodMs(): number {
    return this.#resyncCheckPeriodMs;
  }

  /**
   * Set the transform applied to every object before it is cached. It may change the
   * object in place and must be idempotent.
   *
   * @throws {@link InformerAlreadyStartedError} after `run()`.
   */
  setTransform(fn: TransformFunc<T>): void {
    if (this.#started) throw new InformerAlreadyStartedError(this.name, 'setTransform');
    this.#transform = fn;
  }

  /**
   * Set the function called with every error that ends a list or watch.
   *
   * @throws {@link InformerAlreadyStartedError} after `run()`.
   */
  setWatchErrorHandler(fn: WatchErrorHandler): void {
    if (this.#started) throw new InformerAlreadyStartedError(this.name, 'setWatchErrorHandler');
    this.#watchErrorHandler = fn;
  }

  /**
   * Add indexes; the objects already cached are indexed at once. Allowed after start.
   *
   * @throws {@link InformerStoppedError} once stopped; `IndexerConflictError` for a taken
   *   name; `IndexFuncError` when a function fails on a cached object (nothing added).
   */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#stopped) throw new InformerStoppedError(this.name, 'addIndexers');
    this.#indexer.addIndexers(indexers);
  }

  /** The cache, read-only: objects are shared and must not be mutated. */
  getIndexer(): ReadonlyIndexer<T> {
    // Made on first use (by the indexer, always the same view): an informer whose cache
    // nobody reads does not hold its dozen bound methods.
    return this.#indexer.reader();
  }

  /** Same as {@link SharedIndexInformer.getIndexer} (client-go's `GetStore`). */
  getStore(): ReadonlyIndexer<T> {
    return this.#indexer.reader();
  }

  /** A typed lister over the cache; NotFound errors name `groupResource`. */
  lister(): Lister<T> {
    this.#lister ??= new Lister<T>(this.#indexer.reader(), this.#groupResource, {
      logger: this.#logger,
    });
    return this.#lister;
  }

  /**
   * Add a handler. After start it is first replayed every cached object as
   * `onAdd(obj, true)`. Resync: 0 disables; below 1 s is raised to 1 s; below the check
   * period, before start the check period is lowered to it, after start it is raised to
   * the check period.
   *
   * @throws {@link InformerStoppedError} once stopped.
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    options: AddEventHandlerOptions = {},
  ): ResourceEventHandlerRegistration {
    if (this.#stopped) throw new InformerStoppedError(this.name, 'addEventHandler');
    const logger = options.logger ?? this.#logger;
    let resync = options.resyncPeriodMs ?? this.#defaultResyncMs;
    if (resync < 0) resync = 0;
    if (resync > 0) {
      if (resync < minimumResyncPeriodMs) {
        logger.warn(
          `${this.name}: resync period ${resync} ms is too small; using ${minimumResyncPeriodMs} ms`,
        );
        resync = minimumResyncPeriodMs;
      }
      if (resync < this.#resyncCheckPeriodMs) {
        if (this.#started) {
          logger.warn(
            `${this.name}: resync period ${resync} ms is below the informer's check period ${this.#resyncCheckPeriodMs} ms, which cannot change after start; using ${this.#resyncCheckPeriodMs} ms`,
          );
          resync = this.#resyncCheckPeriodMs;
        } else {
          this.#resyncCheckPeriodMs = resync;
          this.#processor.resyncCheckPeriodChanged((r) => this.#determineResync(r));
        }
      }
    }
    const listener = new ProcessorListener<T>(handler, {
      name: options.name ?? `${this.name} handler #${++this.#handlerCount}`,
      requestedResyncPeriodMs: resync,
      resyncPeriodMs: this.#determineResync(resync),
      clock: this.#clock,
      logger,
      onHandlerError: this.#options.onHandlerError,
    });
    if (this.#started) {
      // Replay the cache synchronously: no delta can slip in between.
      for (const obj of this.#indexer.list()) {
        listener.add({ kind: NotificationKind.Add, obj, oldObj: undefined, isInInitialList: true });
      }
    }
    this.#processor.addListener(listener);
    return new Registration<T>(this, listener);
  }

  /**
   * The resourceVersion the cache has caught up with (client-go 1.36's
   * `LastStoreSyncResourceVersion`): that of the last object, list or bookmark applied to
   * the store — unlike {@link SharedIndexInformer.lastSyncResourceVersion}, it moves with
   * every watch event once it is in the cache. `""` before the first. A write that returned
   * resourceVersion R is visible to reads of this cache once this is R or newer.
   */
  lastStoreSyncResourceVersion(): string {
    return this.#storeResourceVersion;
  }

  #noteStoreResourceVersion(d: RealFIFODelta<T>): void {
    let rv: string | undefined;
    if (d.type === 'ReplacedAll' || d.type === 'Bookmark') rv = d.resourceVersion;
    else if (d.type !== 'SyncAll') {
      rv = (d.object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata
        ?.resourceVersion;
    }
    if (rv !== undefined && rv !== '') this.#storeResourceVersion = rv;
  }

  /**
   * client-go 1.33's `AddEventHandlerWithOptions`: {@link SharedIndexInformer.addEventHandler}
   * with a per-handler logger and resync period (`{ logger, resyncPeriodMs, name }`).
   */
  addEventHandlerWithOptions(
    handler: ResourceEventHandler<T>,
    options: AddEventHandlerOptions,
  ): ResourceEventHandlerRegistration {
    return this.addEventHandler(handler, options);
  }

  /**
   * Stop delivering to a handler (its buffered notifications are dropped). Unknown or
   * already removed registrations are ignored.
   *
   * @throws {@link InvalidRegistrationError} for something addEventHandler did not return.
   */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (!(registration instanceof Registration)) throw new InvalidRegistrationError(this.name);
    if (registration.informer !== (this as SharedIndexInformer<T>)) return;
    this.#processor.removeListener(registration.listener as ProcessorListener<T>);
  }

  /**
   * List, watch, and feed the cache and handlers until `signal` aborts. Resolves once the
   * reflector, the delta loop and every handler loop have stopped (notifications still
   * buffered are dropped; a handler call in flight is awaited). A second call logs a
   * warning and returns at once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) {
      this.#logger.warn(`${this.name}: run() called again; the informer runs only once`);
      return;
    }
    this.#started = true;
    if (signal.aborted) {
      this.#stopped = true;
      return;
    }
    const fifo = new RealFIFO<T>({
      knownObjects: this.#indexer,
      ...(this.#transform !== undefined ? { transformer: this.#transform } : {}),
    });
    this.#fifo = fifo;
    const watchErrorHandler = this.#watchErrorHandler;
    const o = this.#options;
    const reflector = new Reflector<T>(this.#lw, fifo, {
      name: this.name,
      resyncPeriodMs: this.#resyncCheckPeriodMs,
      shouldResync: () => this.#processor.shouldResync(),
      clock: this.#clock,
      logger: this.#logger,
      ...reflectorTuningOf(o),
      ...(this.#transform !== undefined ? { transform: this.#transform } : {}),
      ...(o.random !== undefined ? { random: o.random } : {}),
      ...(watchErrorHandler !== undefined
        ? { watchErrorHandler: (err: unknown) => watchErrorHandler(err) }
        : {}),
    });
    this.#reflector = reflector;
    this.#processor.start();
    this.#checkMutations(signal);
    const onAbort = (): void => fifo.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const reflecting = reflector.run(signal).catch((err: unknown) => {
        this.#logger.error(`${this.name}: reflector stopped unexpectedly`, {
          error: errorMessage(err),
        });
      });
      const processing = this.#processLoop(fifo, signal);
      // Promise.all without its per-call closures and array: the delta loop first (it
      // rejects only when the logger throws, and must not wait unawaited meanwhile), then
      // the reflector (its failures are caught above).
      await processing;
      await reflecting;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#stopped = true;
      await this.#processor.stop();
    }
  }

  /**
   * Pops batches and applies them until the FIFO is closed and drained (or `signal`
   * aborts). While the FIFO is empty nothing is pending: the loop ends and the FIFO's
   * `onReady` starts it again, so an idle informer holds no suspended pop.
   */
  #processLoop(fifo: RealFIFO<T>, signal: AbortSignal): Promise<void> {
    const maxBatch = this.#options.maxBatch ?? 1000;
    // The FIFO's key function is the indexer's (both the default), so the key the FIFO
    // computed for each delta is the cache's: an object is named once.
    const process = (
      batch: RealFIFODelta<T>[],
      initial: boolean,
      keys: readonly (string | undefined)[],
    ): void => {
      for (let i = 0; i < batch.length; i++) {
        if (signal.aborted) return;
        this.#apply(batch[i] as RealFIFODelta<T>, initial, keys[i]);
      }
    };
    let loggedSynced = false;
    return new Promise<void>((done, failed) => {
      const drain = async (): Promise<void> => {
        for (;;) {
          if (fifo.length === 0 && !fifo.isClosed()) {
            fifo.onReady(wake);
            return;
          }
          try {
            await fifo.popBatch(process, maxBatch);
            if (!loggedSynced && fifo.hasSynced()) {
              loggedSynced = true;
              this.#logger.info(`${this.name}: synced; ${this.#indexer.size} objects cached`);
            }
          } catch (err) {
            if (err instanceof FIFOClosedError) return done();
            this.#logger.error(`${this.name}: processing a delta failed`, {
              error: errorMessage(err),
            });
          }
          if (signal.aborted) return done();
        }
      };
      // A failure outside a delta (the logger threw) rejects the loop, as it always did.
      const wake = (): void => {
        drain().catch(failed);
      };
      wake();
    });
  }

  /**
   * Apply one delta to the cache and queue its notifications. Synchronous by design. `key`:
   * the object's key when the FIFO already computed it.
   */
  #apply(d: RealFIFODelta<T>, isInInitialList: boolean, key: string | undefined): void {
    this.#noteStoreResourceVersion(d);
    switch (d.type) {
      case 'ReplacedAll':
        this.#replaceAll(d.objects, d.resourceVersion, isInInitialList);
        return;
      case 'SyncAll':
        if (!this.#processor.hasSyncingListeners()) return;
        for (const obj of this.#indexer.list()) {
          this.#processor.distribute(
            { kind: NotificationKind.Update, obj, oldObj: obj, isInInitialList: false },
            true,
          );
        }
        return;
      case 'Bookmark':
        this.#indexer.bookmark(d.resourceVersion);
        return;
      case 'Deleted':
        this.#applyDelete(d, key);
        return;
      default:
        this.#applyUpsert(d.object as T, isInInitialList, key);
    }
  }

  #applyUpsert(obj: T, isInInitialList: boolean, knownKey: string | undefined): void {
    let key: string | undefined;
    let old: T | undefined;
    let written = false;
    try {
      key = knownKey ?? this.#indexer.keyOf(obj);
      if (this.#mutations !== undefined) this.#reportMutation(this.#mutations.checkKey(key));
      old = this.#indexer.upsert(key, obj);
      written = true;
      this.#mutations?.record(key, obj);
    } catch (err) {
      // Before the write, or a failed write (the cache is then unchanged): the cache still
      // holds the old state under the key.
      if (!written && key !== undefined) old = this.#indexer.getByKey(key);
      this.#cacheError(err, obj);
      // The new state could not be cached; the old one would be a lie, so it leaves too.
      if (key !== undefined && old !== undefined) this.#dropStale(key, old);
      return;
    }
    this.#notifyUpsert(old, obj, isInInitialList);
  }

  /** Removes a cached object whose newer state could not be cached; handlers get a tombstone. */
  #dropStale(key: string, old: T): void {
    try {
      this.#indexer.delete(old);
      this.#mutations?.forget(key);
    } catch (err) {
      this.#cacheError(err, old);
      return;
    }
    if (this.#processor.size === 0) return;
    this.#processor.distribute(
      {
        kind: NotificationKind.Delete,
        obj: new DeletedFinalStateUnknown<T>(key, old),
        oldObj: undefined,
        isInInitialList: false,
      },
      false,
    );
  }

  #notifyUpsert(old: T | undefined, obj: T, isInInitialList: boolean): void {
    if (this.#processor.size === 0) return;
    if (old !== undefined) {
      const rv = resourceVersionOf(obj);
      const sync = rv !== undefined && rv === resourceVersionOf(old);
      if (sync && !this.#processor.hasSyncingListeners()) return;
      this.#processor.distribute(
        { kind: NotificationKind.Update, obj, oldObj: old, isInInitialList: false },
        sync,
      );
    } else {
      this.#processor.distribute(
        { kind: NotificationKind.Add, obj, oldObj: undefined, isInInitialList },
        false,
      );
    }
  }

  #applyDelete(d: Delta<T>, knownKey: string | undefined): void {
    let held: boolean;
    try {
      const key = knownKey ?? this.#indexer.keyOf(d.object);
      held = this.#indexer.hasKey(key);
      if (this.#mutations !== undefined) {
        this.#reportMutation(this.#mutations.checkKey(key));
        this.#mutations.forget(key);
      }
      this.#indexer.delete(d.object);
    } catch (err) {
      this.#cacheError(err, d.object);
      return;
    }
    // An object that was skipped (it could not be cached) was never delivered: no delete.
    if (!held || this.#processor.size === 0) return;
    this.#processor.distribute(
      { kind: NotificationKind.Delete, obj: d.object, oldObj: undefined, isInInitialList: false },
      false,
    );
  }

  /**
   * A relist, applied in one step. An object whose key or index function fails is skipped
   * and logged with its key and the cause; every other object is cached and delivered, and
   * cached keys missing from the list still get tombstones. A skipped object whose key was
   * cached leaves the cache too (its old state would be a lie), so handlers get a tombstone
   * for it.
   */
  #replaceAll(objects: readonly T[], resourceVersion: string, isInInitialList: boolean): void {
    const idx = this.#indexer;
    const rejected = new Set<T>();
    const listed = new Set<string>();
    const keys = new Array<string>(objects.length);
    for (let i = 0; i < objects.length; i++) {
      try {
        const key = idx.keyOf(objects[i]);
        keys[i] = key;
        listed.add(key);
      } catch (err) {
        rejected.add(objects[i] as T);
        this.#cacheError(err, objects[i]);
      }
    }
    if (this.#mutations !== undefined) {
      for (const err of this.#mutations.checkAll()) this.#reportMutation(err);
    }
    const before = new Map<string, T>();
    if (idx.size > 0) {
      for (const key of idx.listKeys()) before.set(key, idx.getByKey(key) as T);
    }
    idx.replace(
      rejected.size === 0 ? objects : objects.filter((o) => !rejected.has(o)),
      resourceVersion,
      (obj, err) => {
        rejected.add(obj);
        this.#cacheError(err, obj);
      },
    );
    if (this.#mutations !== undefined) {
      this.#mutations.clear();
      for (const key of idx.listKeys()) this.#mutations.record(key, idx.getByKey(key));
    }
    if (this.#processor.size === 0) return;
    for (const [key, old] of before) {
      if (listed.has(key) && idx.hasKey(key)) continue;
      this.#processor.distribute(
        {
          kind: NotificationKind.Delete,
          obj: new DeletedFinalStateUnknown<T>(key, old),
          oldObj: undefined,
          isInInitialList: false,
        },
        false,
      );
    }
    for (let i = 0; i < objects.length; i++) {
      const obj = objects[i] as T;
      if (rejected.has(obj)) continue;
      this.#notifyUpsert(before.get(keys[i] as string), obj, isInInitialList);
    }
  }

  #cacheError(err: unknown, obj?: unknown): void {
    let key: string;
    try {
      key = this.#indexer.keyOf(obj);
    } catch {
      key = '(no key)';
    }
    this.#logger.error(
      `${this.name}: object ${obj === undefined ? '' : `${key} `}could not be cached and was skipped`,
      { key, error: err },
    );
  }

  #determineResync(requested: number): number {
    if (requested === 0) return 0;
    if (this.#resyncCheckPeriodMs === 0) {
      this.#logger.warn(
        `${this.name}: handler asked for resync every ${requested} ms but the informer's resync check period is 0; resync disabled for it`,
      );
      return 0;
    }
    return requested < this.#resyncCheckPeriodMs ? this.#resyncCheckPeriodMs : requested;
  }
}
