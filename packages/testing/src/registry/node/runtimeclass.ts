/**
 * RuntimeClass (node.k8s.io/v1, cluster-scoped): a required, immutable handler that is a
 * DNS label (ValidateRuntimeClass), and the printer's Handler column.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn, str } from '../../printers.js';
import { nameErrors } from '../../validation.js';
import { immutable, invalidValue, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const handler = str(obj.handler, '');
  if (handler === '') return [required('handler')];
  return nameErrors(handler, 'label').map((m) => invalidValue('handler', handler, m));
}

/** RuntimeClasses. */
export const runtimeClasses = defineKind({
  group: 'node.k8s.io',
  resource: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
  printers: [
    nameColumn,
    {
      column: col(
        'Handler',
        'string',
        0,
        'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.',
      ),
      cell: (o) => str(o.handler, ''),
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      if (obj.handler !== old.handler) causes.push(immutable('handler', obj.handler));
      return causes;
    },
  },
});
