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
 *   {@link Manager.add} into one of the runnable groups (see below). A runnable needs
 *   leader election unless it says otherwise (`needLeaderElection: false`); controllers
 *   need it by default; the cache, the probes and the metrics endpoint never do.
 * - **Leader election** (when `leaderElection` is given): a {@link LeaderElector} over a
 *   {@link LeaseLock}, releasing the lease on shutdown (`releaseOnCancel`, default true).
 *   Leader-only runnables start when this process becomes leader. When the lease is lost
 *   the manager shuts down without a grace period and `start()` rejects with
 *   {@link LeaderElectionLostError} so the process exits non-zero and restarts, as
 *   controller-runtime does; with `onLost: 'rejoin'` the manager instead stops the
 *   leader-only runnables, goes back to the election and starts them again when it leads again.
 * - **Probes** on `healthProbeBindAddress` (default `:8081`, see `probe_server.ts`) and
 *   **metrics** on `metricsBindAddress` (default `:8080`, see `metrics_server.ts`).
 *
 * Start and stop order is data: the runnable groups of {@link RUNNABLE_GROUP_ORDER}
 * (`httpServers`, `webhooks`, `caches`, `others`, `leaderElection`) start in that order,
 * each waiting for its runnables to be ready (the servers listen, the caches ready) before
 * the next; the `leaderElection` group starts when this process leads.
 *
 * **One stuck informer does not stop the others** (issue #37). A controller starts once
 * its own informers synced (`Controller.run`); the `caches` group, which the runnables that
 * are not controllers wait for, is ready once every informer made before `start()` has
 * synced **or is stuck** (its last list or watch was refused in a way retrying cannot fix —
 * forbidden, unauthorized, not found, bad request — and said so once at error level), or
 * after `controller.cacheSyncTimeoutMs`. Each controller's state is a `/readyz` check
 * (`controller-<name>`) and a metric; a controller whose informers do not sync within its
 * cache sync timeout either stops the manager (`onCacheSyncTimeout: 'stop'`,
 * controller-runtime's behaviour) or is reported and keeps waiting while the rest runs
 * (`'keepRunning'`, the default). Shutdown (the signal
 * aborts, SIGTERM/SIGINT when `start()` was given no signal, a runnable fails, or the lease
 * is lost) stops the groups one after another in the reverse order, the runnables' groups
 * within one deadline of `gracefulShutdownTimeoutMs` (default 30 s; what still runs when
 * it passes is logged), the manager's own caches and servers always to the end; then it
 * releases the lease, flushes and closes the event recorder, and closes the transport.
 * `start()` settles after all of that; nothing it started is left running, except a
 * runnable that ignored its signal past the deadline.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { leases } from '../client/builtins.js';
import type { KubeConfigLike, TransportOptions } from '../client/transport.js';
import { Transport, toTransport } from '../client/transport.js';
import { SharedInformerFactory } from '../cache/factory.js';
import type { InformerForOptions, SharedInformerFactoryOptions } from '../cache/factory.js';
import { ResourceClient } from '../client/resource_client.js';
import type { ApiResource, KubeObject } from '../client/types.js';
import {
  Controller,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
  DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS,
} from '../controller/controller.js';
import { isPermanentError } from '../client/errors.js';
import type { SharedIndexInformer } from '../cache/shared_informer.js';
import { CacheSyncTimeoutError, describeNotSynced, waitForInformersSync } from '../cache/wait.js';
import type { SyncSource } from '../cache/wait.js';
import { DynamicSharedInformerFactory } from '../dynamic/dynamic_factory.js';
import { HealthzAdaptor, DEFAULT_HEALTHZ_TOLERANCE_MS } from '../leaderelection/healthz.js';
import { LeaderElector } from '../leaderelection/leader_elector.js';
import { LeaseLock } from '../leaderelection/lease_lock.js';
import type { LeaderElectionMetricsProvider } from '../leaderelection/metrics.js';
import { LeadershipLostError } from '../leaderelection/errors.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import { resolveHttpServerLimits } from '../util/http_server.js';
import type { HttpServerLimits } from '../util/http_server.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { WebhookServer } from '../webhook/server.js';
import {
  BindError,
  InvalidManagerOptionsError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerStoppingError,
  RunnableFailedError,
} from './errors.js';
import { HealthCheckSet, ping } from './healthz.js';
import type { HealthCheck } from './healthz.js';
import { servingCertificateSource } from './cert_dir.js';
import type { CertDirOptions } from './cert_dir.js';
import { metricsServer } from './metrics_server.js';
import type { MetricsRegistry } from './metrics_server.js';
import { healthProbeServer } from './probe_server.js';
import { RUNNABLE_GROUP_ORDER, RunnableGroup } from './runnable_group.js';
import type { GroupRunnable, RunnableGroupName } from './runnable_group.js';
import { parseBindAddress } from './servers.js';
import type { ServerRunnable } from './servers.js';
import { setupSignalHandler } from './signals.js';
import { EventBroadcaster } from '../record/event_broadcaster.js';
import type { EventBroadcasterOptions } from '../record/event_broadcaster.js';
import type { EventRecorder, RecorderOptions } from '../record/recorder.js';
import { CachedClient } from './cached_client.js';
import type { CacheHost } from './cached_client.js';
import { MultiNamespaceInformer, validateNamespaces } from './multi_namespace.js';
import type { CacheInformer } from './multi_namespace.js';

export type { MetricsRegistry } from './metrics_server.js';
export type { RunnableGroupName } from './runnable_group.js';
export { RUNNABLE_GROUP_ORDER } from './runnable_group.js';

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
  /**
   * The group it runs in (see {@link RUNNABLE_GROUP_ORDER}). Default: `leaderElection`
   * when it needs leader election, else `others`. A webhook server declares `'webhooks'`
   * so that it serves before the caches start; a server that must answer before anything
   * else starts, `'httpServers'`.
   */
  readonly group?: RunnableGroupName;
  /** Run until `signal` aborts. */
  start(signal: AbortSignal): void | Promise<void>;
  /**
   * Resolves once the runnable is ready (e.g. listening); the manager starts the next group
   * only when every runnable of this one is ready. Rejecting fails the manager. Absent:
   * ready as soon as it started.
   */
  ready?(signal: AbortSignal): void | Promise<void>;
}

/** Options of {@link Manager.add}. */
export interface AddRunnableOptions {
  /** Overrides the runnable's own `needLeaderElection` (controllers: default true). */
  needLeaderElection?: boolean;
  /** Overrides the runnable's own `group` (see {@link Runnable.group}). */
  group?: RunnableGroupName;
  /** Overrides the runnable's name in logs. */
  name?: string;
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

/**
 * What the manager does with its controllers (controller-runtime's `Options.Controller`).
 */
export interface ManagerControllerOptions {
  /**
   * How long a controller waits for its informers to sync, in ms, unless it sets its own
   * `cacheSyncTimeoutMs` (controller-runtime's `CacheSyncTimeout`; default 120 000, 2 min;
   * `Infinity` waits for ever). Also how long the runnables that are not controllers wait
   * for an informer that is neither synced nor stuck.
   */
  cacheSyncTimeoutMs?: number;
  /**
   * What a controller's cache sync timeout does:
   *
   * - `'keepRunning'` (default): the controller logs a `CacheSyncTimeoutError` naming each
   *   informer and its last error, its state becomes `timedOut` (its `/readyz` check and
   *   metric say so), and it keeps waiting: it starts if its informers sync later (an RBAC
   *   rule granted, a CRD installed), without a restart. Everything else keeps running.
   * - `'stop'`: controller-runtime's behaviour: the controller fails, the manager shuts
   *   down, and `start()` rejects with a {@link RunnableFailedError} whose `cause` is the
   *   `CacheSyncTimeoutError` (a `runProgram` main, or an unhandled rejection, exits 1).
   */
  onCacheSyncTimeout?: 'keepRunning' | 'stop';
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
   * Serve `/metrics` securely, as kubebuilder's `--metrics-secure`: HTTPS with the
   * certificate in `certPath` (`tls.crt`/`tls.key`, reloaded when they change; without
   * `certPath`, a self-signed one made in memory, as controller-runtime does), and only to
   * callers whose bearer token the API server authenticates (TokenReview) and who may `get`
   * the non-resource URL `/metrics` (SubjectAccessReview); 401 and 403 otherwise, as
   * controller-runtime answers. The operator needs `create` on `tokenreviews` and
   * `subjectaccessreviews` (`system:auth-delegator`). Probes stay plain HTTP.
   */
  metricsSecure?: CertDirOptions;
  /**
   * Limits of the probe and metrics servers: TLS handshake and request-header time (default
   * 32 s, controller-runtime's `ReadHeaderTimeout`), whole-request time (60 s), keep-alive
   * idle time (90 s, controller-runtime's `IdleTimeout`), header bytes (16 KiB). See
   * docs/limits.md.
   */
  serverLimits?: HttpServerLimits;
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
  /**
   * A webhook server to run on every replica (controller-runtime's `WebhookServer`
   * option): it starts in the `webhooks` group, before the caches, and its
   * `startedChecker` is the readiness check `webhook` on `/readyz`.
   */
  webhookServer?: WebhookServer;
  /** Defaults for every controller added (cache sync timeout and what it does). */
  controller?: ManagerControllerOptions;
}

/**
 * The name of a controller's `/readyz` check: `controller-<name>`, with every character a
 * check name cannot hold (anything but letters, digits, `.`, `_`, `-`) replaced by `-`.
 */
export function controllerCheckName(controller: string): string {
  return `controller-${controller.replace(/[^A-Za-z0-9._-]/g, '-')}`;
}

/** How the manager names and stops each group. */
interface GroupPolicy {
  /** In the shutdown log lines: `manager: stopping <label>`. */
  readonly label: string;
  /**
   * Whether shutdown stops waiting for it at the graceful deadline. The manager's own
   * servers and caches always settle, and are waited for to the end.
   */
  readonly bounded: boolean;
}

const GROUP_POLICY: Readonly<Record<RunnableGroupName, GroupPolicy>> = {
  httpServers: { label: 'servers', bounded: false },
  webhooks: { label: 'webhooks', bounded: true },
  caches: { label: 'caches', bounded: false },
  others: { label: 'runnables without leader election', bounded: true },
  leaderElection: { label: 'leader-election runnables', bounded: true },
};

function groupFor(
  name: string,
  group: RunnableGroupName | undefined,
  needLeaderElection: boolean | undefined,
): RunnableGroupName {
  if (group === undefined) return (needLeaderElection ?? true) ? 'leaderElection' : 'others';
  if (!RUNNABLE_GROUP_ORDER.includes(group)) {
    throw new InvalidManagerOptionsError(
      `runnable ${name}: group ${JSON.stringify(group)} is not one of ${RUNNABLE_GROUP_ORDER.join(', ')}`,
    );
  }
  if (needLeaderElection !== undefined && needLeaderElection !== (group === 'leaderElection')) {
    throw new InvalidManagerOptionsError(
      `runnable ${name}: needLeaderElection ${String(needLeaderElection)} contradicts group ${group} (only the leaderElection group runs under the lease)`,
    );
  }
  return group;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
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
  /** The grace period of the shutdown; set to 0 when the lease is lost. */
  #gracefulMs: number;
  readonly #lock: LeaseLock | undefined;
  /** The groups; `leaderElection` is replaced by a new group on each term under 'rejoin'. */
  readonly #groups: Record<RunnableGroupName, RunnableGroup>;
  /** Every leader-election runnable, to fill the group of a new term. */
  readonly #leaderRunnables: GroupRunnable[] = [];
  readonly #probeServer: ServerRunnable | undefined;
  readonly #metricsServer: ServerRunnable | undefined;
  #events: EventBroadcaster | undefined;
  /** The controllers added, by name (names are unique, as controller-runtime requires). */
  readonly #controllers = new Map<string, Controller>();
  readonly #cacheSyncTimeoutMs: number;
  readonly #onCacheSyncTimeout: 'keepRunning' | 'stop';
  readonly #serving = deferred<void>();
  readonly #elected = deferred<void>();
  #state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';
  #stop: AbortController | undefined;
  #failure: Error | undefined;
  #lostCause: unknown;
  /** The cache runnable's signal while the caches run (undefined before start). */
  #cacheSignal: AbortSignal | undefined;
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
    const syncTimeout = options.controller?.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    if (!(typeof syncTimeout === 'number' && syncTimeout > 0)) {
      throw new InvalidManagerOptionsError(
        `controller.cacheSyncTimeoutMs must be a positive number of milliseconds (Infinity: no timeout), got ${String(syncTimeout)}`,
      );
    }
    this.#cacheSyncTimeoutMs = syncTimeout;
    const onTimeout = options.controller?.onCacheSyncTimeout ?? 'keepRunning';
    if (onTimeout !== 'keepRunning' && onTimeout !== 'stop') {
      throw new InvalidManagerOptionsError(
        `controller.onCacheSyncTimeout must be 'keepRunning' or 'stop', got ${String(onTimeout)}`,
      );
    }
    this.#onCacheSyncTimeout = onTimeout;
    const probeBind = parseBindAddress(
      'healthProbeBindAddress',
      options.healthProbeBindAddress ?? DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
    );
    const metricsBind = parseBindAddress(
      'metricsBindAddress',
      options.metricsBindAddress ?? DEFAULT_METRICS_BIND_ADDRESS,
    );
    let serverLimits: HttpServerLimits;
    try {
      serverLimits = resolveHttpServerLimits(options.serverLimits, 'serverLimits');
    } catch (err) {
      throw new InvalidManagerOptionsError(errorMessage(err));
    }
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

    const groups: Partial<Record<RunnableGroupName, RunnableGroup>> = {};
    for (const name of RUNNABLE_GROUP_ORDER) groups[name] = this.#newGroup(name);
    this.#groups = groups as Record<RunnableGroupName, RunnableGroup>;
    this.webhookServer = options.webhookServer;
    if (options.webhookServer !== undefined) {
      this.add(options.webhookServer);
      this.readyz.add('webhook', options.webhookServer.startedChecker());
    }
    if (probeBind !== undefined) {
      this.#probeServer = healthProbeServer({
        bind: probeBind,
        healthz: this.healthz,
        readyz: this.readyz,
        logger: this.#logger,
        limits: serverLimits,
        clock: this.#clock,
      });
      this.#groups.httpServers.add(this.#probeServer);
    }
    if (metricsBind !== undefined) {
      this.#metricsServer = metricsServer({
        bind: metricsBind,
        registry: options.metricsRegistry,
        logger: this.#logger,
        limits: serverLimits,
        clock: this.#clock,
        ...(options.metricsSecure !== undefined
          ? {
              secure: {
                tls: servingCertificateSource(options.metricsSecure),
                auth: { transport: this.transport, clock: this.#clock, logger: this.#logger },
              },
            }
          : {}),
      });
      this.#groups.httpServers.add(this.#metricsServer);
    }
    this.#groups.caches.add(this.#cacheRunnable());

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

  /** The webhook server given in the options (controller-runtime's `GetWebhookServer`). */
  readonly webhookServer: WebhookServer | undefined;

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
   * The names of the runnables in each group, in start order (shutdown runs it backwards);
   * for logs and tests. A group that is running lists what still runs.
   */
  runnableGroups(): {
    /** The group. */
    group: RunnableGroupName;
    /** The names of its runnables, queued or running. */
    runnables: string[];
  }[] {
    return RUNNABLE_GROUP_ORDER.map((group) => ({
      group,
      runnables: this.#groups[group].names(),
    }));
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
   * or once the caches are ready when leader election is off (controller-runtime's
   * `Elected()`).
   */
  elected(): Promise<void> {
    return this.#elected.promise;
  }

  /**
   * Add a controller or another runnable to its group: `leaderElection` when it needs
   * leader election (controllers by default), `others` when not, or the group it names
   * (`group`, e.g. `'webhooks'` for a webhook server). Added after `start()`, it starts at
   * once if its group started (leader-only ones once leading). A Controller also gets the
   * `/readyz` check `controller-<name>` (see {@link controllerCheckName}): it fails while
   * the controller waits for its informers or has timed out waiting, naming each informer
   * and its last error; it passes while the controller runs, stands by (not leading) or
   * has stopped.
   *
   * @throws {@link ManagerStoppingError} once shutdown began.
   * @throws {@link InvalidManagerOptionsError} for a Controller under `onLost: 'rejoin'`
   * (a Controller runs once), a second controller of the same name, a group that
   * contradicts `needLeaderElection`, or a value that is neither a Controller nor a runnable.
   */
  add(runnable: Runnable | Controller, options: AddRunnableOptions = {}): this {
    let member: GroupRunnable;
    let group: RunnableGroupName;
    if (runnable instanceof Controller) {
      const name = options.name ?? `controller/${runnable.name}`;
      group = groupFor(name, options.group, options.needLeaderElection);
      if (group === 'leaderElection' && this.#options.leaderElection?.onLost === 'rejoin') {
        throw new InvalidManagerOptionsError(
          `controller ${runnable.name}: with leaderElection.onLost 'rejoin' leader-only runnables restart on each term, and a Controller runs once; add a runnable whose start() creates and runs a new Controller`,
        );
      }
      if (this.#controllers.has(runnable.name)) {
        throw new InvalidManagerOptionsError(
          `controller ${runnable.name}: a controller of that name was already added; names must be unique (they name the logs, the metrics and the /readyz check)`,
        );
      }
      if (this.#state === 'stopping' || this.#state === 'stopped') {
        throw new ManagerStoppingError(name);
      }
      this.#controllers.set(runnable.name, runnable);
      this.readyz.add(controllerCheckName(runnable.name), () => this.#checkController(runnable));
      member = {
        name,
        start: (signal) =>
          runnable.run(signal, {
            gracefulShutdownTimeoutMs: this.#gracefulMs,
            cacheSyncTimeoutMs: this.#cacheSyncTimeoutMs,
            onCacheSyncTimeout: this.#onCacheSyncTimeout === 'stop' ? 'fail' : 'keepWaiting',
          }),
        activeWork: () => runnable.activeKeys(),
      };
    } else if (
      runnable !== null &&
      typeof runnable === 'object' &&
      typeof runnable.start === 'function'
    ) {
      const name = options.name ?? runnable.name ?? `runnable-${++this.#unnamed}`;
      group = groupFor(
        name,
        options.group ?? runnable.group,
        options.needLeaderElection ?? runnable.needLeaderElection,
      );
      member = {
        name,
        start: (signal) => runnable.start(signal),
        ...(typeof runnable.ready === 'function'
          ? { ready: (signal: AbortSignal) => runnable.ready?.(signal) }
          : {}),
      };
    } else {
      throw new InvalidManagerOptionsError(
        'Manager.add takes a Controller or a runnable with start(signal)',
      );
    }
    if (this.#state === 'stopping' || this.#state === 'stopped') {
      throw new ManagerStoppingError(member.name);
    }
    if (group === 'leaderElection') this.#leaderRunnables.push(member);
    const target = this.#groups[group];
    if (!target.stopped) target.add(member);
    if (this.#state === 'running') this.startInformers();
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
        const signal = this.#cacheSignal;
        if (signal === undefined || signal.aborted) return false;
        this.startInformers();
        return true;
      },
      cacheSignal: () => this.#cacheSignal,
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
    const signal = this.#cacheSignal;
    if (signal === undefined || signal.aborted) return;
    this.cache.start(signal);
    this.dynamicCache.start(signal);
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
    // The elector runs until every group stopped: the lease is held while they stop.
    const electorStop = new AbortController();
    let electorDone: Promise<void> | undefined;
    try {
      this.#logger.info(
        `manager: starting (API server ${this.transport.server}${this.#lock !== undefined ? `, leader election on lease ${this.#lock.describe()} as ${this.#lock.identity}` : ', no leader election'})`,
      );
      for (const name of RUNNABLE_GROUP_ORDER) {
        if (stop.signal.aborted) break;
        if (name === 'leaderElection' && this.elector !== undefined) {
          electorDone = this.#elect(electorStop.signal);
          break;
        }
        if (name === 'caches') this.#logger.info('manager: starting caches');
        if (name === 'leaderElection') this.#elected.resolve();
        await this.#groups[name].start(stop.signal);
        if (name === 'httpServers') {
          if (this.#failure !== undefined) this.#serving.reject(this.#failure);
          else this.#serving.resolve();
          this.#state = 'running';
        }
      }
      await aborted(stop.signal);
    } finally {
      outer.removeEventListener('abort', onAbort);
      if (!stop.signal.aborted) stop.abort(this.#failure);
      this.#serving.resolve();
      await this.#shutdown(electorStop, electorDone);
      handler?.dispose();
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  #newGroup(name: RunnableGroupName): RunnableGroup {
    return new RunnableGroup({
      name,
      logger: this.#logger,
      onError: (runnable, err) =>
        this.#fail(err instanceof BindError ? err : new RunnableFailedError(runnable, err)),
    });
  }

  /** Every informer of the cache (typed and dynamic), by key. */
  #informers(): [string, InformerStatus][] {
    return [...this.cache.informers(), ...this.dynamicCache.informers()];
  }

  /**
   * The caches as a runnable: informers start with it; it is ready once every informer made
   * before start has synced or is stuck (refused in a way retrying cannot fix), or after
   * the cache sync timeout. Controllers wait for their own informers.
   */
  #cacheRunnable(): GroupRunnable {
    return {
      name: 'cache',
      start: async (signal) => {
        this.#cacheSignal = signal;
        this.startInformers();
        await aborted(signal);
        await Promise.all([this.cache.shutdown(), this.dynamicCache.shutdown()]);
      },
      ready: async (signal) => {
        const informers = this.#informers();
        const sources: SyncSource[] = informers.map(([key, informer]) => ({
          name: key,
          hasSynced: () => informer.hasSynced() || informer.isStopped() || isStuck(informer),
          lastError: () => informer.lastError(),
        }));
        let timedOut: CacheSyncTimeoutError | undefined;
        try {
          await waitForInformersSync(signal, sources, {
            clock: this.#clock,
            ...(this.#cacheSyncTimeoutMs !== Infinity
              ? { timeoutMs: this.#cacheSyncTimeoutMs }
              : {}),
          });
        } catch (err) {
          if (!(err instanceof CacheSyncTimeoutError)) throw err;
          timedOut = err;
        }
        if (signal.aborted) return;
        const synced = informers.filter(([, i]) => i.hasSynced()).map(([key]) => key);
        const notSynced = informers.filter(([, i]) => !i.hasSynced()).map(([key]) => key);
        if (notSynced.length === 0) {
          this.#logger.info(`manager: caches synced (${synced.join(', ') || 'no informers yet'})`);
          return;
        }
        // Each informer said why at error level already; this line says what follows.
        this.#logger.warn(
          `manager: caches ready without ${notSynced.join(', ')} (${timedOut !== undefined ? `still syncing after ${this.#cacheSyncTimeoutMs} ms` : "refused: see each informer's error line"}); runnables that are not controllers start now and find those caches empty; each controller waits for its own informers`,
          { synced, notSynced },
        );
      },
    };
  }

  /** The `/readyz` check of a controller: fails while it waits for its informers. */
  #checkController(controller: Controller): Error | undefined {
    switch (controller.state) {
      case 'waiting':
        return new Error(
          `controller ${controller.name} waits for its informers to sync: ${describeNotSynced(controller.waitingFor(), this.#clock.now())}`,
        );
      case 'timedOut':
        return new Error(
          `${controller.cacheSyncError?.message ?? `controller ${controller.name}: its caches did not sync in time`}; ${this.#onCacheSyncTimeout === 'stop' ? 'the manager stops' : 'it keeps waiting'}`,
        );
      default:
        return undefined;
    }
  }

  /** Take part in the election until `signal` aborts; with 'error', a lost lease fails the manager. */
  async #elect(signal: AbortSignal): Promise<void> {
    const elector = this.elector!;
    for (;;) {
      try {
        await elector.run(signal);
      } catch (err) {
        this.#fail(new RunnableFailedError('leader election', err));
        return;
      }
      if (signal.aborted || this.#stop?.signal.aborted === true) return;
      const lease = this.#lock!.describe();
      if ((this.#options.leaderElection?.onLost ?? 'error') === 'error') {
        this.#fail(new LeaderElectionLostError(lease, this.#lock!.identity, this.#lostCause));
        return;
      }
      this.#logger.info(`manager: leader election lost on lease ${lease}; rejoining the election`);
    }
  }

  /**
   * onStartedLeading: start this term's leader-election group; when the term ends because
   * the lease was lost, either fail the manager with no grace period ('error') or stop the
   * group and return to the election ('rejoin'). When the term ends because the manager
   * stops, the shutdown stops the group in its turn.
   */
  async #lead(signal: AbortSignal): Promise<void> {
    if (this.#state !== 'running' || this.#stop?.signal.aborted !== false) return;
    this.#logger.info(
      `manager: became leader of lease ${this.#lock?.describe() ?? ''}; starting leader-only runnables`,
    );
    let group = this.#groups.leaderElection;
    if (group.started) {
      group = this.#newGroup('leaderElection');
      for (const r of this.#leaderRunnables) group.add(r);
      this.#groups.leaderElection = group;
    }
    const started = group.start(signal);
    this.#elected.resolve();
    await started;
    await aborted(signal);
    const reason: unknown = signal.reason;
    if (!(reason instanceof LeadershipLostError) || reason.reason === 'cancelled') return;
    this.#lostCause = reason;
    const lease = this.#lock!.describe();
    if ((this.#options.leaderElection?.onLost ?? 'error') === 'error') {
      this.#logger.error(
        `manager: leader election lost on lease ${lease}; stopping every runnable and exiting`,
      );
      // As controller-runtime: a lost lease skips the graceful shutdown, since another
      // replica may already be leading.
      this.#gracefulMs = 0;
      this.#fail(new LeaderElectionLostError(lease, this.#lock!.identity, reason));
      return;
    }
    this.#logger.info(
      `manager: leadership ended (${errorMessage(reason)}); stopping leader-only runnables`,
    );
    const deadline = this.#deadline(this.#gracefulMs);
    const finished = await group.stopAndWait(deadline.signal, reason);
    deadline.cancel();
    if (!finished) this.#logStillRunning(GROUP_POLICY.leaderElection.label, group.running());
  }

  #fail(err: Error): void {
    if (this.#failure === undefined && this.#state !== 'stopping') this.#failure = err;
    this.#stop?.abort(err);
  }

  /** A signal that aborts after `ms` (at once for 0, never for a negative or infinite ms). */
  #deadline(ms: number): { signal: AbortSignal; cancel(): void } {
    const controller = new AbortController();
    let timer: Timer | undefined;
    if (ms === 0) controller.abort();
    else if (ms > 0 && ms !== Infinity) {
      timer = this.#clock.setTimeout(() => controller.abort(), ms);
    }
    return { signal: controller.signal, cancel: () => timer?.cancel() };
  }

  async #shutdown(
    electorStop: AbortController,
    electorDone: Promise<void> | undefined,
  ): Promise<void> {
    this.#state = 'stopping';
    const started = this.#clock.now();
    const grace = this.#gracefulMs;
    const reason: unknown = this.#stop?.signal.reason;
    const count = RUNNABLE_GROUP_ORDER.reduce((n, g) => n + this.#groups[g].size, 0);
    this.#logger.info(
      `manager: stopping ${count} runnable(s) group by group; waiting up to ${grace < 0 ? 'no limit' : `${grace} ms`}`,
    );
    const deadline = this.#deadline(grace);
    let everyRunnableStopped = true;
    for (const name of [...RUNNABLE_GROUP_ORDER].reverse()) {
      const group = this.#groups[name];
      const { label, bounded } = GROUP_POLICY[name];
      if (group.size === 0) {
        void group.stopAndWait();
        continue;
      }
      this.#logger.info(`manager: stopping ${label}`);
      const stopped = await group.stopAndWait(bounded ? deadline.signal : undefined, reason);
      if (stopped) {
        this.#logger.info(`manager: ${label} stopped`);
      } else {
        everyRunnableStopped = false;
        this.#logStillRunning(label, group.running());
      }
    }
    deadline.cancel();
    if (everyRunnableStopped) {
      this.#logger.info(`manager: every runnable stopped in ${this.#clock.now() - started} ms`);
    }
    electorStop.abort(reason);
    if (electorDone !== undefined) {
      await electorDone;
      const lease = this.#lock!.describe();
      const released =
        this.#lostCause !== undefined
          ? 'lost, not released'
          : (this.#options.leaderElection?.releaseOnCancel ?? true)
            ? 'released'
            : 'left to expire';
      this.#logger.info(`manager: leader lease ${lease} ${released}`);
    }
    const events = this.#events;
    if (events !== undefined) {
      const flush = this.#deadline(this.#options.eventFlushTimeoutMs ?? 5000);
      await events.close(flush.signal);
      flush.cancel();
      if (events.dropped > 0) {
        this.#logger.warn(`manager: ${events.dropped} event(s) were dropped, not written`);
      }
    }
    if (this.#ownsTransport) this.transport.close();
    this.#state = 'stopped';
    this.#logger.info('manager: stopped');
  }

  #logStillRunning(label: string, names: string[]): void {
    const message =
      this.#gracefulMs === 0
        ? `manager: shutdown does not wait (grace period 0); ${label} still running: ${names.join(', ') || 'none'}`
        : `manager: graceful shutdown timed out after ${this.#gracefulMs} ms; ${label} still running: ${names.join(', ') || 'none'}`;
    this.#logger.warn(message, { running: names });
  }

  #checkCachesSynced(): Error | undefined {
    if (this.#cacheSignal === undefined) return new Error('the caches have not been started');
    const unsynced = this.#informers()
      .filter(([, informer]) => !informer.hasSynced())
      .map(([key, informer]) => ({ name: key, lastError: informer.lastError() }));
    return unsynced.length > 0
      ? new Error(`informers not synced: ${describeNotSynced(unsynced, this.#clock.now())}`)
      : undefined;
  }
}

/** What the manager reads of an informer to say whether it synced, and why not. */
type InformerStatus = Pick<
  SharedIndexInformer<KubeObject>,
  'hasSynced' | 'isStopped' | 'lastError'
>;

/** Not synced, and its last failure is one retrying cannot fix (a 403, a 404, …). */
function isStuck(informer: InformerStatus): boolean {
  const last = informer.lastError();
  return last !== undefined && isPermanentError(last.error);
}
