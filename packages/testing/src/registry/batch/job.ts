/**
 * Job (batch/v1): its defaults on decode, a status subresource, metadata.generation on spec
 * changes. (No generated selector: that is done by kube-apiserver's Job strategy from
 * `manualSelector`, not here.)
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultJob } from '../../defaults/workloads.js';
import { workload } from '../../fieldmanager/builtin_schema.js';
import {
  ageColumn,
  col,
  containerColumns,
  jobCompletions,
  jobDuration,
  jobStatus,
  nameColumn,
  rec,
  selectorColumn,
} from '../../printers.js';
import { defineKind } from '../kind.js';

/** Jobs. */
export const jobs = defineKind({
  group: 'batch',
  resource: 'jobs',
  kind: 'Job',
  namespaced: true,
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  fieldSelectors: ['status.successful'],
  printers: [
    nameColumn,
    { column: col('Status', 'string', 0, 'Status of the job.'), cell: jobStatus },
    { column: col('Completions', 'string'), cell: jobCompletions },
    {
      column: col('Duration', 'string', 0, 'Time required to complete the job.'),
      cell: jobDuration,
    },
    ageColumn,
    ...containerColumns('spec', 'template'),
    selectorColumn((o) => rec(o.spec).selector),
  ],
  mergeType: workload({}, []),
  strategy: { decode: defaulter(defaultJob) },
});
