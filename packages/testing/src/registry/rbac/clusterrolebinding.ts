/**
 * ClusterRoleBinding (rbac.authorization.k8s.io/v1). A PUT of a missing ClusterRoleBinding creates it
 * (AllowCreateOnUpdate); privilege escalation through it is refused by the
 * `rbac-escalation` admission plugin (../../escalation_check.ts).
 * `roleRef.apiGroup` and User/Group subjects' `apiGroup` default to the RBAC group.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultRoleBinding } from '../../defaults/other_kinds.js';
import { bindingPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';

/** ClusterRoleBindings. */
export const clusterRoleBindings = defineKind({
  group: 'rbac.authorization.k8s.io',
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  namespaced: false,
  nameRule: 'pathSegment',
  printers: bindingPrinters(),
  strategy: { allowCreateOnUpdate: true, decode: defaulter(defaultRoleBinding) },
});
