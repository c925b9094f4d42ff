/**
 * Defaults of the remaining built-in kinds that define any (k8s.io/kubernetes
 * `pkg/apis/{core,networking,rbac}/v1/defaults.go`):
 *
 * - Secret: `type: Opaque`.
 * - Endpoints: each subset port's `protocol: TCP`.
 * - Node: `status.allocatable` copied from `status.capacity` when unset.
 * - NetworkPolicy: `policyTypes` `[Ingress]` (plus `Egress` when it has egress rules),
 *   each rule port's `protocol: TCP`.
 * - RoleBinding and ClusterRoleBinding: `roleRef.apiGroup: rbac.authorization.k8s.io`;
 *   User and Group subjects' `apiGroup: rbac.authorization.k8s.io`.
 *
 * @module
 */
import type { Obj } from './fields.js';
import { child, ensure, isEmpty, items, setIfEmpty, setIfNil } from './fields.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Secret: `type: Opaque`. */
export function defaultSecret(obj: Obj): void {
  setIfEmpty(obj, 'type', 'Opaque');
}

/** Endpoints: port `protocol: TCP`. */
export function defaultEndpoints(obj: Obj): void {
  for (const subset of items(obj, 'subsets')) {
    for (const port of items(subset, 'ports')) setIfEmpty(port, 'protocol', 'TCP');
  }
}

/** Node: `status.allocatable` = `status.capacity` when unset. */
export function defaultNode(obj: Obj): void {
  const status = child(obj, 'status');
  const capacity = status && child(status, 'capacity');
  if (status && capacity) setIfNil(status, 'allocatable', { ...capacity });
}

/** NetworkPolicy: `policyTypes` and rule port protocols. */
export function defaultNetworkPolicy(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  const egress = items(spec, 'egress');
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  for (const rule of [...items(spec, 'ingress'), ...egress]) {
    for (const port of items(rule, 'ports')) setIfNil(port, 'protocol', 'TCP');
  }
}

/** RoleBinding and ClusterRoleBinding: the API groups of `roleRef` and `subjects`. */
export function defaultRoleBinding(obj: Obj): void {
  setIfEmpty(ensure(obj, 'roleRef'), 'apiGroup', RBAC_GROUP);
  for (const subject of items(obj, 'subjects')) {
    // A ServiceAccount's group stays '' (which Go does not serialize).
    if (isEmpty(subject.apiGroup) && (subject.kind === 'User' || subject.kind === 'Group')) {
      subject.apiGroup = RBAC_GROUP;
    }
  }
}
