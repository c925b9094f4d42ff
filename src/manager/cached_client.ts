/**
 * A cache-backed client (controller-runtime's default client): reads come from the
 * manager's informers, writes go to the API server.
 *
 * Rules:
 *
 * - `get` and `list` are served from an informer of the resource (all namespaces, or the
 *   manager's cache namespaces). The first read of a resource creates that informer,
 *   starts it, and waits for it to sync; later reads answer from memory at once.
 * - What a read returns is the cached object, shared and typed {@link DeepReadonly}: copy
 *   it before changing it. The cache may lag the server (a write is visible to reads once
 *   its watch event arrived); use {@link CachedClient.direct} to read the server itself.
 * - A miss is the API server's error: `get` throws {@link NotFoundError}. A namespace
 *   outside the cache namespaces throws `NamespaceNotCachedError`.
 * - Reads before `manager.start()`, or after shutdown began, throw
 *   {@link CacheNotStartedError} (controller-runtime's `ErrCacheNotStarted`).
 * - Writes (`create`, `update`, `updateStatus`, `patch`, `delete`) go to the API server
 *   through {@link CachedClient.direct}.
 *
 * @module
 */
import type { DeepReadonly } from '../cache/deep_readonly.js';
import type { LabelSelector } from '../apimachinery/labels.js';
import { parseLabelSelector } from '../apimachinery/labels.js';
import type {
  DeleteOptions,
  PatchOptions,
  ResourceClient,
  WriteOptions,
} from '../client/resource_client.js';
import type { ApiResource, KubeObject, Status } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { KubeControllerKitError } from '../util/errors.js';
import type { CacheInformer } from './multi_namespace.js';

/** A read was made while the cache is not running (before `start()` or after shutdown began). */
export class CacheNotStartedError extends KubeControllerKitError {
  /** @param resource - what was read. */
  constructor(resource: string) {
    super(
      `cannot read ${resource} from the cache: the cache is not started; read from a runnable or reconcile after manager.start(), or use client.direct`,
    );
  }
}

/** Options of {@link CachedClient.get}. */
export interface CachedGetOptions {
  /** The object's namespace (namespaced resources). */
  namespace?: string;
  /** Aborts the wait for the first sync. */
  signal?: AbortSignal;
}

/** Options of {@link CachedClient.list}. */
export interface CachedListOptions {
  /** Only this namespace (default: every cached namespace). */
  namespace?: string;
  /** Only objects whose labels match (a string such as `app=web,tier!=db`, or a parsed selector). */
  labelSelector?: string | LabelSelector;
  /** Aborts the wait for the first sync. */
  signal?: AbortSignal;
}

/** What a {@link CachedClient} needs from its manager (internal). @internal */
export interface CacheHost {
  informer<T extends KubeObject>(resource: ApiResource<T>): CacheInformer<T>;
  /** Starts informers created since; false when the cache is not running. */
  ensureInformersRunning(): boolean;
  /** Aborts when the cache stops. */
  cacheSignal(): AbortSignal | undefined;
  readonly clock: Clock;
}

function resourceName(r: ApiResource<KubeObject>): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

/**
 * Reads from the cache, writes to the API server. Get one with `manager.client(resource)`.
 *
 * @typeParam T - the object type (wire form), carried by the ApiResource.
 * @example
 * ```ts
 * const cms = manager.client(configMapsResource);
 * const cm = await cms.get('settings', { namespace: 'default' }); // from the cache
 * await cms.update({ ...deepCopy(cm), data: { mode: 'on' } }); // to the server
 * ```
 */
export class CachedClient<T extends KubeObject> {
  /** The resource. */
  readonly resource: ApiResource<T>;
  /** The API server client the writes (and uncached reads) go through. */
  readonly direct: ResourceClient<T>;
  readonly #host: CacheHost;
  #informer: CacheInformer<T> | undefined;

  /** @internal */
  constructor(host: CacheHost, resource: ApiResource<T>, direct: ResourceClient<T>) {
    this.#host = host;
    this.resource = resource;
    this.direct = direct;
  }

  /**
   * The cached object `name` (in `options.namespace` for namespaced resources).
   *
   * @throws NotFoundError when it is not in the cache.
   * @throws {@link CacheNotStartedError} before start or after shutdown.
   */
  async get(name: string, options: CachedGetOptions = {}): Promise<DeepReadonly<T>> {
    const informer = await this.#synced(options.signal);
    const lister = informer.lister();
    if (this.resource.namespaced) {
      return lister.byNamespace(options.namespace ?? '').get(name);
    }
    return lister.get(name);
  }

  /**
   * The cached objects (of `options.namespace`, or every cached namespace) whose labels
   * match `options.labelSelector`.
   *
   * @throws SelectorParseError for a malformed selector string.
   * @throws {@link CacheNotStartedError} before start or after shutdown.
   */
  async list(options: CachedListOptions = {}): Promise<DeepReadonly<T>[]> {
    const selector =
      typeof options.labelSelector === 'string'
        ? parseLabelSelector(options.labelSelector)
        : options.labelSelector;
    const informer = await this.#synced(options.signal);
    const lister = informer.lister();
    if (this.resource.namespaced && options.namespace !== undefined && options.namespace !== '') {
      return lister.byNamespace(options.namespace).list(selector);
    }
    return lister.list(selector);
  }

  /** Create `obj` on the API server (its namespace from the object). */
  create(obj: T, options?: WriteOptions): Promise<T> {
    return this.direct.create(obj, options);
  }

  /** Replace `obj` on the API server (optimistic concurrency through its resourceVersion). */
  update(obj: T, options?: WriteOptions): Promise<T> {
    return this.direct.update(obj, options);
  }

  /** Replace `obj`'s status on the API server. */
  updateStatus(obj: T, options?: WriteOptions): Promise<T> {
    return this.direct.updateStatus(obj, options);
  }

  /** Patch `name` (in `options.namespace`) on the API server. */
  patch(
    name: string,
    patch: unknown,
    options: PatchOptions & { namespace?: string } = {},
  ): Promise<T> {
    const { namespace, ...rest } = options;
    return this.#scoped(namespace).patch(name, patch, rest);
  }

  /** Delete `name` (in `options.namespace`) on the API server. */
  delete(name: string, options: DeleteOptions & { namespace?: string } = {}): Promise<T | Status> {
    const { namespace, ...rest } = options;
    return this.#scoped(namespace).delete(name, rest);
  }

  #scoped(namespace: string | undefined): ResourceClient<T> {
    return namespace === undefined ? this.direct : this.direct.namespace(namespace);
  }

  async #synced(signal: AbortSignal | undefined): Promise<CacheInformer<T>> {
    const name = resourceName(this.resource);
    this.#informer ??= this.#host.informer(this.resource);
    const informer = this.#informer;
    if (!this.#host.ensureInformersRunning()) throw new CacheNotStartedError(name);
    const cacheSignal = this.#host.cacheSignal()!;
    while (!informer.hasSynced()) {
      if (cacheSignal.aborted) throw new CacheNotStartedError(name);
      signal?.throwIfAborted();
      const waitSignal =
        signal === undefined ? cacheSignal : AbortSignal.any([signal, cacheSignal]);
      try {
        await this.#host.clock.sleep(SYNC_POLL_MS, waitSignal);
      } catch {
        // aborted: the loop reports why
      }
    }
    return informer;
  }
}

/** How often a first read polls its informer's sync. */
const SYNC_POLL_MS = 20;
