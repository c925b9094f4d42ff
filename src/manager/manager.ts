/**
 * The Manager: one object that runs a whole operator process (controller-runtime's
 * `manager.Manager`).
 *
 * What it owns:
 *
 * - **The cache**: a typed {@link SharedInformerFactory} (`manager.cache`) and a
 *   {@link DynamicSharedInformerFactory} (`manager.dynamicCache`) on one transport. Every
 *   informer made from them before or after `start()` is started by the manager.
 * - **Runnables**: controllers and anything with `start(signal)`, added with
 *   {@link Manager.add}. A runnable needs leader election unless it says otherwise
 *   (`needLeaderElection: false`); controllers need it by default; the cache, the probes
 *   and the metrics endpoint never do.
 * - **Leader election** (when `leaderElection` is given): a {@link LeaderElector} over a
 *   {@link LeaseLock}, releasing the lease on shutdown (`releaseOnCancel`, default true).
 *   Leader-only runnables start when this process becomes leader. When the lease is lost
 *   they are stopped, the manager shuts down, and `start()` rejects with
 *   {@link LeaderElectionLostError} so the process exits non-zero and restarts, as
 *   controller-runtime does; with `onLost: 'rejoin'` the manager instead goes back to the
 *   election and starts the leader-only runnables again when it leads again.
 * - **Probes** on `healthProbeBindAddress` (default `:8081`): `/healthz` (`ping`, and
 *   `leaderElection` — client-go's healthz adaptor with its tolerance), `/readyz`
 *   (`informer-sync`), plus checks added with {@link Manager.addHealthzCheck} and
 *   {@link Manager.addReadyzCheck}; `?verbose`, `?exclude=`, `/readyz/<name>`.
 * - **Metrics** on `metricsBindAddress` (default `:8080`): `/metrics` serves a prom-client
 *   registry (`metricsRegistry`, default prom-client's global registry). prom-client is an
 *   optional peer, loaded only when the endpoint is enabled.
 *
 * Start and stop order: servers, caches (and the runnables that do not need leader
 * election), wait for the caches to sync, then the election and the leader-only
 * runnables. On shutdown (the signal aborts, SIGTERM/SIGINT when `start()` was given no
 * signal, a runnable fails, or leadership is lost): stop every runnable and wait for them
 * up to `gracefulShutdownTimeoutMs` (default 30 s; the runnables still running are logged
 * when it passes), release the lease, stop the caches, close the servers. `start()`
 * settles after all of that; nothing it started is left running, except a runnable that
 * ignored its signal past the timeout.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { leases } from '../client/builtins.js';
import type { KubeConfigLike, TransportOptions } from '../client/transport.js';
import { Transport, toTransport } from '../client/transport.js';
import { SharedInformerFactory } from '../cache/factory.js';
import type { InformerForOptions, SharedInformerFactoryOptions } from '../cache/factory.js';
import { ResourceClient } from '../client/resource_client.js';
import type { ApiResource, KubeObject } from '../client/types.js';
import { Controller, DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS } from '../controller/controller.js';
import { DynamicSharedInformerFactory } from '../dynamic/dynamic_factory.js';
import { HealthzAdaptor, DEFAULT_HEALTHZ_TOLERANCE_MS } from '../leaderelection/healthz.js';
import { LeaderElector } from '../leaderelection/leader_elector.js';
import { LeaseLock } from '../leaderelection/lease_lock.js';
import type { LeaderElectionMetricsProvider } from '../leaderelection/metrics.js';
import { LeadershipLostError } from '../leaderelection/errors.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage, isAbortError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import {
  InvalidManagerOptionsError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerStoppingError,
  RunnableFailedError,
} from './errors.js';
import { HealthCheckSet, ping, send } from './healthz.js';
import type { HealthCheck } from './healthz.js';
import { HttpServer, parseBindAddress } from './servers.js';
import type { BindAddress } from './servers.js';
import { setupSignalHandler } from './signals.js';
import { EventBroadcaster } from '../record/event_broadcaster.js';
import type { EventBroadcasterOptions } from '../record/event_broadcaster.js';
import type { EventRecorder, RecorderOptions } from '../record/recorder.js';
import { CachedClient } from './cached_client.js';
import type { CacheHost } from './cached_client.js';
import { MultiNamespaceInformer, validateNamespaces } from './multi_namespace.js';
import type { CacheInformer } from './multi_namespace.js';

/** controller-runtime's default health probe address. */
export const DEFAULT_HEALTH_PROBE_BIND_ADDRESS = ':8081';
/** controller-runtime's default metrics address. */
export const DEFAULT_METRICS_BIND_ADDRESS = ':8080';
/** Where a pod finds its namespace (used when `leaderElection.namespace` is not given). */
export const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * Something the manager runs: `start(signal)` runs until `signal` aborts and settles once
 * everything it started has stopped. Resolving early is fine (the runnable is done);
 * rejecting stops the manager ({@link RunnableFailedError}).
 */
