/**
 * ClusterRole (rbac.authorization.k8s.io/v1). A PUT of a missing ClusterRole creates it
 * (AllowCreateOnUpdate); privilege escalation through it is refused by the
 * `rbac-escalation` admission plugin (../../escalation_check.ts).
 *
 * @module
 */
import { createdAtPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';

/** ClusterRoles. */
export const clusterRoles = defineKind({
  group: 'rbac.authorization.k8s.io',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
  nameRule: 'pathSegment',
  printers: createdAtPrinters(),
  strategy: { allowCreateOnUpdate: true },
});
