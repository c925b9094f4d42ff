/**
 * CRDInformerManager: informers that come and go with CustomResourceDefinitions — the
 * loop operators otherwise hand-write around dynamic informers.
 *
 * It runs one informer over CustomResourceDefinitions. For every CRD the predicate
 * accepts, once the CRD is `Established`, it starts an informer of unstructured objects
 * for each served version (or only the storage version, with `versions: 'storage'`). When
 * a version stops being served, the CRD stops being followed, or the CRD is deleted, that
 * informer is stopped and dropped. Every event of every informer goes to the manager's
 * handlers together with the resource it came from.
 *
 * Rules:
 * - **Every add is matched by a delete.** When an informer is dropped, each object its
 *   handlers were told about and not yet told was deleted is delivered to `onDelete` as a
 *   {@link DeletedFinalStateUnknown} tombstone (the CRD's deletion removes all its
 *   objects; deletes that the informer's watch did not deliver before it was dropped
 *   arrive this way). A version that stops being served yields tombstones too: that view
 *   of the objects is gone.
 * - Each handler has its own queue and runs its callbacks one at a time, in order; a slow
 *   handler delays only itself; a handler that throws or rejects is reported through
 *   `onHandlerError` and the logger and the manager goes on.
 * - A handler added while running first gets every object known as `onAdd(…, true)`.
 * - An informer for a resource that was just dropped starts only after the old one has
 *   stopped and its tombstones were queued, so events of one resource never interleave.
 * - `hasSynced()` is true once the CRD informer has synced, every CRD it listed has been
 *   looked at, and every informer started so far has synced.
 * - `run(signal)` resolves once the CRD informer, every resource informer and every
 *   handler queue have stopped (no tombstones are sent for a shutdown; callbacks still
 *   queued are dropped, one in flight is awaited).
 *
 * ```ts
 * const manager = new CRDInformerManager(kc, { predicate: crdSelector({ groups: ['example.com'] }) });
 * manager.addEventHandler({
 *   onAdd: (resource, obj) => console.log('add', resource.resource, obj.metadata?.name),
 *   onDelete: (resource, obj) => console.log('delete', resource.resource),
 * });
 * await manager.run(signal);
 * ```
 *
 * @module
 */
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { customResourceDefinitionsResource } from '../client/builtins.js';
import { ResourceClient } from '../client/resource_client.js';
import type { KubeConfigLike, Transport, TransportOptions } from '../client/transport.js';
import { toTransport } from '../client/transport.js';
import type { ApiResource, Serialized, UnstructuredObject } from '../client/types.js';
import type { GenericTransform, InformerTuning, TweakListOptionsFunc } from '../cache/factory.js';
import { deletionHandlingMetaNamespaceKeyFunc, DeletedFinalStateUnknown } from '../cache/keys.js';
import { parseLabelSelector } from '../apimachinery/labels.js';
import { listWatchFromClient } from '../cache/listwatch.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import { NotificationKind, ProcessorListener } from '../cache/processor.js';
import type { HandlerErrorHook, Notification, ResourceEventHandler } from '../cache/processor.js';
import { SharedIndexInformer } from '../cache/shared_informer.js';
import type { ResourceEventHandlerRegistration } from '../cache/shared_informer.js';
import { waitForCacheSyncWithOptions } from '../cache/wait.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';

/** A CustomResourceDefinition as the server sends it. */
export type CustomResourceDefinition = Serialized<V1CustomResourceDefinition>;

/** Decides which CRDs the manager follows. */
export type CRDPredicate = (crd: DeepReadonly<CustomResourceDefinition>) => boolean;

/** What {@link crdSelector} matches on; every given criterion must hold. */
export interface CRDSelectorSpec {
  /** Follow only CRDs of these API groups. */
  groups?: readonly string[];
  /** Follow only CRDs with these names (`widgets.example.com`). */
  names?: readonly string[];
  /** Follow only CRDs whose labels match this selector (`app=shop,tier!=test`). */
  labelSelector?: string;
}

/**
 * A {@link CRDPredicate} from groups, names and a label selector.
 *
 * @throws SelectorParseError for an invalid label selector.
 */
