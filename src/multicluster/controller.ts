/**
 * The multicluster controller (multicluster-runtime's `mccontroller`): one controller over
 * every engaged cluster. Its watches begin on a cluster when the cluster is engaged and end
 * when it is disengaged; its requests carry their cluster (`{ cluster, namespace, name }`);
 * its reconcile gets the cluster's {@link ClusterHandle}; one work queue, fair across
 * clusters ({@link FairQueue}), feeds its workers.
 *
 * Rules:
 *
 * - **Watches** (`for`, `owns`, `watches`) are declared before `run()` and apply to every
 *   cluster engaged, now and later: by default to the provider's clusters, not the local
 *   one (multicluster-runtime's builder defaults when a provider is set); `engageWithLocalCluster`
 *   and `engageWithProviderClusters` choose, `clusterFilter` narrows. A source is a
 *   resource (the cluster's informer of it) or a function from the cluster to an informer.
 * - **Requests** of a `for` or `owns` event are of the cluster the event came from (an
 *   owner reference never crosses clusters); a `watches` mapper returns requests of any
 *   cluster (a hub object mapped to one request per member, say).
 * - **Engaging** opens the cluster's lane in the queue, held until every watch of the
 *   cluster has synced, so a reconcile never reads a cluster's cache before it is full; a
 *   cluster slow to sync holds back only itself (after `syncTimeoutMs`, default 2 min, it
 *   is reported once, at error level, with its informers' last errors). Engaging the same
 *   cluster object again does nothing; another object under the same name re-engages.
 * - **Disengaging** (the provider's signal aborts) removes the cluster's event handlers,
 *   drops its queued and delayed requests and its rate limiter's history, and aborts the
 *   signal of its reconciles in flight. A reconcile whose cluster went away, or that throws
 *   {@link ClusterNotFoundError}, ends without error and without a requeue
 *   (multicluster-runtime's `ClusterNotFoundWrapper`).
 * - **Everything else** is the {@link Controller}'s: results, requeues with backoff,
 *   `reconcileTimeoutMs`, `controller_runtime_*` metrics, graceful shutdown. The queue is
 *   FIFO within a cluster (priorities are not kept).
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import {
  Controller,
  ControllerStartedError,
  ReconcileTimeoutError,
} from '../controller/controller.js';
import type {
  ControllerInformer,
  ControllerRunOptions,
  ReconcileResult,
} from '../controller/controller.js';
import { ControllerAlreadyRunningError } from '../controller/controller.js';
import type { ControllerMetricsProvider, ReconcileResultLabel } from '../controller/metrics.js';
import { ownerKeys } from '../controller/owner.js';
import type { OwnerKeysOptions } from '../controller/owner.js';
import type { UpdatePredicate } from '../controller/predicates.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import { DeletedFinalStateUnknown, splitMetaNamespaceKey } from '../cache/keys.js';
import type { ResourceEventHandler } from '../cache/processor.js';
import type { ResourceEventHandlerRegistration } from '../cache/shared_informer.js';
import { waitForCacheSyncWithOptions } from '../cache/wait.js';
import type { InformerForOptions } from '../cache/factory.js';
import type { ApiResource, KubeObject } from '../client/types.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { MetricsProvider } from '../workqueue/metrics.js';
import type { RateLimiter } from '../workqueue/rate_limiters.js';
import type { CounterMetric, HistogramMetric, SettableGaugeMetric } from '../workqueue/metrics.js';
import { reconcileResultLabels } from '../controller/metrics.js';
import type { ClusterHandle } from './cluster.js';
import { ClusterNotFoundError, InvalidMultiClusterOptionsError } from './errors.js';
import { FairQueue } from './fair_queue.js';
import type { MultiClusterMetricsProvider } from './metrics.js';
import { getDefaultMultiClusterMetricsProvider } from './metrics.js';
import type { ClusterAware } from './provider.js';
import { LOCAL_CLUSTER, parseRequestKey, requestKey } from './request.js';
import type { ClusterRequest } from './request.js';

/** What a multicluster reconcile gets besides its request. */
export interface MultiClusterReconcileContext {
  /** The request's cluster: its clients, caches and event recorder. */
  readonly cluster: ClusterHandle;
  /**
   * Aborts when the cluster is disengaged, at `reconcileTimeoutMs`, and on shutdown with
   * `shutdown: 'abort'`.
   */
  readonly signal: AbortSignal;
}

