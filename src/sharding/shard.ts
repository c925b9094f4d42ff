/**
 * One member of a ring: the shard Lease that announces it, the label selector its
 * informers use, and the drain handshake that lets an object move away without two shards
 * ever reconciling it at once.
 *
 * Rules:
 *
 * - **Membership is a Lease.** A shard holds its own Lease (`<ring>-<shard>` in the given
 *   namespace, labelled with the ring and shard names), renewed like a leader lease. While
 *   it holds the Lease it works; when it cannot renew within the renew deadline it stops
 *   its work (the sharder declares it dead only after the full lease duration, so the two
 *   never overlap); when it stops cleanly it releases the Lease, and the sharder moves its
 *   objects at once.
 * - **A shard sees only its objects.** Every informer of a sharded resource selects on
 *   `shard.<domain>/<ring>=<shard>` ({@link Shard.labelSelector}).
 * - **Drain.** When the sharder moves an object from a live shard it adds the drain label.
 *   The shard's reconciler (see {@link Shard.reconciler}) sees it on the next reconcile of
 *   that key — which the work queue starts only after a running reconcile of the key has
 *   returned — removes both labels (with a resourceVersion precondition, so a changed
 *   object is read again first), and never reconciles that copy of the object again. Only
 *   then does the sharder assign the object to its new shard. When the object leaves this
 *   shard's cache afterwards, that is a move, not a deletion: the user's reconcile is not
 *   called for it.
 *
 * @module
 */
import { leases } from '../client/builtins.js';
import type { KubeConfigLike, Transport } from '../client/transport.js';
import type { KubeObject } from '../client/types.js';
import { ResourceClient } from '../client/resource_client.js';
import type { Reconciler } from '../controller/controller.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import { LeaderElectedRunner } from '../leaderelection/run_while_leading.js';
import { LeaseLock } from '../leaderelection/lease_lock.js';
import type { LeaseClient } from '../leaderelection/lease_lock.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { KubeControllerKitError } from '../util/errors.js';
import type { ShardingMetrics } from './metrics.js';
import { checkLabelName, ringLabels, ShardingNameError } from './names.js';
import type { RingLabels } from './names.js';

/** Lease timing of a shard, in milliseconds (client-go's leader-election defaults). */
export interface ShardLeaseTiming {
  /** How long the sharder waits after the last renewal before it declares the shard dead (default 15 000). */
  leaseDurationMs?: number;
  /** How long the shard keeps trying to renew before it stops its work (default 10 000). */
  renewDeadlineMs?: number;
  /** Time between renewals (default 2000). */
  retryPeriodMs?: number;
}

/** Options of a {@link Shard}. */
export interface ShardOptions extends ShardLeaseTiming {
  /** The ring's name (shared by the sharder and every shard of the ring). */
  ring: string;
  /** This shard's name, unique in the ring and stable across restarts (e.g. the pod name). */
  name: string;
  /** Namespace of the shard Leases (the sharder watches this namespace). */
  namespace: string;
  /** Where the Lease is written: a transport or a KubeConfig. */
  source: Transport | KubeConfigLike;
  /** Label domain (default `kube-controller-kit.dev`). */
  domain?: string;
  /** Source of time (default the real clock). */
  clock?: Clock;
  /** Where to log (default warnings and errors to stderr). */
  logger?: Logger;
  /** Where drain counts go. */
  metrics?: ShardingMetrics;
  /** The client the Lease is written with (default: a Lease client on `source`). */
  leaseClient?: LeaseClient;
}

/** How {@link Shard.run} ended. */
export type ShardRunOutcome =
  /** The signal aborted; the Lease was released. */
  | 'cancelled'
  /** The Lease could not be renewed in time; the work was stopped. */
  | 'lease-lost'
  /** The work function returned by itself; the Lease was released. */
  | 'completed';

/** What a drain-aware reconciler needs: this shard's cache and a client to write labels. */
export interface ShardReconcilerOptions<T extends KubeObject> {
  /** The cache of the informer that selects on {@link Shard.labelSelector}. */
  store: {
    /** The cached object of `key`, if any. */
    getByKey(key: string): DeepReadonly<T> | undefined;
  };
  /** A client for the resource (any namespace scope; the object's namespace is used). */
  client: ResourceClient<T>;
  /** The user's reconcile, called for keys this shard owns. */
  reconcile: Reconciler;
}

/** The shard's Lease could not be renewed in time; its work was stopped. */
export class ShardLeaseLostError extends KubeControllerKitError {}

/**
 * A shard's work as a Manager runnable (`manager.add(shard.runnable(work))`): it does not
 * wait for leader election — every replica works, on its own share.
 */
export interface ShardRunnable {
  /** For logs. */
  readonly name: string;
  /** Always false: shards are all active. */
  readonly needLeaderElection: false;
  /**
   * Holds the shard Lease and runs the work until `signal` aborts; rejects with
   * {@link ShardLeaseLostError} when the Lease is lost (so the process exits non-zero).
   */
  start(signal: AbortSignal): Promise<void>;
}

/** A member of a ring. */
export class Shard {
  /** This shard's name. */
  readonly name: string;
  /** The ring's label keys. */
  readonly labels: RingLabels;
  /** The label selector every informer of a sharded resource uses on this shard. */
  readonly labelSelector: string;
  /** Name of this shard's Lease. */
  readonly leaseName: string;
  readonly #options: ShardOptions;
  readonly #logger: Logger;
  #runner: LeaderElectedRunner | undefined;

