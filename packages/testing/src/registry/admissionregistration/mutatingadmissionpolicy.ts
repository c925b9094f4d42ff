/**
 * MutatingAdmissionPolicy (admissionregistration.k8s.io/v1), applied by the admission chain
 * (../../admission/mutating_admission_policy.ts); defaulted and validated as
 * ./mutating_admission_policy_validation.ts says; kube-apiserver's columns (Mutations,
 * ParamKind).
 *
 * @module
 */
import { admissionPolicyPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';
import {
  defaultMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicy,
} from './mutating_admission_policy_validation.js';

/** MutatingAdmissionPolicies. */
export const mutatingAdmissionPolicies = defineKind({
  group: 'admissionregistration.k8s.io',
  resource: 'mutatingadmissionpolicies',
  kind: 'MutatingAdmissionPolicy',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
  printers: admissionPolicyPrinters(
    'Mutations',
    'Mutation indicates the number of mutations rules defined in this configuration',
  ),
  strategy: {
    decode: (obj) => defaultMutatingAdmissionPolicy(obj),
    validate: (obj) => validateMutatingAdmissionPolicy(obj),
    validateUpdate: (obj) => validateMutatingAdmissionPolicy(obj),
  },
});