export function crdSelector(spec: CRDSelectorSpec): CRDPredicate {
  const groups = spec.groups === undefined ? undefined : new Set(spec.groups);
  const names = spec.names === undefined ? undefined : new Set(spec.names);
  const labels =
    spec.labelSelector === undefined ? undefined : parseLabelSelector(spec.labelSelector);
  return (crd) =>
    (groups === undefined || groups.has(crd.spec.group)) &&
    (names === undefined || names.has(crd.metadata?.name ?? '')) &&
    (labels === undefined || labels.matches(crd.metadata?.labels ?? {}));
}

/** True when the CRD's `Established` condition is `True`. */
export function isCrdEstablished(crd: DeepReadonly<CustomResourceDefinition>): boolean {
  return (crd.status?.conditions ?? []).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );
}

/**
 * The resources a CRD serves: one per served version (storage version first), or only
 * the storage version when `storageOnly`.
 */
export function crdResources(
  crd: DeepReadonly<CustomResourceDefinition>,
  storageOnly = false,
): ApiResource<UnstructuredObject>[] {
  const spec = crd.spec;
  const versions = spec.versions.filter((v) => v.served && (!storageOnly || v.storage));
  versions.sort((a, b) => Number(b.storage) - Number(a.storage));
  return versions.map((v) => ({
    group: spec.group,
    version: v.name,
    resource: spec.names.plural,
    kind: spec.names.kind,
    namespaced: spec.scope === 'Namespaced',
  }));
}

/**
 * Handlers of the manager: every callback receives the resource the event came from. The
 * objects are the informers' cached instances, typed {@link DeepReadonly}: `deepCopy` one
 * before changing it.
 */
export interface CustomResourceEventHandler {
  /** An object entered a resource's cache (`isInInitialList` as for informers). */
  onAdd?(
    resource: ApiResource<UnstructuredObject>,
    obj: DeepReadonly<UnstructuredObject>,
    isInInitialList: boolean,
  ): void | Promise<void>;
  /** An object changed (or, with the same resourceVersion, was re-delivered by a resync). */
  onUpdate?(
    resource: ApiResource<UnstructuredObject>,
    oldObj: DeepReadonly<UnstructuredObject>,
    newObj: DeepReadonly<UnstructuredObject>,
  ): void | Promise<void>;
  /** An object left a resource's cache, or its informer was dropped (then a tombstone). */
  onDelete?(
    resource: ApiResource<UnstructuredObject>,
    objOrTombstone:
      DeepReadonly<UnstructuredObject> | DeletedFinalStateUnknown<DeepReadonly<UnstructuredObject>>,
  ): void | Promise<void>;
}

/** Options of {@link CRDInformerManager}. */
export interface CRDInformerManagerOptions {
  /** Which CRDs to follow (see {@link crdSelector}); default all. */
  predicate?: CRDPredicate;
  /** `served` (default): an informer per served version; `storage`: only the storage version. */
  versions?: 'served' | 'storage';
  /** Resync period (ms) of the resource informers; 0 (default) disables. */
  resyncPeriodMs?: number;
  /** Watch custom resources only in this namespace (namespaced CRDs). */
  namespace?: string;
  /** Label selector on custom-resource lists and watches. */
  labelSelector?: string;
  /** Field selector on custom-resource lists and watches. */
  fieldSelector?: string;
  /** Last word on custom-resource list and watch options. */
  tweakListOptions?: TweakListOptionsFunc;
  /** Transform of custom resources before caching (e.g. `stripManagedFields`). */
  transform?: GenericTransform;
  /** Called with every error a handler throws or rejects with. */
  onHandlerError?: HandlerErrorHook;
  /** Source of time. */
  clock?: Clock;
  /** Where to log. */
  logger?: Logger;
  /** Reflector tuning of every informer (the CRD one included). */
  informerOptions?: InformerTuning;
  /** Transport options, used when given a KubeConfig. */
  transportOptions?: TransportOptions;
}

/** Options of {@link CRDInformerManager.addEventHandler}. */
export interface CustomResourceHandlerOptions {
  /** Name in logs and in `onHandlerError`. */
  name?: string;
}

/** The handle of a handler added to a {@link CRDInformerManager}. */
export interface CustomResourceHandlerRegistration {
  /** The handler's name. */
  readonly name: string;
}

/** One object of one resource: what a handler's queue carries. */
interface ResourceEvent {
  readonly resource: ApiResource<UnstructuredObject>;
  readonly obj: DeepReadonly<UnstructuredObject>;
}

/**
 * Each handler of the manager gets the informers' own per-handler queue and delivery loop
 * (a {@link ProcessorListener}), carrying the resource with each object; this adapter
 * unwraps it into the manager's callbacks.
 */
