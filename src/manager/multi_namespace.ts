/**
 * Informers over a set of namespaces (controller-runtime's `cache.Options.DefaultNamespaces`):
 * one informer — one list and one watch — per namespace, and one lister over all of them.
 *
 * Rules:
 *
 * - A namespaced resource gets one informer per namespace of the set (each watching only
 *   its namespace, so the process needs RBAC in those namespaces only). A cluster-scoped
 *   resource gets one cluster-wide informer: namespaces do not apply to it.
 * - A handler added to the multi-namespace informer is added to every per-namespace
 *   informer; it has synced once all of them synced. Removing it removes it everywhere.
 * - The lister lists across every namespace of the set; `byNamespace(ns)` reads that
 *   namespace's informer; a namespace outside the set throws
 *   {@link NamespaceNotCachedError} (controller-runtime: "unknown namespace for the cache")
 *   rather than answering "nothing there".
 *
 * @module
 */
import type { SharedInformerFactory, InformerForOptions } from '../cache/factory.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import type { LabelSelector } from '../apimachinery/labels.js';
import type { Lister, NamespaceLister } from '../cache/listers.js';
import type {
  AddEventHandlerOptions,
  ResourceEventHandlerRegistration,
  SharedIndexInformer,
} from '../cache/shared_informer.js';
import { NotFoundError } from '../client/errors.js';
import type { LastError } from '../cache/reflector.js';
import type { ApiResource, GroupResource, KubeObject } from '../client/types.js';
import { KubeControllerKitError } from '../util/errors.js';
import { InvalidManagerOptionsError } from './errors.js';

/** The handler type the informers take. */
export type InformerHandler<T extends KubeObject> = Parameters<
  SharedIndexInformer<T>['addEventHandler']
>[0];

/** A read was asked of a namespace the cache does not watch. */
export class NamespaceNotCachedError extends KubeControllerKitError {
  /** The namespace asked for. */
  readonly namespace: string;

  /** @param resource - e.g. `configmaps`; @param namespace - the namespace; @param cached - the set. */
  constructor(resource: string, namespace: string, cached: readonly string[]) {
    super(
      `cannot read ${resource} in namespace ${namespace}: the cache watches only namespaces ${cached.join(', ')}; ` +
        'add it to the cache namespaces or read it from the API server',
    );
    this.namespace = namespace;
  }
}

/** Read-only queries over a cache: {@link Lister} and {@link MultiNamespaceLister} both have them. */
export interface CacheLister<T> {
  /** Every cached object whose labels match `selector` (absent = all). */
  list(selector?: LabelSelector): DeepReadonly<T>[];
  /** The cluster-scoped object `name`. @throws NotFoundError when it is not cached. */
  get(name: string): DeepReadonly<T>;
  /** The cluster-scoped object `name`, or undefined. */
  tryGet(name: string): DeepReadonly<T> | undefined;
  /** A lister for one namespace (`''` = all cached namespaces for `list`). */
  byNamespace(namespace: string): NamespaceLister<T>;
}

/** What the cache hands out for a resource: one informer, or one per namespace. */
export interface CacheInformer<T extends KubeObject> {
  /** Add a handler (to every underlying informer). */
  addEventHandler(
    handler: InformerHandler<T>,
    options?: AddEventHandlerOptions,
  ): ResourceEventHandlerRegistration;
  /** Remove a handler added before. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void;
  /** True once every underlying informer has synced. */
  hasSynced(): boolean;
  /** A lister over everything cached. */
  lister(): CacheLister<T>;
  /** Its name in logs and readiness reasons. */
  readonly name: string;
  /** The last error that kept it (or one of its informers) from syncing, if any. */
  lastError(): LastError | undefined;
}

/** A lister over several per-namespace listers. */
export class MultiNamespaceLister<T> implements CacheLister<T> {
  readonly #listers: ReadonlyMap<string, Lister<T>>;
  readonly #groupResource: GroupResource;

  /** @param listers - namespace → that namespace's lister. */
  constructor(listers: ReadonlyMap<string, Lister<T>>, groupResource: GroupResource) {
    this.#listers = listers;
    this.#groupResource = groupResource;
  }

