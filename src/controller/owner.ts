/**
 * Mapping a child object to the key of the object that owns it, through
 * `metadata.ownerReferences` (controller-runtime's `EnqueueRequestForOwner`).
 *
 * @module
 */
import type { KubeObject, OwnerReference } from '../client/types.js';

/** Which owner references {@link ownerKeys} follows. */
export interface OwnerKeysOptions {
  /** The owner's kind, e.g. `Application`. */
  kind: string;
  /**
   * The owner's API version or group, e.g. `example.com/v1`. Only the **group** is
   * compared (an owner reference written under another version of the same kind still
   * matches). Absent: any group.
   */
  apiVersion?: string;
  /**
   * Follow only the reference with `controller: true` (default true). Set false to follow
   * every owner reference of the kind.
   */
  onlyController?: boolean;
  /**
   * The owner kind is cluster-scoped: keys are `name` instead of `namespace/name`
   * (default false: owners live in the child's namespace, as Kubernetes requires for
   * namespaced owners).
   */
  clusterScoped?: boolean;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The keys (`namespace/name`, or `name` for cluster-scoped owners) of the owners of `obj`
 * that match `options`: by default only its controller reference of that kind, so at most
 * one key. The owner's namespace is the child's: a namespaced object can only be owned by
 * objects in its own namespace (or by cluster-scoped ones).
 *
 * @example
 * ```ts
 * ownerKeys(deployment, { kind: 'Application', apiVersion: 'example.com/v1' }); // ['default/web']
 * ```
 */
export function ownerKeys(obj: KubeObject, options: OwnerKeysOptions): string[] {
  const refs: readonly OwnerReference[] | undefined = obj.metadata?.ownerReferences;
  if (refs === undefined || refs.length === 0) return [];
  const group = options.apiVersion === undefined ? undefined : groupOf(options.apiVersion);
  const onlyController = options.onlyController ?? true;
  const namespace = options.clusterScoped === true ? '' : (obj.metadata?.namespace ?? '');
  const keys: string[] = [];
  for (const ref of refs) {
    if (ref.kind !== options.kind) continue;
    if (onlyController && ref.controller !== true) continue;
    if (group !== undefined && groupOf(ref.apiVersion ?? '') !== group) continue;
    if (typeof ref.name !== 'string' || ref.name === '') continue;
    const key = namespace === '' ? ref.name : `${namespace}/${ref.name}`;
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}
