/**
 * IngressClass (networking.k8s.io/v1, cluster-scoped): a required, immutable
 * spec.controller, and the printer's Controller and Parameters columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { immutable, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  return str(rec(obj.spec).controller, '') === '' ? [required('spec.controller')] : [];
}

/** IngressClasses. */
export const ingressClasses = defineKind({
  group: 'networking.k8s.io',
  resource: 'ingressclasses',
  kind: 'IngressClass',
  namespaced: false,
  printers: [
    nameColumn,
    {
      column: col(
        'Controller',
        'string',
        0,
        'Controller that is responsible for handling this class',
      ),
      cell: (o) => str(rec(o.spec).controller, ''),
    },
    {
      column: col(
        'Parameters',
        'string',
        0,
        'A reference to a resource with additional parameters',
      ),
      cell: (o) => {
        const p = rec(o.spec).parameters;
        if (p === undefined || p === null) return '<none>';
        const r = rec(p);
        const kind =
          str(r.apiGroup, '') === ''
            ? str(r.kind, '')
            : `${str(r.kind, '')}.${str(r.apiGroup, '')}`;
        return `${kind}/${str(r.name, '')}`;
      },
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      const now = rec(obj.spec).controller;
      if (causes.length === 0 && now !== rec(old.spec).controller)
        causes.push(immutable('spec.controller', now));
      return causes;
    },
  },
});