function resourceEventHandler(
  handler: CustomResourceEventHandler,
): ResourceEventHandler<ResourceEvent> {
  // The listener hands its objects out read-only; the resource is the entry's own object.
  const resourceOf = (ev: DeepReadonly<ResourceEvent>): ApiResource<UnstructuredObject> =>
    ev.resource as ApiResource<UnstructuredObject>;
  return {
    onAdd: (ev, initial) => handler.onAdd?.(resourceOf(ev), ev.obj, initial),
    onUpdate: (oldEv, newEv) => handler.onUpdate?.(resourceOf(newEv), oldEv.obj, newEv.obj),
    onDelete: (ev) =>
      ev instanceof DeletedFinalStateUnknown
        ? handler.onDelete?.(
            resourceOf(ev.obj),
            new DeletedFinalStateUnknown<DeepReadonly<UnstructuredObject>>(ev.key, ev.obj.obj),
          )
        : handler.onDelete?.(resourceOf(ev), ev.obj),
  };
}

/** One running resource informer. */
interface ResourceEntry {
  readonly key: string;
  readonly resource: ApiResource<UnstructuredObject>;
  readonly informer: SharedIndexInformer<UnstructuredObject>;
  readonly controller: AbortController;
  /** Objects the handlers were told exist, by key. */
  readonly known: Map<string, DeepReadonly<UnstructuredObject>>;
  registration: ResourceEventHandlerRegistration | undefined;
  /** Settles once the informer has stopped and tombstones were queued. */
  done: Promise<void> | undefined;
}

function resourceKey(r: ApiResource<UnstructuredObject>): string {
  return `${r.resource}.${r.group}/${r.version}`;
}

/**
 * Starts and stops informers as CustomResourceDefinitions appear, change and disappear.
 * See the module documentation.
 */
export class CRDInformerManager {
  /** The transport every informer uses. */
  readonly transport: Transport;
  readonly #options: CRDInformerManagerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #crdInformer: SharedIndexInformer<CustomResourceDefinition>;
  readonly #entries = new Map<string, ResourceEntry>();
  /** Resource keys each CRD (by name) has running. */
  readonly #byCrd = new Map<string, Set<string>>();
  /** Dropped informers still stopping, by resource key. */
  readonly #stopping = new Map<string, Promise<void>>();
  readonly #handlers = new Set<ProcessorListener<ResourceEvent>>();
  #crdRegistration: ResourceEventHandlerRegistration | undefined;
  #signal: AbortSignal | undefined;
  #started = false;
  #shuttingDown = false;
  #stopped = false;
  #handlerCount = 0;

  /**
   * @param source - a client-node KubeConfig (1.x or 2.x) or a shared Transport.
   * @param options - which CRDs, which versions, and informer settings.
   */
  constructor(source: Transport | KubeConfigLike, options: CRDInformerManagerOptions = {}) {
    this.transport = toTransport(source, options.transportOptions);
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    const crds = new ResourceClient(this.transport, customResourceDefinitionsResource);
    this.#crdInformer = new SharedIndexInformer<CustomResourceDefinition>(
      listWatchFromClient(crds),
      {
        ...options.informerOptions,
        name: 'customresourcedefinitions.apiextensions.k8s.io',
        groupResource: { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
        clock: this.#clock,
        logger: this.#logger,
      },
    );
  }

  /** The informer over CustomResourceDefinitions (read its lister; do not run it yourself). */
  get crdInformer(): SharedIndexInformer<CustomResourceDefinition> {
    return this.#crdInformer;
  }

