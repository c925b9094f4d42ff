/**
 * DeviceClass (resource.k8s.io/v1, cluster-scoped): each CEL selector needs an expression;
 * kube-apiserver's default table (Name, Age).
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { ageColumn, arr, nameColumn, rec, str } from '../../printers.js';
import { required } from '../field_errors.js';
import { defineKind } from '../kind.js';

/** DeviceClasses. */
export const deviceClasses = defineKind({
  group: 'resource.k8s.io',
  resource: 'deviceclasses',
  kind: 'DeviceClass',
  namespaced: false,
  tracksGeneration: true,
  printers: [nameColumn, ageColumn],
  strategy: {
    validate(obj) {
      const causes: StatusCause[] = [];
      arr(rec(obj.spec).selectors).forEach((s, i) => {
        if (str(rec(s.cel).expression, '') === '')
          causes.push(required(`spec.selectors[${i}].cel.expression`));
      });
      return causes;
    },
  },
});
