/**
 * A typed client for one resource: the verbs of the Kubernetes API for a
 * group/version/resource, namespaced or cluster-scoped.
 *
 * ```ts
 * const pods = new ResourceClient(kc, podsResource).namespace('default');
 * const pod = await pods.get('web-0');
 * for await (const p of pods.listAll({ labelSelector: 'app=web' })) console.log(p.metadata?.name);
 * ```
 *
 * Objects are plain JSON (the wire form), the same from get, list and watch.
 * A namespaced resource without `.namespace(ns)` lists and watches across all namespaces;
 * `create`, `update` and `patch` of such a client take the namespace from the object.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';
import { decodeWatchStream } from './watch_decoder.js';
import type { KubeConfigLike, QueryParams, Transport, TransportOptions } from './transport.js';
import { toTransport } from './transport.js';
import type {
  ApiResource,
  KubeObject,
  ListOptions,
  ObjectList,
  PartialObjectMetadata,
  Status,
  WatchEvent,
} from './types.js';

/** Per-call options: cancellation and a timeout. */
export interface RequestOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
  /** Overrides the transport's timeout for this call, in ms. */
  timeoutMs?: number | undefined;
}

/**
 * Every field optional, at any depth (arrays keep their element type, each element partial).
 */
export type DeepPartial<T> = T extends (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * What server-side apply takes for an object of type `T`: any part of it
 * ({@link DeepPartial}), with its identity required — `apiVersion`, `kind` and
 * `metadata.name`. (`metadata.namespace` is required at run time for a namespaced resource
 * unless the client is scoped to a namespace.)
 */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<T> & {
  /** `group/version` of the object (required by apply). */
  apiVersion: string;
  /** Kind of the object (required by apply). */
  kind: string;
  /** Metadata; `name` is required. */
  metadata: DeepPartial<NonNullable<T['metadata']>> & {
    /** The object's name (required by apply). */
    name: string;
  };
};

/** Options of writes (create, update, patch). */
export interface WriteOptions extends RequestOptions {
  /** Validate and run admission, but persist nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** The field manager recorded in managedFields. */
  fieldManager?: string;
}

/** The four patch formats the API server accepts. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** Options of {@link ResourceClient.patch}. */
export interface PatchOptions extends WriteOptions {
  /**
   * `merge` (RFC 7386 JSON merge patch, the default), `json` (RFC 6902 operations),
   * `strategic` (strategic merge patch, built-in types only) or `apply` (server-side apply:
   * the patch is the full intent; needs `fieldManager`).
   */
  type?: PatchType;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
  /** Patch a subresource, e.g. `status`. */
  subresource?: string;
}

/** Preconditions of a delete: it fails with 409 Conflict unless they hold. */
export interface Preconditions {
  /** The object must have this uid. */
  uid?: string;
  /** The object must be at this resourceVersion. */
  resourceVersion?: string;
}

/** Options of {@link ResourceClient.delete} and {@link ResourceClient.deleteCollection}. */
export interface DeleteOptions extends RequestOptions {
  /** What happens to dependents: `Orphan`, `Background` or `Foreground`. */
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Seconds before the object is deleted; 0 = immediately. */
  gracePeriodSeconds?: number;
  /** Conditions that must hold for the delete to happen. */
  preconditions?: Preconditions;
  /** Persist nothing (`dryRun=All`). */
  dryRun?: boolean;
}

/** Options of {@link ResourceClient.listAll}. */
export interface ListAllOptions extends Omit<ListOptions, 'continue'> {
  /** Page size. Default 500 (client-go's pager). */
  limit?: number;
}

/** A paged listing of everything: iterate items, or {@link PagedList.pages}, or {@link PagedList.collect}. */
export interface PagedList<T> extends AsyncIterable<T> {
  /** The pages, one list response each (continue tokens followed). */
  pages(): AsyncIterable<ObjectList<T>>;
  /** All items in one list, with the resourceVersion of the last page (watch from there). */
  collect(): Promise<ObjectList<T>>;
}

/** Options of a {@link ResourceClient}. */
export interface ResourceClientOptions extends TransportOptions {
  /** Scope every call to this namespace (same as `.namespace(ns)`). */
  namespace?: string;
}

/** A write was sent to the wrong namespace, or a namespaced object has none. */
export class NamespaceMismatchError extends KubeControllerKitError {}

const metadataAcceptOne =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const metadataAcceptList =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

function listQuery(
  options: ListOptions | undefined,
  watch: boolean,
): Record<string, string | number | boolean | undefined> {
  const q: Record<string, string | number | boolean | undefined> = {};
  if (options === undefined) return watch ? { watch: true } : q;
  q.labelSelector = options.labelSelector;
  q.fieldSelector = options.fieldSelector;
  q.resourceVersion = options.resourceVersion;
  q.resourceVersionMatch = options.resourceVersionMatch;
  q.limit = options.limit;
  q.continue = options.continue === '' ? undefined : options.continue;
  q.timeoutSeconds = options.timeoutSeconds;
  q.allowWatchBookmarks = options.allowWatchBookmarks;
  q.sendInitialEvents = options.sendInitialEvents;
  q.shardSelector = options.shardSelector;
  if (watch) q.watch = true;
  return q;
}

/** `group/version`, or `version` for the core group. */
function apiVersionOf(resource: ApiResource<unknown>): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

function writeQuery(options: WriteOptions | undefined): QueryParams {
  return {
    dryRun: options?.dryRun === true ? 'All' : undefined,
    fieldManager: options?.fieldManager,
  };
}

/**
 * The verbs of one resource. Create with a KubeConfig (a transport is made for it) or a
 * shared {@link Transport}, and an {@link ApiResource} such as `podsResource`.
 *
 * @typeParam T - the object type (wire form), carried by the ApiResource.
 */
export class ResourceClient<T extends KubeObject> {
  /** The resource this client addresses. */
  readonly resource: ApiResource<T>;
  /** The namespace calls are scoped to, or undefined (all namespaces / cluster-scoped). */
  readonly namespaceName: string | undefined;
  /** The transport requests go through. */
  readonly transport: Transport;
  #metadataOnly: boolean;

  /**
   * @param source - a client-node KubeConfig (1.x or 2.x) or a shared Transport.
   * @param resource - what to address, e.g. `podsResource` or a discovered ApiResource.
   * @param options - namespace scope, and transport options when `source` is a KubeConfig.
   */
  constructor(
    source: Transport | KubeConfigLike,
    resource: ApiResource<T>,
    options: ResourceClientOptions = {},
  ) {
    this.transport = toTransport(source, options);
    this.resource = resource;
    this.namespaceName = options.namespace === '' ? undefined : options.namespace;
    this.#metadataOnly = false;
  }

  /** True when this client asks for PartialObjectMetadata (see {@link ResourceClient.metadata}). */
  get metadataOnly(): boolean {
    return this.#metadataOnly;
  }

  /**
   * The same client scoped to namespace `ns` (`''` = all namespaces).
   *
   * @throws NamespaceMismatchError for a cluster-scoped resource.
   */
  namespace(ns: string): ResourceClient<T> {
    if (!this.resource.namespaced && ns !== '') {
      throw new NamespaceMismatchError(
        `${this.#resourceName()} is cluster-scoped; it cannot be scoped to namespace "${ns}"`,
      );
    }
    return this.#derive<T>(this.resource, ns === '' ? undefined : ns, this.#metadataOnly);
  }

  /**
   * A metadata-only view of the same resource: get, list and watch return
   * PartialObjectMetadata (client-go's metadata client Accept header), which is much
   * smaller than full objects. Each object carries this resource's `apiVersion` and `kind`
   * (not `meta.k8s.io/v1` `PartialObjectMetadata` as the server sends it), so references
   * and Events built from it point at the real object.
   */
  metadata(): ResourceClient<PartialObjectMetadata> {
    return this.#derive<PartialObjectMetadata>(this.resource, this.namespaceName, true);
  }

  #derive<U extends KubeObject>(
    resource: ApiResource<U>,
    ns: string | undefined,
    metadataOnly: boolean,
  ): ResourceClient<U> {
    const made = new ResourceClient<U>(
      this.transport,
      resource,
      ns === undefined ? {} : { namespace: ns },
    );
    made.#metadataOnly = metadataOnly;
    return made;
  }

  /**
   * A metadata-only client's object with the apiVersion and kind of the resource it came
   * from (the server sends every one as `meta.k8s.io/v1` `PartialObjectMetadata`), so that
   * references, owner references and events built from it name the real object, as
   * controller-runtime's metadata client does. Any other client's object is returned as is.
   */
  #retyped<O>(obj: O): O {
    if (!this.#metadataOnly || typeof obj !== 'object' || obj === null) return obj;
    const kind = this.resource.kind;
    if (kind === '') return obj;
    const o = obj as KubeObject;
    o.apiVersion = apiVersionOf(this.resource);
    o.kind = kind;
    return obj;
  }

  #resourceName(): string {
    return this.resource.group === ''
      ? this.resource.resource
      : `${this.resource.resource}.${this.resource.group}`;
  }

  #path(ns: string | undefined, name?: string, subresource?: string): string {
    const r = this.resource;
    let path = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    if (r.namespaced && ns !== undefined) path += `/namespaces/${encodeURIComponent(ns)}`;
    path += `/${r.resource}`;
    if (name !== undefined) {
      if (name === '') {
        throw new KubeControllerKitError(
          `a name is required to address one ${this.#resourceName()} object; pass a non-empty name`,
        );
      }
      path += `/${encodeURIComponent(name)}`;
    }
    if (subresource !== undefined) path += `/${subresource}`;
    return path;
  }

  /** The namespace of a call on one named object: the scope, else a NamespaceMismatchError. */
  #namespaceForName(name: string): string | undefined {
    if (!this.resource.namespaced) return undefined;
    if (this.namespaceName === undefined) {
      throw new NamespaceMismatchError(
        `${this.#resourceName()} "${name}" is namespaced; call .namespace(ns) on the client first`,
      );
    }
    return this.namespaceName;
  }

  /** The namespace of a write: from the object, checked against the scope. */
  #namespaceForObject(obj: KubeObject): string | undefined {
    if (!this.resource.namespaced) return undefined;
    const fromObject = obj.metadata?.namespace;
    const name = obj.metadata?.name ?? obj.metadata?.generateName ?? '';
    if (this.namespaceName !== undefined) {
      if (fromObject !== undefined && fromObject !== '' && fromObject !== this.namespaceName) {
        throw new NamespaceMismatchError(
          `${this.#resourceName()} "${name}" has namespace "${fromObject}" but the client is scoped to "${this.namespaceName}"; ` +
            `use .namespace("${fromObject}") or fix metadata.namespace`,
        );
      }
      return this.namespaceName;
    }
    if (fromObject === undefined || fromObject === '') {
      throw new NamespaceMismatchError(
        `${this.#resourceName()} "${name}" is namespaced but has no metadata.namespace and the client has no namespace; ` +
          `set metadata.namespace or call .namespace(ns)`,
      );
    }
    return fromObject;
  }

  #nameOf(obj: KubeObject, verb: string): string {
    const name = obj.metadata?.name;
    if (name === undefined || name === '') {
      throw new KubeControllerKitError(
        `cannot ${verb} a ${this.#resourceName()} object without metadata.name; set it first`,
      );
    }
    return name;
  }

  /** Reads one object. @throws ApiError (404 NotFound when it does not exist). */
  async get(name: string, options: RequestOptions = {}): Promise<T> {
    const obj = await this.transport.request<T>({
      method: 'GET',
      path: this.#path(this.#namespaceForName(name), name),
      accept: this.#metadataOnly ? metadataAcceptOne : 'application/json',
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    return this.#retyped(obj);
  }

  /** Reads one object through its `status` subresource. */
  async getStatus(name: string, options: RequestOptions = {}): Promise<T> {
    return this.transport.request<T>({
      method: 'GET',
      path: this.#path(this.#namespaceForName(name), name, 'status'),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  /**
   * Lists one page (honouring `limit`/`continue`), across all namespaces when the client
   * is not scoped.
   */
  async list(options?: ListOptions, request: RequestOptions = {}): Promise<ObjectList<T>> {
    const list = await this.transport.request<ObjectList<T>>({
      method: 'GET',
      path: this.#path(this.namespaceName),
      query: listQuery(options, false),
      accept: this.#metadataOnly ? metadataAcceptList : 'application/json',
      signal: request.signal,
      timeoutMs: request.timeoutMs,
    });
    if (this.#metadataOnly && Array.isArray(list.items)) {
      for (const item of list.items) this.#retyped(item);
    }
    return list;
  }

  /**
   * Everything, page by page (limit 500 by default), following continue tokens. Continue
   * pages drop resourceVersion and resourceVersionMatch, as the API requires.
   */
  listAll(options: ListAllOptions = {}, request: RequestOptions = {}): PagedList<T> {
    const pages = async function* (this: ResourceClient<T>): AsyncGenerator<ObjectList<T>> {
      let token: string | undefined;
      const limit = options.limit ?? 500;
      do {
        const page: ListOptions =
          token === undefined
            ? { ...options, limit }
            : {
                ...(options.labelSelector === undefined
                  ? {}
                  : { labelSelector: options.labelSelector }),
                ...(options.fieldSelector === undefined
                  ? {}
                  : { fieldSelector: options.fieldSelector }),
                limit,
                continue: token,
              };
        const list = await this.list(page, request);
        yield list;
        token = list.metadata?.continue === '' ? undefined : list.metadata?.continue;
      } while (token !== undefined);
    }.bind(this);
    return {
      pages,
      async *[Symbol.asyncIterator]() {
        for await (const page of pages()) yield* page.items;
      },
      async collect() {
        const items: T[] = [];
        let last: ObjectList<T> | undefined;
        for await (const page of pages()) {
          for (const item of page.items) items.push(item);
          last = page;
        }
        const out: ObjectList<T> = { metadata: {}, items };
        if (last?.apiVersion !== undefined) out.apiVersion = last.apiVersion;
        if (last?.kind !== undefined) out.kind = last.kind;
        if (last?.metadata?.resourceVersion !== undefined)
          out.metadata.resourceVersion = last.metadata.resourceVersion;
        return out;
      },
    };
  }

  /**
   * Starts a watch. Resolves once the server accepted it (headers received); a 429/5xx
   * answer with Retry-After is retried by the transport, any other failure rejects with an
   * ApiError. Iterate to get events as they stream; ERROR
   * events are yielded; a malformed line throws WatchDecodeError, a line longer than the
   * transport's `maxWatchEventBytes` (16 MiB by default) WatchEventTooLargeError; leaving
   * the loop or aborting closes the connection.
   */
  async watch(
    options: ListOptions,
    request: { signal?: AbortSignal | undefined } = {},
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    const open = await this.transport.stream({
      method: 'GET',
      path: this.#path(this.namespaceName),
      query: listQuery(options, true),
      accept: this.#metadataOnly ? metadataAcceptOne : 'application/json',
      signal: request.signal,
    });
    return decodeWatchStream<T>(
      open.body,
      () => open.close(),
      open.context,
      request.signal,
      this.#metadataOnly ? (object) => this.#retyped(object) : undefined,
      { maxEventBytes: this.transport.maxWatchEventBytes },
    );
  }

  /** Creates an object; the namespace comes from the scope or the object. */
  async create(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.transport.request<T>({
      method: 'POST',
      path: this.#path(this.#namespaceForObject(obj)),
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  /**
   * Replaces an object (PUT). With `metadata.resourceVersion` set, a stale version fails
   * with 409 Conflict (see `isConflict`).
   */
  async update(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.transport.request<T>({
      method: 'PUT',
      path: this.#path(this.#namespaceForObject(obj), this.#nameOf(obj, 'update')),
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  /** Replaces an object's status through the `status` subresource (spec changes are ignored). */
  async updateStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.transport.request<T>({
      method: 'PUT',
      path: this.#path(
        this.#namespaceForObject(obj),
        this.#nameOf(obj, 'update the status of'),
        'status',
      ),
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  /**
   * Patches an object: merge patch by default; `type` selects JSON patch, strategic merge
   * or server-side apply (`fieldManager` required, `force` optional).
   */
  async patch(name: string, patch: unknown, options: PatchOptions = {}): Promise<T> {
    const type = options.type ?? 'merge';
    if (type === 'apply' && (options.fieldManager === undefined || options.fieldManager === '')) {
      throw new KubeControllerKitError(
        `server-side apply of ${this.#resourceName()} "${name}" needs a fieldManager; pass { fieldManager: 'my-controller' }`,
      );
    }
    const patched = await this.transport.request<T>({
      method: 'PATCH',
      path: this.#path(this.#namespaceForName(name), name, options.subresource),
      query: {
        ...writeQuery(options),
        force: type === 'apply' && options.force === true ? true : undefined,
      },
      body: patch,
      contentType: patchContentTypes[type],
      accept: this.#metadataOnly ? metadataAcceptOne : 'application/json',
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    return this.#retyped(patched);
  }

  /**
   * Server-side apply of a partial object: only the fields this field manager owns (its
   * intent). `apiVersion`, `kind` and `metadata.name` are required; the namespace comes from
   * `metadata.namespace` or the client's scope (one of them is required for a namespaced
   * resource: {@link NamespaceMismatchError}). Shorthand for
   * `patch(name, partial, { type: 'apply', fieldManager, force })`; resolves with the whole
   * object as the server stored it.
   *
   * @example
   * ```ts
   * await deployments(kc).apply(
   *   { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
   *     spec: { replicas: 3 } },
   *   { fieldManager: 'my-controller', force: true },
   * );
   * ```
   */
  async apply(
    partial: ApplyConfiguration<T>,
    options: WriteOptions & { fieldManager: string; force?: boolean },
  ): Promise<T> {
    const obj = partial as KubeObject;
    const ns = this.#namespaceForObject(obj);
    const scoped = ns === this.namespaceName ? this : this.namespace(ns ?? '');
    return scoped.patch(this.#nameOf(obj, 'apply'), partial, { ...options, type: 'apply' });
  }

  /**
   * Deletes an object. Resolves with the object (when finalizers or a grace period keep it
   * for now) or the server's Status (when it is gone).
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    return this.transport.request<T | Status>({
      method: 'DELETE',
      path: this.#path(this.#namespaceForName(name), name),
      query: { dryRun: options.dryRun === true ? 'All' : undefined },
      body: deleteBody(options),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }

  /** Deletes every object matching the selectors (in the scoped namespace, or cluster-wide). */
  async deleteCollection(
    listOptions: Pick<ListOptions, 'labelSelector' | 'fieldSelector'> = {},
    options: DeleteOptions = {},
  ): Promise<Status | ObjectList<T>> {
    if (this.resource.namespaced && this.namespaceName === undefined) {
      throw new NamespaceMismatchError(
        `deleteCollection of ${this.#resourceName()} needs a namespace; call .namespace(ns) first`,
      );
    }
    return this.transport.request<Status | ObjectList<T>>({
      method: 'DELETE',
      path: this.#path(this.namespaceName),
      query: {
        labelSelector: listOptions.labelSelector,
        fieldSelector: listOptions.fieldSelector,
        dryRun: options.dryRun === true ? 'All' : undefined,
      },
      body: deleteBody(options),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }
}

function deleteBody(options: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (options.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined)
    body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) body.preconditions = options.preconditions;
  if (options.dryRun === true) body.dryRun = ['All'];
  return body;
}
