/**
 * ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1), read by the admission chain
 * (../../admission/validating_admission_policy.ts); a status subresource.
 *
 * @module
 */
import { defineKind } from '../kind.js';

/** ValidatingAdmissionPolicys. */
export const validatingAdmissionPolicies = defineKind({
  group: 'admissionregistration.k8s.io',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
  categories: ['api-extensions'],
  statusSubresource: true,
  tracksGeneration: true,
});
