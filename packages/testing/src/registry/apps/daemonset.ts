/**
 * DaemonSet (apps/v1): its defaults on decode, a status subresource, metadata.generation
 * on spec changes.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultDaemonSet } from '../../defaults/workloads.js';
import { open, workload } from '../../fieldmanager/builtin_schema.js';
import {
  ageColumn,
  col,
  containerColumns,
  formatLabels,
  nameColumn,
  rec,
  selectorColumn,
  statusCount,
} from '../../printers.js';
import { defineKind } from '../kind.js';

/** DaemonSets. */
export const daemonSets = defineKind({
  group: 'apps',
  resource: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    statusCount('Desired', 'desiredNumberScheduled'),
    statusCount('Current', 'currentNumberScheduled'),
    statusCount('Ready', 'numberReady'),
    statusCount('Up-to-date', 'updatedNumberScheduled'),
    statusCount('Available', 'numberAvailable'),
    {
      column: col('Node Selector', 'string'),
      cell: (o) => formatLabels(rec(rec(rec(o.spec).template).spec).nodeSelector),
    },
    ageColumn,
    ...containerColumns('spec', 'template'),
    selectorColumn((o) => rec(o.spec).selector),
  ],
  mergeType: workload({ updateStrategy: open({}) }, ['spec.updateStrategy']),
  strategy: { decode: defaulter(defaultDaemonSet) },
});
