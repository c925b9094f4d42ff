/**
 * ReplicaSet (apps/v1): its defaults on decode, status and scale subresources,
 * metadata.generation on spec changes.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultReplicaSet } from '../../defaults/workloads.js';
import { workload } from '../../fieldmanager/builtin_schema.js';
import {
  ageColumn,
  col,
  containerColumns,
  nameColumn,
  num,
  rec,
  selectorColumn,
  statusCount,
} from '../../printers.js';
import { defineKind, REPLICAS_SCALE } from '../kind.js';

/** ReplicaSets. */
export const replicaSets = defineKind({
  group: 'apps',
  resource: 'replicasets',
  kind: 'ReplicaSet',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  statusSubresource: true,
  scale: REPLICAS_SCALE,
  tracksGeneration: true,
  printers: [
    nameColumn,
    { column: col('Desired', 'integer'), cell: (o) => num(rec(o.spec).replicas ?? 1) },
    statusCount('Current', 'replicas'),
    statusCount('Ready', 'readyReplicas'),
    ageColumn,
    ...containerColumns('spec', 'template'),
    selectorColumn((o) => rec(o.spec).selector),
  ],
  mergeType: workload({}, []),
  strategy: { decode: defaulter(defaultReplicaSet) },
});