export interface Runnable {
  /** A name for logs (default `runnable-<n>`). */
  readonly name?: string;
  /**
   * Whether it runs only while this process leads (default true, as controller-runtime
   * treats runnables that do not say). Caches, probes and metrics servers: false.
   */
  readonly needLeaderElection?: boolean;
  /** Run until `signal` aborts. */
  start(signal: AbortSignal): void | Promise<void>;
}

/** Options of {@link Manager.add}. */
export interface AddRunnableOptions {
  /** Overrides the runnable's own `needLeaderElection` (controllers: default true). */
  needLeaderElection?: boolean;
  /** Overrides the runnable's name in logs. */
  name?: string;
}

/** A prom-client `Registry`, or anything that renders the text exposition format. */
export interface MetricsRegistry {
  /** The exposition text. */
  metrics(): Promise<string> | string;
  /** Its Content-Type header. */
  readonly contentType: string;
}

/** Leader election of a {@link Manager} (controller-runtime's `LeaderElection*` options). */
export interface ManagerLeaderElectionOptions {
  /** The Lease's name (controller-runtime's `LeaderElectionID`). */
  id: string;
  /**
   * The Lease's namespace. Default: `$POD_NAMESPACE`, else the in-cluster service account
   * namespace file; outside a cluster without either, the constructor throws.
   */
  namespace?: string;
  /** This candidate's identity (default `<hostname>_<random UUID>`, as controller-runtime). */
  identity?: string;
  /** Lease duration in ms (default 15 000). */
  leaseDurationMs?: number;
  /** Renew deadline in ms (default 10 000). */
  renewDeadlineMs?: number;
  /** Retry period in ms (default 2 000). */
  retryPeriodMs?: number;
  /**
   * Release the lease on shutdown so another replica takes over at once (default true;
   * controller-runtime's `LeaderElectionReleaseOnCancel`, false there by default). The
   * manager releases only after every leader-only runnable stopped or the graceful
   * shutdown timeout passed.
   */
  releaseOnCancel?: boolean;
  /** How far past its lease duration a leader may be before `/healthz` fails (default 20 000). */
  healthzToleranceMs?: number;
  /**
   * After losing the lease: `'error'` (default) shuts down and rejects `start()` with
   * {@link LeaderElectionLostError}; `'rejoin'` stops the leader-only runnables, keeps the
   * rest running and goes back to the election, calling their `start` again on the next
   * term (so every leader-only runnable must be restartable: add a runnable that creates a
   * new {@link Controller} in `start`, not a Controller).
   */
  onLost?: 'error' | 'rejoin';
  /** Labels on the Lease when it is created. */
  labels?: Record<string, string>;
  /** Where `leader_election_master_status` goes. */
  metrics?: LeaderElectionMetricsProvider;
}

/** The cache options of a {@link Manager}: informer defaults, and the namespaces to watch. */
export interface ManagerCacheOptions extends Omit<
  SharedInformerFactoryOptions,
  'clock' | 'logger' | 'transportOptions'
> {
  /**
   * Watch namespaced resources only in these namespaces, one informer (one watch) per
   * namespace behind one lister (controller-runtime's `DefaultNamespaces`). Applies to
   * {@link Manager.informer} and {@link Manager.client}; cluster-scoped resources are
   * watched cluster-wide. Not together with `namespace`.
   */
  defaultNamespaces?: readonly string[];
}

