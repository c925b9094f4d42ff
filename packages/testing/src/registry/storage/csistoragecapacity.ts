/**
 * CSIStorageCapacity (storage.k8s.io/v1): a required storageClassName, and the printer's
 * StorageClassName and Capacity columns (no Age).
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { col, nameColumn, scalar, str } from '../../printers.js';
import { required } from '../field_errors.js';
import { defineKind } from '../kind.js';

/** CSIStorageCapacities. */
export const csiStorageCapacities = defineKind({
  group: 'storage.k8s.io',
  resource: 'csistoragecapacities',
  kind: 'CSIStorageCapacity',
  namespaced: true,
  singular: 'csistoragecapacity',
  printers: [
    nameColumn,
    {
      column: col(
        'StorageClassName',
        'string',
        0,
        'storageClassName represents the name of the StorageClass that the reported capacity applies to.',
      ),
      cell: (o) => str(o.storageClassName, ''),
    },
    {
      column: col(
        'Capacity',
        'string',
        0,
        'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.',
      ),
      cell: (o) => scalar(o.capacity, '<unset>'),
    },
  ],
  strategy: {
    validate(obj) {
      const causes: StatusCause[] = [];
      if (str(obj.storageClassName, '') === '') causes.push(required('storageClassName'));
      return causes;
    },
  },
});