  /**
   * @param options - ring, shard name, Lease namespace and where to write.
   * @throws {@link ShardingNameError} when a name cannot be used in a label or a Lease name.
   */
  constructor(options: ShardOptions) {
    this.labels = ringLabels(options.ring, options.domain);
    checkLabelName('shard name', options.name);
    this.leaseName = `${options.ring}-${options.name}`.toLowerCase();
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(this.leaseName) || this.leaseName.length > 253) {
      throw new ShardingNameError(
        `ring "${options.ring}" and shard "${options.name}" make the Lease name "${this.leaseName}", which is not a DNS subdomain; use lower-case letters, digits and '-'`,
      );
    }
    this.name = options.name;
    this.labelSelector = `${this.labels.shard}=${options.name}`;
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger;
  }

  /** True while this shard holds its Lease (and so may work). */
  isMember(): boolean {
    return this.#runner?.elector.isLeader() ?? false;
  }

  /**
   * Holds the shard Lease and runs `work` while holding it. `work`'s signal aborts when the
   * Lease cannot be renewed in time or `signal` aborts; the Lease is released once `work`
   * has returned (a clean stop), so the sharder moves this shard's objects at once.
   * Resolves after everything stopped.
   */
  async run(
    work: (signal: AbortSignal) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<ShardRunOutcome> {
    const o = this.#options;
    const client = o.leaseClient ?? leases(o.source, { namespace: o.namespace });
    const lock = new LeaseLock(client, {
      namespace: o.namespace,
      name: this.leaseName,
      identity: this.name,
      labels: { [this.labels.leaseRing]: this.labels.ring, [this.labels.leaseShard]: this.name },
    });
    const runner = new LeaderElectedRunner({
      lock,
      name: `shard ${this.name} of ring ${this.labels.ring}`,
      releaseOnCancel: true,
      onLost: 'exit',
      run: async (s) => {
        this.#logger.info('shard joined its ring', { ring: this.labels.ring, shard: this.name });
        await work(s);
      },
      clock: o.clock ?? realClock,
      logger: this.#logger,
      ...(o.leaseDurationMs === undefined ? {} : { leaseDurationMs: o.leaseDurationMs }),
      ...(o.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: o.renewDeadlineMs }),
      ...(o.retryPeriodMs === undefined ? {} : { retryPeriodMs: o.retryPeriodMs }),
    });
    this.#runner = runner;
    try {
      const outcome = await runner.run(signal);
      if (outcome === 'leadership-lost') {
        this.#logger.error(
          'shard lost its Lease and stopped working; its objects move to other shards',
          {
            ring: this.labels.ring,
            shard: this.name,
          },
        );
        return 'lease-lost';
      }
      return outcome;
    } finally {
      this.#runner = undefined;
    }
  }

  /**
   * The shard's work as a runnable for a Manager: `manager.add(shard.runnable((signal) =>
   * controller.run(signal)))`. Build the work's informers with {@link Shard.labelSelector}.
   */
  runnable(work: (signal: AbortSignal) => Promise<void>): ShardRunnable {
    return {
      name: `shard ${this.name} of ring ${this.labels.ring}`,
      needLeaderElection: false,
      start: async (signal) => {
        const outcome = await this.run(work, signal);
        if (outcome === 'lease-lost') {
          throw new ShardLeaseLostError(
            `shard ${this.name} of ring ${this.labels.ring} could not renew its Lease ${this.leaseName} in time and stopped; restart the process to rejoin`,
          );
        }
      },
    };
  }

  /**
   * Wraps `reconcile` so that this shard honours drains: a key whose cached object carries
   * the drain label is released (both labels removed) instead of reconciled; a released
   * object is never reconciled again here until it comes back with a new resourceVersion;
   * its disappearance from the cache is a move, not a deletion.
   */
  reconciler<T extends KubeObject>(options: ShardReconcilerOptions<T>): Reconciler {
    const released = new Map<string, string | undefined>();
    const { store, client, reconcile } = options;
    const labels = this.labels;
    const me = this.name;
    return async (key, signal) => {
      const obj = store.getByKey(key);
      if (obj === undefined) {
        // Gone from this shard's cache: released earlier (a move), or really deleted.
        if (released.delete(key)) return;
        return reconcile(key, signal);
      }
      const meta = obj.metadata ?? {};
      const rv = meta.resourceVersion;
      if (released.has(key)) {
        if (released.get(key) === rv) return; // the copy we let go of; its removal is on its way
        released.delete(key);
      }
      const objLabels = meta.labels ?? {};
      if (objLabels[labels.shard] !== me) return; // a stale copy of an object that is not ours
      if (objLabels[labels.drain] !== undefined) {
        const ns = meta.namespace;
        const scoped = ns !== undefined && ns !== '' ? client.namespace(ns) : client;
        await scoped.patch(
          meta.name ?? '',
          {
            metadata: {
              resourceVersion: rv,
              labels: { [labels.shard]: null, [labels.drain]: null },
            },
          },
          { type: 'merge', signal },
        );
        released.set(key, rv);
        this.#options.metrics?.drained?.(labels.ring, me);
        this.#logger.info('shard released an object to its new shard', {
          ring: labels.ring,
          shard: me,
          key,
        });
        return;
      }
      return reconcile(key, signal);
    };
  }

  /**
   * A client for `resource` on the shard's source, for {@link Shard.reconciler}.
   *
   * @typeParam T - the object type.
   */
  clientFor<T extends KubeObject>(resource: ResourceClient<T>['resource']): ResourceClient<T> {
    return new ResourceClient<T>(this.#options.source, resource);
  }
}
