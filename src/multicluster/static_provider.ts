/**
 * A fixed set of clusters given in code (multicluster-runtime's `providers/clusters`): each
 * one a kubeconfig (or a shared Transport) under a name. Clusters can also be added and
 * removed while it runs, e.g. by a program that learns about them elsewhere.
 *
 * @module
 */
import type { KubeConfigLike } from '../client/transport.js';
import type { Transport } from '../client/transport.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { ClusterHandle, KubeconfigClusterOptions } from './cluster.js';
import { KubeconfigCluster } from './cluster.js';
import { Clusters } from './clusters.js';
import { InvalidMultiClusterOptionsError } from './errors.js';
import type { ClusterAware, ClusterProvider } from './provider.js';
import { checkClusterName } from './request.js';

/** Options of a {@link StaticClusterProvider}. */
export interface StaticClusterProviderOptions {
  /** The clusters, by name: a client-node KubeConfig (1.x or 2.x) or a Transport to share. */
  clusters?: Readonly<Record<string, KubeConfigLike | Transport>>;
  /** Options of every cluster made (cache defaults, transport options, clock). */
  clusterOptions?: Omit<KubeconfigClusterOptions, 'logger'>;
  /** Where engaging and removing are logged (default: warnings and errors to stderr). */
  logger?: Logger;
}

/**
 * The clusters given in its options, engaged when it starts; {@link StaticClusterProvider.add}
 * and {@link StaticClusterProvider.remove} change the set while it runs.
 *
 * @example
 * ```ts
 * const provider = new StaticClusterProvider({
 *   clusters: { 'eu-1': euKubeConfig, 'us-1': usKubeConfig },
 * });
 * ```
 */
export class StaticClusterProvider implements ClusterProvider {
  readonly #pending = new Map<string, KubeConfigLike | Transport>();
  readonly #options: StaticClusterProviderOptions;
  readonly #logger: Logger;
  readonly #clusters: Clusters<KubeconfigCluster>;
  #aware: ClusterAware | undefined;
  #started = false;
  #stopped = false;

  /** @throws {@link InvalidClusterNameError} for a name that is not a valid cluster name. */
  constructor(options: StaticClusterProviderOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger;
    this.#clusters = new Clusters({ logger: this.#logger, description: 'static clusters' });
    for (const [name, kubeConfig] of Object.entries(options.clusters ?? {})) {
      checkClusterName(name, 'static cluster provider');
      this.#pending.set(name, kubeConfig);
    }
  }

  /** {@inheritDoc ClusterProvider.get} */
  get(name: string): ClusterHandle {
    return this.#clusters.get(name);
  }

  /** {@inheritDoc ClusterProvider.clusterNames} */
  clusterNames(): string[] {
    return this.#clusters.names();
  }

  /**
   * Add (or replace) the cluster `name`; while running it is engaged at once, and the
   * promise resolves once it was (false when engaging failed).
   *
   * @throws {@link InvalidClusterNameError} for an invalid name.
   */
  async add(name: string, kubeConfig: KubeConfigLike | Transport): Promise<boolean> {
    checkClusterName(name, 'static cluster provider');
    if (!this.#started || this.#aware === undefined) {
      this.#pending.set(name, kubeConfig);
      return false;
    }
    if (this.#stopped) return false;
    return this.#engage(name, kubeConfig, this.#aware);
  }

  /** Remove the cluster `name` (nothing when it is not held); resolves once it stopped. */
  async remove(name: string): Promise<void> {
    this.#pending.delete(name);
    await this.#clusters.remove(name);
  }

  /** {@inheritDoc ClusterProvider.start} */
  async start(signal: AbortSignal, aware: ClusterAware): Promise<void> {
    if (this.#started) {
      throw new InvalidMultiClusterOptionsError('StaticClusterProvider.start() was already called');
    }
    this.#started = true;
    this.#aware = aware;
    try {
      await Promise.all(
        [...this.#pending].map(([name, kubeConfig]) => this.#engage(name, kubeConfig, aware)),
      );
      this.#pending.clear();
      if (!signal.aborted) {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      }
    } finally {
      this.#stopped = true;
      await this.#clusters.removeAll();
    }
  }

  #engage(
    name: string,
    kubeConfig: KubeConfigLike | Transport,
    aware: ClusterAware,
  ): Promise<boolean> {
    const cluster = new KubeconfigCluster(name, kubeConfig, {
      ...this.#options.clusterOptions,
      logger: this.#logger,
    });
    return this.#clusters.addOrReplace(name, cluster, aware);
  }
}
