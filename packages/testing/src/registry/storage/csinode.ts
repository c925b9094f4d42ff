/**
 * CSINode (storage.k8s.io/v1, cluster-scoped): each driver needs a name and a node ID;
 * the printer's Drivers count.
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { ageColumn, arr, col, nameColumn, rec, str } from '../../printers.js';
import { required } from '../field_errors.js';
import { defineKind } from '../kind.js';

/** CSINodes. */
export const csiNodes = defineKind({
  group: 'storage.k8s.io',
  resource: 'csinodes',
  kind: 'CSINode',
  namespaced: false,
  printers: [
    nameColumn,
    {
      column: col(
        'Drivers',
        'integer',
        0,
        'Drivers indicates the number of CSI drivers registered on the node',
      ),
      cell: (o) => arr(rec(o.spec).drivers).length,
    },
    ageColumn,
  ],
  strategy: {
    validate(obj) {
      const causes: StatusCause[] = [];
      arr(rec(obj.spec).drivers).forEach((d, i) => {
        if (str(d.name, '') === '') causes.push(required(`spec.drivers[${i}].name`));
        if (str(d.nodeID, '') === '') causes.push(required(`spec.drivers[${i}].nodeID`));
      });
      return causes;
    },
  },
});
