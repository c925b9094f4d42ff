/**
 * The controller: informers → event handlers → a rate-limited work queue → N workers →
 * `reconcile(key, signal)` (controller-runtime's `Controller`, kube-rs's `Controller`).
 *
 * Rules:
 *
 * - **Keys, not objects.** Handlers enqueue `namespace/name` keys; `reconcile` reads the
 *   current state from a lister. Repeated events for one key collapse into one reconcile.
 * - **Never the same key on two workers**: the work queue holds a key that is being
 *   reconciled and queues it again only after that reconcile returned.
 * - **Results.** Nothing (or `undefined`): success, the key's failure history is forgotten.
 *   `{ requeue: true }`: requeued through the rate limiter (`addRateLimited`), like a
 *   failure but without an error. `{ requeueAfterMs }`: history forgotten, then requeued
 *   after exactly that long (`addAfter`).
 * - **Errors.** A reconcile that throws or rejects is reported (`onError`, else the logger)
 *   and requeued through the rate limiter; with the default limiter the delays are 5 ms,
 *   10 ms, 20 ms, … up to 1000 s. Nothing a reconcile does crashes the controller.
 * - **Sync first, its own informers only.** `run()` waits until every handler registration
 *   of this controller has synced (each of its informers listed, and every initial-list
 *   event queued) before starting workers; another controller's informer that cannot sync
 *   does not hold it back. Informers are started by the caller (or an informer factory), not
 *   by the controller.
 * - **Cache sync timeout** (controller-runtime's `CacheSyncTimeout`, default 2 min): when
 *   its informers have not synced by then, `run()` rejects with a
 *   {@link CacheSyncTimeoutError} naming each informer and its last error; with
 *   `onCacheSyncTimeout: 'keepWaiting'` it logs that error, goes on waiting and runs if they
 *   sync later. {@link Controller.state} says where it is (`standby`, `waiting`, `timedOut`,
 *   `running`, `stopped`), also as the `kube_controller_kit_controller_state` metric.
 * - **Shutdown.** When `run`'s signal aborts: `'drain'` (default) stops accepting new
 *   keys and lets the workers finish what is in flight and what is queued (keys waiting
 *   on a delay are dropped); `'abort'` aborts the signal passed to `reconcile` and stops
 *   once the reconciles in flight have returned. Either way `run()` resolves after every
 *   worker stopped and the event handlers were removed — or, when a reconcile ignores its
 *   signal, once the graceful shutdown timeout (default 30 s, as controller-runtime's) has
 *   passed: then the keys still reconciling are logged, their signal is aborted, and
 *   `run()` resolves without waiting for them.
 * - **Priorities** (controller-runtime's priority queue, its default since v0.23; turn it off
 *   with `usePriorityQueue: false`). Keys from an informer's initial list, from resyncs and
 *   from updates that keep the resourceVersion are queued at {@link LowPriority}; every
 *   other event at 0, so after a restart a real change is reconciled before the thousands of
 *   unchanged objects listed at start. A requeue (error, `requeue`, `requeueAfterMs`) keeps
 *   the priority the key was reconciled with, unless the result sets `priority`.
 * - **Deadline** (`reconcileTimeoutMs`): the reconcile's signal aborts at the deadline with
 *   a {@link ReconcileTimeoutError}; the attempt is an error, requeued with backoff, and
 *   counted in `controller_runtime_reconcile_timeouts_total`.
 * - **Debounce** (`debounceMs`, `maxDebounceMs`): events of one key within the window give
 *   one reconcile, on the trailing edge, never later than `maxDebounceMs` after the first,
 *   at the highest priority any of them asked for (an event without one counts as 0).
 * - **Metrics** under controller-runtime's names (`controller_runtime_reconcile_total`,
 *   `…_reconcile_errors_total`, `…_reconcile_time_seconds`, `…_active_workers`,
 *   `…_max_concurrent_reconciles`) go to a {@link ControllerMetricsProvider}.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import type {
  AddEventHandlerOptions,
  ResourceEventHandlerRegistration,
} from '../cache/shared_informer.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import type { ResourceEventHandler } from '../cache/processor.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc } from '../cache/keys.js';
import { CacheSyncTimeoutError, waitForInformersSync } from '../cache/wait.js';
import type { NotSynced, SyncSource } from '../cache/wait.js';
import type { LastError } from '../cache/reflector.js';
import type { ConsistencyStore } from '../cache/consistency.js';
import type { KubeObject } from '../client/types.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { isAbortError, KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { RateLimitingQueue } from '../workqueue/rate_limiting_queue.js';
import type { RateLimitingQueueOptions } from '../workqueue/rate_limiting_queue.js';
import { LowPriority, PriorityQueue } from '../workqueue/priority_queue.js';
import type { RateLimitingWorkQueue } from '../workqueue/interface.js';
import { defaultControllerRateLimiter } from '../workqueue/rate_limiters.js';
import type { RateLimiter } from '../workqueue/rate_limiters.js';
import type { MetricsProvider } from '../workqueue/metrics.js';
import { runWorkers } from '../workqueue/workers.js';
import { bindControllerMetrics, getDefaultControllerMetricsProvider } from './metrics.js';
import type {
  BoundControllerMetrics,
  ControllerMetricsProvider,
  ControllerState,
} from './metrics.js';
import { Debouncer } from './debouncer.js';
import { ownerKeys } from './owner.js';
import type { OwnerKeysOptions } from './owner.js';
import type { UpdatePredicate } from './predicates.js';

/**
 * What a reconcile asks for besides success: `{ requeue: true }` reconciles the key again
 * after the rate limiter's delay; `{ requeueAfterMs }` reconciles it again after exactly
 * that many milliseconds (e.g. to poll something outside the cluster).
 */
