/**
 * ResourceSlice (resource.k8s.io/v1, cluster-scoped): a driver, a pool with a name and a
 * positive slice count, exactly one of nodeName, nodeSelector, allNodes and
 * perDeviceNodeSelection (ValidateResourceSlice); metadata.generation on spec changes; the
 * printer's Node, Driver, Pool columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { invalidValue, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  if (str(spec.driver, '') === '') causes.push(required('spec.driver'));
  const pool = rec(spec.pool);
  if (str(pool.name, '') === '') causes.push(required('spec.pool.name'));
  const count = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0;
  if (count <= 0) {
    causes.push(invalidValue('spec.pool.resourceSliceCount', count, 'must be greater than zero'));
  }
  const set = [
    str(spec.nodeName, '') !== '',
    spec.nodeSelector !== undefined && spec.nodeSelector !== null,
    spec.allNodes === true,
    spec.perDeviceNodeSelection === true,
  ].filter(Boolean).length;
  if (set !== 1) {
    causes.push(
      required(
        'spec',
        'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required',
      ),
    );
  }
  return causes;
}

/** ResourceSlices. */
export const resourceSlices = defineKind({
  group: 'resource.k8s.io',
  resource: 'resourceslices',
  kind: 'ResourceSlice',
  namespaced: false,
  tracksGeneration: true,
  fieldSelectors: ['spec.nodeName', 'spec.driver'],
  printers: [
    nameColumn,
    {
      column: col(
        'Node',
        'string',
        0,
        'NodeName identifies the node which provides the resources in this pool.',
      ),
      cell: (o) => str(rec(o.spec).nodeName, '<none>'),
    },
    {
      column: col(
        'Driver',
        'string',
        0,
        'Driver identifies the DRA driver providing the capacity information.',
      ),
      cell: (o) => str(rec(o.spec).driver, ''),
    },
    {
      column: col('Pool', 'string', 0, 'Name is used to identify the pool.'),
      cell: (o) => str(rec(rec(o.spec).pool).name, ''),
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate: (obj) => validate(obj),
  },
});
