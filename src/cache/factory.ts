/**
 * SharedInformerFactory: one informer per resource and options, shared by every caller
 * (client-go's `informers/factory.go`).
 *
 * ```ts
 * const factory = new SharedInformerFactory(kc, { resyncPeriodMs: 10 * 60_000 });
 * const pods = factory.pods();                  // SharedIndexInformer<Serialized<V1Pod>>
 * pods.addEventHandler({ onAdd: (pod) => queue.add(objectKey(pod)) });
 * factory.start(signal);                        // runs every informer created so far
 * await factory.waitForCacheSync(signal);       // Map { 'pods/v1' => true }
 * // …
 * await factory.shutdown();                     // resolves once every informer stopped
 * ```
 *
 * Rules (client-go's):
 * - `forResource` returns the **same** informer for the same resource, namespace,
 *   selectors and options (functions such as `transform` compare by identity), creating
 *   it on first use; the typed shortcuts (`pods()`, `deployments()`, …) call it.
 * - `start(signal)` runs only informers not yet started; after `shutdown()` it does
 *   nothing. Informers created after a `start` run at the next `start`.
 * - `waitForCacheSync(signal)` covers only started informers and resolves to a map from
 *   each informer's key (see {@link informerKey}) to whether it synced.
 * - `shutdown()` stops every informer and resolves when all of them have stopped.
 * - Typed informers index by namespace (`namespaceIndex`).
 * - A namespace (factory-wide or per call) applies only to namespaced resources.
 * - A failed list or watch is said once per episode, in words that say what would fix it
 *   (a 403 names the RBAC rule, a 404 the CRD to install), retries at debug, a reminder at
 *   warn every 5 minutes, and its recovery at info (see {@link SyncFailureReporter}),
 *   unless `informerOptions.watchErrorHandler` replaces it.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import type {
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Deployment,
  V1Lease,
  V1Namespace,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import {
  configMapsResource,
  customResourceDefinitionsResource,
  deploymentsResource,
  leasesResource,
  namespacesResource,
  podsResource,
  secretsResource,
  servicesResource,
} from '../client/builtins.js';
import { ResourceClient } from '../client/resource_client.js';
import type { KubeConfigLike, Transport, TransportOptions } from '../client/transport.js';
import { toTransport } from '../client/transport.js';
import type {
  ApiResource,
  GroupVersionResource,
  KubeObject,
  ListOptions,
  PartialObjectMetadata,
  Serialized,
} from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { TransformFunc } from './fifo.js';
import type { Indexers } from './indexer.js';
import { metaNamespaceIndexFunc, namespaceIndex } from './indexer.js';
import { listWatchFromClient, validateSelectors } from './listwatch.js';
import type { ListerWatcher } from './listwatch.js';
import { SharedIndexInformer } from './shared_informer.js';
import type { SharedIndexInformerOptions } from './shared_informer.js';
import { SyncFailureReporter } from './sync_failure.js';
import { waitForInformersSync } from './wait.js';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- named in TSDoc
import type { CacheSyncTimeoutError } from './wait.js';

/** A transform that fits every object type, such as `stripManagedFields`. */
export type GenericTransform = <O extends KubeObject>(obj: O) => O;

/** Rewrites the options of every list and watch (return a new object or change the copy). */
export type TweakListOptionsFunc = (options: ListOptions) => ListOptions | void;

/**
 * Informer settings passed through unchanged (reflector tuning, hooks). See
 * {@link SharedIndexInformerOptions}.
 */
export type InformerTuning = Pick<
  SharedIndexInformerOptions<KubeObject>,
  | 'onHandlerError'
  | 'watchErrorHandler'
  | 'reflector'
  | 'pageSize'
  | 'watchList'
  | 'idleTimeoutMs'
  | 'backoff'
  | 'backoffResetMs'
  | 'minWatchTimeoutSeconds'
  | 'random'
  | 'maxBatch'
  | 'detectCacheMutations'
  | 'cacheMutationCheckPeriodMs'
  | 'onCacheMutation'
>;