export type ReconcileResult =
  | {
      /** Reconcile again after the rate limiter's delay for this key. */
      requeue: true;
      /** The requeued key's priority (default: the priority it was reconciled with). */
      priority?: number;
    }
  | {
      /** Reconcile again after this many milliseconds (the rate limiter's history is cleared). */
      requeueAfterMs: number;
      /** The requeued key's priority (default: the priority it was reconciled with). */
      priority?: number;
    };

/**
 * Brings the object named by `key` (`namespace/name`, or `name` when cluster-scoped)
 * toward its desired state. Read the current state from a lister; the object may be gone
 * (then clean up). The signal aborts when the controller stops with `shutdown: 'abort'`.
 */
export type Reconciler = (
  key: string,
  signal: AbortSignal,
) => Promise<ReconcileResult | void> | ReconcileResult | void;

/** Options of a {@link Controller}. */
export interface ControllerOptions {
  /** The controller's name: in logs, errors, and as the work queue's (metrics) name. */
  name: string;
  /** The reconcile function. */
  reconcile: Reconciler;
  /** Number of concurrent reconciles (of different keys). Default 1. */
  workers?: number;
  /** Spaces retries of failed and `{ requeue: true }` keys. Default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  /** Source of time for the queue's delays and the cache-sync polling. Default the real clock. */
  clock?: Clock;
  /** Where the controller logs. Default: warnings and errors to stderr. */
  logger?: Logger;
  /**
   * Called with every reconcile failure and its key (after it was requeued). Default: log
   * an error. A throwing hook is logged and ignored.
   */
  onError?: (error: unknown, key: string) => void;
  /**
   * The deadline of one reconcile, in milliseconds (controller-runtime's
   * `ReconciliationTimeout`; default none). At the deadline the reconcile's signal is
   * aborted with a {@link ReconcileTimeoutError}; the attempt counts as an error (also if the
   * reconcile then returns normally), is requeued with backoff, and
   * `controller_runtime_reconcile_timeouts_total` counts it. A reconcile that ignores its
   * signal still holds its worker (and its key) until it returns.
   */
  reconcileTimeoutMs?: number;
  /**
   * Collapse the events of one key that arrive within this many milliseconds into one
   * reconcile, on the trailing edge (kube-rs `Config::debounce`; default 0, no debounce).
   * Each event moves the key's reconcile to `debounceMs` after it, up to `maxDebounceMs`
   * after the first. Applies to informer events only; `enqueue`, requeues and retries are
   * not delayed. Keys still waiting when the controller stops are dropped.
   */
  debounceMs?: number;
  /**
   * The longest a key's reconcile is put off by debouncing, from its first event, so a key
   * that changes all the time is still reconciled. Default `10 × debounceMs`; at least
   * `debounceMs`.
   */
  maxDebounceMs?: number;
  /**
   * Queue keys in a {@link PriorityQueue} (default true, as controller-runtime since v0.23);
   * `false` brings back the FIFO {@link RateLimitingQueue}, where priorities are ignored.
   */
  usePriorityQueue?: boolean;
  /** Where the work queue's metrics go (default: the provider set with `setDefaultMetricsProvider`). */
  metricsProvider?: MetricsProvider;
  /**
   * Makes the work queue instead of the default one (controller-runtime's `NewQueue`), from
   * the options the default would get (name, clock, rate limiter, metrics provider). The
   * queue it returns is used as a FIFO queue: priorities are not passed to it. Used by the
   * multicluster controller for its queue that is fair across clusters.
   */
  newQueue?: (options: RateLimitingQueueOptions<string>) => RateLimitingWorkQueue<string>;
  /**
   * Where the `controller_runtime_*` metrics go (default: the provider set with
   * `setDefaultControllerMetricsProvider`; none when unset).
   */
  controllerMetricsProvider?: ControllerMetricsProvider;
  /**
   * How long `run()` waits for this controller's informers to sync, in milliseconds
   * (controller-runtime's `CacheSyncTimeout`). Default: `run()`'s `cacheSyncTimeoutMs`
   * (a Manager passes its own default), else {@link DEFAULT_CACHE_SYNC_TIMEOUT_MS} (2 min);
   * `Infinity` waits for ever. See {@link ControllerRunOptions.onCacheSyncTimeout}.
   */
  cacheSyncTimeoutMs?: number;
}

