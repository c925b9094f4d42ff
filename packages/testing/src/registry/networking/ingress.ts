/**
 * Ingress (networking.k8s.io/v1): a status subresource, metadata.generation on spec changes.
 *
 * @module
 */
import { ageColumn, arr, col, nameColumn, rec, str } from '../../printers.js';
import { defineKind } from '../kind.js';

/** Ingresses. */
export const ingresses = defineKind({
  group: 'networking.k8s.io',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  statusSubresource: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    { column: col('Class', 'string'), cell: (o) => str(rec(o.spec).ingressClassName) },
    {
      column: col('Hosts', 'string'),
      cell: (o) => {
        const rules = arr(rec(o.spec).rules);
        const hosts = rules.map((r) => str(r.host, '')).filter((h) => h !== '');
        if (hosts.length === 0) return '*';
        const shown = hosts.slice(0, 3).join(',');
        return rules.length > 3 ? `${shown} + ${rules.length - 3} more...` : shown;
      },
    },
    {
      column: col('Address', 'string'),
      cell: (o) => {
        const ingress = arr(rec(rec(o.status).loadBalancer).ingress);
        const addrs = new Set(
          ingress.map((i) => str(i.ip, '') || str(i.hostname, '')).filter((a) => a !== ''),
        );
        return [...addrs].sort().join(',');
      },
    },
    {
      column: col('Ports', 'string'),
      cell: (o) => (arr(rec(o.spec).tls).length > 0 ? '80, 443' : '80'),
    },
    ageColumn,
  ],
});
