/**
 * The sharder: keeps every object of a ring's resources labelled with the live shard
 * that owns it.
 *
 * Rules:
 *
 * - **Membership from Leases.** The live shards are the Leases in the Lease namespace
 *   labelled with the ring whose holder is set and whose `renewTime + leaseDurationSeconds`
 *   is still ahead. A released Lease (empty holder) is dead at once; an expired one is dead
 *   from its expiry (the sharder wakes up at that moment).
 * - **Assignment by consistent hashing** ({@link HashRing}) of `group/Kind/namespace/name`.
 *   A controlled resource's object hashes as its controller owner does, so a parent and
 *   its children land on the same shard.
 * - **New objects** (no shard label) get the shard label of their owner on the ring.
 * - **Objects of a dead shard** move at once (their shard no longer works on them).
 * - **Objects of a live shard that the ring now gives to another** are not relabelled:
 *   the sharder sets the drain label and waits. The shard releases the object (removes
 *   both labels) once no reconcile of it runs; the object is then unassigned and gets its
 *   new shard. So no object is ever worked on by two shards at once.
 * - **Controlled objects are never drained** (as kubernetes-controller-sharding): only the
 *   main resource's reconciler releases a drained object, so a child moves to its new shard
 *   at once; its controller owner, drained, is what keeps two shards from working at once.
 * - **Decide, then act**: what happens to an object is the pure {@link decideShard}; the
 *   sharder then writes the labels, counts and records it.
 * - Every write carries the resourceVersion the decision was made on (a conflict reads
 *   the object again), and is retried with the controller rate limiter on failure.
 *   Everything is re-checked on every Lease change and every `resyncPeriodMs`.
 * - **Events** (with a `recorder`): after each successful write, a `Normal` Event on the
 *   object — `ShardAssigned` (a new object got its shard), `ShardDrainRequested` (a live
 *   shard was asked to let it go), `ShardMoved` (it got its new shard: from a dead shard
 *   at once, or from a live one after its drain). The recorder queues and never waits, so
 *   events never hold the sharder up; a full queue drops them.
 *
 * Run one sharder per ring, under leader election (`runWhileLeading`), in a replica of
 * the controller or in a process of its own.
 *
 * @module
 */
import { leasesResource } from '../client/builtins.js';
import type { KubeConfigLike, Transport } from '../client/transport.js';
import { toTransport } from '../client/transport.js';
import type { ApiResource, KubeObject, PartialObjectMetadata } from '../client/types.js';
import { ResourceClient } from '../client/resource_client.js';
import { ApiError } from '../client/errors.js';
import { parseApiVersion } from '../apimachinery/meta.js';
import { SharedInformerFactory } from '../cache/factory.js';
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceKeyFunc } from '../cache/keys.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import type { SharedIndexInformer } from '../cache/shared_informer.js';
import { getControllerOf } from '../controller/owner.js';
import type { Lease } from '../leaderelection/lease_lock.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { errorMessage } from '../util/errors.js';
import type { EventRecorder } from '../record/recorder.js';
import { getReference } from '../record/reference.js';
import { RateLimitingQueue } from '../workqueue/rate_limiting_queue.js';
import { runWorkers } from '../workqueue/workers.js';
import { decideShard } from './decision.js';
import type { ShardDecision } from './decision.js';
import type { ShardingMetrics } from './metrics.js';
import { ringLabels } from './names.js';
import type { RingLabels } from './names.js';
import { DEFAULT_VIRTUAL_NODES, HashRing } from './ring.js';

/** A resource whose objects a ring shards, and the resources its objects control. */
export interface ShardedResource {
  /** The controller's main resource. */
  resource: ApiResource<KubeObject>;
  /** Resources whose objects follow their controller owner of `resource` to its shard. */
  controlled?: ApiResource<KubeObject>[];
}