/** controller-runtime's default graceful shutdown timeout: 30 s. */
export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS = 30_000;

/** controller-runtime's default `CacheSyncTimeout`: 2 min. */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/** Options of {@link Controller.run}. */
export interface ControllerRunOptions {
  /**
   * What aborting the signal does: `'drain'` (default) finishes in-flight and queued keys;
   * `'abort'` aborts the reconcile signal and stops after the in-flight reconciles return.
   */
  shutdown?: 'drain' | 'abort';
  /**
   * How long after the signal aborts `run()` waits for the reconciles still running (and,
   * with `'drain'`, the queued keys) before it gives up on them, logs their keys, aborts
   * their signal and resolves. Default {@link DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS} (30 s);
   * `0` does not wait at all; a negative number or `Infinity` waits for ever. Measured on
   * the controller's clock.
   */
  gracefulShutdownTimeoutMs?: number;
  /**
   * The cache sync timeout when the controller has no `cacheSyncTimeoutMs` of its own
   * (default {@link DEFAULT_CACHE_SYNC_TIMEOUT_MS}).
   */
  cacheSyncTimeoutMs?: number;
  /**
   * What the cache sync timeout does: `'fail'` (default, controller-runtime's) rejects
   * `run()` with a {@link CacheSyncTimeoutError} naming each informer that did not sync and
   * its last error; `'keepWaiting'` logs that error once at error level, sets the state to
   * `timedOut`, goes on waiting and starts the workers if the informers sync later (an RBAC
   * rule granted, a CRD installed) — without a restart.
   */
  onCacheSyncTimeout?: 'fail' | 'keepWaiting';
}

/**
 * The part of an informer a controller needs; {@link cache!SharedIndexInformer} has it. The
 * informer must be started by someone else (the controller never starts one).
 *
 * @typeParam T - the object type.
 */
export interface ControllerInformer<T> {
  /** Its name in the controller's logs, readiness reasons and timeout error (`secrets/v1`). */
  readonly name?: string;
  /** The last error that kept it from syncing (a 403, a 404…), for the same. */
  lastError?(): LastError | undefined;
  /** Add an event handler; the registration tells when its initial events were delivered. */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    options?: AddEventHandlerOptions,
  ): ResourceEventHandlerRegistration;
  /** Remove a handler added before (called when the controller stops). */
  removeEventHandler?(registration: ResourceEventHandlerRegistration): void;
}

/** Filters shared by {@link Controller.for}, {@link Controller.owns} and {@link Controller.watches}. */
export interface WatchOptions<T extends KubeObject> {
  /**
   * Filters **update** events (old, new): the update enqueues only when it returns true.
   * Adds and deletes always pass. See `generationChanged`, `labelsChanged`, `and`, `or`.
   */
  predicate?: UpdatePredicate<T>;
  /**
   * Filters every event by the (new, or deleted) object: false ignores the event. It sees
   * the cached object itself, read-only.
   */
  filter?: (obj: DeepReadonly<T>) => boolean;
  /**
   * Queue keys of initial-list adds, resyncs and updates that keep the resourceVersion at
   * {@link LowPriority} (controller-runtime's `handler.WithLowPriorityWhenUnchanged`, which
   * its builder applies to every watch). Default true; only a priority queue heeds it.
   */
  lowPriorityWhenUnchanged?: boolean;
}

/** Options of {@link Controller.for}. */
export interface ForOptions<T extends KubeObject> extends WatchOptions<T> {
  /**
   * Read your own writes (Kubernetes 1.36's consistency store; JOSDK #3398): the record of
   * this process's writes of the primary resource — `manager.client(resource).consistency`,
   * or a {@link ConsistencyStore} you feed with `wroteAt`. With it, an update whose
   * resourceVersion is one this process wrote (the echo of its own write, e.g. its status
   * update) does not enqueue, while a change by anyone else does; and before reconciling a
   * key the controller waits until the informer has seen its last write of that key (up to
   * `staleCacheTimeoutMs`, then the attempt fails with a `StaleCacheError` and is retried
   * with backoff).
   */
  consistency?: ConsistencyStore;
  /** How long a reconcile waits for the cache to see this process's last write. Default 10 s. */
  staleCacheTimeoutMs?: number;
}

/** Options of {@link Controller.enqueue}. */
export interface EnqueueOptions {
  /** The key's priority in a priority queue (default 0; a queued key keeps the highest). */
  priority?: number;
}

/** Options of {@link Controller.owns}: which owner references lead to the primary object. */
export interface OwnsOptions<T extends KubeObject> extends WatchOptions<T>, OwnerKeysOptions {}

/** `run()` was called twice on one controller. */
export class ControllerAlreadyRunningError extends KubeControllerKitError {
  /** @param name - the controller. */
  constructor(name: string) {
    super(
      `controller ${name}: run() was already called; a controller runs once — create a new Controller to run again`,
    );
  }
}