  /** The resources with a running informer, storage version first per CRD. */
  resources(): ApiResource<UnstructuredObject>[] {
    return [...this.#entries.values()].map((e) => e.resource);
  }

  /** The running informer of a group/version/resource, if any (read its lister). */
  informerFor(gvr: {
    group: string;
    version: string;
    resource: string;
  }): SharedIndexInformer<UnstructuredObject> | undefined {
    return this.#entries.get(`${gvr.resource}.${gvr.group}/${gvr.version}`)?.informer;
  }

  /**
   * Add a handler. While running it is first given every object known as
   * `onAdd(resource, obj, true)`.
   */
  addEventHandler(
    handler: CustomResourceEventHandler,
    options: CustomResourceHandlerOptions = {},
  ): CustomResourceHandlerRegistration {
    const name = options.name ?? `crd-manager handler #${++this.#handlerCount}`;
    const listener = new ProcessorListener<ResourceEvent>(resourceEventHandler(handler), {
      name,
      requestedResyncPeriodMs: 0,
      resyncPeriodMs: 0,
      clock: this.#clock,
      logger: this.#logger,
      onHandlerError: this.#options.onHandlerError,
    });
    if (this.#stopped) return listener;
    for (const entry of this.#entries.values()) {
      for (const obj of entry.known.values()) {
        listener.add({
          kind: NotificationKind.Add,
          obj: { resource: entry.resource, obj },
          oldObj: undefined,
          isInInitialList: true,
        });
      }
    }
    this.#handlers.add(listener);
    void listener.run();
    return listener;
  }

  /** Stop delivering to a handler (what is queued for it is dropped). */
  removeEventHandler(registration: CustomResourceHandlerRegistration): void {
    // Only a registration this manager handed out is in the set.
    const listener = registration as ProcessorListener<ResourceEvent>;
    if (!this.#handlers.delete(listener)) return;
    listener.stop();
  }

  /**
   * True once the CRD informer has synced, every listed CRD has been looked at and every
   * resource informer started so far has synced.
   */
  hasSynced(): boolean {
    if (this.#crdRegistration?.hasSynced() !== true) return false;
    for (const e of this.#entries.values()) {
      if (e.registration?.hasSynced() !== true) return false;
    }
    return true;
  }

  /** Resolve true once {@link CRDInformerManager.hasSynced}, false if `signal` aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return waitForCacheSyncWithOptions(signal, [() => this.hasSynced()], { clock: this.#clock });
  }

  /**
   * Watch CRDs and run resource informers until `signal` aborts. Resolves once every
   * informer and handler queue has stopped. A second call logs a warning and returns.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) {
      this.#logger.warn('CRDInformerManager.run() called again; it runs only once');
      return;
    }
    this.#started = true;
    this.#signal = signal;
    this.#crdRegistration = this.#crdInformer.addEventHandler(
      {
        onAdd: (crd) => this.#reconcile(crd),
        onUpdate: (_old, crd) => this.#reconcile(crd),
        onDelete: (o) => {
          const crd = o instanceof DeletedFinalStateUnknown ? o.obj : o;
          this.#drop(crd.metadata?.name ?? '', new Set());
        },
      },
      { name: 'crd-manager', resyncPeriodMs: 0 },
    );
    try {
      await this.#crdInformer.run(signal);
    } finally {
      this.#shuttingDown = true;
      for (const name of [...this.#byCrd.keys()]) this.#drop(name, new Set(), false);
      while (this.#stopping.size > 0) await Promise.all([...this.#stopping.values()]);
      this.#stopped = true;
      await Promise.all(
        [...this.#handlers].map((h) => {
          h.stop();
          return h.run();
        }),
      );
    }
  }

  /** Bring the informers of one CRD in line with it. */
  #reconcile(crd: DeepReadonly<CustomResourceDefinition>): void {
    const name = crd.metadata?.name ?? '';
    let wanted: ApiResource<UnstructuredObject>[] = [];
    let followed = false;
    try {
      followed = this.#options.predicate?.(crd) ?? true;
    } catch (err) {
      this.#logger.error(`CRD ${name}: predicate failed; not following it`, {
        error: errorMessage(err),
      });
    }
    if (followed && isCrdEstablished(crd)) {
      wanted = crdResources(crd, this.#options.versions === 'storage');
    }
    const wantedKeys = new Set(wanted.map(resourceKey));
    this.#drop(name, wantedKeys);
    const mine = this.#byCrd.get(name) ?? new Set<string>();
    for (const resource of wanted) {
      const key = resourceKey(resource);
      if (mine.has(key)) continue;
      if (this.#entries.has(key)) {
        this.#logger.warn(
          `CRD ${name}: ${key} is already served by another CRD's informer; not starting a second one`,
        );
        continue;
      }
      mine.add(key);
      this.#startResource(key, resource);
    }
    if (mine.size > 0) this.#byCrd.set(name, mine);
    else this.#byCrd.delete(name);
  }

  /** Stop this CRD's informers whose key is not in `keep`. */
  #drop(crdName: string, keep: ReadonlySet<string>, log = true): void {
    const mine = this.#byCrd.get(crdName);
    if (mine === undefined) return;
    for (const key of [...mine]) {
      if (keep.has(key)) continue;
      mine.delete(key);
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      this.#entries.delete(key);
      if (log) this.#logger.info(`CRD ${crdName}: stopping the informer of ${key}`);
      this.#stopEntry(entry);
    }
    if (mine.size === 0) this.#byCrd.delete(crdName);
  }

