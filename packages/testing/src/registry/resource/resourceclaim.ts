/**
 * ResourceClaim (resource.k8s.io/v1): request defaults, validation and an immutable spec,
 * a status subresource, and the printer's State column (pending, allocated, reserved,
 * deleted).
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { ageColumn, col, nameColumn, rec } from '../../printers.js';
import { immutable, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';
import { defaultClaimSpec, validateClaimSpec } from './claims.js';

/** ResourceClaims. */
export const resourceClaims = defineKind({
  group: 'resource.k8s.io',
  resource: 'resourceclaims',
  kind: 'ResourceClaim',
  namespaced: true,
  statusSubresource: true,
  printers: [
    nameColumn,
    {
      column: col(
        'State',
        'string',
        0,
        'A summary of the current state (allocated, pending, reserved, etc.).',
      ),
      cell: (o) => {
        const states: string[] = [];
        const deleted = o.metadata?.deletionTimestamp !== undefined;
        const status = rec(o.status);
        if (deleted) states.push('deleted');
        if (status.allocation === undefined || status.allocation === null) {
          if (!deleted) states.push('pending');
        } else {
          states.push('allocated');
          if (Array.isArray(status.reservedFor) && status.reservedFor.length > 0)
            states.push('reserved');
        }
        return states.join(',');
      },
    },
    ageColumn,
  ],
  strategy: {
    decode: defaulter((obj) => defaultClaimSpec(rec(obj.spec))),
    validate: (obj) => validateClaimSpec(obj.spec, 'spec'),
    validateUpdate(obj, old, ctx) {
      if (ctx.subresource === 'status') return [];
      const causes = validateClaimSpec(obj.spec, 'spec');
      if (!sameJson(obj.spec, old.spec)) causes.push(immutable('spec', obj.spec));
      return causes;
    },
  },
});
