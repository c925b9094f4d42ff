/**
 * ResourceClaimTemplate (resource.k8s.io/v1): the claim spec it stamps out, defaulted and
 * validated as a claim's (at `spec.spec`) and immutable; the default table (Name, Age).
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { ageColumn, nameColumn, rec } from '../../printers.js';
import { immutable, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';
import { defaultClaimSpec, validateClaimSpec } from './claims.js';

/** ResourceClaimTemplates. */
export const resourceClaimTemplates = defineKind({
  group: 'resource.k8s.io',
  resource: 'resourceclaimtemplates',
  kind: 'ResourceClaimTemplate',
  namespaced: true,
  printers: [nameColumn, ageColumn],
  strategy: {
    decode: defaulter((obj) => defaultClaimSpec(rec(rec(obj.spec).spec))),
    validate: (obj) => validateClaimSpec(rec(obj.spec).spec, 'spec.spec'),
    validateUpdate(obj, old) {
      const causes = validateClaimSpec(rec(obj.spec).spec, 'spec.spec');
      if (!sameJson(obj.spec, old.spec)) causes.push(immutable('spec', obj.spec));
      return causes;
    },
  },
});
