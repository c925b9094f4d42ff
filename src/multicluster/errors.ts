/**
 * The errors of the multicluster module.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/**
 * No cluster of that name is engaged (multicluster-runtime's `ErrClusterNotFound`). A
 * reconcile that throws it (or whose cluster went away while it ran) ends without a
 * requeue: the cluster is gone, and so is its work.
 */
export class ClusterNotFoundError extends KubeControllerKitError {
  /** The cluster asked for. */
  readonly cluster: string;
  /** @param cluster - the name asked for; @param known - the names engaged now. */
  constructor(cluster: string, known: readonly string[] = []) {
    super(
      `cluster ${JSON.stringify(cluster)} is not engaged${known.length > 0 ? ` (engaged: ${known.join(', ')})` : ' (no cluster is engaged)'}; it may have been removed by its provider`,
    );
    this.cluster = cluster;
  }
}

/**
 * A kubeconfig read from a file or a Secret could not be used: too large, not YAML, no
 * current context, or a credential this provider does not allow (an exec plugin, a file
 * reference). The message names where it came from (`source`).
 */
export class InvalidKubeconfigError extends KubeControllerKitError {
  /** Where the kubeconfig came from: a file path, or `Secret <namespace>/<name>`. */
  readonly source: string;
  /** What was wrong with it, without the source. */
  readonly reason: string;
  /** @param source - where it came from; @param reason - what was wrong. */
  constructor(source: string, reason: string, options?: ErrorOptions) {
    super(`kubeconfig ${source}: ${reason}`, options);
    this.source = source;
    this.reason = reason;
  }
}

/** A cluster name a provider cannot use (empty, too long, or with characters outside `[A-Za-z0-9._/-]`). */
export class InvalidClusterNameError extends KubeControllerKitError {
  /** The name. */
  readonly clusterName: string;
  /** @param name - the name; @param where - where it came from. */
  constructor(name: string, where: string) {
    super(
      `${where}: cluster name ${JSON.stringify(name)} is not valid: use 1 to 253 characters of letters, digits, '.', '_', '-' and '/', starting and ending with a letter or digit`,
    );
    this.clusterName = name;
  }
}

/** A request whose namespace or name cannot be part of a queue key (contains `/`, or no name). */
export class InvalidClusterRequestError extends KubeControllerKitError {}

/** Options of a multicluster type are invalid. */
export class InvalidMultiClusterOptionsError extends KubeControllerKitError {}
