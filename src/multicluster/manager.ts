/**
 * The multicluster manager (multicluster-runtime's `mcmanager`): a {@link Manager} — the
 * process around the controllers: its own (local, hub) cluster's cache, leader election,
 * probes, metrics, shutdown — with a {@link ClusterProvider} whose clusters it engages on
 * every cluster-aware runnable added to it.
 *
 * Rules:
 *
 * - **Engaging.** When the provider engages a cluster, the manager engages it on each
 *   cluster-aware runnable (every {@link MultiClusterController}, anything with
 *   `engage`), in the order they were added; one that refuses fails the engagement (the
 *   provider removes the cluster and logs why). A runnable added later is engaged on the
 *   clusters engaged already. The signal of each engagement aborts when the provider
 *   removes the cluster.
 * - **The provider runs as a runnable**, added last when the manager starts (as
 *   multicluster-runtime adds it), in the leader-election group unless
 *   `providerNeedsLeaderElection: false`: by default every cluster is engaged by the one
 *   leader, as in multicluster-runtime, and a replica that is not leading engages none.
 * - **The local cluster** ({@link LOCAL_CLUSTER}, `''`) is the manager's own, as a
 *   {@link ClusterHandle} ({@link MultiClusterManager.localCluster}); it is given to each
 *   multicluster controller, whose watches with `engageWithLocalCluster` watch it.
 *
 * @module
 */
import type { Controller } from '../controller/controller.js';
import type { AddRunnableOptions, Manager, Runnable } from '../manager/manager.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { ClusterHandle } from './cluster.js';
import { localCluster } from './cluster.js';
import { MultiClusterController } from './controller.js';
import { ClusterNotFoundError, InvalidMultiClusterOptionsError } from './errors.js';
import type { ClusterAware, ClusterProvider } from './provider.js';
import { LOCAL_CLUSTER } from './request.js';

/** Options of a {@link MultiClusterManager}. */
export interface MultiClusterManagerOptions {
  /**
   * Run the provider only while this process leads (default true: every cluster under one
   * leader). False engages the clusters on every replica, e.g. when the hub's objects are
   * sharded across active replicas.
   */
  providerNeedsLeaderElection?: boolean;
  /** Where engaging failures are logged (default: warnings and errors to stderr). */
  logger?: Logger;
}

/** A runnable that works on clusters as they come and go. */
export type ClusterAwareRunnable = Runnable & ClusterAware;

function isClusterAware(x: unknown): x is ClusterAware {
  return typeof (x as { engage?: unknown } | null)?.engage === 'function';
}

/**
 * A {@link Manager} with a cluster provider; see the module documentation.
 *
 * @example
 * ```ts
 * const manager = new Manager({ kubeConfig: hubKubeConfig });
 * const fleet = new MultiClusterManager(
 *   manager,
 *   new KubeconfigDirectoryProvider({ directory: '/etc/fleet/members' }),
 * );
 * fleet.add(controller); // a MultiClusterController
 * await fleet.start(signal);
 * ```
 */
export class MultiClusterManager implements ClusterAware {
  /** The manager: the local cluster's cache, leader election, probes, metrics. */
  readonly manager: Manager;
  /** The provider of the clusters (undefined: only the local cluster). */
  readonly provider: ClusterProvider | undefined;
  /** The manager's own cluster as a handle, named {@link LOCAL_CLUSTER}. */
  readonly localCluster: ClusterHandle;
  readonly #options: MultiClusterManagerOptions;
  readonly #logger: Logger;
  readonly #awares: ClusterAware[] = [];
  readonly #engaged = new Map<string, { signal: AbortSignal; cluster: ClusterHandle }>();
  #providerAdded = false;

  /**
   * @param manager - the manager to run on (its cluster is the local, hub cluster).
   * @param provider - where the clusters come from.
   */
  constructor(
    manager: Manager,
    provider?: ClusterProvider,
    options: MultiClusterManagerOptions = {},
  ) {
    if (manager === undefined || manager === null) {
      throw new InvalidMultiClusterOptionsError('MultiClusterManager needs a Manager');
    }
    this.manager = manager;
    this.provider = provider;
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger;
    this.localCluster = localCluster(manager);
  }

  /**
   * Add a runnable to the manager; a cluster-aware one (a {@link MultiClusterController})
   * is also engaged on every cluster, now and later, and a multicluster controller gets the
   * local cluster.
   *
   * @throws what {@link Manager.add} throws (e.g. once shutdown began).
   */
  add(
    runnable: MultiClusterController | ClusterAwareRunnable | Runnable | Controller,
    options: AddRunnableOptions = {},
  ): this {
    if (runnable instanceof MultiClusterController) {
      runnable.setLocalCluster(this.localCluster);
      this.manager.add(runnable, { name: `controller/${runnable.name}`, ...options });
    } else {
      this.manager.add(runnable, options);
    }
    if (isClusterAware(runnable)) {
      this.#awares.push(runnable);
      for (const [name, { signal, cluster }] of this.#engaged) {
        void this.#engageOne(runnable, signal, name, cluster);
      }
    }
    return this;
  }

  /**
   * Engage `cluster` on every cluster-aware runnable (the provider calls this). Rejects with
   * the first refusal, after which the provider removes the cluster.
   */
  async engage(signal: AbortSignal, name: string, cluster: ClusterHandle): Promise<void> {
    if (signal.aborted) return;
    const entry = { signal, cluster };
    this.#engaged.set(name, entry);
    signal.addEventListener(
      'abort',
      () => {
        if (this.#engaged.get(name) === entry) this.#engaged.delete(name);
      },
      { once: true },
    );
    for (const aware of [...this.#awares]) await aware.engage(signal, name, cluster);
  }

  async #engageOne(
    aware: ClusterAware,
    signal: AbortSignal,
    name: string,
    cluster: ClusterHandle,
  ): Promise<void> {
    try {
      await aware.engage(signal, name, cluster);
    } catch (err) {
      this.#logger.error(
        `multicluster manager: engaging cluster ${name} on a runnable added later failed`,
        { cluster: name, error: err },
      );
    }
  }

  /**
   * The cluster named `name` (multicluster-runtime's `GetCluster`): the local one for
   * {@link LOCAL_CLUSTER}, else the provider's.
   *
   * @throws {@link ClusterNotFoundError} when it is not engaged.
   */
  getCluster(name: string): ClusterHandle {
    if (name === LOCAL_CLUSTER) return this.localCluster;
    if (this.provider === undefined) throw new ClusterNotFoundError(name);
    return this.provider.get(name);
  }

  /** The provider's clusters engaged now, sorted (not the local one). */
  clusterNames(): string[] {
    return [...this.#engaged.keys()].sort();
  }

  /**
   * Add the provider's runnable (last), then run the manager until `signal` aborts (or
   * SIGTERM/SIGINT without one); see {@link Manager.start}.
   */
  start(signal?: AbortSignal): Promise<void> {
    const provider = this.provider;
    if (provider !== undefined && !this.#providerAdded) {
      this.#providerAdded = true;
      this.manager.add({
        name: 'cluster-provider',
        needLeaderElection: this.#options.providerNeedsLeaderElection ?? true,
        start: (s) => provider.start(s, this),
      });
    }
    return this.manager.start(signal);
  }
}
