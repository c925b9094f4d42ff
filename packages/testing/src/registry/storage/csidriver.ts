/**
 * CSIDriver (storage.k8s.io/v1, cluster-scoped): SetDefaults_CSIDriver (attachRequired
 * true; podInfoOnMount, requiresRepublish, storageCapacity, seLinuxMount false;
 * fsGroupPolicy ReadWriteOnceWithFSType; volumeLifecycleModes [Persistent]), an immutable
 * attachRequired, and the printer's columns.
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, arr, col, nameColumn, rec, str } from '../../printers.js';
import { immutable } from '../field_errors.js';
import { defineKind } from '../kind.js';

const bool = (name: string, field: string, description: string) => ({
  column: col(name, 'boolean', 0, description),
  cell: (o: { spec?: unknown }) => rec(o.spec)[field] === true,
});

/** CSIDrivers. */
export const csiDrivers = defineKind({
  group: 'storage.k8s.io',
  resource: 'csidrivers',
  kind: 'CSIDriver',
  namespaced: false,
  printers: [
    nameColumn,
    bool(
      'AttachRequired',
      'attachRequired',
      'attachRequired indicates this CSI volume driver requires an attach operation.',
    ),
    bool(
      'PodInfoOnMount',
      'podInfoOnMount',
      'podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.',
    ),
    bool(
      'StorageCapacity',
      'storageCapacity',
      'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.',
    ),
    {
      column: col(
        'TokenRequests',
        'string',
        0,
        "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
      ),
      cell: (o) => {
        const audiences = arr(rec(o.spec).tokenRequests).map((t) => str(t.audience, ''));
        return audiences.length === 0 ? '<unset>' : audiences.join(',');
      },
    },
    bool(
      'RequiresRepublish',
      'requiresRepublish',
      'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called.',
    ),
    {
      column: col(
        'Modes',
        'string',
        0,
        'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.',
      ),
      cell: (o) => {
        const modes = rec(o.spec).volumeLifecycleModes;
        return Array.isArray(modes) && modes.length > 0 ? modes.map(String).join(',') : '<none>';
      },
    },
    ageColumn,
  ],
  strategy: {
    decode: defaulter((obj) => {
      const spec = rec(obj.spec);
      obj.spec = spec;
      spec.attachRequired ??= true;
      spec.podInfoOnMount ??= false;
      spec.storageCapacity ??= false;
      spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
      spec.requiresRepublish ??= false;
      spec.seLinuxMount ??= false;
      if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0)
        spec.volumeLifecycleModes = ['Persistent'];
    }),
    validateUpdate(obj, old) {
      const causes: StatusCause[] = [];
      const now = rec(obj.spec).attachRequired;
      if (now !== rec(old.spec).attachRequired) causes.push(immutable('spec.attachRequired', now));
      return causes;
    },
  },
});
