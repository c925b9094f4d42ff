/**
 * ServiceCIDR (networking.k8s.io/v1, cluster-scoped): one or two CIDRs (one per IP
 * family), a status subresource, and the printer's CIDRs column.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, col, nameColumn, rec } from '../../printers.js';
import { invalidValue, required, tooMany } from '../field_errors.js';
import { defineKind } from '../kind.js';
import { canonicalIp } from './ipaddress.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const cidrs = rec(obj.spec).cidrs;
  const list = Array.isArray(cidrs) ? cidrs : [];
  if (list.length === 0) causes.push(required('spec.cidrs', 'at least one CIDR required'));
  else if (list.length > 2) causes.push(tooMany('spec.cidrs', list.length, 2));
  list.forEach((c, i) => {
    const [ip = '', bits, ...rest] = typeof c === 'string' ? c.split('/') : [];
    const canonical = canonicalIp(ip);
    const width = canonical?.includes(':') === true ? 128 : 32;
    const n = Number(bits);
    if (canonical === undefined || rest.length > 0 || !Number.isInteger(n) || n < 0 || n > width) {
      causes.push(
        invalidValue(
          `spec.cidrs[${i}]`,
          c,
          'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
        ),
      );
    }
  });
  return causes;
}

/** ServiceCIDRs. */
export const serviceCidrs = defineKind({
  group: 'networking.k8s.io',
  resource: 'servicecidrs',
  kind: 'ServiceCIDR',
  namespaced: false,
  statusSubresource: true,
  printers: [
    nameColumn,
    {
      column: col(
        'CIDRs',
        'string',
        0,
        'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs.',
      ),
      cell: (o) => {
        const cidrs = rec(o.spec).cidrs;
        return Array.isArray(cidrs) ? cidrs.map(String).join(',') : '';
      },
    },
    ageColumn,
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validate(obj)),
  },
});
