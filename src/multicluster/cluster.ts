/**
 * One cluster as a multicluster controller sees it (controller-runtime's `cluster.Cluster`):
 * its transport, its caches, a cache-backed client per resource, and an event recorder —
 * everything a reconcile needs to act on that cluster and nothing of the process around it
 * (no probes, no metrics server, no leader election: those are the manager's).
 *
 * - {@link ClusterHandle} is what a reconcile and a watch source get; a {@link Manager}
 *   has the same shape, so {@link localCluster} makes the manager's own cluster one.
 * - {@link KubeconfigCluster} is a cluster made from a kubeconfig (controller-runtime's
 *   `cluster.New`): providers make one per cluster they find. `start(signal)` runs its
 *   informers until the signal aborts (the provider aborts it when the cluster goes away),
 *   then stops every informer, flushes and closes its event broadcaster and closes its
 *   transport — its sockets — and resolves: nothing of it is left running.
 *
 * @module
 */
import type { KubeConfigLike, TransportOptions } from '../client/transport.js';
import { Transport, toTransport } from '../client/transport.js';
import { ResourceClient } from '../client/resource_client.js';
import type { ApiResource, KubeObject } from '../client/types.js';
import { SharedInformerFactory } from '../cache/factory.js';
import type { InformerForOptions, SharedInformerFactoryOptions } from '../cache/factory.js';
import { DynamicSharedInformerFactory } from '../dynamic/dynamic_factory.js';
import { EventBroadcaster } from '../record/event_broadcaster.js';
import type { EventBroadcasterOptions } from '../record/event_broadcaster.js';
import type { EventRecorder, RecorderOptions } from '../record/recorder.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { CachedClient } from '../manager/cached_client.js';
import type { CacheHost } from '../manager/cached_client.js';
import type { Manager } from '../manager/manager.js';
import type { CacheInformer } from '../manager/multi_namespace.js';
import { LOCAL_CLUSTER } from './request.js';

/**
 * A cluster's handle: what a multicluster reconcile gets for the cluster of its request
 * (controller-runtime's `cluster.Cluster`). Owner references, Events and cache reads are of
 * this cluster only: an object in one cluster cannot own, or be the subject of an Event in,
 * another.
 */
export interface ClusterHandle {
  /** The cluster's name ({@link LOCAL_CLUSTER}, `''`, for the manager's own). */
  readonly name: string;
  /** The transport to this cluster's API server. */
  readonly transport: Transport;
  /** This cluster's typed informer factory (started and stopped with the cluster). */
  readonly cache: SharedInformerFactory;
  /** This cluster's dynamic (unstructured) informer factory. */
  readonly dynamicCache: DynamicSharedInformerFactory;
  /** This cluster's informer of `resource`: created on first use, started while the cluster runs. */
  informer<T extends KubeObject>(
    resource: ApiResource<T>,
    options?: Omit<InformerForOptions<T>, 'namespace'>,
  ): CacheInformer<T>;
  /** A client whose reads come from this cluster's cache and whose writes go to its API server. */
  client<T extends KubeObject>(resource: ApiResource<T>): CachedClient<T>;
  /** An event recorder that writes this cluster's Events as `component`. */
  eventRecorderFor(component: string, options?: Omit<RecorderOptions, 'component'>): EventRecorder;
  /** Start the informers made since the last call (while the cluster runs; else nothing). */
  startInformers(): void;
}

/**
 * The manager's own cluster as a {@link ClusterHandle} named {@link LOCAL_CLUSTER}: its
 * caches, clients and recorders are the manager's, started and stopped by the manager.
 */
export function localCluster(manager: Manager): ClusterHandle {
  return {
    name: LOCAL_CLUSTER,
    transport: manager.transport,
    cache: manager.cache,
    dynamicCache: manager.dynamicCache,
    informer: (resource, options) => manager.informer(resource, options),
    client: (resource) => manager.client(resource),
    eventRecorderFor: (component, options) => manager.eventRecorderFor(component, options),
    startInformers: () => manager.startInformers(),
  };
}

/** `start()` was called twice on one {@link KubeconfigCluster}. */
export class ClusterAlreadyStartedError extends KubeControllerKitError {
  /** @param name - the cluster. */
  constructor(name: string) {
    super(`cluster ${name}: start() was already called; a cluster runs once — make a new one`);
  }
}

/** Options of a {@link KubeconfigCluster}. */
export interface KubeconfigClusterOptions {
  /** Transport options (timeouts, HTTP/2, metrics), used when given a kubeconfig. */
  transportOptions?: TransportOptions;
  /** Defaults of every informer of the cluster's caches (selectors, transform, resync). */
  cache?: Omit<SharedInformerFactoryOptions, 'clock' | 'logger' | 'transportOptions'>;
  /** Options of the cluster's event broadcaster (made on first use). */
  events?: Omit<EventBroadcasterOptions, 'clock' | 'logger' | keyof TransportOptions>;
  /** How long stopping waits for recorded events to be written (default 5000 ms). */
  eventFlushTimeoutMs?: number;
  /** Source of time of the informers, the clients and the recorder (default the real clock). */
  clock?: Clock;
  /** Where the cluster's informers and transport log (default: warnings and errors to stderr). */
  logger?: Logger;
}