/** Options of a {@link Sharder}. */
export interface SharderOptions {
  /** The ring's name. */
  ring: string;
  /** Namespace of the shard Leases. */
  leaseNamespace: string;
  /** What the ring shards. */
  resources: ShardedResource[];
  /** Where to read and write: a transport or a KubeConfig. */
  source: Transport | KubeConfigLike;
  /** Shard only objects in this namespace (default: all namespaces). */
  namespace?: string;
  /** Label domain (default `kube-controller-kit.dev`). */
  domain?: string;
  /** Points per shard on the ring (default 100). */
  virtualNodes?: number;
  /** How often every object is checked again even without a change (default 5 minutes). */
  resyncPeriodMs?: number;
  /** Concurrent label writes (default 4). */
  workers?: number;
  /** Source of time (default the real clock). */
  clock?: Clock;
  /** Where to log (default warnings and errors to stderr). */
  logger?: Logger;
  /** Where assignment, move and drain counts go. */
  metrics?: ShardingMetrics;
  /**
   * Records an Event on each object the sharder assigns, drains or moves (`ShardAssigned`,
   * `ShardDrainRequested`, `ShardMoved`; see {@link ShardEventReason}). Default: none. One
   * Event write per label write: on a first labelling of many objects, that is as many
   * Events (the recorder drops what does not fit its queue).
   */
  recorder?: EventRecorder;
}

/** The reasons of the Events a {@link Sharder} records on the objects it labels. */
export const ShardEventReason = {
  /** An unassigned object got its shard. */
  assigned: 'ShardAssigned',
  /** A live shard was asked to release the object (the drain label was set). */
  drainRequested: 'ShardDrainRequested',
  /** The object got a new shard: from a dead shard at once, or after a drain. */
  moved: 'ShardMoved',
} as const;

/** A shard as the sharder sees it in the Leases. */
export interface ShardState {
  /** The shard's name. */
  name: string;
  /** True while its Lease is held and not expired. */
  live: boolean;
  /** When its Lease expires (ms since the epoch), or `undefined` when released. */
  expiresAt: number | undefined;
}

/** The hash key of an object: `group/Kind/namespace/name`. */
export function objectHashKey(
  group: string,
  kind: string,
  namespace: string,
  name: string,
): string {
  return `${group}/${kind}/${namespace}/${name}`;
}

/** A sharded resource and the resources whose controller owner decides its shard. */
interface TargetSpec {
  resource: ApiResource<KubeObject>;
  parents: ApiResource<KubeObject>[];
}

/** A target while running: its metadata informer and a client for label writes. */
interface Target extends TargetSpec {
  /** Its position in the sharder's targets. */
  index: number;
  informer: SharedIndexInformer<PartialObjectMetadata>;
  client: ResourceClient<KubeObject>;
  /** Objects asked to drain (key → the shard asked), to name that shard when they move. */
  draining: Map<string, string>;
}

/** One object to check: which target, and its cache key. */
interface WorkItem {
  readonly target: Target;
  readonly key: string;
}

/** The identity of a work item in the queue (and its rate limiter). */
function workItemId(item: WorkItem): string {
  return `${item.target.index} ${item.key}`;
}

/** A JSON Patch operation of an admission response. */
export interface AdmissionPatchOperation {
  /** Always `add`. */
  op: 'add';
  /** JSON pointer of the label (or of the labels map when the object has none). */
  path: string;
  /** The label value, or the labels map. */
  value: string | Record<string, string>;
}

/** The part of an admission request the sharder reads. */
export interface AdmissionObjectRequest {
  /** The resource of the request. */
  resource: {
    /** API group (`''` for core). */
    group: string;
    /** Version. */
    version: string;
    /** Plural resource name. */
    resource: string;
  };
  /** The operation (`CREATE`, `UPDATE`, ...). */
  operation: string;
  /** The namespace of the request. */
  namespace?: string;
  /** The object as it would be stored. */
  object?: KubeObject;
}

/** Keeps a ring's objects labelled with their live shard. */
export class Sharder {
  /** The ring's label keys. */
  readonly labels: RingLabels;
  /** For logs, as a Manager runnable. */
  readonly name: string;
  /** A Manager runs the sharder only while it leads: one sharder per ring. */
  readonly needLeaderElection = true;
  readonly #options: SharderOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #virtualNodes: number;
  readonly #specs: TargetSpec[];
  #ring: HashRing;
  #shards: ShardState[] = [];
  #targets: Target[] = [];

