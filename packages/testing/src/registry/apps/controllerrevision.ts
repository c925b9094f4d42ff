/**
 * ControllerRevision (apps/v1): a non-negative revision and immutable data
 * (ValidateControllerRevision), and the printer's Controller (`kind.group/name` of the
 * controller owner) and Revision columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn } from '../../printers.js';
import { immutable, invalidValue, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const revision = typeof obj.revision === 'number' ? obj.revision : 0;
  return revision < 0
    ? [invalidValue('revision', revision, 'must be greater than or equal to 0')]
    : [];
}

/** ControllerRevisions. */
export const controllerRevisions = defineKind({
  group: 'apps',
  resource: 'controllerrevisions',
  kind: 'ControllerRevision',
  namespaced: true,
  printers: [
    nameColumn,
    {
      column: col('Controller', 'string', 0, 'Controller of the object'),
      cell: (o) => {
        const ref = (o.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
        if (ref === undefined) return '<none>';
        const slash = ref.apiVersion.indexOf('/');
        const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
        const kind = group === '' ? ref.kind : `${ref.kind}.${group}`;
        return `${kind.toLowerCase()}/${ref.name}`;
      },
    },
    {
      column: col(
        'Revision',
        'string',
        0,
        'Revision indicates the revision of the state represented by Data.',
      ),
      cell: (o) => (typeof o.revision === 'number' ? o.revision : 0),
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      if (!sameJson(obj.data, old.data)) causes.push(immutable('data', obj.data));
      return causes;
    },
  },
});