/**
 * A cluster made from a kubeconfig (controller-runtime's `cluster.New`): its own transport,
 * caches, clients and event recorder, run by {@link KubeconfigCluster.start} until its
 * signal aborts. Providers make one for each cluster they find and abort its signal when the
 * cluster goes away.
 *
 * @example
 * ```ts
 * const cluster = new KubeconfigCluster('member-a', kubeConfig);
 * const running = cluster.start(signal); // resolves after the caches stopped and the sockets closed
 * const configMaps = cluster.client(configMapsResource);
 * ```
 */
export class KubeconfigCluster implements ClusterHandle {
  /** The cluster's name. */
  readonly name: string;
  /** The transport to the cluster's API server. */
  readonly transport: Transport;
  /** The typed informer factory. */
  readonly cache: SharedInformerFactory;
  /** The dynamic informer factory. */
  readonly dynamicCache: DynamicSharedInformerFactory;
  readonly #ownsTransport: boolean;
  readonly #options: KubeconfigClusterOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #signal: AbortSignal | undefined;
  #events: EventBroadcaster | undefined;
  #started = false;

  /**
   * @param name - the cluster's name (in logs and requests).
   * @param kubeConfig - a client-node KubeConfig (1.x or 2.x), or a Transport to share (not
   *   closed by the cluster).
   */
  constructor(
    name: string,
    kubeConfig: KubeConfigLike | Transport,
    options: KubeconfigClusterOptions = {},
  ) {
    this.name = name;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#ownsTransport = !(kubeConfig instanceof Transport);
    this.transport = toTransport(kubeConfig, {
      clock: this.#clock,
      logger: this.#logger,
      ...options.transportOptions,
    });
    const cacheOptions: SharedInformerFactoryOptions = {
      ...options.cache,
      clock: this.#clock,
      logger: this.#logger,
    };
    this.cache = new SharedInformerFactory(this.transport, cacheOptions);
    this.dynamicCache = new DynamicSharedInformerFactory(this.transport, cacheOptions);
  }

  /** True while {@link KubeconfigCluster.start} runs and its signal has not aborted. */
  get running(): boolean {
    return this.#signal !== undefined && !this.#signal.aborted;
  }

  /** {@inheritDoc ClusterHandle.informer} */
  informer<T extends KubeObject>(
    resource: ApiResource<T>,
    options: Omit<InformerForOptions<T>, 'namespace'> = {},
  ): CacheInformer<T> {
    const informer = this.cache.forResource(resource, options);
    this.startInformers();
    return informer;
  }

  /** {@inheritDoc ClusterHandle.client} */
  client<T extends KubeObject>(resource: ApiResource<T>): CachedClient<T> {
    const host: CacheHost = {
      informer: (r) => this.informer(r),
      ensureInformersRunning: () => {
        if (!this.running) return false;
        this.startInformers();
        return true;
      },
      cacheSignal: () => this.#signal,
      clock: this.#clock,
    };
    return new CachedClient(host, resource, new ResourceClient(this.transport, resource));
  }

  /** {@inheritDoc ClusterHandle.eventRecorderFor} */
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

  /** {@inheritDoc ClusterHandle.startInformers} */
  startInformers(): void {
    const signal = this.#signal;
    if (signal === undefined || signal.aborted) return;
    this.cache.start(signal);
    this.dynamicCache.start(signal);
  }

  /**
   * Wait until every informer started so far has synced (see
   * {@link SharedInformerFactory.waitForCacheSync}); false when `signal` aborted first.
   */
  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    const typed = await this.cache.waitForCacheSync(signal);
    const dynamic = await this.dynamicCache.waitForCacheSync(signal);
    return !signal.aborted && [...typed.values(), ...dynamic.values()].every(Boolean);
  }

  /**
   * Run the cluster's informers (those made before and after this call) until `signal`
   * aborts; then stop them, flush recorded events (up to `eventFlushTimeoutMs`), close the
   * transport when the cluster made it, and resolve. Never rejects.
   *
   * @throws {@link ClusterAlreadyStartedError} (as a rejection) on a second call.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new ClusterAlreadyStartedError(this.name);
    this.#started = true;
    this.#signal = signal;
    this.startInformers();
    if (!signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    await Promise.all([this.cache.shutdown(), this.dynamicCache.shutdown()]);
    const events = this.#events;
    if (events !== undefined) {
      const flush = new AbortController();
      const ms = this.#options.eventFlushTimeoutMs ?? 5000;
      let timer: Timer | undefined;
      if (ms <= 0) flush.abort();
      else timer = this.#clock.setTimeout(() => flush.abort(), ms);
      await events.close(flush.signal);
      timer?.cancel();
      if (events.dropped > 0) {
        this.#logger.warn(
          `cluster ${this.name}: ${events.dropped} event(s) were dropped, not written`,
        );
      }
    }
    if (this.#ownsTransport) this.transport.close();
  }
}