/**
 * Brings the object a request names, in the request's cluster, toward its desired state
 * (multicluster-runtime's `mcreconcile.Reconciler`).
 */
export type MultiClusterReconciler = (
  request: ClusterRequest,
  context: MultiClusterReconcileContext,
) => Promise<ReconcileResult | void> | ReconcileResult | void;

/**
 * Where a watch's events come from on each cluster: a resource (the cluster's informer of
 * it, made with `informerOptions`) or a function from the cluster to an informer.
 */
export type ClusterSource<T extends KubeObject> =
  ApiResource<T> | ((cluster: ClusterHandle) => ControllerInformer<T>);

/** Which clusters a watch is engaged on (multicluster-runtime's builder `EngageOptions`). */
export interface EngageOptions {
  /** Watch the manager's own cluster ({@link LOCAL_CLUSTER}) too (default false). */
  engageWithLocalCluster?: boolean;
  /** Watch the provider's clusters (default true). */
  engageWithProviderClusters?: boolean;
  /** Of the provider's clusters, only those for which this returns true. */
  clusterFilter?: (name: string, cluster: ClusterHandle) => boolean;
}

/** Options shared by {@link MultiClusterController.for}, `owns` and `watches`. */
export interface ClusterWatchOptions<T extends KubeObject> extends EngageOptions {
  /** Filters update events (old, new): enqueued only when it returns true. */
  predicate?: UpdatePredicate<T>;
  /** Filters every event by the (new, or deleted) object: false ignores it. */
  filter?: (obj: DeepReadonly<T>, cluster: string) => boolean;
  /** Options of the cluster's informer when the source is a resource (selectors, transform). */
  informerOptions?: Omit<InformerForOptions<T>, 'namespace'>;
}

/** One engaged cluster of a controller, from {@link MultiClusterController.clusterStatus}. */
export interface ClusterSyncStatus {
  /** The cluster's name (`''` for the local one). */
  readonly cluster: string;
  /** True once the controller's watches of the cluster have synced (its requests are served). */
  readonly synced: boolean;
}

/** Options of {@link MultiClusterController.owns}. */
export interface ClusterOwnsOptions<T extends KubeObject>
  extends ClusterWatchOptions<T>, OwnerKeysOptions {}

/** Options of a {@link MultiClusterController}. */
export interface MultiClusterControllerOptions {
  /** The controller's name: in logs, metrics and as its queue's name. */
  name: string;
  /** The reconcile function. */
  reconcile: MultiClusterReconciler;
  /** Concurrent reconciles, across clusters (default 1). */
  workers?: number;
  /**
   * Makes each cluster's rate limiter (default: client-go's controller limiter per cluster:
   * per request 5 ms doubling to 1000 s, and 10 per second with a burst of 100 per cluster).
   */
  newRateLimiter?: () => RateLimiter;
  /** The reconcile deadline in ms (see {@link controller!ControllerOptions.reconcileTimeoutMs}). */
  reconcileTimeoutMs?: number;
  /** After how long a cluster whose watches have not synced is reported (default 120 000 ms). */
  syncTimeoutMs?: number;
  /** Called with every reconcile failure and its request (default: log an error). */
  onError?: (error: unknown, request: ClusterRequest) => void;
  /** Whether it runs only on the leader (default true, as controllers do). */
  needLeaderElection?: boolean;
  /** What stopping does (see {@link ControllerRunOptions.shutdown}; default `'drain'`). */
  shutdown?: ControllerRunOptions['shutdown'];
  /** How long stopping waits for reconciles in flight (default 30 000 ms). */
  gracefulShutdownTimeoutMs?: number;
  /** Source of time (default the real clock). */
  clock?: Clock;
  /** Where it logs (default: warnings and errors to stderr). */
  logger?: Logger;
  /** Where the queue's `workqueue_*` series go (default: the default provider). */
  metricsProvider?: MetricsProvider;
  /** Where the `controller_runtime_*` series go (default: the default provider). */
  controllerMetricsProvider?: ControllerMetricsProvider;
  /** Where the per-cluster `multicluster_*` series go (default: the default provider). */
  multiClusterMetricsProvider?: MultiClusterMetricsProvider;
}

