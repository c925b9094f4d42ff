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
 * - **Read your own writes** (Kubernetes 1.36's consistency store): once the resource's
 *   informer exists, every write's answer is recorded ({@link CachedClient.consistency}); a
 *   later `get` of that object, and any `list`, first waits until the informer has seen the
 *   resourceVersion written (`lastStoreSyncResourceVersion`), up to `consistencyTimeoutMs`
 *   (default 10 s, abortable by the read's signal), then fails with a `StaleCacheError`
 *   saying which write the cache has not seen — never an answer from before the write.
 * - **Lists by field** (controller-runtime's `IndexField` + `MatchingFields`): register a
 *   field with {@link CachedClient.indexField} (an index `field:<name>` on the informer,
 *   keyed per namespace and across namespaces as controller-runtime keys it), then list
 *   with `fieldSelector`: several fields are ANDed, together with the label selector and
 *   the namespace. The first field is looked up in its index (cost in proportion to its
 *   answer), the others are checked against their index functions. A field with no index is
 *   a {@link FieldIndexNotRegisteredError} naming it, never a silent full scan; `!=` is a
 *   {@link UnsupportedFieldSelectorError} (the cache answers exact matches only).
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
import type { FieldSelector } from '../apimachinery/fields.js';
import { fieldSelectorFromSet, parseFieldSelector } from '../apimachinery/fields.js';
import type { ReadonlyIndexer } from '../cache/indexer.js';
import { ConsistencyStore } from '../cache/consistency.js';
import { SharedIndexInformer } from '../cache/shared_informer.js';
import { MultiNamespaceInformer } from './multi_namespace.js';
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
  /** How long to wait for the cache to see this process's own last write. Default 10 s. */
  consistencyTimeoutMs?: number;
}

/** Options of {@link CachedClient.list}. */
export interface CachedListOptions {
  /** Only this namespace (default: every cached namespace). */
  namespace?: string;
  /** Only objects whose labels match (a string such as `app=web,tier!=db`, or a parsed selector). */
  labelSelector?: string | LabelSelector;
  /**
   * Only objects whose indexed fields have these values (controller-runtime's
   * `MatchingFields`): `{ 'spec.nodeName': 'node-1' }`, or a selector string
   * `spec.nodeName=node-1,status.phase=Running`. Every field needs an index registered with
   * {@link CachedClient.indexField}; the terms are ANDed.
   */
  fieldSelector?: string | Readonly<Record<string, string>> | FieldSelector;
  /** How long to wait for the cache to see this process's own writes. Default 10 s. */
  consistencyTimeoutMs?: number;
  /** Aborts the wait for the first sync. */
  signal?: AbortSignal;
}

/** A list asked for a field that has no index in the cache. */
export class FieldIndexNotRegisteredError extends KubeControllerKitError {
  /** The field asked for. */
  readonly field: string;
  /** @param resource - e.g. `pods`; @param field - the field. */
  constructor(resource: string, field: string) {
    super(
      `cannot list ${resource} by field ${field} from the cache: no index is registered for ${field}; ` +
        `register one with client.indexField('${field}', extract) before listing, or list from client.direct`,
    );
    this.field = field;
  }
}

/** A list asked the cache for a field selector it cannot answer (anything but `field=value`). */
export class UnsupportedFieldSelectorError extends KubeControllerKitError {
  /** @param resource - e.g. `pods`; @param selector - the selector. */
  constructor(resource: string, selector: string) {
    super(
      `cannot list ${resource} with field selector "${selector}" from the cache: only exact matches (field=value) are supported by the cache; list from client.direct for others`,
    );
  }
}

/**
 * Maps an object to the values of one field for {@link CachedClient.indexField}
 * (controller-runtime's `IndexerFunc`); return `[]` when the object has none.
 */
export type FieldExtractor<T> = (obj: DeepReadonly<T>) => readonly string[];

/**
 * The informer index that holds field `field` (controller-runtime's `field:<name>`).
 *
 * @internal
 */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/** The key across namespaces (controller-runtime's `__all_namespaces`). */
const ALL_NAMESPACES = '__all_namespaces';

function fieldIndexKey(namespace: string, value: string): string {
  return `${namespace === '' ? ALL_NAMESPACES : namespace}/${value}`;
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
    const key =
      this.resource.namespaced && options.namespace ? `${options.namespace}/${name}` : name;
    await this.consistency.waitReady(key, {
      timeoutMs: options.consistencyTimeoutMs ?? DEFAULT_CONSISTENCY_TIMEOUT_MS,
      signal: options.signal,
    });
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
    const fields = this.#fieldRequirements(options.fieldSelector);
    const informer = await this.#synced(options.signal);
    await this.consistency.waitReady(undefined, {
      timeoutMs: options.consistencyTimeoutMs ?? DEFAULT_CONSISTENCY_TIMEOUT_MS,
      signal: options.signal,
    });
    const lister = informer.lister();
    const namespace =
      this.resource.namespaced && options.namespace !== undefined ? options.namespace : '';
    if (fields.length === 0) {
      if (namespace !== '') return lister.byNamespace(namespace).list(selector);
      return lister.list(selector);
    }
    // A namespace outside the cache's set throws here, as a plain list does.
    if (namespace !== '') lister.byNamespace(namespace);
    const indexers = indexersOf(informer, this.resource);
    const funcs = fields.map(({ field }) => {
      const fn = indexers[0]?.getIndexers()[fieldIndexName(field)];
      if (fn === undefined)
        throw new FieldIndexNotRegisteredError(resourceName(this.resource), field);
      return fn;
    });
    const [first, ...rest] = fields;
    const out: DeepReadonly<T>[] = [];
    for (const indexer of indexers) {
      for (const obj of indexer.byIndex(
        fieldIndexName(first!.field),
        fieldIndexKey(namespace, first!.value),
      )) {
        if (selector !== undefined && !selector.matches(obj.metadata?.labels ?? {})) continue;
        if (rest.every((r, i) => funcs[i + 1]!(obj as T).includes(fieldIndexKey('', r.value)))) {
          out.push(obj);
        }
      }
    }
    return out;
  }

  /**
   * Register an index of field `field` on this resource's informer, so that `list` can
   * select by it (controller-runtime's `FieldIndexer.IndexField`). `extract` gives the
   * field's values of an object (several values make the object match any of them). The
   * objects already cached are indexed at once; register before the first list that needs
   * it. The index is the informer's, so every client of the resource shares it.
   *
   * @throws IndexerConflictError when the field has an index already.
   */
  indexField(field: string, extract: FieldExtractor<T>): void {
    const indexFn = (obj: T): string[] => {
      const values = extract(obj as DeepReadonly<T>);
      const ns = obj.metadata?.namespace ?? '';
      const keys: string[] = [];
      for (const v of values) {
        keys.push(fieldIndexKey('', v));
        if (ns !== '') keys.push(fieldIndexKey(ns, v));
      }
      return keys;
    };
    this.#informer ??= this.#host.informer(this.resource);
    for (const informer of sharedInformersOf(this.#informer, this.resource)) {
      informer.addIndexers({ [fieldIndexName(field)]: indexFn });
    }
  }

  #fieldRequirements(
    fieldSelector: CachedListOptions['fieldSelector'],
  ): readonly { field: string; value: string }[] {
    if (fieldSelector === undefined) return [];
    const parsed =
      typeof fieldSelector === 'string'
        ? parseFieldSelector(fieldSelector)
        : isFieldSelector(fieldSelector)
          ? fieldSelector
          : fieldSelectorFromSet(fieldSelector);
    for (const r of parsed.requirements) {
      if (r.operator !== '=') {
        throw new UnsupportedFieldSelectorError(resourceName(this.resource), parsed.toString());
      }
    }
    return parsed.requirements;
  }

  /**
   * The read-your-own-writes record of this resource's cache, shared by every client of the
   * resource: writes through this client land in it; give it to `Controller.for(informer, {
   * consistency })` so the controller skips the echoes of its own writes and waits for them
   * before reconciling.
   */
  get consistency(): ConsistencyStore {
    this.#informer ??= this.#host.informer(this.resource);
    const informers = sharedInformersOf(this.#informer, this.resource);
    const anchor = informers[0]!;
    let store = consistencyStores.get(anchor);
    if (store === undefined) {
      const byNamespace = new Map<string, SharedIndexInformer<T>>();
      if (this.#informer instanceof MultiNamespaceInformer) {
        for (const [ns, i] of (this.#informer as MultiNamespaceInformer<T>).informers) {
          byNamespace.set(ns, i);
        }
      }
      store = new ConsistencyStore({
        what: `the ${resourceName(this.resource)} cache`,
        clock: this.#host.clock,
        storeResourceVersion: (key) => {
          const slash = key.indexOf('/');
          const informer = slash > 0 ? (byNamespace.get(key.slice(0, slash)) ?? anchor) : anchor;
          return informer.lastStoreSyncResourceVersion();
        },
      });
      consistencyStores.set(anchor, store);
    }
    return store;
  }

  /** Create `obj` on the API server (its namespace from the object). */
  async create(obj: T, options?: WriteOptions): Promise<T> {
    return this.#wrote(await this.direct.create(obj, options));
  }

  /** Replace `obj` on the API server (optimistic concurrency through its resourceVersion). */
  async update(obj: T, options?: WriteOptions): Promise<T> {
    return this.#wrote(await this.direct.update(obj, options));
  }

  /** Replace `obj`'s status on the API server. */
  async updateStatus(obj: T, options?: WriteOptions): Promise<T> {
    return this.#wrote(await this.direct.updateStatus(obj, options));
  }

  /** Record a write's answer (once the cache exists: before, the first list will include it). */
  #wrote(obj: T): T {
    if (this.#informer !== undefined) {
      const name = obj.metadata?.name;
      if (name !== undefined) {
        const ns = obj.metadata?.namespace;
        this.consistency.wroteAt(
          ns !== undefined && ns !== '' ? `${ns}/${name}` : name,
          obj.metadata?.resourceVersion,
        );
      }
    }
    return obj;
  }

  /** Patch `name` (in `options.namespace`) on the API server. */
  async patch(
    name: string,
    patch: unknown,
    options: PatchOptions & { namespace?: string } = {},
  ): Promise<T> {
    const { namespace, ...rest } = options;
    return this.#wrote(await this.#scoped(namespace).patch(name, patch, rest));
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

function isFieldSelector(x: object): x is FieldSelector {
  return (
    Array.isArray((x as { requirements?: unknown }).requirements) &&
    typeof (x as { matches?: unknown }).matches === 'function'
  );
}

/** The shared informers behind a cache informer (one, or one per namespace). */
function sharedInformersOf<T extends KubeObject>(
  informer: CacheInformer<T>,
  resource: ApiResource<T>,
): SharedIndexInformer<T>[] {
  if (informer instanceof MultiNamespaceInformer) {
    return [...(informer as MultiNamespaceInformer<T>).informers.values()];
  }
  if (informer instanceof SharedIndexInformer) return [informer as SharedIndexInformer<T>];
  throw new KubeControllerKitError(
    `the cache informer of ${resourceName(resource)} is neither a SharedIndexInformer nor a MultiNamespaceInformer, so it has no field indexes`,
  );
}

function indexersOf<T extends KubeObject>(
  informer: CacheInformer<T>,
  resource: ApiResource<T>,
): ReadonlyIndexer<T>[] {
  return sharedInformersOf(informer, resource).map((i) => i.getIndexer());
}

/** How long a read waits by default for the cache to see this process's own writes. */
export const DEFAULT_CONSISTENCY_TIMEOUT_MS = 10_000;

/** One consistency store per informer (keyed by its first shared informer). */
const consistencyStores = new WeakMap<object, ConsistencyStore>();

/** How often a first read polls its informer's sync. */
const SYNC_POLL_MS = 20;
