/**
 * The two interfaces that tie clusters to controllers (multicluster-runtime's
 * `pkg/multicluster`): a {@link ClusterProvider} finds clusters and engages each one on a
 * {@link ClusterAware} (the multicluster manager, which passes it on to every controller);
 * the signal it engages with aborts when the cluster goes away.
 *
 * @module
 */
import type { ClusterHandle } from './cluster.js';

/**
 * Something that works on clusters as they come and go (multicluster-runtime's
 * `multicluster.Aware`): a multicluster controller, the multicluster manager.
 */
export interface ClusterAware {
  /**
   * Start working on `cluster`, named `name`, until `signal` aborts (the cluster was removed
   * by its provider, or the process stops). Engaging a name again with another cluster
   * object replaces the engagement (its kubeconfig changed); engaging it again with the same
   * object while its signal is live does nothing. Returns once set up, without waiting for
   * the cluster's caches to sync, so that one slow cluster does not hold back the others.
   *
   * @throws to refuse the cluster: the provider then removes it and logs why.
   */
  engage(signal: AbortSignal, name: string, cluster: ClusterHandle): void | Promise<void>;
}

/**
 * A source of clusters (multicluster-runtime's `multicluster.Provider` and
 * `ProviderRunnable` in one): a static set, a directory of kubeconfig files, kubeconfig
 * Secrets in a hub cluster.
 */
export interface ClusterProvider {
  /**
   * The engaged cluster named `name`.
   *
   * @throws {@link ClusterNotFoundError} when the provider has no such cluster (now).
   */
  get(name: string): ClusterHandle;
  /** The names of the clusters the provider holds now, sorted. */
  clusterNames(): string[];
  /**
   * Find clusters and engage each one on `aware` until `signal` aborts; disengage a cluster
   * when it goes away. Resolves once every cluster it started has stopped (its caches,
   * watches and sockets); rejects only when the provider cannot run at all (its directory
   * cannot be watched, for example). Called once.
   */
  start(signal: AbortSignal, aware: ClusterAware): Promise<void>;
}
