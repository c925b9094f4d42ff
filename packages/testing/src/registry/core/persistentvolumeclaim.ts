/**
 * PersistentVolumeClaim (core/v1): its defaults on decode, `status.phase: Pending` on create.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultClaim } from '../../defaults/workloads.js';
import { accessModes, ageColumn, col, nameColumn, rec, scalar, str } from '../../printers.js';
import { generic } from '../generic.js';
import { defineKind } from '../kind.js';

/** PersistentVolumeClaims. */
export const persistentVolumeClaims = defineKind({
  group: '',
  resource: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
  shortNames: ['pvc'],
  statusSubresource: true,
  printers: [
    nameColumn,
    {
      column: col('Status', 'string'),
      // kube-apiserver defaults status.phase to Pending.
      cell: (o) =>
        o.metadata?.deletionTimestamp !== undefined
          ? 'Terminating'
          : str(rec(o.status).phase, 'Pending'),
    },
    { column: col('Volume', 'string'), cell: (o) => str(rec(o.spec).volumeName, '') },
    {
      column: col('Capacity', 'string'),
      cell: (o) =>
        str(rec(o.spec).volumeName, '') === ''
          ? ''
          : scalar(rec(rec(o.status).capacity).storage, '0'),
    },
    {
      column: col('Access Modes', 'string'),
      cell: (o) =>
        str(rec(o.spec).volumeName, '') === '' ? '' : accessModes(rec(o.status).accessModes),
    },
    {
      column: col('StorageClass', 'string', 0, 'StorageClass of the pvc'),
      cell: (o) =>
        str(rec(o.spec).storageClassName, '') ||
        str(o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'], ''),
    },
    {
      column: col('VolumeAttributesClass', 'string', 0, 'VolumeAttributesClass of the pvc'),
      cell: (o) => str(rec(o.spec).volumeAttributesClassName, '<unset>'),
    },
    ageColumn,
    { column: col('VolumeMode', 'string', 1), cell: (o) => str(rec(o.spec).volumeMode, '<unset>') },
  ],
  strategy: {
    decode: defaulter(defaultClaim),
    prepareForCreate(obj, ctx) {
      const out = generic.prepareForCreate(obj, ctx);
      return ctx.seed ? out : { ...out, status: { phase: 'Pending' } };
    },
  },
});
