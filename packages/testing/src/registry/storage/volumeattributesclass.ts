/**
 * VolumeAttributesClass (storage.k8s.io/v1, cluster-scoped): a required driverName and
 * immutable parameters, and the printer's DriverName column.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn, str } from '../../printers.js';
import { forbidden, required, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (str(obj.driverName, '') === '') causes.push(required('driverName'));
  return causes;
}

/** VolumeAttributesClasses. */
export const volumeAttributesClasses = defineKind({
  group: 'storage.k8s.io',
  resource: 'volumeattributesclasses',
  kind: 'VolumeAttributesClass',
  namespaced: false,
  shortNames: ['vac'],
  printers: [
    nameColumn,
    {
      column: col('DriverName', 'string', 0, 'Name of the CSI driver This field is immutable.'),
      cell: (o) => str(o.driverName, ''),
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      if (obj.driverName !== old.driverName)
        causes.push(forbidden('driverName', 'updates to driverName are forbidden.'));
      if (!sameJson(obj.parameters ?? {}, old.parameters ?? {}))
        causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
      return causes;
    },
  },
});