/**
 * A reconcile ran past the controller's `reconcileTimeoutMs`: its signal was aborted with
 * this error, the attempt counted as an error and the key was requeued with backoff.
 */
export class ReconcileTimeoutError extends KubeControllerKitError {
  /** The controller. */
  readonly controller: string;
  /** The key whose reconcile timed out. */
  readonly key: string;
  /** The deadline, in milliseconds. */
  readonly timeoutMs: number;
  /** @param controller - the controller; @param key - the key; @param timeoutMs - the deadline. */
  constructor(controller: string, key: string, timeoutMs: number) {
    super(
      `controller ${controller}: reconcile of ${key} did not finish within reconcileTimeoutMs (${timeoutMs} ms); its signal was aborted and the key requeued with backoff`,
    );
    this.controller = controller;
    this.key = key;
    this.timeoutMs = timeoutMs;
  }
}

/** {@link ControllerOptions} are invalid. */
export class InvalidControllerOptionsError extends KubeControllerKitError {}

/** A watch (for/owns/watches) was added after run() started. */
export class ControllerStartedError extends KubeControllerKitError {
  /** @param name - the controller; @param what - the call. */
  constructor(name: string, what: string) {
    super(
      `controller ${name}: ${what} was called after run(); add every informer before calling run()`,
    );
  }
}

interface Watched extends SyncSource {
  readonly registration: ResourceEventHandlerRegistration;
  readonly remove: () => void;
}

function isRequeueAfter(r: ReconcileResult): r is { requeueAfterMs: number } {
  return typeof (r as { requeueAfterMs?: unknown }).requeueAfterMs === 'number';
}

/**
 * A controller: informers feed keys into a rate-limited queue; workers reconcile them.
 *
 * @example
 * ```ts
 * const controller = new Controller({
 *   name: 'applications',
 *   workers: 4,
 *   reconcile: async (key) => {
 *     const [ns, name] = splitMetaNamespaceKey(key);
 *     const app = appLister.byNamespace(ns).tryGet(name);
 *     if (!app) return; // deleted
 *     // … create or update children …
 *     return { requeueAfterMs: 60_000 };
 *   },
 * })
 *   .for(appInformer, { predicate: generationChanged })
 *   .owns(deploymentInformer, { kind: 'Application', apiVersion: 'example.com/v1' });
 * factory.start(signal); // informers are started by their owner
 * await controller.run(signal); // resolves after shutdown
 * ```
 */
export class Controller {
  /** The controller's name. */
  readonly name: string;
  /**
   * The work queue of keys (read it for metrics and tests: `len()`, `numRequeues(key)`,
   * `waitingLen()`). Add keys with {@link Controller.enqueue}.
   */
  readonly queue: RateLimitingWorkQueue<string>;
  readonly #priorityQueue: PriorityQueue<string> | undefined;
  readonly #reconcile: Reconciler;
  readonly #workers: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #onError: ((error: unknown, key: string) => void) | undefined;
  readonly #watched: Watched[] = [];
  readonly #metrics: BoundControllerMetrics | undefined;
  /** Keys being reconciled right now, with the time each reconcile started. */
  readonly #active = new Map<string, number>();
  readonly #reconcileTimeoutMs: number | undefined;
  #consistency: { store: ConsistencyStore; timeoutMs: number } | undefined;
  readonly #debouncer: Debouncer | undefined;
  readonly #cacheSyncTimeoutMs: number | undefined;
  #started = false;
  #state: ControllerState = 'standby';
  #cacheSyncError: CacheSyncTimeoutError | undefined;

