/**
 * LimitRange (core/v1): SetDefaults_LimitRangeItem (for a Container limit, a missing
 * default is the max, a missing defaultRequest the default, then the min), a required
 * limit type, and kube-apiserver's default table (Name, Created At).
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { arr, createdAtPrinters, rec } from '../../printers.js';
import { notSupported, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

/** LimitRanges. */
export const limitRanges = defineKind({
  group: '',
  resource: 'limitranges',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  printers: createdAtPrinters(),
  strategy: {
    decode: defaulter((obj) => {
      for (const item of arr(rec(obj.spec).limits)) {
        if (item.type !== 'Container') continue;
        const defaults = { ...rec(item.default) };
        const requests = { ...rec(item.defaultRequest) };
        for (const [k, v] of Object.entries(rec(item.max))) if (!(k in defaults)) defaults[k] = v;
        for (const [k, v] of Object.entries(defaults)) if (!(k in requests)) requests[k] = v;
        for (const [k, v] of Object.entries(rec(item.min))) if (!(k in requests)) requests[k] = v;
        if (Object.keys(defaults).length > 0) item.default = defaults;
        if (Object.keys(requests).length > 0) item.defaultRequest = requests;
      }
    }),
    validate(obj) {
      const causes: StatusCause[] = [];
      arr(rec(obj.spec).limits).forEach((item, i) => {
        const at = `spec.limits[${i}].type`;
        if (item.type === undefined || item.type === '') causes.push(required(at));
        else if (typeof item.type !== 'string' || !LIMIT_TYPES.includes(item.type))
          causes.push(notSupported(at, item.type, LIMIT_TYPES));
      });
      return causes;
    },
  },
});