  /**
   * @param options - the ring, the Lease namespace, the sharded resources, where to write.
   * @throws ShardingNameError when the ring name or domain cannot form a label key.
   */
  constructor(options: SharderOptions) {
    this.labels = ringLabels(options.ring, options.domain);
    this.name = `sharder of ring ${options.ring}`;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#virtualNodes = options.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
    this.#ring = new HashRing([], this.#virtualNodes);
    this.#specs = [];
    for (const sharded of options.resources) {
      this.#specs.push({ resource: sharded.resource, parents: [] });
      for (const controlled of sharded.controlled ?? []) {
        this.#specs.push({ resource: controlled, parents: [sharded.resource] });
      }
    }
  }

  /** The ring of live shards as last computed. */
  get ring(): HashRing {
    return this.#ring;
  }

  /** Every shard Lease of the ring as last seen, live or dead. */
  get shards(): readonly ShardState[] {
    return this.#shards;
  }

  /**
   * The shard label an admission webhook should add to an object being created or
   * updated without one: a JSON Patch (`[]` when nothing is to be added — the object is
   * already assigned, is not of a sharded resource, or the ring is empty). Closes the
   * window between creation and the sharder's label; the sharder stands without it.
   */
  admit(request: AdmissionObjectRequest): AdmissionPatchOperation[] {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return [];
    const obj = request.object;
    if (obj === undefined) return [];
    const spec = this.#specs.find(
      (t) =>
        t.resource.group === request.resource.group &&
        t.resource.resource === request.resource.resource,
    );
    if (spec === undefined) return [];
    const labels = obj.metadata?.labels;
    if (labels?.[this.labels.shard] !== undefined) return [];
    const desired = this.#ring.get(this.#hashKey(spec, obj, request.namespace));
    if (desired === undefined) return [];
    if (labels === undefined) {
      return [{ op: 'add', path: '/metadata/labels', value: { [this.labels.shard]: desired } }];
    }
    const escaped = this.labels.shard.replace(/~/g, '~0').replace(/\//g, '~1');
    return [{ op: 'add', path: `/metadata/labels/${escaped}`, value: desired }];
  }

  /** Same as {@link Sharder.run}: lets a Manager run the sharder (`manager.add(sharder)`). */
  start(signal: AbortSignal): Promise<void> {
    return this.run(signal);
  }

