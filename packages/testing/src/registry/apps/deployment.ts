/**
 * Deployment (apps/v1): its defaults on decode (../../defaults/workloads.ts), status and
 * scale subresources, metadata.generation on spec changes.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultDeployment } from '../../defaults/workloads.js';
import {
  conditions,
  labelSelector,
  open,
  podTemplateSpec,
  root,
} from '../../fieldmanager/builtin_schema.js';
import { ageColumn, arr, col, nameColumn, num, rec, selectorColumn, str } from '../../printers.js';
import { defineKind, REPLICAS_SCALE } from '../kind.js';

/** Deployments. */
export const deployments = defineKind({
  group: 'apps',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  statusSubresource: true,
  scale: REPLICAS_SCALE,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col('Ready', 'string', 0, 'Number of the pod with ready state'),
      cell: (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas ?? 1)}`,
    },
    {
      column: col(
        'Up-to-date',
        'string',
        0,
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
      cell: (o) => num(rec(o.status).updatedReplicas),
    },
    {
      column: col(
        'Available',
        'string',
        0,
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      cell: (o) => num(rec(o.status).availableReplicas),
    },
    ageColumn,
    {
      column: col('Containers', 'string', 1),
      cell: (o) =>
        arr(rec(rec(rec(o.spec).template).spec).containers)
          .map((c) => str(c.name, ''))
          .join(','),
    },
    {
      column: col('Images', 'string', 1),
      cell: (o) =>
        arr(rec(rec(rec(o.spec).template).spec).containers)
          .map((c) => str(c.image, ''))
          .join(','),
    },
    selectorColumn((o) => rec(o.spec).selector),
  ],
  mergeType: {
    type: root({
      spec: open({ selector: labelSelector, template: podTemplateSpec, strategy: open({}) }),
      status: open({ conditions }),
    }),
    implicitStructs: [
      'spec',
      'spec.strategy',
      'spec.template',
      'spec.template.metadata',
      'spec.template.spec',
      'status',
    ],
  },
  strategy: { decode: defaulter(defaultDeployment) },
});