  /** @throws {@link InvalidControllerOptionsError} for a missing name or reconcile, or a bad worker count. */
  constructor(options: ControllerOptions) {
    if (typeof options.name !== 'string' || options.name === '') {
      throw new InvalidControllerOptionsError('Controller needs a non-empty name');
    }
    if (typeof options.reconcile !== 'function') {
      throw new InvalidControllerOptionsError(
        `controller ${options.name}: reconcile must be a function (key, signal) => Promise<ReconcileResult | void>`,
      );
    }
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new InvalidControllerOptionsError(
        `controller ${options.name}: workers must be a positive integer, got ${String(workers)}`,
      );
    }
    const timeoutMs = options.reconcileTimeoutMs;
    if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0)) {
      throw new InvalidControllerOptionsError(
        `controller ${options.name}: reconcileTimeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
      );
    }
    this.#reconcileTimeoutMs = timeoutMs === Infinity ? undefined : timeoutMs;
    const syncTimeoutMs = options.cacheSyncTimeoutMs;
    if (syncTimeoutMs !== undefined && !(typeof syncTimeoutMs === 'number' && syncTimeoutMs > 0)) {
      throw new InvalidControllerOptionsError(
        `controller ${options.name}: cacheSyncTimeoutMs must be a positive number of milliseconds (Infinity: no timeout), got ${String(syncTimeoutMs)}`,
      );
    }
    this.#cacheSyncTimeoutMs = syncTimeoutMs;
    const debounceMs = options.debounceMs ?? 0;
    if (!(typeof debounceMs === 'number' && debounceMs >= 0 && Number.isFinite(debounceMs))) {
      throw new InvalidControllerOptionsError(
        `controller ${options.name}: debounceMs must be a finite number of milliseconds ≥ 0, got ${String(debounceMs)}`,
      );
    }
    const maxDebounceMs = options.maxDebounceMs ?? debounceMs * 10;
    if (!(typeof maxDebounceMs === 'number' && maxDebounceMs >= debounceMs)) {
      throw new InvalidControllerOptionsError(
        `controller ${options.name}: maxDebounceMs must be a number of milliseconds ≥ debounceMs (${debounceMs}), got ${String(maxDebounceMs)}`,
      );
    }
    this.name = options.name;
    this.#reconcile = options.reconcile;
    this.#workers = workers;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#onError = options.onError;
    const metricsProvider =
      options.controllerMetricsProvider ?? getDefaultControllerMetricsProvider();
    this.#metrics =
      metricsProvider === undefined ? undefined : bindControllerMetrics(metricsProvider, this.name);
    this.#metrics?.maxConcurrent.set(workers);
    this.#setState('standby');
    const queueOptions = {
      name: options.name,
      clock: this.#clock,
      rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter(this.#clock),
      ...(options.metricsProvider !== undefined
        ? { metricsProvider: options.metricsProvider }
        : {}),
    };
    if (options.newQueue !== undefined) {
      this.queue = options.newQueue(queueOptions);
    } else if (options.usePriorityQueue === false) {
      this.queue = new RateLimitingQueue<string>(queueOptions);
    } else {
      this.#priorityQueue = new PriorityQueue<string>(queueOptions);
      this.queue = this.#priorityQueue;
    }
    if (debounceMs > 0) {
      this.#debouncer = new Debouncer(this.#clock, debounceMs, maxDebounceMs, (key, priority) =>
        this.#add(key, priority),
      );
    }
  }

  /**
   * Watch the primary resource: every add, update (passing `predicate`) and delete
   * enqueues the object's own key.
   *
   * @throws {@link ControllerStartedError} after run().
   */
  for<T extends KubeObject>(informer: ControllerInformer<T>, options: ForOptions<T> = {}): this {
    if (options.consistency !== undefined) {
      this.#consistency = {
        store: options.consistency,
        timeoutMs: options.staleCacheTimeoutMs ?? 10_000,
      };
    }
    return this.#watch(informer, (obj) => [metaNamespaceKeyFunc(obj)], options, 'for');
  }

  /**
   * Watch a child resource: an event enqueues the key of the child's controlling owner of
   * `kind` (see {@link ownerKeys}); for an update, the owners of both the old and the new
   * object, so an owner that lost its child hears about it too.
   *
   * @throws {@link ControllerStartedError} after run().
   */
  owns<T extends KubeObject>(informer: ControllerInformer<T>, options: OwnsOptions<T>): this {
    return this.#watch(
      informer,
      (obj) => ownerKeys(obj as DeepReadonly<KubeObject>, options),
      options,
      'owns',
    );
  }

  /**
   * Watch any resource, mapping each changed object to the keys to reconcile (e.g. every
   * Application that references a changed ConfigMap). For an update, the keys of the old
   * and of the new object are enqueued. A throwing mapper is logged and the event ignored.
   * The mapper sees the cached object itself, read-only (`deepCopy` it to change it).
   *
   * @throws {@link ControllerStartedError} after run().
   */
  watches<T extends KubeObject>(
    informer: ControllerInformer<T>,
    mapToKeys: (obj: DeepReadonly<T>) => readonly string[],
    options: WatchOptions<T> = {},
  ): this {
    return this.#watch(informer, mapToKeys, options, 'watches');
  }

  #watch<T extends KubeObject>(
    informer: ControllerInformer<T>,
    mapToKeys: (obj: DeepReadonly<T>) => readonly string[],
    options: WatchOptions<T>,
    what: 'for' | 'owns' | 'watches',
  ): this {
    if (this.#started) throw new ControllerStartedError(this.name, `${what}()`);
    const { predicate, filter } = options;
    const lowWhenUnchanged = options.lowPriorityWhenUnchanged !== false;
    const enqueueFor = (obj: DeepReadonly<T>, event: string, priority?: number): void => {
      try {
        if (filter !== undefined && !filter(obj)) return;
        for (const key of mapToKeys(obj)) this.#trigger(key, priority);
      } catch (err) {
        this.#logger.warn(
          `controller ${this.name}: ${what}() could not map a ${event} event to keys; event ignored`,
          { error: err },
        );
      }
    };
    const handler: ResourceEventHandler<T> = {
      onAdd: (obj, isInInitialList) =>
        enqueueFor(obj, 'add', lowWhenUnchanged && isInInitialList ? LowPriority : undefined),
      onUpdate: (oldObj, newObj) => {
        if (predicate !== undefined && !predicate(oldObj, newObj)) return;
        // The echo of this controller's own write of the primary object: nothing new.
        if (
          what === 'for' &&
          this.#consistency?.store.isOwnWrite(
            metaNamespaceKeyFunc(newObj),
            newObj.metadata?.resourceVersion,
          ) === true
        ) {
          return;
        }
        // A resync (or any update that keeps the resourceVersion) changes nothing.
        const unchanged =
          lowWhenUnchanged &&
          oldObj.metadata?.resourceVersion !== undefined &&
          oldObj.metadata.resourceVersion === newObj.metadata?.resourceVersion;
        const priority = unchanged ? LowPriority : undefined;
        if (what !== 'for') enqueueFor(oldObj, 'update', priority);
        enqueueFor(newObj, 'update', priority);
      },
      onDelete: (objOrTombstone) => {
        if (!(objOrTombstone instanceof DeletedFinalStateUnknown)) {
          enqueueFor(objOrTombstone, 'delete');
        } else if (what === 'for') {
          // The tombstone's key is the primary object's key, even without its last state.
          const obj = objOrTombstone.obj as DeepReadonly<T> | undefined;
          if (filter === undefined || obj === undefined || filter(obj)) {
            this.#trigger(objOrTombstone.key, undefined);
          }
        } else {
          enqueueFor(objOrTombstone.obj, 'delete');
        }
      },
    };
    const registration = informer.addEventHandler(handler, {
      name: `controller ${this.name} ${what}`,
    });
    this.#watched.push({
      name: informer.name ?? `${what}() informer #${this.#watched.length + 1}`,
      hasSynced: () => registration.hasSynced(),
      lastError: () => informer.lastError?.(),
      registration,
      remove: () => informer.removeEventHandler?.(registration),
    });
    return this;
  }

  /**
   * Where the controller is: `standby` before `run()`, `waiting` for its informers,
   * `timedOut` past its cache sync timeout, `running`, `stopped` (see {@link ControllerState}).
   */
  get state(): ControllerState {
    return this.#state;
  }

  /**
   * The informers this controller still waits for, each with its last error (empty once
   * running). For readiness checks and logs.
   */
  waitingFor(): NotSynced[] {
    if (this.#state === 'running' || this.#state === 'stopped') return [];
    return this.#watched
      .filter((w) => !w.hasSynced())
      .map((w) => ({ name: w.name, lastError: w.lastError?.() }));
  }

  /** The error of the cache sync timeout, once it passed (see `onCacheSyncTimeout`). */
  get cacheSyncError(): CacheSyncTimeoutError | undefined {
    return this.#cacheSyncError;
  }

  #setState(state: ControllerState): void {
    const gauges = this.#metrics?.state;
    if (gauges !== undefined) {
      gauges[this.#state].set(0);
      gauges[state].set(1);
    }
    this.#state = state;
  }

  /** The keys being reconciled right now (for shutdown logs and tests). */
  activeKeys(): string[] {
    return [...this.#active.keys()];
  }

  /** Queue `key` for a reconcile (ignored after shutdown began), at `options.priority`. */
  enqueue(key: string, options: EnqueueOptions = {}): void {
    this.#add(key, options.priority);
  }

  /** Queue `key` for a reconcile after `delayMs` (an earlier pending time wins). */
  enqueueAfter(key: string, delayMs: number, options: EnqueueOptions = {}): void {
    if (this.#priorityQueue !== undefined) {
      this.#priorityQueue.add(key, { after: delayMs, priority: options.priority ?? 0 });
    } else {
      this.queue.addAfter(key, delayMs);
    }
  }

  /** Number of keys whose events are being debounced (not queued yet). */
  debouncingLen(): number {
    return this.#debouncer?.pendingLen() ?? 0;
  }

  /** An informer event for `key`: debounced when asked for, else queued. */
  #trigger(key: string, priority: number | undefined): void {
    if (this.#debouncer !== undefined) this.#debouncer.trigger(key, priority);
    else this.#add(key, priority);
  }

  /** Add a key at a priority (ignored by the FIFO queue). */
  #add(key: string, priority?: number): void {
    if (this.#priorityQueue !== undefined) {
      this.#priorityQueue.add(key, { priority: priority ?? 0 });
    } else {
      this.queue.add(key);
    }
  }

  /** Requeue a key after a delay or through the rate limiter, at a priority. */
  #requeue(key: string, how: { after: number } | { rateLimited: true }, priority: number): void {
    if (this.#priorityQueue !== undefined) {
      this.#priorityQueue.add(key, { ...how, priority });
    } else if ('after' in how) {
      this.queue.addAfter(key, how.after);
    } else {
      this.queue.addRateLimited(key);
    }
  }

  /**
   * Wait for every informer registration to sync, run the workers until `signal` aborts,
   * shut down as `options.shutdown` says, and resolve once every worker has stopped and
   * the handlers were removed. Never rejects because of a reconcile.
   *
   * @throws {@link ControllerAlreadyRunningError} (as a rejection) on a second call.
   * @throws {@link cache!CacheSyncTimeoutError} (as a rejection) when its informers did not sync
   *   within the cache sync timeout, with `onCacheSyncTimeout: 'fail'` (the default).
   */
  async run(signal: AbortSignal, options: ControllerRunOptions = {}): Promise<void> {
    if (this.#started) throw new ControllerAlreadyRunningError(this.name);
    const timeoutMs = options.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs)) {
      throw new InvalidControllerOptionsError(
        `controller ${this.name}: gracefulShutdownTimeoutMs must be a number of milliseconds, got ${String(timeoutMs)}`,
      );
    }
    const syncTimeoutMs =
      this.#cacheSyncTimeoutMs ?? options.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    if (!(typeof syncTimeoutMs === 'number' && syncTimeoutMs > 0)) {
      throw new InvalidControllerOptionsError(
        `controller ${this.name}: cacheSyncTimeoutMs must be a positive number of milliseconds (Infinity: no timeout), got ${String(syncTimeoutMs)}`,
      );
    }
    const onSyncTimeout = options.onCacheSyncTimeout ?? 'fail';
    if (onSyncTimeout !== 'fail' && onSyncTimeout !== 'keepWaiting') {
      throw new InvalidControllerOptionsError(
        `controller ${this.name}: onCacheSyncTimeout must be 'fail' or 'keepWaiting', got ${String(onSyncTimeout)}`,
      );
    }
    this.#started = true;
    const mode = options.shutdown ?? 'drain';
    const reconcileAbort = new AbortController();
    // Every worker waits on it for its next key (and a reconcile with a deadline listens to
    // it too): as many listeners as workers is no leak, and must not trip Node's
    // MaxListenersExceededWarning past ten workers.
    setMaxListeners(0, reconcileAbort.signal);
    let shutdownTimer: Timer | undefined;
    let giveUp: (() => void) | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      giveUp = () => resolve('timeout');
    });
    const onAbort = (): void => {
      this.#debouncer?.stop();
      if (mode === 'abort') {
        reconcileAbort.abort(signal.reason);
        this.queue.shutDown();
      } else {
        void this.queue.shutDownWithDrain();
      }
      if (timeoutMs >= 0 && timeoutMs !== Infinity) {
        shutdownTimer = this.#clock.setTimeout(() => giveUp?.(), timeoutMs);
      }
    };
    try {
      const synced = await this.#waitForSync(signal, syncTimeoutMs, onSyncTimeout);
      if (!synced) {
        this.#logger.info(`controller ${this.name}: stopped before the caches synced`);
        return;
      }
      if (signal.aborted) return;
      this.#setState('running');
      signal.addEventListener('abort', onAbort, { once: true });
      this.#logger.info(
        `controller ${this.name}: caches synced; starting ${this.#workers} worker(s)`,
      );
      const workersDone = runWorkers(
        this.queue,
        this.#workers,
        (key: string, workerSignal: AbortSignal) => this.#processKey(key, workerSignal),
        reconcileAbort.signal,
        { logger: this.#logger },
      ).then(() => 'done' as const);
      const outcome = await Promise.race([workersDone, gaveUp]);
      if (outcome === 'timeout') {
        const now = this.#clock.now();
        const running = [...this.#active].map(([key, since]) => `${key} (${now - since} ms)`);
        this.#logger.warn(
          `controller ${this.name}: graceful shutdown timed out after ${timeoutMs} ms; ` +
            `reconciles still running: ${running.length > 0 ? running.join(', ') : 'none'}; ` +
            'their signal is aborted and they are no longer awaited',
          { controller: this.name, keys: [...this.#active.keys()] },
        );
        reconcileAbort.abort(signal.reason);
        workersDone.catch((err: unknown) => {
          this.#logger.error(`controller ${this.name}: a worker failed after shutdown`, {
            error: err,
          });
        });
      } else {
        this.#logger.info(`controller ${this.name}: workers stopped`);
      }
    } finally {
      // A controller that gave up waiting ('fail') stays timedOut; any other ends stopped.
      if (!(onSyncTimeout === 'fail' && this.#state === 'timedOut')) this.#setState('stopped');
      shutdownTimer?.cancel();
      signal.removeEventListener('abort', onAbort);
      this.#debouncer?.stop();
      this.queue.shutDown();
      for (const { remove } of this.#watched) {
        try {
          remove();
        } catch (err) {
          this.#logger.warn(`controller ${this.name}: could not remove an event handler`, {
            error: err,
          });
        }
      }
    }
  }

  /**
   * Wait for this controller's informers: true once synced, false when `signal` aborted.
   * At the timeout, `'fail'` throws the {@link CacheSyncTimeoutError}; `'keepWaiting'` logs
   * it and waits on without a deadline.
   */
  async #waitForSync(
    signal: AbortSignal,
    timeoutMs: number,
    onTimeout: 'fail' | 'keepWaiting',
  ): Promise<boolean> {
    this.#setState('waiting');
    const started = this.#clock.now();
    this.#logger.info(
      `controller ${this.name}: waiting for its informers to sync (${this.#watched.map((w) => w.name).join(', ') || 'none'})`,
    );
    try {
      return await waitForInformersSync(signal, this.#watched, {
        clock: this.#clock,
        controller: this.name,
        ...(timeoutMs !== Infinity ? { timeoutMs } : {}),
      });
    } catch (err) {
      if (!(err instanceof CacheSyncTimeoutError)) throw err;
      this.#cacheSyncError = err;
      this.#setState('timedOut');
      if (onTimeout === 'fail') throw err;
    }
    this.#logger.error(
      `${this.#cacheSyncError.message}; it keeps waiting and starts if they sync (onCacheSyncTimeout: 'keepWaiting')`,
      { controller: this.name, informers: this.#cacheSyncError.notSynced.map((n) => n.name) },
    );
    const synced = await waitForInformersSync(signal, this.#watched, { clock: this.#clock });
    if (synced && !signal.aborted) {
      this.#logger.info(
        `controller ${this.name}: its informers synced after ${this.#clock.now() - started} ms, past its cache sync timeout; starting`,
      );
    }
    return synced;
  }

  async #processKey(key: string, workerSignal: AbortSignal): Promise<void> {
    const metrics = this.#metrics;
    const started = this.#clock.now();
    let priority = this.#priorityQueue?.processingPriority(key) ?? 0;
    this.#active.set(key, started);
    metrics?.activeWorkers.inc();
    let signal = workerSignal;
    let deadline: { timer: Timer; fired: ReconcileTimeoutError | undefined } | undefined;
    let unlink: (() => void) | undefined;
    const timeoutMs = this.#reconcileTimeoutMs;
    if (timeoutMs !== undefined) {
      // The reconcile's own signal: aborted by shutdown (the worker's) or at the deadline.
      const own = new AbortController();
      const forward = (): void => own.abort(workerSignal.reason);
      if (workerSignal.aborted) forward();
      else workerSignal.addEventListener('abort', forward, { once: true });
      unlink = () => workerSignal.removeEventListener('abort', forward);
      const d: { timer: Timer; fired: ReconcileTimeoutError | undefined } = {
        fired: undefined,
        timer: this.#clock.setTimeout(() => {
          d.fired = new ReconcileTimeoutError(this.name, key, timeoutMs);
          own.abort(d.fired);
        }, timeoutMs),
      };
      deadline = d;
      signal = own.signal;
    }
    let result: ReconcileResult | void = undefined;
    let failure: { error: unknown } | undefined;
    try {
      // Read your own writes: not before the cache has seen this controller's last write.
      const consistency = this.#consistency;
      if (consistency !== undefined && !consistency.store.ensureReady(key)) {
        await consistency.store.waitReady(key, { timeoutMs: consistency.timeoutMs, signal });
      }
      result = await this.#reconcile(key, signal);
    } catch (err) {
      failure = { error: err };
    } finally {
      deadline?.timer.cancel();
      unlink?.();
      this.#active.delete(key);
      metrics?.activeWorkers.dec();
      metrics?.time.observe((this.#clock.now() - started) / 1000);
    }
    if (deadline?.fired !== undefined) {
      // The framework's deadline passed: an error whatever the reconcile then returned.
      metrics?.timeouts?.inc();
      failure = { error: deadline.fired };
    }
    if (failure !== undefined) {
      const err = failure.error;
      if (deadline?.fired === undefined && workerSignal.aborted && isAbortError(err, signal)) {
        this.#logger.debug(`controller ${this.name}: reconcile of ${key} aborted by shutdown`);
        return;
      }
      metrics?.errors.inc();
      metrics?.total.error.inc();
      this.#requeue(key, { rateLimited: true }, priority);
      this.#report(err, key);
      return;
    }
    if (result === undefined || result === null) {
      metrics?.total.success.inc();
      this.queue.forget(key);
      return;
    }
    if (typeof result.priority === 'number') priority = result.priority;
    if (isRequeueAfter(result)) {
      metrics?.total.requeue_after.inc();
      this.queue.forget(key);
      this.#requeue(key, { after: result.requeueAfterMs }, priority);
    } else if (result.requeue === true) {
      metrics?.total.requeue.inc();
      this.#requeue(key, { rateLimited: true }, priority);
    } else {
      metrics?.total.success.inc();
      this.queue.forget(key);
    }
  }

  #report(err: unknown, key: string): void {
    try {
      if (this.#onError !== undefined) {
        this.#onError(err, key);
        return;
      }
    } catch (hookErr) {
      this.#logger.error(`controller ${this.name}: onError hook threw`, { key, error: hookErr });
      return;
    }
    this.#logger.error(
      `controller ${this.name}: reconcile of ${key} failed (requeued with backoff)`,
      {
        key,
        requeues: this.queue.numRequeues(key),
        error: err,
      },
    );
  }
}
