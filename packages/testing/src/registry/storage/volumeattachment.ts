/**
 * VolumeAttachment (storage.k8s.io/v1, cluster-scoped): a status subresource, a required
 * attacher, node and exactly one source, an immutable spec, and the printer's columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { immutable, required, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  if (str(spec.attacher, '') === '') causes.push(required('spec.attacher'));
  const source = rec(spec.source);
  const count =
    (str(source.persistentVolumeName, '') === '' ? 0 : 1) +
    (source.inlineVolumeSpec === undefined ? 0 : 1);
  if (count !== 1) {
    causes.push(
      required(
        'spec.source',
        'must specify exactly one of persistentVolumeName and inlineVolumeSpec',
      ),
    );
  }
  if (str(spec.nodeName, '') === '') causes.push(required('spec.nodeName'));
  return causes;
}

/** VolumeAttachments. */
export const volumeAttachments = defineKind({
  group: 'storage.k8s.io',
  resource: 'volumeattachments',
  kind: 'VolumeAttachment',
  namespaced: false,
  statusSubresource: true,
  printers: [
    nameColumn,
    {
      column: {
        ...col(
          'Attacher',
          'string',
          0,
          'attacher indicates the name of the volume driver that MUST handle this request.',
        ),
        format: 'name',
      },
      cell: (o) => str(rec(o.spec).attacher, ''),
    },
    {
      column: col(
        'PV',
        'string',
        0,
        'persistentVolumeName represents the name of the persistent volume to attach.',
      ),
      cell: (o) => str(rec(rec(o.spec).source).persistentVolumeName, ''),
    },
    {
      column: col(
        'Node',
        'string',
        0,
        'nodeName represents the node that the volume should be attached to.',
      ),
      cell: (o) => str(rec(o.spec).nodeName, ''),
    },
    {
      column: col(
        'Attached',
        'boolean',
        0,
        'attached indicates the volume is successfully attached.',
      ),
      cell: (o) => rec(o.status).attached === true,
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate(obj, old, ctx) {
      if (ctx.subresource === 'status') return [];
      const causes = validate(obj);
      if (!sameJson(obj.spec, old.spec)) causes.push(immutable('spec', obj.spec));
      return causes;
    },
  },
});
