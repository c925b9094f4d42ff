/**
 * PersistentVolume (core/v1, cluster-scoped): SetDefaults_PersistentVolume
 * (persistentVolumeReclaimPolicy Retain, volumeMode Filesystem), `status.phase: Pending` on
 * create, a status subresource, ValidatePersistentVolume's required capacity, access
 * modes and volume source, and the printer's columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { accessModes, ageColumn, col, nameColumn, rec, scalar, str } from '../../printers.js';
import { notSupported, required } from '../field_errors.js';
import { generic } from '../generic.js';
import { defineKind } from '../kind.js';

/** The members of a PersistentVolumeSpec that are not a volume source. */
const NOT_SOURCES = new Set([
  'capacity',
  'accessModes',
  'claimRef',
  'persistentVolumeReclaimPolicy',
  'storageClassName',
  'mountOptions',
  'volumeMode',
  'nodeAffinity',
  'volumeAttributesClassName',
]);

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) causes.push(required('spec.accessModes'));
  const capacity = rec(spec.capacity);
  const keys = Object.keys(capacity);
  if (keys.length === 0) causes.push(required('spec.capacity'));
  else if (!('storage' in capacity) || keys.length !== 1) {
    causes.push(notSupported('spec.capacity', keys.sort(), ['storage']));
  }
  const sources = Object.keys(spec).filter((k) => !NOT_SOURCES.has(k) && spec[k] !== null);
  if (sources.length === 0) causes.push(required('spec', 'must specify a volume type'));
  return causes;
}

/** PersistentVolumes. */
export const persistentVolumes = defineKind({
  group: '',
  resource: 'persistentvolumes',
  kind: 'PersistentVolume',
  namespaced: false,
  shortNames: ['pv'],
  statusSubresource: true,
  printers: [
    nameColumn,
    {
      column: col(
        'Capacity',
        'string',
        0,
        "capacity is the description of the persistent volume's resources and capacity.",
      ),
      cell: (o) => scalar(rec(rec(o.spec).capacity).storage, ''),
    },
    {
      column: col(
        'Access Modes',
        'string',
        0,
        'accessModes contains all ways the volume can be mounted.',
      ),
      cell: (o) => accessModes(rec(o.spec).accessModes),
    },
    {
      column: col(
        'Reclaim Policy',
        'string',
        0,
        'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
      ),
      cell: (o) => str(rec(o.spec).persistentVolumeReclaimPolicy, ''),
    },
    {
      column: col(
        'Status',
        'string',
        0,
        'phase indicates if a volume is available, bound to a claim, or released by a claim.',
      ),
      cell: (o) =>
        o.metadata?.deletionTimestamp !== undefined ? 'Terminating' : str(rec(o.status).phase, ''),
    },
    {
      column: col(
        'Claim',
        'string',
        0,
        'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
      ),
      cell: (o) => {
        const ref = rec(rec(o.spec).claimRef);
        return ref.name === undefined ? '' : `${str(ref.namespace, '')}/${str(ref.name, '')}`;
      },
    },
    {
      column: col('StorageClass', 'string', 0, 'StorageClass of the pv'),
      cell: (o) =>
        str(rec(o.spec).storageClassName, '') ||
        str(o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'], ''),
    },
    {
      column: col('VolumeAttributesClass', 'string', 0, 'VolumeAttributesClass of the pv'),
      cell: (o) => str(rec(o.spec).volumeAttributesClassName, '<unset>'),
    },
    {
      column: col(
        'Reason',
        'string',
        0,
        'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
      ),
      cell: (o) => str(rec(o.status).reason, ''),
    },
    ageColumn,
    {
      column: col(
        'VolumeMode',
        'string',
        1,
        'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      ),
      cell: (o) => str(rec(o.spec).volumeMode, '<unset>'),
    },
  ],
  strategy: {
    decode: defaulter((obj) => {
      const spec = rec(obj.spec);
      obj.spec = spec;
      spec.persistentVolumeReclaimPolicy ??= 'Retain';
      spec.volumeMode ??= 'Filesystem';
    }),
    prepareForCreate(obj, ctx) {
      const out = generic.prepareForCreate(obj, ctx);
      return ctx.seed
        ? out
        : { ...out, status: { phase: 'Pending', lastPhaseTransitionTime: ctx.now } };
    },
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validate(obj)),
  },
});