/** Options of a {@link Manager}. */
export interface ManagerOptions {
  /** The cluster: a client-node KubeConfig (1.x or 2.x) or a shared Transport. */
  kubeConfig: KubeConfigLike | Transport;
  /** Transport options, used when `kubeConfig` is a KubeConfig. */
  transportOptions?: TransportOptions;
  /** Defaults of every informer in the cache (namespace, selectors, transform, resync, …). */
  cache?: ManagerCacheOptions;
  /** Leader election; off when absent (controller-runtime's default). */
  leaderElection?: ManagerLeaderElectionOptions;
  /** `host:port` of the probe server (default `:8081`, every interface); `'0'` disables it. */
  healthProbeBindAddress?: string;
  /** `host:port` of the metrics server (default `:8080`, every interface); `'0'` disables it. */
  metricsBindAddress?: string;
  /** The registry `/metrics` serves (default: prom-client's global registry). */
  metricsRegistry?: MetricsRegistry;
  /**
   * How long shutdown waits for the runnables to stop (default 30 000 ms); `0` does not
   * wait, a negative number waits for ever. Also given to each Controller's `run()`.
   */
  gracefulShutdownTimeoutMs?: number;
  /** Source of time (default the real clock). */
  clock?: Clock;
  /** Where the manager, its cache and its elector log (info: addresses, leadership, shutdown steps). */
  logger?: Logger;
  /**
   * Options of the event broadcaster behind {@link Manager.eventRecorderFor} (API, queue
   * length, correlator, metrics); it writes through the manager's transport, on its clock,
   * to its logger.
   */
  events?: Omit<EventBroadcasterOptions, 'clock' | 'logger' | keyof TransportOptions>;
  /**
   * How long shutdown waits for recorded events to be written before dropping the rest
   * (default 5000 ms).
   */
  eventFlushTimeoutMs?: number;
}

interface Entry {
  readonly name: string;
  readonly needLeaderElection: boolean;
  readonly start: (signal: AbortSignal) => void | Promise<void>;
  readonly controller: Controller | undefined;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

function defaultLeaseNamespace(): string | undefined {
  const fromEnv = process.env['POD_NAMESPACE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const ns = readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim();
    return ns === '' ? undefined : ns;
  } catch {
    return undefined;
  }
}

/**
 * Runs an operator process: cache, controllers, leader election, probes, metrics and
 * graceful shutdown. See the module documentation.
 *
 * @example
 * ```ts
 * const manager = new Manager({
 *   kubeConfig: kc,
 *   leaderElection: { id: 'apps-operator', namespace: 'operators' },
 *   logger: consoleLogger('info'),
 * });
 * const apps = manager.dynamicCache.forResource(applicationsResource);
 * manager.add(new Controller({ name: 'apps', reconcile }).for(apps));
 * await manager.start(); // until SIGTERM; rejects with LeaderElectionLostError if the lease is lost
 * ```
 */
export class Manager {
  /** The typed informer factory every runnable shares (the manager starts and stops it). */
  readonly cache: SharedInformerFactory;
  /** The dynamic (unstructured) informer factory, on the same transport. */
  readonly dynamicCache: DynamicSharedInformerFactory;
  /** The transport to the API server, shared by the cache and the lease lock. */
  readonly transport: Transport;
  /** The leader elector, when leader election is configured. */
  readonly elector: LeaderElector | undefined;
  /** The health checks served at `/healthz`. */
  readonly healthz = new HealthCheckSet('/healthz');
  /** The readiness checks served at `/readyz`. */
  readonly readyz = new HealthCheckSet('/readyz');

  readonly #options: ManagerOptions;
  readonly #ownsTransport: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #gracefulMs: number;
  readonly #probeBind: BindAddress | undefined;
  readonly #metricsBind: BindAddress | undefined;
  readonly #lock: LeaseLock | undefined;
  readonly #entries: Entry[] = [];
  #events: EventBroadcaster | undefined;
  readonly #running = new Map<string, Promise<void>>();
  readonly #serving = deferred<void>();
  readonly #elected = deferred<void>();
  #probeServer: HttpServer | undefined;
  #metricsServer: HttpServer | undefined;
  #state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';
  #stop: AbortController | undefined;
  #leadSignal: AbortSignal | undefined;
  #leaderRunnables: Promise<void>[] = [];
  #failure: Error | undefined;
  #cachesStarted = false;
  #lostCause: unknown;
  #cacheStop: AbortController | undefined;
  #namespaces: string[] | undefined;
  #unnamed = 0;

