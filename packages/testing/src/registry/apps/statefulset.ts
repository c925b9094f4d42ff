/**
 * StatefulSet (apps/v1): its defaults on decode, status and scale subresources,
 * metadata.generation on spec changes.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultStatefulSet } from '../../defaults/workloads.js';
import { open, workload } from '../../fieldmanager/builtin_schema.js';
import { ageColumn, col, containerColumns, nameColumn, num, rec } from '../../printers.js';
import { defineKind, REPLICAS_SCALE } from '../kind.js';

/** StatefulSets. */
export const statefulSets = defineKind({
  group: 'apps',
  resource: 'statefulsets',
  kind: 'StatefulSet',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  statusSubresource: true,
  scale: REPLICAS_SCALE,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col('Ready', 'string', 0, 'Number of the pod with ready state'),
      // kube-apiserver defaults spec.replicas to 1.
      cell: (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas ?? 1)}`,
    },
    ageColumn,
    ...containerColumns('spec', 'template'),
  ],
  mergeType: workload({ updateStrategy: open({}) }, ['spec.updateStrategy']),
  strategy: { decode: defaulter(defaultStatefulSet) },
});
