/**
 * MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1): puts a
 * MutatingAdmissionPolicy in force (../../admission/mutating_admission_policy.ts); a
 * binding whose policy does not exist does nothing. kube-apiserver's columns (PolicyName,
 * ParamRef).
 *
 * @module
 */
import { admissionPolicyBindingPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';
import {
  defaultMutatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicyBinding,
} from './mutating_admission_policy_validation.js';

/** MutatingAdmissionPolicyBindings. */
export const mutatingAdmissionPolicyBindings = defineKind({
  group: 'admissionregistration.k8s.io',
  resource: 'mutatingadmissionpolicybindings',
  kind: 'MutatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
  printers: admissionPolicyBindingPrinters(),
  strategy: {
    decode: (obj) => defaultMutatingAdmissionPolicyBinding(obj),
    validate: (obj) => validateMutatingAdmissionPolicyBinding(obj),
    validateUpdate: (obj) => validateMutatingAdmissionPolicyBinding(obj),
  },
});
