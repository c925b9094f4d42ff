/**
 * ReplicationController (core/v1): SetDefaults_ReplicationController (replicas 1, the
 * selector and, when empty, the labels from the template's labels), status and scale
 * subresources, metadata.generation on spec changes, a selector that matches the
 * template, and the printer's columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { defaultPodTemplate } from '../../defaults/pod.js';
import { conditions, open, podTemplateSpec, root } from '../../fieldmanager/builtin_schema.js';
import {
  ageColumn,
  col,
  containerColumns,
  formatLabels,
  nameColumn,
  num,
  rec,
  statusCount,
} from '../../printers.js';
import { invalidValue, required } from '../field_errors.js';
import { defineKind, REPLICAS_SCALE } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const selector = rec(spec.selector);
  if (Object.keys(selector).length === 0) causes.push(required('spec.selector'));
  const template = rec(spec.template);
  if (spec.template === undefined) {
    causes.push(required('spec.template'));
  } else {
    const labels = rec(rec(template.metadata).labels);
    const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Object.keys(selector).length > 0 && !matches) {
      causes.push(
        invalidValue(
          'spec.template.metadata.labels',
          formatLabels(labels) === '<none>' ? '' : formatLabels(labels),
          '`selector` does not match template `labels`',
        ),
      );
    }
    const containers = rec(template.spec).containers;
    if (!Array.isArray(containers) || containers.length === 0)
      causes.push(required('spec.template.spec.containers'));
  }
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    causes.push(invalidValue('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  }
  return causes;
}

/** ReplicationControllers. */
export const replicationControllers = defineKind({
  group: '',
  resource: 'replicationcontrollers',
  kind: 'ReplicationController',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  statusSubresource: true,
  scale: REPLICAS_SCALE,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col('Desired', 'integer', 0, 'Replicas is the number of desired replicas.'),
      cell: (o) => num(rec(o.spec).replicas ?? 1),
    },
    statusCount(
      'Current',
      'replicas',
      'Replicas is the most recently observed number of replicas.',
    ),
    statusCount(
      'Ready',
      'readyReplicas',
      'The number of ready replicas for this replication controller.',
    ),
    ageColumn,
    ...containerColumns('spec', 'template'),
    {
      column: col(
        'Selector',
        'string',
        1,
        'Selector is a label query over pods that should match the Replicas count.',
      ),
      cell: (o) => formatLabels(rec(o.spec).selector),
    },
  ],
  mergeType: {
    type: root({ spec: open({ template: podTemplateSpec }), status: open({ conditions }) }),
    implicitStructs: [
      'spec',
      'spec.template',
      'spec.template.metadata',
      'spec.template.spec',
      'status',
    ],
  },
  strategy: {
    decode: defaulter((obj) => {
      const spec = rec(obj.spec);
      obj.spec = spec;
      const labels = rec(rec(spec.template).metadata).labels;
      if (spec.template !== undefined && Object.keys(rec(labels)).length > 0) {
        if (Object.keys(rec(spec.selector)).length === 0) spec.selector = { ...rec(labels) };
        const meta = rec(obj.metadata);
        if (Object.keys(rec(meta.labels)).length === 0) {
          obj.metadata = { ...meta, labels: { ...rec(labels) } };
        }
      }
      spec.replicas ??= 1;
      defaultPodTemplate(spec);
    }),
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === '' ? validate(obj) : []),
  },
});