/** Options of a {@link SharedInformerFactory}: defaults for every informer it makes. */
export interface SharedInformerFactoryOptions {
  /** Default resync period (ms) of every informer; 0 (default) disables resync. */
  resyncPeriodMs?: number;
  /**
   * Per-resource resync periods (client-go's `WithCustomResyncConfig`), keyed by
   * group-resource as `resource` for the core group or `resource.group`
   * (`pods`, `deployments.apps`).
   */
  customResync?: Readonly<Record<string, number>>;
  /** Watch only this namespace (namespaced resources); default all namespaces. */
  namespace?: string;
  /** Label selector on every list and watch. */
  labelSelector?: string;
  /** Field selector on every list and watch. */
  fieldSelector?: string;
  /**
   * Server-side shard selector (KEP-5866) on every list and watch, e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`. When
   * its list has no `metadata.shardInfo`, each informer filters on the client too, and logs
   * once that the server ignored it when an object outside the ranges arrives.
   */
  shardSelector?: string;
  /** Last word on every list and watch's options (client-go's `WithTweakListOptions`). */
  tweakListOptions?: TweakListOptionsFunc;
  /** Transform of every object before it is cached (e.g. `stripManagedFields`). */
  transform?: GenericTransform;
  /** Source of time for every informer. */
  clock?: Clock;
  /** Where every informer logs. */
  logger?: Logger;
  /** Reflector tuning and hooks of every informer. */
  informerOptions?: InformerTuning;
  /** Transport options, used when the factory is given a KubeConfig. */
  transportOptions?: TransportOptions;
}

/** Per-call options of {@link SharedInformerFactory.forResource}; they override the factory's. */
export interface InformerForOptions<T> {
  /** Namespace (namespaced resources only); `''` = all namespaces. */
  namespace?: string;
  /** Label selector. */
  labelSelector?: string;
  /** Field selector. */
  fieldSelector?: string;
  /** Server-side shard selector (KEP-5866); see {@link SharedInformerFactoryOptions.shardSelector}. */
  shardSelector?: string;
  /** Resync period (ms). */
  resyncPeriodMs?: number;
  /** Rewrites list and watch options (applied after the factory's). */
  tweakListOptions?: TweakListOptionsFunc;
  /** Transform before caching; replaces the factory's. */
  transform?: TransformFunc<T>;
  /**
   * Index functions added to the namespace index (`namespace: metaNamespaceIndexFunc`)
   * every factory informer has; a function under the name `namespace` replaces it.
   */
  indexers?: Indexers<T>;
}

/**
 * The key the factory files an informer under and reports it by in
 * {@link SharedInformerFactory.waitForCacheSync}: `resource[.group]/version`, then, when
 * set, ` namespace=…`, ` labels=…`, ` fields=…`, ` shards=…`, ` metadata-only` and ` #n` (n numbers
 * each distinct set of function options: tweak, transform, indexers, resync).
 */
export function informerKey(
  gvr: GroupVersionResource,
  parts: {
    namespace?: string | undefined;
    labelSelector?: string | undefined;
    fieldSelector?: string | undefined;
    shardSelector?: string | undefined;
    metadataOnly?: boolean | undefined;
    variant?: number | undefined;
  } = {},
): string {
  let key = `${groupResourceString(gvr)}/${gvr.version}`;
  if (parts.namespace !== undefined && parts.namespace !== '')
    key += ` namespace=${parts.namespace}`;
  if (parts.labelSelector !== undefined && parts.labelSelector !== '')
    key += ` labels=${parts.labelSelector}`;
  if (parts.fieldSelector !== undefined && parts.fieldSelector !== '')
    key += ` fields=${parts.fieldSelector}`;
  if (parts.shardSelector !== undefined && parts.shardSelector !== '')
    key += ` shards=${parts.shardSelector}`;
  if (parts.metadataOnly === true) key += ' metadata-only';
  if (parts.variant !== undefined && parts.variant !== 0) key += ` #${parts.variant}`;
  return key;
}

function groupResourceString(gr: { group: string; resource: string }): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

