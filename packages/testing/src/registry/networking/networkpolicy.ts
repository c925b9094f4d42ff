/**
 * NetworkPolicy (networking.k8s.io/v1): `policyTypes` and port protocols default on decode.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultNetworkPolicy } from '../../defaults/other_kinds.js';
import { ageColumn, col, formatLabelSelector, nameColumn, rec } from '../../printers.js';
import { defineKind } from '../kind.js';

/** NetworkPolicies. */
export const networkPolicies = defineKind({
  group: 'networking.k8s.io',
  resource: 'networkpolicies',
  kind: 'NetworkPolicy',
  namespaced: true,
  shortNames: ['netpol'],
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col('Pod-Selector', 'string'),
      cell: (o) => formatLabelSelector(rec(o.spec).podSelector),
    },
    ageColumn,
  ],
  strategy: { decode: defaulter(defaultNetworkPolicy) },
});
