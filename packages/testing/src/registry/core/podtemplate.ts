/**
 * PodTemplate (core/v1): its template's PodSpec defaults, a template with containers, and
 * the printer's Template, Containers, Images, Pod Labels columns.
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { defaultPodTemplate } from '../../defaults/pod.js';
import { arr, col, formatLabels, nameColumn, rec, str } from '../../printers.js';
import { required } from '../field_errors.js';
import { defineKind } from '../kind.js';

/** PodTemplates. */
export const podTemplates = defineKind({
  group: '',
  resource: 'podtemplates',
  kind: 'PodTemplate',
  namespaced: true,
  printers: [
    { ...nameColumn, column: { ...nameColumn.column, name: 'Template' } },
    {
      column: col('Containers', 'string', 0, 'Names of each container in the template.'),
      cell: (o) =>
        arr(rec(rec(o.template).spec).containers)
          .map((c) => str(c.name, ''))
          .join(','),
    },
    {
      column: col('Images', 'string', 0, 'Images referenced by each container in the template.'),
      cell: (o) =>
        arr(rec(rec(o.template).spec).containers)
          .map((c) => str(c.image, ''))
          .join(','),
    },
    {
      column: col('Pod Labels', 'string', 0, 'The labels for the pod template.'),
      cell: (o) => formatLabels(rec(rec(o.template).metadata).labels),
    },
  ],
  strategy: {
    decode: defaulter((obj) => defaultPodTemplate(obj)),
    validate(obj) {
      const causes: StatusCause[] = [];
      const containers = rec(rec(obj.template).spec).containers;
      if (!Array.isArray(containers) || containers.length === 0)
        causes.push(required('template.spec.containers'));
      return causes;
    },
  },
});
