/**
 * StorageClass (storage.k8s.io/v1, cluster-scoped): SetDefaults_StorageClass
 * (reclaimPolicy Delete, volumeBindingMode Immediate), a required provisioner that, like
 * the parameters and the reclaim policy, cannot change, and the printer's columns (the
 * default class's name marked `(default)`).
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, col, nameColumn, str } from '../../printers.js';
import { forbidden, notSupported, required, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';

const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const RECLAIM_POLICIES = ['Delete', 'Retain'];

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (str(obj.provisioner, '') === '') causes.push(required('provisioner'));
  if (obj.reclaimPolicy !== undefined && !RECLAIM_POLICIES.includes(str(obj.reclaimPolicy, ''))) {
    causes.push(notSupported('reclaimPolicy', obj.reclaimPolicy, RECLAIM_POLICIES));
  }
  if (
    obj.volumeBindingMode !== undefined &&
    !BINDING_MODES.includes(str(obj.volumeBindingMode, ''))
  ) {
    causes.push(notSupported('volumeBindingMode', obj.volumeBindingMode, BINDING_MODES));
  }
  return causes;
}

/** StorageClasses. */
export const storageClasses = defineKind({
  group: 'storage.k8s.io',
  resource: 'storageclasses',
  kind: 'StorageClass',
  namespaced: false,
  shortNames: ['sc'],
  printers: [
    {
      ...nameColumn,
      cell: (o) => {
        const name = o.metadata?.name ?? '';
        const a = o.metadata?.annotations ?? {};
        const isDefault =
          a[DEFAULT_CLASS] === 'true' ||
          a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
        return isDefault ? `${name} (default)` : name;
      },
    },
    {
      column: col('Provisioner', 'string', 0, 'provisioner indicates the type of the provisioner.'),
      cell: (o) => str(o.provisioner, ''),
    },
    {
      column: col(
        'ReclaimPolicy',
        'string',
        0,
        'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
      ),
      cell: (o) => str(o.reclaimPolicy, 'Delete'),
    },
    {
      column: col(
        'VolumeBindingMode',
        'string',
        0,
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
      ),
      cell: (o) => str(o.volumeBindingMode, '<unset>'),
    },
    {
      column: col(
        'AllowVolumeExpansion',
        'string',
        0,
        'allowVolumeExpansion shows whether the storage class allow volume expand.',
      ),
      cell: (o) => o.allowVolumeExpansion === true,
    },
    ageColumn,
  ],
  strategy: {
    decode: defaulter((obj) => {
      obj.reclaimPolicy ??= 'Delete';
      obj.volumeBindingMode ??= 'Immediate';
    }),
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      if (!sameJson(obj.parameters ?? {}, old.parameters ?? {}))
        causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
      if (obj.provisioner !== old.provisioner)
        causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
      if (obj.reclaimPolicy !== old.reclaimPolicy)
        causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
      if (obj.volumeBindingMode !== old.volumeBindingMode)
        causes.push(forbidden('volumeBindingMode', 'field is immutable'));
      return causes;
    },
  },
});