  /**
   * Runs until `signal` aborts: watches the shard Leases and the sharded objects (metadata
   * only) and keeps the labels right. Resolves after everything it started has stopped.
   */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.#options;
    const transport = toTransport(o.source, { clock: this.#clock, logger: this.#logger });
    const factory = new SharedInformerFactory(transport, {
      clock: this.#clock,
      logger: this.#logger,
    });
    const leaseInformer = factory.forResource<Lease>(leasesResource, {
      namespace: o.leaseNamespace,
      labelSelector: `${this.labels.leaseRing}=${o.ring}`,
    });
    const scope = o.namespace === undefined ? {} : { namespace: o.namespace };
    this.#targets = this.#specs.map((spec, index) => ({
      ...spec,
      index,
      informer: factory.forResourceMetadata(spec.resource, scope),
      client: new ResourceClient<KubeObject>(transport, spec.resource),
      draining: new Map<string, string>(),
    }));
    const queue = new RateLimitingQueue<WorkItem>({ clock: this.#clock, keyFn: workItemId });
    const enqueueAll = (): void => {
      for (const target of this.#targets) {
        for (const key of target.informer.getIndexer().listKeys()) queue.add({ target, key });
      }
    };
    let expiryTimer: Timer | undefined;
    const recompute = (): void => {
      expiryTimer?.cancel();
      expiryTimer = undefined;
      const next = this.#computeShards(leaseInformer.getIndexer().list() as Lease[]);
      if (next !== undefined) {
        expiryTimer = this.#clock.setTimeout(recompute, Math.max(0, next - this.#clock.now()) + 1);
      }
      const ring = new HashRing(
        this.#shards.filter((s) => s.live).map((s) => s.name),
        this.#virtualNodes,
      );
      if (!ring.equals(this.#ring)) {
        this.#logger.info('shard ring changed', { ring: o.ring, shards: ring.shards.join(',') });
        this.#ring = ring;
        o.metrics?.ringSize?.(o.ring, ring.size);
        enqueueAll();
      }
    };
    leaseInformer.addEventHandler({
      onAdd: recompute,
      onUpdate: recompute,
      onDelete: recompute,
    });
    for (const target of this.#targets) {
      target.informer.addEventHandler({
        onAdd: (obj) => queue.add({ target, key: metaNamespaceKeyFunc(obj) }),
        onUpdate: (_old, obj) => queue.add({ target, key: metaNamespaceKeyFunc(obj) }),
        onDelete: (obj) => {
          target.draining.delete(deletionHandlingMetaNamespaceKeyFunc(obj));
        },
      });
    }
    factory.start(signal);
    let resync: Timer | undefined;
    const scheduleResync = (): void => {
      resync = this.#clock.setTimeout(() => {
        enqueueAll();
        scheduleResync();
      }, o.resyncPeriodMs ?? 300_000);
    };
    const stop = (): void => queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await factory.waitForCacheSync(signal);
      if (signal.aborted) return;
      recompute();
      o.metrics?.ringSize?.(o.ring, this.#ring.size); // also when the first ring is empty
      scheduleResync();
      enqueueAll();
      await runWorkers(
        queue,
        o.workers ?? 4,
        async (item, s) => {
          try {
            await this.#reconcile(item, s);
            queue.forget(item);
          } catch (err) {
            if (s.aborted) return;
            this.#logger.warn('could not label an object with its shard; retrying', {
              ring: o.ring,
              object: item.key,
              error: err,
            });
            queue.addRateLimited(item);
          }
        },
        signal,
        { logger: this.#logger },
      );
    } finally {
      signal.removeEventListener('abort', stop);
      queue.shutDown();
      expiryTimer?.cancel();
      resync?.cancel();
      await factory.shutdown();
      this.#targets = [];
    }
  }

  /** Reads the Leases into shard states; returns the earliest future expiry, if any. */
  #computeShards(leases: readonly Lease[]): number | undefined {
    const now = this.#clock.now();
    let next: number | undefined;
    const states: ShardState[] = [];
    for (const lease of leases) {
      const name = lease.metadata?.labels?.[this.labels.leaseShard];
      if (name === undefined || name === '') continue;
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      const renew = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
      const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
      const expiresAt = holder === '' || Number.isNaN(renew) ? undefined : renew + duration;
      const live = expiresAt !== undefined && expiresAt > now;
      if (live && (next === undefined || expiresAt < next)) next = expiresAt;
      states.push({ name, live, expiresAt });
    }
    states.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#shards = states;
    return next;
  }

  #hashKey(target: TargetSpec, obj: KubeObject, fallbackNamespace?: string): string {
    const meta = obj.metadata ?? {};
    const ns = meta.namespace ?? fallbackNamespace ?? '';
    const owner = target.parents.length > 0 ? getControllerOf(obj) : undefined;
    if (owner !== undefined) {
      const { group } = parseApiVersion(owner.apiVersion);
      const parent = target.parents.find((p) => p.group === group && p.kind === owner.kind);
      if (parent !== undefined) return objectHashKey(parent.group, parent.kind, ns, owner.name);
    }
    return objectHashKey(target.resource.group, target.resource.kind, ns, meta.name ?? '');
  }

  /** Decide what to do with one object, then do it. */
  async #reconcile(item: WorkItem, signal: AbortSignal): Promise<void> {
    const { target, key } = item;
    const obj = target.informer.getIndexer().getByKey(key);
    if (obj === undefined) return;
    const meta = obj.metadata ?? {};
    if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return;
    const current = meta.labels?.[this.labels.shard];
    const decision = decideShard({
      current,
      draining: meta.labels?.[this.labels.drain] !== undefined,
      desired: this.#ring.get(this.#hashKey(target, obj as KubeObject)),
      currentAlive: current !== undefined && this.#ring.has(current),
      controlled: target.parents.length > 0,
    });
    await this.#act(target, key, obj, decision, signal);
  }

  /** Writes the labels a decision asks for, then counts, logs and records it. */
  async #act(
    target: Target,
    key: string,
    obj: DeepReadonly<PartialObjectMetadata>,
    decision: ShardDecision,
    signal: AbortSignal,
  ): Promise<void> {
    const o = this.#options;
    const l = this.labels;
    const ring = `ring "${o.ring}"`;
    const write = (labels: Record<string, string | null>): Promise<KubeObject | undefined> =>
      this.#writeLabels(target, obj, labels, signal);
    switch (decision.action) {
      case 'none':
        if (obj.metadata?.labels?.[l.shard] !== undefined) target.draining.delete(key);
        return;
      case 'cancelDrain':
        // The ring changed back before the shard let go.
        target.draining.delete(key);
        await write({ [l.drain]: null });
        return;
      case 'unassign':
        // No live shard: leave the object unassigned rather than with a dead shard.
        await write({ [l.shard]: null, [l.drain]: null });
        return;
      case 'wait':
        // A drain requested by an earlier sharder: remember whom it was asked of.
        if (!target.draining.has(key)) target.draining.set(key, decision.from);
        return;
      case 'drain': {
        const written = await write({ [l.drain]: 'true' });
        o.metrics?.drainRequested?.(o.ring, decision.from);
        target.draining.set(key, decision.from);
        this.#event(
          target,
          written,
          ShardEventReason.drainRequested,
          `asked shard "${decision.from}" of ${ring} to release the object for shard "${decision.to}"`,
        );
        return;
      }
      case 'assign':
      case 'move': {
        const { to } = decision;
        const written = await write({ [l.shard]: to, [l.drain]: null });
        o.metrics?.assigned?.(o.ring, to);
        const drainedFrom = target.draining.get(key);
        target.draining.delete(key);
        if (decision.action === 'move') {
          const { from } = decision;
          const live = this.#ring.has(from);
          o.metrics?.moved?.(o.ring, from, to);
          this.#logger.info(
            live
              ? 'moved a controlled object with its controller'
              : 'moved an object of a dead shard',
            { ring: o.ring, object: key, from, to },
          );
          this.#event(
            target,
            written,
            ShardEventReason.moved,
            live
              ? `moved with its controller from shard "${from}" to shard "${to}" of ${ring}`
              : `moved from shard "${from}", which is no longer live, to shard "${to}" of ${ring}`,
          );
        } else if (drainedFrom !== undefined && drainedFrom !== to) {
          this.#event(
            target,
            written,
            ShardEventReason.moved,
            `moved from shard "${drainedFrom}" to shard "${to}" of ${ring} after "${drainedFrom}" released it`,
          );
        } else {
          this.#event(
            target,
            written,
            ShardEventReason.assigned,
            `assigned to shard "${to}" of ${ring}`,
          );
        }
        return;
      }
    }
  }

  /** A merge patch of `labels` at the cached resourceVersion; undefined when the object is gone. */
  #writeLabels(
    target: Target,
    obj: DeepReadonly<PartialObjectMetadata>,
    labels: Record<string, string | null>,
    signal: AbortSignal,
  ): Promise<KubeObject | undefined> {
    const meta = obj.metadata ?? {};
    const ns = meta.namespace;
    const client = ns !== undefined && ns !== '' ? target.client.namespace(ns) : target.client;
    return client
      .patch(
        meta.name ?? '',
        { metadata: { resourceVersion: meta.resourceVersion, labels } },
        { type: 'merge', signal },
      )
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 404) return undefined; // gone meanwhile
        throw err;
      });
  }

  /** Records a Normal Event on a written object (with its resource's apiVersion and kind). */
  #event(target: Target, written: KubeObject | undefined, reason: string, message: string): void {
    const recorder = this.#options.recorder;
    if (recorder === undefined || written === undefined) return;
    try {
      recorder.event(getReference(written, target.resource), 'Normal', reason, message);
    } catch (err) {
      this.#logger.warn('could not record a sharding Event', { error: errorMessage(err) });
    }
  }
}
