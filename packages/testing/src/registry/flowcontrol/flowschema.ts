/**
 * FlowSchema (flowcontrol.apiserver.k8s.io/v1, cluster-scoped): matchingPrecedence
 * defaults to 1000 and lies in 1..10000, a priority level is required, a status
 * subresource, and the printer's PriorityLevel, MatchingPrecedence, DistinguisherMethod
 * and MissingPL columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, arr, col, nameColumn, rec, str } from '../../printers.js';
import { invalidValue, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const p = spec.matchingPrecedence;
  if (typeof p === 'number' && p <= 0) {
    causes.push(invalidValue('spec.matchingPrecedence', p, 'must be a positive value'));
  } else if (typeof p === 'number' && p > 10000) {
    causes.push(invalidValue('spec.matchingPrecedence', p, 'must not be greater than 10000'));
  }
  if (str(rec(spec.priorityLevelConfiguration).name, '') === '') {
    causes.push(
      required('spec.priorityLevelConfiguration.name', 'must reference a priority level'),
    );
  }
  return causes;
}

/** FlowSchemas. */
export const flowSchemas = defineKind({
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'flowschemas',
  kind: 'FlowSchema',
  namespaced: false,
  statusSubresource: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col(
        'PriorityLevel',
        'string',
        0,
        '`name` is the name of the priority level configuration being referenced Required.',
      ),
      cell: (o) => str(rec(rec(o.spec).priorityLevelConfiguration).name, ''),
    },
    {
      column: col(
        'MatchingPrecedence',
        'string',
        0,
        '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.',
      ),
      cell: (o) => {
        const p = rec(o.spec).matchingPrecedence;
        return typeof p === 'number' ? p : 0;
      },
    },
    {
      column: col(
        'DistinguisherMethod',
        'string',
        0,
        '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.',
      ),
      cell: (o) => {
        const m = rec(o.spec).distinguisherMethod;
        return m === undefined || m === null ? '*' : str(rec(m).type, '');
      },
    },
    ageColumn,
    {
      column: col(
        'MissingPL',
        'string',
        0,
        'references a broken or non-existent PriorityLevelConfiguration',
      ),
      cell: (o) => {
        const c = arr(rec(o.status).conditions).find((x) => x.type === 'Dangling');
        return c === undefined ? '?' : str(c.status, '?');
      },
    },
  ],
  strategy: {
    decode: defaulter((obj) => {
      const spec = rec(obj.spec);
      obj.spec = spec;
      spec.matchingPrecedence ??= 1000;
    }),
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validate(obj)),
  },
});
