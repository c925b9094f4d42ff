/**
 * Lease (coordination.k8s.io/v1): what leader election holds. A PUT of a missing Lease
 * creates it (AllowCreateOnUpdate).
 *
 * @module
 */
import { open, root } from '../../fieldmanager/builtin_schema.js';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { defineKind } from '../kind.js';

/** Leases. */
export const leases = defineKind({
  group: 'coordination.k8s.io',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  printers: [
    nameColumn,
    {
      column: col('Holder', 'string', 0, 'The holder of the lease.'),
      cell: (o) => str(rec(o.spec).holderIdentity, ''),
    },
    ageColumn,
  ],
  mergeType: { type: root({ spec: open({}) }), implicitStructs: ['spec'] },
  strategy: { allowCreateOnUpdate: true },
});