/** One declared watch. */
interface Watch {
  readonly what: 'for' | 'owns' | 'watches';
  readonly engage: EngageOptions;
  /** Attach to one cluster: the registration and how to undo it. */
  attach(name: string, cluster: ClusterHandle): Attached;
}

interface Attached {
  readonly registration: ResourceEventHandlerRegistration;
  readonly remove: () => void;
  readonly informer: ControllerInformer<KubeObject>;
}

interface ClusterMetrics {
  readonly total: Readonly<Record<ReconcileResultLabel, CounterMetric>>;
  readonly time: HistogramMetric;
  readonly synced: SettableGaugeMetric;
}

interface Engagement {
  readonly name: string;
  readonly cluster: ClusterHandle;
  readonly stop: AbortController;
  readonly attached: Attached[];
  readonly metrics: ClusterMetrics | undefined;
  synced: boolean;
  reportTimer: Timer | undefined;
  unlink: () => void;
}

function isRequeueAfter(r: ReconcileResult): r is { requeueAfterMs: number } {
  return typeof (r as { requeueAfterMs?: unknown }).requeueAfterMs === 'number';
}

function resultLabel(result: ReconcileResult | void | null): ReconcileResultLabel {
  if (result === undefined || result === null) return 'success';
  if (isRequeueAfter(result)) return 'requeue_after';
  return result.requeue === true ? 'requeue' : 'success';
}

/**
 * One controller over many clusters; see the module documentation.
 *
 * @example
 * ```ts
 * const controller = new MultiClusterController({
 *   name: 'configmap-auditor',
 *   reconcile: async ({ cluster, namespace, name }, { cluster: handle }) => {
 *     const cm = handle.informer(configMapsResource).lister().byNamespace(namespace).tryGet(name);
 *     if (cm === undefined) return;
 *     console.log(`${cluster}: ${namespace}/${name}`);
 *   },
 * }).for(configMapsResource);
 * mcManager.add(controller);
 * ```
 */
export class MultiClusterController implements ClusterAware {
  /** The controller's name. */
  readonly name: string;
  /** The work queue of request keys, one lane per cluster. */
  readonly queue: FairQueue;
  /** Runs only on the leader unless `needLeaderElection: false`. */
  readonly needLeaderElection: boolean;
  readonly #controller: Controller;
  readonly #reconcile: MultiClusterReconciler;
  readonly #options: MultiClusterControllerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #watches: Watch[] = [];
  readonly #engaged = new Map<string, Engagement>();
  readonly #pending = new Map<string, { signal: AbortSignal; cluster: ClusterHandle }>();
  readonly #metricsProvider: MultiClusterMetricsProvider | undefined;
  readonly #engagedGauge: SettableGaugeMetric | undefined;
  #local: ClusterHandle | undefined;
  #runSignal: AbortSignal | undefined;
  #started = false;