  /** Every cached object of every namespace of the set, matching `selector`. */
  list(selector?: LabelSelector): DeepReadonly<T>[] {
    const out: DeepReadonly<T>[] = [];
    for (const lister of this.#listers.values()) out.push(...lister.list(selector));
    return out;
  }

  /**
   * Not for namespaced objects: use `byNamespace(ns).get(name)`.
   *
   * @throws NotFoundError always (a namespaced cache holds no cluster-scoped objects).
   */
  get(name: string): DeepReadonly<T> {
    throw new NotFoundError(this.#groupResource, name);
  }

  /** Undefined: a namespaced cache holds no cluster-scoped objects. */
  tryGet(name: string): DeepReadonly<T> | undefined {
    void name;
    return undefined;
  }

  /**
   * The namespace's lister; `''` lists across the whole set.
   *
   * @throws {@link NamespaceNotCachedError} for a namespace outside the set.
   */
  byNamespace(namespace: string): NamespaceLister<T> {
    if (namespace === '') {
      return {
        namespace: '',
        list: (selector) => this.list(selector),
        get: (name) => {
          throw new NotFoundError(this.#groupResource, name);
        },
        tryGet: () => undefined,
      };
    }
    const lister = this.#listers.get(namespace);
    if (lister === undefined) {
      throw new NamespaceNotCachedError(resourceName(this.#groupResource), namespace, [
        ...this.#listers.keys(),
      ]);
    }
    return lister.byNamespace(namespace);
  }
}

function resourceName(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/**
 * One informer per namespace of a set, used as one: handlers on all of them, one lister
 * over all of them. Make it with {@link MultiNamespaceInformer.fromFactory} (the factory
 * starts and stops the per-namespace informers).
 *
 * @example
 * ```ts
 * const cms = MultiNamespaceInformer.fromFactory(factory, configMapsResource, ['team-a', 'team-b']);
 * controller.for(cms);
 * factory.start(signal);
 * cms.lister().byNamespace('team-a').list();
 * ```
 */
export class MultiNamespaceInformer<T extends KubeObject> implements CacheInformer<T> {
  /** The per-namespace informers, by namespace. */
  readonly informers: ReadonlyMap<string, SharedIndexInformer<T>>;
  /** Its name in a controller's logs and readiness reasons: `configmaps/v1 in namespaces a, b`. */
  readonly name: string;
  readonly #groupResource: GroupResource;
  readonly #registrations = new Map<
    ResourceEventHandlerRegistration,
    { informer: SharedIndexInformer<T>; registration: ResourceEventHandlerRegistration }[]
  >();

  /**
   * @param informers - namespace → an informer watching only that namespace.
   * @param groupResource - names the resource in errors.
   * @param name - its name (default `<resource> in namespaces <set>`).
   * @throws {@link InvalidManagerOptionsError} for an empty set.
   */
  constructor(
    informers: ReadonlyMap<string, SharedIndexInformer<T>>,
    groupResource: GroupResource,
    name?: string,
  ) {
    if (informers.size === 0) {
      throw new InvalidManagerOptionsError(
        `a multi-namespace informer of ${resourceName(groupResource)} needs at least one namespace`,
      );
    }
    this.informers = informers;
    this.#groupResource = groupResource;
    this.name =
      name ?? `${resourceName(groupResource)} in namespaces ${[...informers.keys()].join(', ')}`;
  }

  /**
   * The factory's informers of `resource` in each of `namespaces` (created on first use,
   * shared with every other caller asking for the same namespace).
   *
   * @throws {@link InvalidManagerOptionsError} for an empty or invalid namespace list, or a
   * cluster-scoped resource (use `factory.forResource` for it).
   */
  static fromFactory<T extends KubeObject>(
    factory: SharedInformerFactory,
    resource: ApiResource<T>,
    namespaces: readonly string[],
    options: Omit<InformerForOptions<T>, 'namespace'> = {},
  ): MultiNamespaceInformer<T> {
    if (!resource.namespaced) {
      throw new InvalidManagerOptionsError(
        `${resourceName(resource)} is cluster-scoped: namespaces do not apply; use one cluster-wide informer`,
      );
    }
    const unique = validateNamespaces(namespaces);
    const informers = new Map<string, SharedIndexInformer<T>>();
    for (const ns of unique)
      informers.set(ns, factory.forResource(resource, { ...options, namespace: ns }));
    return new MultiNamespaceInformer(
      informers,
      resource,
      `${resourceName(resource)}/${resource.version} in namespaces ${unique.join(', ')}`,
    );
  }

  /** Add `handler` to every per-namespace informer; its registration syncs when all did. */
  addEventHandler(
    handler: InformerHandler<T>,
    options: AddEventHandlerOptions = {},
  ): ResourceEventHandlerRegistration {
    const parts = [...this.informers].map(([ns, informer]) => ({
      informer,
      registration: informer.addEventHandler(handler, {
        ...options,
        ...(options.name !== undefined ? { name: `${options.name} (${ns})` } : {}),
      }),
    }));
    const registration: ResourceEventHandlerRegistration = {
      hasSynced: () => parts.every((p) => p.registration.hasSynced()),
    };
    this.#registrations.set(registration, parts);
    return registration;
  }

  /** Remove a handler from every per-namespace informer. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    const parts = this.#registrations.get(registration);
    if (parts === undefined) return;
    this.#registrations.delete(registration);
    for (const { informer, registration: r } of parts) informer.removeEventHandler(r);
  }

  /** True once every per-namespace informer has synced. */
  hasSynced(): boolean {
    for (const informer of this.informers.values()) if (!informer.hasSynced()) return false;
    return true;
  }

  /**
   * The last error of the first per-namespace informer that has not synced and reported
   * one (its message names the namespace), or undefined.
   */
  lastError(): LastError | undefined {
    for (const informer of this.informers.values()) {
      if (informer.hasSynced()) continue;
      const last = informer.lastError();
      if (last !== undefined) return last;
    }
    return undefined;
  }

  /** One lister over every namespace of the set. */
  lister(): MultiNamespaceLister<T> {
    return new MultiNamespaceLister<T>(
      new Map([...this.informers].map(([ns, informer]) => [ns, informer.lister()])),
      this.#groupResource,
    );
  }
}

/** Check a namespace list: non-empty names, no `''` (all namespaces), duplicates dropped. @internal */
export function validateNamespaces(namespaces: readonly string[]): string[] {
  if (!Array.isArray(namespaces) || namespaces.length === 0) {
    throw new InvalidManagerOptionsError(
      'the cache namespaces must be a non-empty list of namespace names (leave it unset to watch all namespaces)',
    );
  }
  const out = new Set<string>();
  for (const ns of namespaces) {
    if (typeof ns !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) {
      throw new InvalidManagerOptionsError(
        `cache namespace ${JSON.stringify(ns)} is not a valid namespace name (a DNS label: lower-case letters, digits and '-')`,
      );
    }
    out.add(ns);
  }
  return [...out];
}