  /**
   * @throws {@link InvalidManagerOptionsError} for a malformed bind address or timeout, or a
   * leader election without an id or a namespace.
   * @throws `LeaderElectionConfigError` when the lease durations break client-go's rules.
   */
  constructor(options: ManagerOptions) {
    if (options === undefined || options.kubeConfig === undefined) {
      throw new InvalidManagerOptionsError(
        'Manager needs options.kubeConfig (a KubeConfig or a Transport)',
      );
    }
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    const graceful = options.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS;
    if (typeof graceful !== 'number' || Number.isNaN(graceful)) {
      throw new InvalidManagerOptionsError(
        `gracefulShutdownTimeoutMs must be a number of milliseconds, got ${String(graceful)}`,
      );
    }
    this.#gracefulMs = graceful;
    this.#probeBind = parseBindAddress(
      'healthProbeBindAddress',
      options.healthProbeBindAddress ?? DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
    );
    this.#metricsBind = parseBindAddress(
      'metricsBindAddress',
      options.metricsBindAddress ?? DEFAULT_METRICS_BIND_ADDRESS,
    );
    this.#ownsTransport = !(options.kubeConfig instanceof Transport);
    this.transport = toTransport(options.kubeConfig, {
      logger: this.#logger,
      ...options.transportOptions,
    });
    const { defaultNamespaces, ...factoryOptions } = options.cache ?? {};
    if (defaultNamespaces !== undefined) {
      if (factoryOptions.namespace !== undefined && factoryOptions.namespace !== '') {
        throw new InvalidManagerOptionsError(
          'cache.namespace and cache.defaultNamespaces exclude each other; list every namespace in defaultNamespaces',
        );
      }
      this.#namespaces = validateNamespaces(defaultNamespaces);
    }
    const cacheOptions: SharedInformerFactoryOptions = {
      ...factoryOptions,
      clock: this.#clock,
      logger: this.#logger,
    };
    this.cache = new SharedInformerFactory(this.transport, cacheOptions);
    this.dynamicCache = new DynamicSharedInformerFactory(this.transport, cacheOptions);

