/**
 * The reconcile request of a multicluster controller: `{ cluster, namespace, name }`
 * (multicluster-runtime's `mcreconcile.Request`: a controller-runtime request plus the
 * cluster's name), and its string form, the work queue's key.
 *
 * The key is `cluster://<cluster>/<namespace>/<name>` (multicluster-runtime's `String()`),
 * with an empty namespace for a cluster-scoped object and an empty cluster for the local
 * cluster (`cluster:///default/settings`). A namespace or a name never holds `/` (both are
 * DNS names), so the key is read from the right and a cluster name may hold `/` (the
 * Cluster API provider names clusters `<namespace>/<name>`).
 *
 * @module
 */
import { InvalidClusterNameError, InvalidClusterRequestError } from './errors.js';

/**
 * The name of the manager's own cluster (multicluster-runtime's `LocalCluster`): requests of
 * objects watched on the local (hub) cluster carry it.
 */
export const LOCAL_CLUSTER = '';

/** What a multicluster reconcile is asked to bring to its desired state. */
export interface ClusterRequest {
  /** The cluster the object lives in ({@link LOCAL_CLUSTER} for the manager's own). */
  readonly cluster: string;
  /** The object's namespace (`''` for a cluster-scoped object). */
  readonly namespace: string;
  /** The object's name. */
  readonly name: string;
}

const PREFIX = 'cluster://';
const CLUSTER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,251}[A-Za-z0-9])?$/;

/** True when `name` is a cluster name a provider may engage ({@link LOCAL_CLUSTER} is not one). */
export function isValidClusterName(name: string): boolean {
  return CLUSTER_NAME.test(name) && !name.includes('//');
}

/**
 * Throws unless `name` is a valid cluster name (see {@link isValidClusterName}).
 *
 * @param where - where the name came from, for the message (a file, a Secret).
 * @throws {@link InvalidClusterNameError}
 */
export function checkClusterName(name: string, where: string): void {
  if (!isValidClusterName(name)) throw new InvalidClusterNameError(name, where);
}

/**
 * The work queue key of a request: `cluster://<cluster>/<namespace>/<name>`.
 *
 * @throws {@link InvalidClusterRequestError} when the name is empty, or the namespace or the
 *   name holds `/` (no Kubernetes object is named so; a mapper returned something else).
 */
export function requestKey(request: ClusterRequest): string {
  const { cluster, namespace, name } = request;
  if (typeof name !== 'string' || name === '' || name.includes('/')) {
    throw new InvalidClusterRequestError(
      `request name ${JSON.stringify(name)} (cluster ${JSON.stringify(cluster)}) is not an object name: it must be non-empty and hold no '/'`,
    );
  }
  if (typeof namespace !== 'string' || namespace.includes('/')) {
    throw new InvalidClusterRequestError(
      `request namespace ${JSON.stringify(namespace)} of ${name} is not a namespace name: it must hold no '/' ('' for cluster-scoped objects)`,
    );
  }
  if (typeof cluster !== 'string') {
    throw new InvalidClusterRequestError(`request ${namespace}/${name} has no cluster name`);
  }
  return `${PREFIX}${cluster}/${namespace}/${name}`;
}

/**
 * The request a key stands for (the inverse of {@link requestKey}).
 *
 * @throws {@link InvalidClusterRequestError} for a string that is not such a key.
 */
export function parseRequestKey(key: string): ClusterRequest {
  if (!key.startsWith(PREFIX)) {
    throw new InvalidClusterRequestError(
      `${JSON.stringify(key)} is not a multicluster request key (cluster://<cluster>/<namespace>/<name>)`,
    );
  }
  const nameAt = key.lastIndexOf('/');
  const namespaceAt = key.lastIndexOf('/', nameAt - 1);
  if (namespaceAt < PREFIX.length || nameAt === key.length - 1) {
    throw new InvalidClusterRequestError(
      `${JSON.stringify(key)} is not a multicluster request key (cluster://<cluster>/<namespace>/<name>)`,
    );
  }
  return {
    cluster: key.slice(PREFIX.length, namespaceAt),
    namespace: key.slice(namespaceAt + 1, nameAt),
    name: key.slice(nameAt + 1),
  };
}

/** The cluster of a request key (what the fair queue groups keys by), or undefined for a foreign string. */
export function clusterOfKey(key: string): string | undefined {
  if (!key.startsWith(PREFIX)) return undefined;
  const nameAt = key.lastIndexOf('/');
  const namespaceAt = key.lastIndexOf('/', nameAt - 1);
  if (namespaceAt < PREFIX.length) return undefined;
  return key.slice(PREFIX.length, namespaceAt);
}
