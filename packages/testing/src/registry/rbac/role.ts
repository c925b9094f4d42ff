/**
 * Role (rbac.authorization.k8s.io/v1). A PUT of a missing Role creates it
 * (AllowCreateOnUpdate); privilege escalation through it is refused by the
 * `rbac-escalation` admission plugin (../../escalation_check.ts).
 *
 * @module
 */
import { createdAtPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';

/** Roles. */
export const roles = defineKind({
  group: 'rbac.authorization.k8s.io',
  resource: 'roles',
  kind: 'Role',
  namespaced: true,
  nameRule: 'pathSegment',
  printers: createdAtPrinters(),
  strategy: { allowCreateOnUpdate: true },
});
