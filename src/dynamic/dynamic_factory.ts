/**
 * Informer factories keyed by group/version/resource (client-go's `dynamicinformer` and
 * `metadatainformer`): the dynamic factory serves {@link UnstructuredObject}s, the
 * metadata factory {@link PartialObjectMetadata}. Both share one informer per resource
 * and options and have the lifecycle of {@link SharedInformerFactory} (`start`,
 * `waitForCacheSync`, `shutdown`).
 *
 * Given a full {@link ApiResource} (group, version, resource, kind, scope) they make the
 * informer at once; given only a {@link GroupVersionResource}, `forGroupVersionResource`
 * asks discovery for the kind and scope first (cached per group-version).
 *
 * ```ts
 * const dyn = new DynamicSharedInformerFactory(kc, { namespace: 'prod' });
 * const widgets = await dyn.forGroupVersionResource({ group: 'example.com', version: 'v1', resource: 'widgets' });
 * dyn.start(signal);
 * ```
 *
 * @module
 */
import { Discovery } from '../client/discovery.js';
import { NoMatchError } from '../client/errors.js';
import type { KubeConfigLike, Transport } from '../client/transport.js';
import type {
  ApiResource,
  GroupVersionResource,
  PartialObjectMetadata,
  UnstructuredObject,
} from '../client/types.js';
import { SharedInformerFactory } from '../cache/factory.js';
import type { InformerForOptions, SharedInformerFactoryOptions } from '../cache/factory.js';
import type { SharedIndexInformer } from '../cache/shared_informer.js';

/** Resolve a GVR to an ApiResource through discovery. */
async function resolveGvr(
  discovery: Discovery,
  gvr: GroupVersionResource,
  signal: AbortSignal | undefined,
): Promise<ApiResource<UnstructuredObject>> {
  const find = async (): Promise<ApiResource<UnstructuredObject> | undefined> =>
    (await discovery.resources(gvr.group, gvr.version, signal)).find(
      (r) => r.resource === gvr.resource,
    );
  let found = await find();
  if (found === undefined) {
    discovery.invalidate();
    found = await find();
  }
  if (found === undefined) {
    const query = `${gvr.group === '' ? '' : `${gvr.group}/`}${gvr.version}, Resource=${gvr.resource}`;
    throw new NoMatchError(
      query,
      `the server does not serve ${query}; check the group, version and plural resource name, or install its CustomResourceDefinition`,
    );
  }
  return {
    group: found.group,
    version: found.version,
    resource: found.resource,
    kind: found.kind,
    namespaced: found.namespaced,
  };
}

/** What both GVR-keyed factories share: the underlying factory and discovery. */
abstract class GvrInformerFactory<T extends UnstructuredObject | PartialObjectMetadata> {
  /** The factory that owns the informers (its transport, start, shutdown). */
  protected readonly factory: SharedInformerFactory;
  readonly #discovery: Discovery;

  /**
   * @param source - a client-node KubeConfig (1.x or 2.x) or a shared Transport.
   * @param options - defaults for every informer.
   */
  constructor(source: Transport | KubeConfigLike, options: SharedInformerFactoryOptions = {}) {
    this.factory = new SharedInformerFactory(source, options);
    this.#discovery = new Discovery(this.factory.transport);
  }

  /** The shared informer of `resource` (kind and scope known), created on first use. */
  abstract forResource(
    resource: ApiResource<T> | ApiResource<UnstructuredObject>,
    options?: InformerForOptions<T>,
  ): SharedIndexInformer<T>;

  /**
   * The shared informer of a group/version/resource, resolving its kind and scope through
   * discovery.
   *
   * @throws NoMatchError when the server does not serve the resource.
   */
  async forGroupVersionResource(
    gvr: GroupVersionResource,
    options: InformerForOptions<T> & { signal?: AbortSignal } = {},
  ): Promise<SharedIndexInformer<T>> {
    const { signal, ...rest } = options;
    const resource = await resolveGvr(this.#discovery, gvr, signal);
    return this.forResource(resource, rest);
  }

  /** Every informer made so far, by key. */
  informers(): ReadonlyMap<string, SharedIndexInformer<T>> {
    return this.factory.informers() as unknown as ReadonlyMap<string, SharedIndexInformer<T>>;
  }

  /** Run every informer not yet started until `signal` aborts; nothing after shutdown. */
  start(signal: AbortSignal): void {
    this.factory.start(signal);
  }

  /** Wait for every started informer to sync; resolves to key → synced. */
  waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    return this.factory.waitForCacheSync(signal);
  }

  /** Stop every informer; resolves once all have stopped. */
  shutdown(): Promise<void> {
    return this.factory.shutdown();
  }
}

/** Shared informers of unstructured objects, keyed by group/version/resource. */
export class DynamicSharedInformerFactory extends GvrInformerFactory<UnstructuredObject> {
  /** The shared informer of `resource`, created on first use. */
  forResource(
    resource: ApiResource<UnstructuredObject>,
    options: InformerForOptions<UnstructuredObject> = {},
  ): SharedIndexInformer<UnstructuredObject> {
    return this.factory.forResource(resource, options);
  }
}

/**
 * Shared metadata-only informers, keyed by group/version/resource: each caches
 * PartialObjectMetadata (no spec, no status), a fraction of the memory of full objects.
 * Use them to follow objects whose metadata is all you need (owners, labels, finalizers).
 */
export class MetadataSharedInformerFactory extends GvrInformerFactory<PartialObjectMetadata> {
  /** The shared metadata-only informer of `resource`, created on first use. */
  forResource(
    resource: ApiResource<PartialObjectMetadata> | ApiResource<UnstructuredObject>,
    options: InformerForOptions<PartialObjectMetadata> = {},
  ): SharedIndexInformer<PartialObjectMetadata> {
    return this.factory.forResourceMetadata(resource, options);
  }
}
