/**
 * The clusters a provider holds (multicluster-runtime's `pkg/clusters.Clusters`): each one
 * started, engaged, and — when its provider removes or replaces it — disengaged and
 * stopped, with nothing of it left running. Every provider of this module keeps its
 * clusters in one.
 *
 * Rules:
 *
 * - `addOrReplace(name, cluster, fingerprint)`: a name not held is started
 *   (`cluster.start(signal)`) and engaged; a name held with the same fingerprint (a hash of
 *   its kubeconfig) is left alone; with another fingerprint the old cluster is removed first
 *   and the new one engaged (multicluster-runtime's `AddOrReplace`).
 * - Engaging that fails (`aware.engage` throws) removes the cluster again and logs why.
 * - `remove(name)` aborts the cluster's signal — every engagement's signal — and resolves
 *   once its `start()` settled: its informers stopped and its transport closed.
 * - Operations on one name run one after another, in the order they were asked for.
 *
 * @module
 */
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { ClusterHandle } from './cluster.js';
import { ClusterNotFoundError } from './errors.js';
import type { ClusterAware } from './provider.js';

/** A cluster a provider can run: a {@link ClusterHandle} with `start(signal)`. */
export interface RunnableCluster extends ClusterHandle {
  /** Run until `signal` aborts; settle once everything it started has stopped. */
  start(signal: AbortSignal): Promise<void>;
}

interface Held<C> {
  readonly cluster: C;
  readonly fingerprint: string | undefined;
  readonly stop: AbortController;
  readonly running: Promise<void>;
}

/** Options of {@link Clusters}. */
export interface ClustersOptions {
  /** Where engaging, failures and removals are logged (default: warnings and errors to stderr). */
  logger?: Logger;
  /** Names the holder in log lines (e.g. `kubeconfig directory /etc/members`). */
  description?: string;
}

/**
 * The engaged clusters of one provider, by name. See the module documentation.
 *
 * @typeParam C - the cluster type.
 */
export class Clusters<C extends RunnableCluster = RunnableCluster> {
  readonly #held = new Map<string, Held<C>>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #logger: Logger;
  readonly #description: string;

  /** An empty set. */
  constructor(options: ClustersOptions = {}) {
    this.#logger = options.logger ?? defaultLogger;
    this.#description = options.description ?? 'provider';
  }

  /**
   * The cluster named `name`.
   *
   * @throws {@link ClusterNotFoundError} when no such cluster is held.
   */
  get(name: string): C {
    const held = this.#held.get(name);
    if (held === undefined) throw new ClusterNotFoundError(name, this.names());
    return held.cluster;
  }

  /** True when a cluster named `name` is held. */
  has(name: string): boolean {
    return this.#held.has(name);
  }

  /** The fingerprint `name` was added with (undefined when not held or added without one). */
  fingerprint(name: string): string | undefined {
    return this.#held.get(name)?.fingerprint;
  }

  /** The names held, sorted. */
  names(): string[] {
    return [...this.#held.keys()].sort();
  }

  /** How many clusters are held. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Hold, start and engage `cluster` as `name` (see the module rules). Resolves to true when
   * it was engaged, false when it was already held with the same fingerprint or engaging
   * failed (then it is removed again).
   */
  addOrReplace(
    name: string,
    cluster: C,
    aware: ClusterAware,
    fingerprint?: string,
  ): Promise<boolean> {
    return this.#serially(name, async () => {
      const old = this.#held.get(name);
      if (old !== undefined) {
        if (fingerprint !== undefined && old.fingerprint === fingerprint) return false;
        this.#logger.info(`${this.#description}: cluster ${name} changed; re-engaging it`);
        await this.#stop(name, old);
      }
      const stop = new AbortController();
      const running = cluster.start(stop.signal).catch((err: unknown) => {
        this.#logger.error(`${this.#description}: cluster ${name} failed`, {
          cluster: name,
          error: err,
        });
      });
      const held: Held<C> = { cluster, fingerprint, stop, running };
      this.#held.set(name, held);
      try {
        await aware.engage(stop.signal, name, cluster);
      } catch (err) {
        this.#logger.error(`${this.#description}: engaging cluster ${name} failed; it is removed`, {
          cluster: name,
          error: err,
        });
        await this.#stop(name, held);
        return false;
      }
      this.#logger.info(`${this.#description}: engaged cluster ${name}`, { cluster: name });
      return true;
    });
  }

  /** Disengage and stop the cluster named `name`; resolves once it stopped. Nothing when not held. */
  remove(name: string): Promise<void> {
    return this.#serially(name, async () => {
      const held = this.#held.get(name);
      if (held === undefined) return;
      await this.#stop(name, held);
      this.#logger.info(`${this.#description}: disengaged cluster ${name}`, { cluster: name });
    });
  }

  /** Remove every cluster; resolves once all of them stopped. */
  async removeAll(): Promise<void> {
    await Promise.all([...this.#held.keys()].map((name) => this.remove(name)));
    await Promise.all([...this.#queues.values()]);
  }

  async #stop(name: string, held: Held<C>): Promise<void> {
    if (this.#held.get(name) === held) this.#held.delete(name);
    held.stop.abort(new ClusterNotFoundError(name));
    await held.running;
  }

  /** Run `fn` after the operations already asked for on `name`. */
  #serially<R>(name: string, fn: () => Promise<R>): Promise<R> {
    const previous = this.#queues.get(name) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(name, tail);
    void tail.then(() => {
      if (this.#queues.get(name) === tail) this.#queues.delete(name);
    });
    return next;
  }
}
