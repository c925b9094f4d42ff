/**
 * CronJob (batch/v1): its defaults on decode, a status subresource, metadata.generation on
 * spec changes.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultCronJob } from '../../defaults/workloads.js';
import {
  labelSelector,
  listAtomic,
  objectMetaType,
  open,
  podTemplateSpec,
  root,
} from '../../fieldmanager/builtin_schema.js';
import {
  ageColumn,
  ageOf,
  arr,
  col,
  containerColumns,
  nameColumn,
  rec,
  selectorColumn,
  str,
} from '../../printers.js';
import { defineKind } from '../kind.js';

/** CronJobs. */
export const cronJobs = defineKind({
  group: 'batch',
  resource: 'cronjobs',
  kind: 'CronJob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    { column: col('Schedule', 'string'), cell: (o) => str(rec(o.spec).schedule, '') },
    { column: col('Timezone', 'string'), cell: (o) => str(rec(o.spec).timeZone) },
    {
      column: col('Suspend', 'boolean'),
      // kube-apiserver defaults spec.suspend to false.
      cell: (o) => (rec(o.spec).suspend === true ? 'True' : 'False'),
    },
    { column: col('Active', 'integer'), cell: (o) => arr(rec(o.status).active).length },
    {
      column: col('Last Schedule', 'string'),
      cell: (o, now) => {
        const last = rec(o.status).lastScheduleTime;
        return last === undefined ? '<none>' : ageOf(last, now);
      },
    },
    ageColumn,
    ...containerColumns('spec', 'jobTemplate', 'spec', 'template'),
    selectorColumn((o) => rec(rec(rec(o.spec).jobTemplate).spec).selector),
  ],
  mergeType: {
    type: root({
      spec: open({
        jobTemplate: open({
          metadata: objectMetaType,
          spec: open({ selector: labelSelector, template: podTemplateSpec }),
        }),
      }),
      status: open({ active: listAtomic() }),
    }),
    implicitStructs: [
      'spec',
      'spec.jobTemplate',
      'spec.jobTemplate.metadata',
      'spec.jobTemplate.spec',
      'spec.jobTemplate.spec.template',
      'spec.jobTemplate.spec.template.metadata',
      'spec.jobTemplate.spec.template.spec',
      'status',
    ],
  },
  strategy: { decode: defaulter(defaultCronJob) },
});