  #startResource(key: string, resource: ApiResource<UnstructuredObject>): void {
    const o = this.#options;
    let client = new ResourceClient<UnstructuredObject>(this.transport, resource);
    if (resource.namespaced && o.namespace !== undefined && o.namespace !== '') {
      client = client.namespace(o.namespace);
    }
    const informer = new SharedIndexInformer<UnstructuredObject>(
      listWatchFromClient(client, {
        ...(o.labelSelector !== undefined ? { labelSelector: o.labelSelector } : {}),
        ...(o.fieldSelector !== undefined ? { fieldSelector: o.fieldSelector } : {}),
        ...(o.tweakListOptions !== undefined ? { tweakListOptions: o.tweakListOptions } : {}),
      }),
      {
        ...o.informerOptions,
        name: key,
        groupResource: { group: resource.group, resource: resource.resource },
        clock: this.#clock,
        logger: this.#logger,
        ...(o.resyncPeriodMs !== undefined ? { resyncPeriodMs: o.resyncPeriodMs } : {}),
        ...(o.transform !== undefined ? { transform: o.transform } : {}),
      },
    );
    const entry: ResourceEntry = {
      key,
      resource,
      informer,
      controller: new AbortController(),
      known: new Map(),
      registration: undefined,
      done: undefined,
    };
    entry.registration = informer.addEventHandler(
      {
        onAdd: (obj, initial) => {
          entry.known.set(deletionHandlingMetaNamespaceKeyFunc(obj), obj);
          this.#dispatch({
            kind: NotificationKind.Add,
            obj: { resource, obj },
            oldObj: undefined,
            isInInitialList: initial,
          });
        },
        onUpdate: (oldObj, newObj) => {
          entry.known.set(deletionHandlingMetaNamespaceKeyFunc(newObj), newObj);
          this.#dispatch({
            kind: NotificationKind.Update,
            obj: { resource, obj: newObj },
            oldObj: { resource, obj: oldObj },
            isInInitialList: false,
          });
        },
        onDelete: (obj) => {
          entry.known.delete(deletionHandlingMetaNamespaceKeyFunc(obj));
          this.#dispatchDelete(resource, obj);
        },
      },
      { name: `crd-manager ${key}` },
    );
    this.#entries.set(key, entry);
    const signal = this.#signal;
    const onAbort = (): void => entry.controller.abort();
    if (signal?.aborted !== false) entry.controller.abort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const previous = this.#stopping.get(key);
    this.#logger.info(`starting the informer of ${key}`);
    entry.done = (async () => {
      if (previous !== undefined) await previous;
      try {
        await informer.run(entry.controller.signal);
      } catch (err) {
        this.#logger.error(`informer ${key} failed`, { error: errorMessage(err) });
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    })();
  }

  /** Abort an entry; once it stopped, queue tombstones for what handlers still know. */
  #stopEntry(entry: ResourceEntry): void {
    entry.controller.abort();
    const done = (async () => {
      await entry.done;
      if (this.#shuttingDown) return;
      for (const [key, obj] of entry.known) {
        this.#dispatchDelete(entry.resource, new DeletedFinalStateUnknown(key, obj));
      }
      entry.known.clear();
    })();
    this.#stopping.set(entry.key, done);
    void done.finally(() => {
      if (this.#stopping.get(entry.key) === done) this.#stopping.delete(entry.key);
    });
  }

  #dispatch(n: Notification<ResourceEvent>): void {
    for (const l of this.#handlers) l.add(n);
  }

  #dispatchDelete(
    resource: ApiResource<UnstructuredObject>,
    obj:
      DeepReadonly<UnstructuredObject> | DeletedFinalStateUnknown<DeepReadonly<UnstructuredObject>>,
  ): void {
    this.#dispatch({
      kind: NotificationKind.Delete,
      obj:
        obj instanceof DeletedFinalStateUnknown
          ? new DeletedFinalStateUnknown(obj.key, { resource, obj: obj.obj })
          : { resource, obj },
      oldObj: undefined,
      isInInitialList: false,
    });
  }
}