interface Entry {
  informer: SharedIndexInformer<KubeObject>;
  running: Promise<void> | undefined;
  controller: AbortController | undefined;
}

/** Small ids for function identities, so that option sets can be compared. */
class FunctionIds {
  readonly #ids = new WeakMap<object, number>();
  #next = 1;
  id(fn: object | undefined): number {
    if (fn === undefined) return 0;
    let id = this.#ids.get(fn);
    if (id === undefined) {
      id = this.#next++;
      this.#ids.set(fn, id);
    }
    return id;
  }
}

/**
 * Makes and shares informers. See the module documentation.
 */
export class SharedInformerFactory {
  /** The transport every informer's client uses. */
  readonly transport: Transport;
  readonly #options: SharedInformerFactoryOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  readonly #variants = new Map<string, number>();
  readonly #fnIds = new FunctionIds();
  #shutdown = false;

  /**
   * @param source - a client-node KubeConfig (1.x or 2.x) or a shared Transport.
   * @param options - defaults for every informer.
   * @throws `SelectorParseError` when `labelSelector` or `fieldSelector` is malformed.
   */
  constructor(source: Transport | KubeConfigLike, options: SharedInformerFactoryOptions = {}) {
    validateSelectors(options);
    this.transport = toTransport(source, options.transportOptions);
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
  }

  /** True once {@link SharedInformerFactory.shutdown} was called. */
  get isShutdown(): boolean {
    return this.#shutdown;
  }

  /**
   * The shared informer for `resource` with these options, created on first use.
   *
   * @throws `SelectorParseError` when a selector (the call's or the factory's) is malformed.
   * @typeParam T - the object type, carried by the ApiResource.
   */
  forResource<T extends KubeObject>(
    resource: ApiResource<T>,
    options: InformerForOptions<T> = {},
  ): SharedIndexInformer<T> {
    return this.#informerFor(resource, options, false);
  }

  /**
   * The shared metadata-only informer for `resource`: it caches PartialObjectMetadata
   * (apiVersion, kind and metadata; no spec or status), asking the server for that form.
   */
  forResourceMetadata(
    resource: ApiResource<KubeObject>,
    options: InformerForOptions<PartialObjectMetadata> = {},
  ): SharedIndexInformer<PartialObjectMetadata> {
    return this.#informerFor(resource, options, true);
  }

  /** The shared pods informer (`v1`). */
  pods(options?: InformerForOptions<Serialized<V1Pod>>): SharedIndexInformer<Serialized<V1Pod>> {
    return this.forResource(podsResource, options);
  }
  /** The shared configmaps informer (`v1`). */
  configMaps(
    options?: InformerForOptions<Serialized<V1ConfigMap>>,
  ): SharedIndexInformer<Serialized<V1ConfigMap>> {
    return this.forResource(configMapsResource, options);
  }
  /** The shared secrets informer (`v1`). */
  secrets(
    options?: InformerForOptions<Serialized<V1Secret>>,
  ): SharedIndexInformer<Serialized<V1Secret>> {
    return this.forResource(secretsResource, options);
  }
  /** The shared services informer (`v1`). */
  services(
    options?: InformerForOptions<Serialized<V1Service>>,
  ): SharedIndexInformer<Serialized<V1Service>> {
    return this.forResource(servicesResource, options);
  }
  /** The shared deployments informer (`apps/v1`). */
  deployments(
    options?: InformerForOptions<Serialized<V1Deployment>>,
  ): SharedIndexInformer<Serialized<V1Deployment>> {
    return this.forResource(deploymentsResource, options);
  }
  /** The shared leases informer (`coordination.k8s.io/v1`). */
  leases(
    options?: InformerForOptions<Serialized<V1Lease>>,
  ): SharedIndexInformer<Serialized<V1Lease>> {
    return this.forResource(leasesResource, options);
  }
  /** The shared namespaces informer (`v1`, cluster-scoped). */
  namespaces(
    options?: InformerForOptions<Serialized<V1Namespace>>,
  ): SharedIndexInformer<Serialized<V1Namespace>> {
    return this.forResource(namespacesResource, options);
  }
  /** The shared customresourcedefinitions informer (`apiextensions.k8s.io/v1`). */
  customResourceDefinitions(
    options?: InformerForOptions<Serialized<V1CustomResourceDefinition>>,
  ): SharedIndexInformer<Serialized<V1CustomResourceDefinition>> {
    return this.forResource(customResourceDefinitionsResource, options);
  }

