/**
 * ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1), read by the admission chain
 * (../../admission/validating_admission_policy.ts).
 *
 * @module
 */
import { defineKind } from '../kind.js';

/** ValidatingAdmissionPolicyBindings. */
export const validatingAdmissionPolicyBindings = defineKind({
  group: 'admissionregistration.k8s.io',
  resource: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
});