    this.healthz.add('ping', ping);
    this.readyz.add('informer-sync', () => this.#checkCachesSynced());

    const le = options.leaderElection;
    if (le !== undefined) {
      if (typeof le.id !== 'string' || le.id === '') {
        throw new InvalidManagerOptionsError(
          'leaderElection.id (the Lease name) must be a non-empty string',
        );
      }
      const namespace = le.namespace ?? defaultLeaseNamespace();
      if (namespace === undefined) {
        throw new InvalidManagerOptionsError(
          `leaderElection.namespace is not set and this process is not running in a cluster (no $POD_NAMESPACE, no ${IN_CLUSTER_NAMESPACE_FILE}); give the namespace of Lease ${le.id}`,
        );
      }
      if (le.onLost !== undefined && le.onLost !== 'error' && le.onLost !== 'rejoin') {
        throw new InvalidManagerOptionsError(
          `leaderElection.onLost must be 'error' or 'rejoin', got ${String(le.onLost)}`,
        );
      }
      this.#lock = new LeaseLock(leases(this.transport, { namespace }), {
        namespace,
        name: le.id,
        identity: le.identity ?? `${hostname()}_${randomUUID()}`,
        ...(le.labels !== undefined ? { labels: le.labels } : {}),
      });
      this.elector = new LeaderElector({
        lock: this.#lock,
        releaseOnCancel: le.releaseOnCancel ?? true,
        clock: this.#clock,
        logger: this.#logger,
        ...(le.leaseDurationMs !== undefined ? { leaseDurationMs: le.leaseDurationMs } : {}),
        ...(le.renewDeadlineMs !== undefined ? { renewDeadlineMs: le.renewDeadlineMs } : {}),
        ...(le.retryPeriodMs !== undefined ? { retryPeriodMs: le.retryPeriodMs } : {}),
        ...(le.metrics !== undefined ? { metrics: le.metrics } : {}),
        callbacks: {
          onStartedLeading: (signal) => this.#lead(signal),
          onStoppedLeading: () => {},
          onNewLeader: (identity) => {
            if (identity !== this.#lock?.identity) {
              this.#logger.info(
                `leader election: the leader of lease ${this.#lock?.describe() ?? ''} is ${identity === '' ? 'nobody (released)' : identity}`,
              );
            }
          },
        },
      });
      const adaptor = new HealthzAdaptor(le.healthzToleranceMs ?? DEFAULT_HEALTHZ_TOLERANCE_MS);
      adaptor.setLeaderElection(this.elector);
      this.healthz.add(adaptor.name, () => adaptor.check());
    } else {
      this.elector = undefined;
    }
  }

  /** This candidate's identity in the election (undefined without leader election). */
  get identity(): string | undefined {
    return this.#lock?.identity;
  }

  /** The probe server's bound address, once listening (undefined when disabled or not yet). */
  get healthProbeAddress(): AddressInfo | undefined {
    return this.#probeServer?.address;
  }

  /** The metrics server's bound address, once listening (undefined when disabled or not yet). */
  get metricsAddress(): AddressInfo | undefined {
    return this.#metricsServer?.address;
  }

  /**
   * Resolves once the probe and metrics servers listen (read their addresses then);
   * rejects with `BindError` when one could not bind.
   */
  serving(): Promise<void> {
    return this.#serving.promise;
  }

  /**
   * Resolves when the leader-only runnables are started: when this process became leader,
   * or once the caches synced when leader election is off (controller-runtime's `Elected()`).
   */
  elected(): Promise<void> {
    return this.#elected.promise;
  }

  /**
   * Add a controller or another runnable. A {@link Controller} runs with the manager's
   * graceful shutdown timeout and needs leader election unless `needLeaderElection: false`.
   * Added after `start()`, it starts at once (leader-only ones once leading).
   *
   * @throws {@link ManagerStoppingError} once shutdown began.
   * @throws {@link InvalidManagerOptionsError} for a Controller under `onLost: 'rejoin'`
   * (a Controller runs once), or a value that is neither.
   */
  add(runnable: Runnable | Controller, options: AddRunnableOptions = {}): this {
    let entry: Entry;
    if (runnable instanceof Controller) {
      const needLeaderElection = options.needLeaderElection ?? true;
      if (needLeaderElection && this.#options.leaderElection?.onLost === 'rejoin') {
        throw new InvalidManagerOptionsError(
          `controller ${runnable.name}: with leaderElection.onLost 'rejoin' leader-only runnables restart on each term, and a Controller runs once; add a runnable whose start() creates and runs a new Controller`,
        );
      }
      const gracefulShutdownTimeoutMs = this.#gracefulMs;
      entry = {
        name: options.name ?? `controller/${runnable.name}`,
        needLeaderElection,
        start: (signal) => runnable.run(signal, { gracefulShutdownTimeoutMs }),
        controller: runnable,
      };
    } else if (
      runnable !== null &&
      typeof runnable === 'object' &&
      typeof runnable.start === 'function'
    ) {
      entry = {
        name: options.name ?? runnable.name ?? `runnable-${++this.#unnamed}`,
        needLeaderElection: options.needLeaderElection ?? runnable.needLeaderElection ?? true,
        start: (signal) => runnable.start(signal),
        controller: undefined,
      };
    } else {
      throw new InvalidManagerOptionsError(
        'Manager.add takes a Controller or a runnable with start(signal)',
      );
    }
    if (this.#state === 'stopping' || this.#state === 'stopped') {
      throw new ManagerStoppingError(entry.name);
    }
    this.#entries.push(entry);
    if (this.#state === 'running' && this.#stop !== undefined) {
      this.startInformers();
      if (!entry.needLeaderElection) void this.#runEntry(entry, this.#stop.signal);
      else if (this.#leadSignal !== undefined && !this.#leadSignal.aborted) {
        this.#leaderRunnables.push(this.#runEntry(entry, this.#leadSignal));
      }
    }
    return this;
  }

  /** The namespaces the cache watches (`cache.defaultNamespaces`), or undefined for all. */
  get cacheNamespaces(): readonly string[] | undefined {
    return this.#namespaces;
  }

  /**
   * The cache's informer of `resource`: one shared informer, or — with
   * `cache.defaultNamespaces` and a namespaced resource — a {@link MultiNamespaceInformer}
   * with one informer per namespace. Created on first use; started by the manager.
   */
  informer<T extends KubeObject>(
    resource: ApiResource<T>,
    options: Omit<InformerForOptions<T>, 'namespace'> = {},
  ): CacheInformer<T> {
    const informer =
      this.#namespaces !== undefined && resource.namespaced
        ? MultiNamespaceInformer.fromFactory(this.cache, resource, this.#namespaces, options)
        : this.cache.forResource(resource, options);
    if (this.#state === 'running') this.startInformers();
    return informer;
  }

  /**
   * An event recorder that writes as `component` (controller-runtime's
   * `GetEventRecorderFor`): Events go through one broadcaster on the manager's transport,
   * made on first use, with client-go's correlator and a bounded queue, so recording never
   * waits on the API server. Recorders of several components share the broadcaster (and
   * its spam filter and aggregation). Shutdown flushes what is queued
   * after the runnables stopped (up to `eventFlushTimeoutMs`), then closes it.
   *
   * @param component - the reporting controller, e.g. `application-controller`.
   * @param options - the rest of the recorder's options (`host`).
   */
  eventRecorderFor(
    component: string,
    options: Omit<RecorderOptions, 'component'> = {},
  ): EventRecorder {
    this.#events ??= new EventBroadcaster(this.transport, {
      ...this.#options.events,
      clock: this.#clock,
      logger: this.#logger,
    });
    return this.#events.newRecorder({ ...options, component });
  }

  /**
   * A client for `resource` whose reads come from the cache (an informer started and
   * synced on first use) and whose writes go to the API server (controller-runtime's
   * default client). See {@link CachedClient}.
   */
  client<T extends KubeObject>(resource: ApiResource<T>): CachedClient<T> {
    const host: CacheHost = {
      informer: (r) => this.informer(r),
      ensureInformersRunning: () => {
        const stop = this.#cacheStop;
        if (!this.#cachesStarted || stop === undefined || stop.signal.aborted) return false;
        this.startInformers();
        return true;
      },
      cacheSignal: () => this.#cacheStop?.signal,
      clock: this.#clock,
    };
    return new CachedClient(host, resource, new ResourceClient(this.transport, resource));
  }

  /**
   * Start the informers of the cache created since the last call (the manager does this
   * at start, when a runnable is added, and the cache-backed client when it makes an
   * informer). Does nothing before `start()` or after shutdown began.
   */
  startInformers(): void {
    const stop = this.#cacheStop;
    if (stop === undefined || stop.signal.aborted || !this.#cachesStarted) return;
    this.cache.start(stop.signal);
    this.dynamicCache.start(stop.signal);
  }

  /**
   * Add a named check to `/healthz` (liveness: failing restarts the container).
   *
   * @throws {@link InvalidManagerOptionsError} for a bad or duplicate name.
   */
  addHealthzCheck(name: string, check: HealthCheck): this {
    this.healthz.add(name, check);
    return this;
  }

  /**
   * Add a named check to `/readyz` (readiness: failing takes the pod out of Service endpoints).
   *
   * @throws {@link InvalidManagerOptionsError} for a bad or duplicate name.
   */
  addReadyzCheck(name: string, check: HealthCheck): this {
    this.readyz.add(name, check);
    return this;
  }

  /**
   * Run everything until `signal` aborts — or, when no signal is given, until SIGTERM or
   * SIGINT (a second one exits at once with code 1; see `setupSignalHandler`) — then shut
   * down in order. Resolves once everything stopped.
   *
   * @throws {@link ManagerAlreadyStartedError} on a second call.
   * @throws {@link LeaderElectionLostError} after the lease was lost (unless `onLost: 'rejoin'`).
   * @throws {@link RunnableFailedError} when a runnable failed.
   * @throws `BindError` when a server could not listen.
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#state !== 'new') throw new ManagerAlreadyStartedError();
    this.#state = 'starting';
    const handler = signal === undefined ? setupSignalHandler() : undefined;
    const outer = signal ?? handler!.signal;
    const stop = new AbortController();
    this.#stop = stop;
    const onAbort = (): void => {
      this.#logger.info(`manager: shutdown requested (${errorMessage(outer.reason)})`);
      stop.abort(outer.reason);
    };
    if (outer.aborted) stop.abort(outer.reason);
    else outer.addEventListener('abort', onAbort, { once: true });
    const cacheStop = new AbortController();
    this.#cacheStop = cacheStop;
    let electorDone: Promise<void> | undefined;
    try {
      this.#logger.info(
        `manager: starting (API server ${this.transport.server}${this.#lock !== undefined ? `, leader election on lease ${this.#lock.describe()} as ${this.#lock.identity}` : ', no leader election'})`,
      );
      try {
        await this.#startServers();
        this.#serving.resolve();
      } catch (err) {
        this.#serving.reject(err);
        throw err;
      }
      this.#state = 'running';
      this.#logger.info('manager: starting caches');
      this.#cachesStarted = true;
      this.startInformers();
      for (const entry of this.#entries) {
        if (!entry.needLeaderElection) void this.#runEntry(entry, stop.signal);
      }
      const synced = await this.cache.waitForCacheSync(stop.signal);
      const dynSynced = await this.dynamicCache.waitForCacheSync(stop.signal);
      if (!stop.signal.aborted) {
        this.#logger.info(
          `manager: caches synced (${[...synced.keys(), ...dynSynced.keys()].join(', ') || 'no informers yet'})`,
        );
        if (this.elector !== undefined) {
          electorDone = this.#elect(stop);
        } else {
          this.#elected.resolve();
          this.#leadSignal = stop.signal;
          this.#leaderRunnables = this.#entries
            .filter((e) => e.needLeaderElection)
            .map((e) => this.#runEntry(e, stop.signal));
        }
      }
      await new Promise<void>((resolve) => {
        if (stop.signal.aborted) resolve();
        else stop.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      outer.removeEventListener('abort', onAbort);
      if (!stop.signal.aborted) stop.abort(this.#failure);
      await this.#shutdown(electorDone, cacheStop);
      handler?.dispose();
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Take part in the election until `stop` aborts; with 'error', a lost lease fails the manager. */
  async #elect(stop: AbortController): Promise<void> {
    const elector = this.elector!;
    for (;;) {
      try {
        await elector.run(stop.signal);
      } catch (err) {
        this.#fail(new RunnableFailedError('leader election', err));
        return;
      }
      if (stop.signal.aborted) return;
      const lease = this.#lock!.describe();
      if ((this.#options.leaderElection?.onLost ?? 'error') === 'error') {
        this.#logger.error(
          `manager: leader election lost on lease ${lease}; stopping every runnable and exiting`,
        );
        this.#fail(new LeaderElectionLostError(lease, this.#lock!.identity, this.#lostCause));
        return;
      }
      this.#logger.info(`manager: leader election lost on lease ${lease}; rejoining the election`);
    }
  }

  /** onStartedLeading: run the leader-only runnables until leadership ends. */
  async #lead(signal: AbortSignal): Promise<void> {
    this.#logger.info(
      `manager: became leader of lease ${this.#lock?.describe() ?? ''}; starting leader-only runnables`,
    );
    this.#elected.resolve();
    this.#leadSignal = signal;
    this.#leaderRunnables = this.#entries
      .filter((e) => e.needLeaderElection)
      .map((e) => this.#runEntry(e, signal));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (signal.reason instanceof LeadershipLostError && signal.reason.reason !== 'cancelled') {
      this.#lostCause = signal.reason;
    }
    this.#logger.info(
      `manager: leadership ended (${errorMessage(signal.reason)}); stopping leader-only runnables`,
    );
    // Wait for them (bounded): until then the lease is not released.
    const all = Promise.all(this.#leaderRunnables).then(() => true);
    const finished = await this.#within(all, this.#gracefulMs);
    if (!finished) this.#logStillRunning('leader-only runnables');
    this.#leadSignal = undefined;
  }

  #runEntry(entry: Entry, signal: AbortSignal): Promise<void> {
    this.#logger.info(`manager: starting ${entry.name}`);
    let key = entry.name;
    for (let i = 2; this.#running.has(key); i++) key = `${entry.name}#${i}`;
    const promise = (async () => {
      try {
        await entry.start(signal);
        this.#logger.info(`manager: ${entry.name} stopped`);
      } catch (err) {
        if (signal.aborted && isAbortError(err, signal)) return;
        this.#logger.error(`manager: ${entry.name} failed: ${errorMessage(err)}`, { error: err });
        this.#fail(new RunnableFailedError(entry.name, err));
      } finally {
        this.#running.delete(key);
      }
    })();
    this.#running.set(key, promise);
    return promise;
  }

  #fail(err: Error): void {
    if (this.#failure === undefined && this.#state !== 'stopping') this.#failure = err;
    this.#stop?.abort(err);
  }

  async #shutdown(
    electorDone: Promise<void> | undefined,
    cacheStop: AbortController,
  ): Promise<void> {
    this.#state = 'stopping';
    const started = this.#clock.now();
    const count = this.#running.size;
    this.#logger.info(
      `manager: stopping ${count} runnable(s); waiting up to ${this.#gracefulMs < 0 ? 'no limit' : `${this.#gracefulMs} ms`}`,
    );
    const all = (async (): Promise<boolean> => {
      while (this.#running.size > 0) await Promise.all([...this.#running.values()]);
      if (electorDone !== undefined) await electorDone;
      return true;
    })();
    const finished = await this.#within(all, this.#gracefulMs);
    if (finished) {
      this.#logger.info(
        `manager: every runnable stopped in ${this.#clock.now() - started} ms` +
          (this.#lock !== undefined
            ? `; leader lease ${this.#lock.describe()} ${(this.#options.leaderElection?.releaseOnCancel ?? true) ? 'released' : 'left to expire'}`
            : ''),
      );
    } else {
      this.#logStillRunning('runnables');
      all.catch(() => {});
    }
    const events = this.#events;
    if (events !== undefined) {
      const flush = new AbortController();
      const timer = this.#clock.setTimeout(
        () => flush.abort(),
        this.#options.eventFlushTimeoutMs ?? 5000,
      );
      await events.close(flush.signal);
      timer.cancel();
      if (events.dropped > 0) {
        this.#logger.warn(`manager: ${events.dropped} event(s) were dropped, not written`);
      }
    }
    this.#logger.info('manager: stopping caches');
    cacheStop.abort();
    await Promise.all([this.cache.shutdown(), this.dynamicCache.shutdown()]);
    this.#logger.info('manager: caches stopped; closing servers');
    await Promise.all([this.#probeServer?.close(), this.#metricsServer?.close()]);
    if (this.#ownsTransport) this.transport.close();
    this.#state = 'stopped';
    this.#logger.info('manager: stopped');
  }

  #logStillRunning(what: string): void {
    const names = [...this.#running.keys()].map((name) => {
      const entry = this.#entries.find((e) => e.name === name.replace(/#\d+$/, ''));
      const keys = entry?.controller?.activeKeys() ?? [];
      return keys.length > 0 ? `${name} (reconciling ${keys.join(', ')})` : name;
    });
    this.#logger.warn(
      `manager: graceful shutdown timed out after ${this.#gracefulMs} ms; ${what} still running: ${names.join(', ') || 'none'}`,
      { running: names },
    );
  }

  /** Resolves true when `p` settles within `ms` (negative: no limit), else false. */
  async #within(p: Promise<boolean>, ms: number): Promise<boolean> {
    if (ms < 0 || ms === Infinity) return p;
    let timer: Timer | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = this.#clock.setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([p, timeout]);
    } finally {
      timer?.cancel();
    }
  }

  #checkCachesSynced(): Error | undefined {
    if (!this.#cachesStarted) return new Error('the caches have not been started');
    const unsynced: string[] = [];
    for (const [key, informer] of this.cache.informers()) {
      if (!informer.hasSynced()) unsynced.push(key);
    }
    for (const [key, informer] of this.dynamicCache.informers()) {
      if (!informer.hasSynced()) unsynced.push(key);
    }
    return unsynced.length > 0
      ? new Error(`informers not synced: ${unsynced.join(', ')}`)
      : undefined;
  }

  async #startServers(): Promise<void> {
    if (this.#probeBind !== undefined) {
      this.#probeServer = await HttpServer.listen('health probe', this.#probeBind, (req, res) =>
        this.#serveProbes(req, res),
      );
      this.#logger.info(
        `manager: serving health probes at ${this.#probeServer.url} (/healthz, /readyz)`,
      );
    }
    if (this.#metricsBind !== undefined) {
      const registry = await this.#metricsRegistry();
      if (registry !== undefined) {
        try {
          this.#metricsServer = await HttpServer.listen('metrics', this.#metricsBind, (req, res) =>
            this.#serveMetrics(registry, req, res),
          );
        } catch (err) {
          await this.#probeServer?.close();
          throw err;
        }
        this.#logger.info(`manager: serving metrics at ${this.#metricsServer.url}/metrics`);
      }
    }
  }

  async #metricsRegistry(): Promise<MetricsRegistry | undefined> {
    if (this.#options.metricsRegistry !== undefined) return this.#options.metricsRegistry;
    try {
      const prom = await import('prom-client');
      return prom.register;
    } catch (err) {
      this.#logger.warn(
        `manager: the metrics endpoint is disabled: prom-client could not be loaded (${errorMessage(err)}); install prom-client or set metricsBindAddress: '0'`,
      );
      return undefined;
    }
  }

  async #serveProbes(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://probe');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n');
      return;
    }
    if (await this.healthz.handle(req, res, url, this.#logger)) return;
    if (await this.readyz.handle(req, res, url, this.#logger)) return;
    send(res, 404, '404 page not found\n');
  }

  async #serveMetrics(
    registry: MetricsRegistry,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://metrics');
    if (url.pathname !== '/metrics') {
      send(res, 404, '404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n');
      return;
    }
    const text = await registry.metrics();
    send(res, 200, text, registry.contentType);
  }
}
