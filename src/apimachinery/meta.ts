/**
 * Object and list metadata helpers every layer agrees on: how a group and resource are
 * named together (`deployments.apps`), how a namespaced object is keyed
 * (`namespace/name`), list metadata and resourceVersion parsing.
 *
 * @module
 */

/** List metadata (metadata of a `*List`). */
export interface ListMeta {
  /** The version of the list as a whole; watch from here. */
  resourceVersion?: string;
  /** Token for the next page, empty on the last page. */
  continue?: string;
  /** Estimated number of items after this page. */
  remainingItemCount?: number;
  /**
   * Present when the server applied a `shardSelector` (KEP-5866, Kubernetes 1.36 alpha,
   * gate `ShardedListAndWatch`): it echoes the selector. Absent when the server ignored it
   * and returned everything.
   */
  shardInfo?: ShardInfo;
}

/** What a list the server filtered by `shardSelector` says about it (`metadata.shardInfo`). */
export interface ShardInfo {
  /** The shard selector the server applied, as the client sent it. */
  selector: string;
}

/**
 * A group and resource as kube-apiserver names them in keys and messages: `pods` for the
 * core group, `deployments.apps`, `leases.coordination.k8s.io`.
 *
 * Exported for `@kube-controller-kit/testing`, not part of the API.
 *
 * @internal
 */
export function groupResourceKey(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

/** The key of an object: `namespace/name`, or `name` for a cluster-scoped object. */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** `group/version` as `apiVersion` spells it: `v1` for the core group, `apps/v1`. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * Splits an `apiVersion` into group and version: `apps/v1` → `{ group: 'apps', version:
 * 'v1' }`, `v1` → `{ group: '', version: 'v1' }`.
 */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