  /** @throws {@link controller!InvalidControllerOptionsError} for a missing name or reconcile, or bad numbers. */
  constructor(options: MultiClusterControllerOptions) {
    if (typeof options?.reconcile !== 'function') {
      throw new InvalidMultiClusterOptionsError(
        `multicluster controller ${String(options?.name)}: reconcile must be a function (request, { cluster, signal }) => result`,
      );
    }
    const syncTimeoutMs = options.syncTimeoutMs;
    if (syncTimeoutMs !== undefined && !(typeof syncTimeoutMs === 'number' && syncTimeoutMs > 0)) {
      throw new InvalidMultiClusterOptionsError(
        `multicluster controller ${options.name}: syncTimeoutMs must be a positive number of milliseconds, got ${String(syncTimeoutMs)}`,
      );
    }
    this.#options = options;
    this.#reconcile = options.reconcile;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.needLeaderElection = options.needLeaderElection ?? true;
    this.#metricsProvider =
      options.multiClusterMetricsProvider ?? getDefaultMultiClusterMetricsProvider();
    let queue: FairQueue | undefined;
    const onError = options.onError;
    this.#controller = new Controller({
      name: options.name,
      workers: options.workers ?? 1,
      clock: this.#clock,
      logger: this.#logger,
      reconcile: (key, signal) => this.#reconcileKey(key, signal),
      ...(options.reconcileTimeoutMs !== undefined
        ? { reconcileTimeoutMs: options.reconcileTimeoutMs }
        : {}),
      ...(onError !== undefined
        ? { onError: (err: unknown, key: string) => onError(err, parseRequestKey(key)) }
        : {}),
      ...(options.metricsProvider !== undefined
        ? { metricsProvider: options.metricsProvider }
        : {}),
      ...(options.controllerMetricsProvider !== undefined
        ? { controllerMetricsProvider: options.controllerMetricsProvider }
        : {}),
      newQueue: (q) => {
        queue = new FairQueue({
          clock: this.#clock,
          ...(q.name !== undefined ? { name: q.name } : {}),
          ...(options.newRateLimiter !== undefined
            ? { newRateLimiter: options.newRateLimiter }
            : {}),
          ...(q.metricsProvider !== undefined ? { metricsProvider: q.metricsProvider } : {}),
          ...(this.#metricsProvider !== undefined
            ? { clusterMetricsProvider: this.#metricsProvider }
            : {}),
        });
        return queue;
      },
    });
    this.name = this.#controller.name;
    this.queue = queue!;
    this.#engagedGauge = this.#metricsProvider?.newEngagedClustersMetric(this.name);
  }

  // ------------------------------------------------------------------ watches

  /**
   * Watch the primary resource on each engaged cluster: every add, update (passing
   * `predicate`) and delete enqueues the object's own request in its cluster.
   *
   * @throws {@link controller!ControllerStartedError} after run().
   */
  for<T extends KubeObject>(source: ClusterSource<T>, options: ClusterWatchOptions<T> = {}): this {
    return this.#watch('for', source, options, (obj, cluster) => [
      { cluster, namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' },
    ]);
  }

  /**
   * Watch a child resource on each engaged cluster: an event enqueues the request of the
   * child's controlling owner of `kind`, in the child's cluster.
   *
   * @throws {@link controller!ControllerStartedError} after run().
   */
  owns<T extends KubeObject>(source: ClusterSource<T>, options: ClusterOwnsOptions<T>): this {
    return this.#watch('owns', source, options, (obj, cluster) =>
      ownerKeys(obj as DeepReadonly<KubeObject>, options).map((key) => {
        const [namespace, name] = splitMetaNamespaceKey(key);
        return { cluster, namespace, name };
      }),
    );
  }

  /**
   * Watch any resource on each engaged cluster, mapping a changed object (and the name of
   * its cluster) to the requests to reconcile, of any cluster. For an update, the requests
   * of the old and of the new object are enqueued. A throwing mapper is logged; the event is
   * ignored.
   *
   * @throws {@link controller!ControllerStartedError} after run().
   */
  watches<T extends KubeObject>(
    source: ClusterSource<T>,
    mapToRequests: (obj: DeepReadonly<T>, cluster: string) => readonly ClusterRequest[],
    options: ClusterWatchOptions<T> = {},
  ): this {
    return this.#watch('watches', source, options, mapToRequests);
  }

  #watch<T extends KubeObject>(
    what: 'for' | 'owns' | 'watches',
    source: ClusterSource<T>,
    options: ClusterWatchOptions<T>,
    map: (obj: DeepReadonly<T>, cluster: string) => readonly ClusterRequest[],
  ): this {
    if (this.#started) throw new ControllerStartedError(this.name, `${what}()`);
    const { predicate, filter } = options;
    const attach = (name: string, cluster: ClusterHandle): Attached => {
      const informer: ControllerInformer<T> =
        typeof source === 'function'
          ? source(cluster)
          : cluster.informer(source, options.informerOptions ?? {});
      const enqueueFor = (obj: DeepReadonly<T>, event: string): void => {
        try {
          if (filter !== undefined && !filter(obj, name)) return;
          for (const request of map(obj, name)) this.#enqueueRequest(request);
        } catch (err) {
          this.#logger.warn(
            `multicluster controller ${this.name}: ${what}() could not map a ${event} event of cluster ${JSON.stringify(name)} to requests; event ignored`,
            { cluster: name, error: err },
          );
        }
      };
      const handler: ResourceEventHandler<T> = {
        onAdd: (obj) => enqueueFor(obj, 'add'),
        onUpdate: (oldObj, newObj) => {
          if (predicate !== undefined && !predicate(oldObj, newObj)) return;
          if (what !== 'for') enqueueFor(oldObj, 'update');
          enqueueFor(newObj, 'update');
        },
        onDelete: (objOrTombstone) => {
          if (!(objOrTombstone instanceof DeletedFinalStateUnknown)) {
            enqueueFor(objOrTombstone, 'delete');
          } else if (what === 'for') {
            const obj = objOrTombstone.obj as DeepReadonly<T> | undefined;
            if (filter === undefined || obj === undefined || filter(obj, name)) {
              const [namespace, objName] = splitMetaNamespaceKey(objOrTombstone.key);
              this.#enqueueRequest({ cluster: name, namespace, name: objName });
            }
          } else {
            enqueueFor(objOrTombstone.obj, 'delete');
          }
        },
      };
      const registration = informer.addEventHandler(handler, {
        name: `multicluster controller ${this.name} ${what} (cluster ${name === '' ? '(local)' : name})`,
      });
      cluster.startInformers();
      return {
        registration,
        remove: () => informer.removeEventHandler?.(registration),
        informer: informer,
      };
    };
    this.#watches.push({ what, engage: options, attach });
    return this;
  }

  // ------------------------------------------------------------------ requests

  /** Queue a reconcile of `request` (dropped when its cluster is not engaged, or after shutdown). */
  enqueue(request: ClusterRequest): void {
    this.#enqueueRequest(request);
  }

  /** Queue a reconcile of `request` after `delayMs` (an earlier pending time wins). */
  enqueueAfter(request: ClusterRequest, delayMs: number): void {
    this.queue.addAfter(requestKey(request), delayMs);
  }

  #enqueueRequest(request: ClusterRequest): void {
    let key: string;
    try {
      key = requestKey(request);
    } catch (err) {
      this.#logger.warn(`multicluster controller ${this.name}: ${errorMessage(err)}; not queued`);
      return;
    }
    this.#controller.enqueue(key);
  }

  /** The requests being reconciled right now. */
  activeRequests(): ClusterRequest[] {
    return this.#controller.activeKeys().map(parseRequestKey);
  }

  // ------------------------------------------------------------------ clusters

  /**
   * Give the controller the manager's own cluster (the multicluster manager does this in
   * `add`): watches with `engageWithLocalCluster` watch it, and requests of
   * {@link LOCAL_CLUSTER} reconcile on it. Engaged when `run()` starts.
   */
  setLocalCluster(cluster: ClusterHandle): void {
    this.#local = cluster;
  }

  /** The provider's clusters engaged now (not the local one), sorted. */
  engagedClusters(): string[] {
    return [...this.#engaged.keys()].filter((n) => n !== LOCAL_CLUSTER).sort();
  }

  /** Each engaged cluster (the local one as `''`) and whether its watches have synced. */
  clusterStatus(): ClusterSyncStatus[] {
    return [...this.#engaged.values()]
      .map((e) => ({ cluster: e.name, synced: e.synced }))
      .sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  }

  /** {@inheritDoc ClusterAware.engage} */
  engage(signal: AbortSignal, name: string, cluster: ClusterHandle): void {
    if (signal.aborted) return;
    const run = this.#runSignal;
    if (run === undefined) {
      // Not running yet: engaged when run() starts (unless the cluster went meanwhile).
      this.#pending.set(name, { signal, cluster });
      return;
    }
    if (run.aborted) return;
    const existing = this.#engaged.get(name);
    if (existing !== undefined) {
      if (existing.cluster === cluster && !existing.stop.signal.aborted) return;
      this.#disengage(existing);
    }
    const isLocal = name === LOCAL_CLUSTER;
    const watches = this.#watches.filter(({ engage }) =>
      isLocal
        ? engage.engageWithLocalCluster === true
        : engage.engageWithProviderClusters !== false &&
          (engage.clusterFilter === undefined || engage.clusterFilter(name, cluster)),
    );
    const stop = new AbortController();
    // Each of the cluster's reconciles in flight listens on it (removed when it ends): as
    // many listeners as workers is no leak.
    setMaxListeners(0, stop.signal);
    const p = this.#metricsProvider;
    const metrics: ClusterMetrics | undefined =
      p === undefined
        ? undefined
        : {
            total: Object.fromEntries(
              reconcileResultLabels.map((r) => [
                r,
                p.newClusterReconcileTotalMetric(this.name, name, r),
              ]),
            ) as Record<ReconcileResultLabel, CounterMetric>,
            time: p.newClusterReconcileTimeMetric(this.name, name),
            synced: p.newClusterSyncedMetric(this.name, name),
          };
    metrics?.synced.set(0);
    this.queue.addCluster(name, { ready: false });
    const engagement: Engagement = {
      name,
      cluster,
      stop,
      attached: [],
      metrics,
      synced: false,
      reportTimer: undefined,
      unlink: () => {},
    };
    this.#engaged.set(name, engagement);
    this.#engagedGauge?.set(this.engagedClusters().length);
    // The cluster's own signal; the run's ends every engagement through one listener (see
    // run()), not one per cluster: a fleet of more than ten would trip Node's
    // MaxListenersExceededWarning on the run's signal.
    const onGone = (): void => this.#disengage(engagement);
    signal.addEventListener('abort', onGone, { once: true });
    engagement.unlink = () => signal.removeEventListener('abort', onGone);
    try {
      for (const watch of watches) engagement.attached.push(watch.attach(name, cluster));
    } catch (err) {
      this.#disengage(engagement);
      throw err;
    }
    this.#logger.info(
      `multicluster controller ${this.name}: engaged cluster ${name === '' ? '(local)' : name} with ${watches.length} watch(es); waiting for them to sync`,
      { cluster: name },
    );
    void this.#whenSynced(engagement);
  }

  /** Hand out the cluster's requests once its watches synced; report a slow one once. */
  async #whenSynced(e: Engagement): Promise<void> {
    const timeoutMs = this.#options.syncTimeoutMs ?? 120_000;
    e.reportTimer = this.#clock.setTimeout(() => {
      e.reportTimer = undefined;
      if (e.synced || e.stop.signal.aborted) return;
      const causes = e.attached
        .map(({ informer }, i) => {
          const last = (
            informer as { lastError?: () => { error: unknown } | undefined }
          ).lastError?.();
          return last === undefined ? undefined : `watch ${i + 1}: ${errorMessage(last.error)}`;
        })
        .filter((c) => c !== undefined);
      this.#logger.error(
        `multicluster controller ${this.name}: the watches of cluster ${e.name === '' ? '(local)' : e.name} have not synced within ${timeoutMs} ms; its requests wait, other clusters go on${causes.length > 0 ? ` (${causes.join('; ')})` : ''}`,
        { cluster: e.name },
      );
    }, timeoutMs);
    let synced = false;
    try {
      synced = await waitForCacheSyncWithOptions(
        e.stop.signal,
        e.attached.map(
          ({ registration }) =>
            () =>
              registration.hasSynced(),
        ),
        { clock: this.#clock },
      );
    } catch (err) {
      this.#logger.error(
        `multicluster controller ${this.name}: waiting for cluster ${e.name} to sync failed: ${errorMessage(err)}`,
      );
    }
    e.reportTimer?.cancel();
    e.reportTimer = undefined;
    if (!synced || e.stop.signal.aborted || this.#engaged.get(e.name) !== e) return;
    e.synced = true;
    e.metrics?.synced.set(1);
    this.queue.setClusterReady(e.name);
    this.#logger.info(
      `multicluster controller ${this.name}: cluster ${e.name === '' ? '(local)' : e.name} synced; reconciling its requests`,
      { cluster: e.name },
    );
  }

  #disengage(e: Engagement): void {
    if (this.#engaged.get(e.name) !== e) return;
    this.#engaged.delete(e.name);
    e.unlink();
    e.stop.abort(new ClusterNotFoundError(e.name));
    e.reportTimer?.cancel();
    e.reportTimer = undefined;
    for (const { remove } of e.attached) {
      try {
        remove();
      } catch (err) {
        this.#logger.warn(
          `multicluster controller ${this.name}: could not remove an event handler of cluster ${e.name}`,
          { error: err },
        );
      }
    }
    this.queue.removeCluster(e.name);
    this.#metricsProvider?.removeClusterSeries(this.name, e.name);
    this.#engagedGauge?.set(this.engagedClusters().length);
    this.#logger.info(
      `multicluster controller ${this.name}: disengaged cluster ${e.name === '' ? '(local)' : e.name}`,
      { cluster: e.name },
    );
  }

  // ------------------------------------------------------------------ running

  /**
   * Run until `signal` aborts: engage the local cluster and the clusters engaged before,
   * start the workers, and on shutdown disengage every cluster. Resolves once every worker
   * stopped (see {@link Controller.run}).
   *
   * @throws {@link controller!ControllerAlreadyRunningError} (as a rejection) on a second call.
   */
  async run(signal: AbortSignal, options: ControllerRunOptions = {}): Promise<void> {
    if (this.#started) throw new ControllerAlreadyRunningError(this.name);
    this.#started = true;
    this.#runSignal = signal;
    const disengageAll = (): void => {
      for (const e of [...this.#engaged.values()]) this.#disengage(e);
    };
    signal.addEventListener('abort', disengageAll, { once: true });
    try {
      if (!signal.aborted) {
        if (this.#local !== undefined) this.engage(signal, LOCAL_CLUSTER, this.#local);
        for (const [name, { signal: clusterSignal, cluster }] of this.#pending) {
          this.engage(clusterSignal, name, cluster);
        }
      }
      this.#pending.clear();
      await this.#controller.run(signal, {
        shutdown: options.shutdown ?? this.#options.shutdown ?? 'drain',
        ...(options.gracefulShutdownTimeoutMs !== undefined ||
        this.#options.gracefulShutdownTimeoutMs !== undefined
          ? {
              gracefulShutdownTimeoutMs:
                options.gracefulShutdownTimeoutMs ?? this.#options.gracefulShutdownTimeoutMs,
            }
          : {}),
      });
    } finally {
      signal.removeEventListener('abort', disengageAll);
      disengageAll();
    }
  }

  /** The manager's runnable entry point: {@link MultiClusterController.run} with its options. */
  start(signal: AbortSignal): Promise<void> {
    return this.run(signal);
  }

  async #reconcileKey(key: string, workerSignal: AbortSignal): Promise<ReconcileResult | void> {
    let request: ClusterRequest;
    try {
      request = parseRequestKey(key);
    } catch (err) {
      this.#logger.warn(`multicluster controller ${this.name}: ${errorMessage(err)}; dropped`);
      return;
    }
    const e = this.#engaged.get(request.cluster);
    if (e === undefined) {
      this.#logger.debug(
        `multicluster controller ${this.name}: ${key}: its cluster is not engaged; dropped`,
      );
      return;
    }
    // The reconcile's signal: the worker's (shutdown, deadline) or the cluster's going.
    const own = new AbortController();
    const forward = (from: AbortSignal) => (): void => own.abort(from.reason);
    const onWorker = forward(workerSignal);
    const onCluster = forward(e.stop.signal);
    if (workerSignal.aborted) onWorker();
    else workerSignal.addEventListener('abort', onWorker, { once: true });
    if (e.stop.signal.aborted) onCluster();
    else e.stop.signal.addEventListener('abort', onCluster, { once: true });
    const started = this.#clock.now();
    let label: ReconcileResultLabel = 'error';
    try {
      const result = await this.#reconcile(request, { cluster: e.cluster, signal: own.signal });
      label = workerSignal.reason instanceof ReconcileTimeoutError ? 'error' : resultLabel(result);
      return result;
    } catch (err) {
      if (e.stop.signal.aborted || err instanceof ClusterNotFoundError) {
        // The cluster went away (multicluster-runtime's ClusterNotFoundWrapper): no requeue.
        label = 'success';
        return;
      }
      throw err;
    } finally {
      workerSignal.removeEventListener('abort', onWorker);
      e.stop.signal.removeEventListener('abort', onCluster);
      if (!e.stop.signal.aborted && e.metrics !== undefined) {
        e.metrics.total[label].inc();
        e.metrics.time.observe((this.#clock.now() - started) / 1000);
      }
    }
  }
}