  /** Every informer made so far, by key (see {@link informerKey}). */
  informers(): ReadonlyMap<string, SharedIndexInformer<KubeObject>> {
    return new Map([...this.#entries].map(([k, e]) => [k, e.informer]));
  }

  /**
   * Run every informer not yet started until `signal` aborts or {@link
   * SharedInformerFactory.shutdown} is called. Does nothing after shutdown. Returns at
   * once; see `waitForCacheSync` and `shutdown`.
   */
  start(signal: AbortSignal): void {
    if (this.#shutdown) return;
    // One stop signal for the informers this call starts, not one each: an AbortSignal with
    // listeners holds its own maps and shape (about 0.7 KB), and the caller's signal gets
    // one listener per start, not one per informer.
    let controller: AbortController | undefined;
    let running = 0;
    const onAbort = (): void => controller?.abort(signal.reason);
    for (const [key, entry] of this.#entries) {
      if (entry.running !== undefined) continue;
      if (controller === undefined) {
        controller = new AbortController();
        // Every informer of this start listens on it: as many listeners as informers is
        // no leak.
        setMaxListeners(0, controller.signal);
        if (signal.aborted) controller.abort(signal.reason);
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      running++;
      entry.controller = controller;
      entry.running = entry.informer
        .run(controller.signal)
        .catch((err: unknown) => {
          this.#logger.error(`informer ${key} failed`, { error: String(err) });
        })
        .finally(() => {
          if (--running === 0) signal.removeEventListener('abort', onAbort);
        });
    }
  }

  /**
   * Wait until every started informer has synced, or `signal` aborts, or it stops.
   * Resolves to each started informer's key and whether it synced.
   *
   * @param options - `timeoutMs`: give up after this long.
   * @throws {@link CacheSyncTimeoutError} when `timeoutMs` elapses first, naming each
   *   informer that did not sync and its last error (e.g. a 403 in the server's words).
   */
  async waitForCacheSync(
    signal: AbortSignal,
    options: { timeoutMs?: number } = {},
  ): Promise<Map<string, boolean>> {
    const started = [...this.#entries].filter(([, e]) => e.running !== undefined);
    await waitForInformersSync(
      signal,
      started.map(([key, e]) => ({
        name: key,
        hasSynced: () => e.informer.hasSynced() || e.informer.isStopped(),
        lastError: () => e.informer.lastError(),
      })),
      {
        clock: this.#clock,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      },
    );
    return new Map(started.map(([k, e]) => [k, e.informer.hasSynced()]));
  }

  /**
   * Stop every informer and resolve once all of them (and everything they started) have
   * stopped. Later `start` calls do nothing; informers can still be looked up.
   */
  async shutdown(): Promise<void> {
    this.#shutdown = true;
    const running: Promise<void>[] = [];
    for (const entry of this.#entries.values()) {
      entry.controller?.abort();
      if (entry.running !== undefined) running.push(entry.running);
    }
    await Promise.all(running);
  }

  #informerFor<T extends KubeObject>(
    resource: ApiResource<T>,
    options: InformerForOptions<T>,
    metadataOnly: boolean,
  ): SharedIndexInformer<T> {
    const o = this.#options;
    const gr = groupResourceString(resource);
    const nsOption = options.namespace ?? o.namespace;
    const namespace = resource.namespaced && nsOption !== '' ? nsOption : undefined;
    const labelSelector = options.labelSelector ?? o.labelSelector;
    const fieldSelector = options.fieldSelector ?? o.fieldSelector;
    const shardSelector = options.shardSelector ?? o.shardSelector;
    const resyncPeriodMs = options.resyncPeriodMs ?? o.customResync?.[gr] ?? o.resyncPeriodMs;
    const base = informerKey(resource, {
      namespace,
      labelSelector,
      fieldSelector,
      shardSelector,
      metadataOnly,
    });
    const fingerprint = [
      this.#fnIds.id(options.tweakListOptions),
      this.#fnIds.id(options.transform),
      ...Object.entries(options.indexers ?? {})
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, fn]) => `${name}:${this.#fnIds.id(fn)}`),
      `resync:${resyncPeriodMs ?? 0}`,
    ].join(',');
    const fullBase = `${base}\u0000${fingerprint}`;
    let variant = this.#variants.get(fullBase);
    if (variant === undefined) {
      variant = [...this.#variants.keys()].filter((k) => k.startsWith(`${base}\u0000`)).length;
      this.#variants.set(fullBase, variant);
    }
    const key = informerKey(resource, {
      namespace,
      labelSelector,
      fieldSelector,
      shardSelector,
      metadataOnly,
      variant,
    });
    const existing = this.#entries.get(key);
    if (existing !== undefined) return existing.informer as unknown as SharedIndexInformer<T>;

    let client = new ResourceClient<KubeObject>(this.transport, resource);
    if (namespace !== undefined) client = client.namespace(namespace);
    const lwClient = metadataOnly ? client.metadata() : client;
    const factoryTweak = o.tweakListOptions;
    const callTweak = options.tweakListOptions;
    const tweak: TweakListOptionsFunc | undefined =
      factoryTweak === undefined
        ? callTweak
        : callTweak === undefined
          ? factoryTweak
          : (lo) => {
              const first = factoryTweak(lo) ?? lo;
              return callTweak(first) ?? first;
            };
    let lw: ListerWatcher<T> = listWatchFromClient<T>(lwClient as unknown as ResourceClient<T>, {
      ...(labelSelector !== undefined ? { labelSelector } : {}),
      ...(fieldSelector !== undefined ? { fieldSelector } : {}),
      ...(shardSelector !== undefined ? { shardSelector } : {}),
      ...(tweak !== undefined ? { tweakListOptions: tweak } : {}),
      logger: this.#logger,
      name: key,
    });
    let reporter: SyncFailureReporter | undefined;
    if (o.informerOptions?.watchErrorHandler === undefined) {
      reporter = new SyncFailureReporter({
        name: key,
        target: {
          group: resource.group,
          version: resource.version,
          resource: resource.resource,
          namespace,
        },
        logger: this.#logger,
        clock: this.#clock,
      });
      lw = reportingSuccess(lw, reporter);
    }
    const transform: TransformFunc<T> | undefined = options.transform ?? o.transform;
    const informer = new SharedIndexInformer<T>(lw, {
      ...o.informerOptions,
      ...(reporter !== undefined
        ? { watchErrorHandler: (err: unknown) => reporter.failed(err) }
        : {}),
      name: key,
      groupResource: { group: resource.group, resource: resource.resource },
      clock: this.#clock,
      logger: this.#logger,
      ...(resyncPeriodMs !== undefined ? { resyncPeriodMs } : {}),
      ...(transform !== undefined ? { transform } : {}),
      // Per-call indexes add to the namespace index every typed informer has.
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc, ...options.indexers },
    });
    this.#entries.set(key, {
      informer: informer as unknown as SharedIndexInformer<KubeObject>,
      running: undefined,
      controller: undefined,
    });
    return informer;
  }
}

/** `lw`, telling `reporter` each time a list or a watch is accepted (the end of a failure). */
function reportingSuccess<T>(
  lw: ListerWatcher<T>,
  reporter: SyncFailureReporter,
): ListerWatcher<T> {
  return {
    list: async (options, signal) => {
      const page = await lw.list(options, signal);
      reporter.succeeded();
      return page;
    },
    watch: async (options, signal) => {
      const stream = await lw.watch(options, signal);
      reporter.succeeded();
      return stream;
    },
  };
}
