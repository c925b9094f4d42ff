/**
 * Defaulting of built-in kinds in the test API server, as kube-apiserver defaults an
 * object when it decodes a request body (k8s.io/kubernetes `pkg/apis/<group>/v1/defaults.go`
 * and the generated `zz_generated.defaults.go`): on create, update, every patch and
 * server-side apply result, whatever the wire format (JSON, YAML, protobuf), and for
 * in-process seeding. Services also get the addresses and ports kube-apiserver's Service
 * storage allocates ({@link allocateServiceFields}).
 *
 * Defaulting runs as the first admission plugin (../admission/builtin_defaults.ts), before validation and before the field
 * manager records an `Update` entry, so — as on kube-apiserver — a create or update owns
 * the defaulted fields too, while an apply owns only the fields it applied.
 *
 * What is not done here: admission plugins' additions (a Pod's service account, its
 * token volume, default tolerations, priority), a Job's generated selector, and defaults
 * behind feature gates that are off by default.
 *
 * @module
 */
import { groupResourceKey } from 'kube-controller-kit';
import type { UnstructuredObject } from 'kube-controller-kit';
import type { Obj } from './fields.js';
import {
  defaultEndpoints,
  defaultNetworkPolicy,
  defaultNode,
  defaultRoleBinding,
  defaultSecret,
} from './other_kinds.js';
import { defaultPod } from './pod.js';
import { defaultService } from './service.js';
import {
  defaultClaim,
  defaultCronJob,
  defaultDaemonSet,
  defaultDeployment,
  defaultJob,
  defaultReplicaSet,
  defaultStatefulSet,
} from './workloads.js';
import { jsonCopy } from '../json_copy.js';

/** Sets a kind's defaults on a decoded object, in place. */
type Defaulter = (obj: Obj) => void;

/** The defaulters by storage key (`pods`, `deployments.apps`); kinds without defaults are absent. */
const DEFAULTERS: ReadonlyMap<string, Defaulter> = new Map<string, Defaulter>([
  ['pods', defaultPod],
  ['services', defaultService],
  ['secrets', defaultSecret],
  ['endpoints', defaultEndpoints],
  ['nodes', defaultNode],
  ['persistentvolumeclaims', defaultClaim],
  ['deployments.apps', defaultDeployment],
  ['daemonsets.apps', defaultDaemonSet],
  ['statefulsets.apps', defaultStatefulSet],
  ['replicasets.apps', defaultReplicaSet],
  ['jobs.batch', defaultJob],
  ['cronjobs.batch', defaultCronJob],
  ['networkpolicies.networking.k8s.io', defaultNetworkPolicy],
  ['rolebindings.rbac.authorization.k8s.io', defaultRoleBinding],
  ['clusterrolebindings.rbac.authorization.k8s.io', defaultRoleBinding],
]);

/** Whether the server defaults objects of a built-in resource (`deployments.apps`). */
export function hasBuiltinDefaults(group: string, resource: string): boolean {
  return DEFAULTERS.has(groupResourceKey(group, resource));
}

/**
 * A copy of a built-in object with kube-apiserver's defaults set (the object itself when
 * its kind has none). Cluster IPs and node ports are not allocated here.
 */
export function withBuiltinDefaults(
  group: string,
  resource: string,
  obj: UnstructuredObject,
): UnstructuredObject {
  const defaulter = DEFAULTERS.get(groupResourceKey(group, resource));
  if (defaulter === undefined) return obj;
  const copy = jsonCopy(obj);
  defaulter(copy);
  return copy;
}

export { allocateServiceFields } from './service_allocation.js';
export { child, isObj } from './fields.js';
