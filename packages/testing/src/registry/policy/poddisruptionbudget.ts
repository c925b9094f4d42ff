/**
 * PodDisruptionBudget (policy/v1): a status subresource, metadata.generation on spec changes.
 *
 * @module
 */
import { ageColumn, col, nameColumn, rec, scalar, statusCount } from '../../printers.js';
import { defineKind } from '../kind.js';

/** PodDisruptionBudgets. */
export const podDisruptionBudgets = defineKind({
  group: 'policy',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  statusSubresource: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col(
        'Min Available',
        'string',
        0,
        'The minimum number of pods that must be available.',
      ),
      cell: (o) => scalar(rec(o.spec).minAvailable, 'N/A'),
    },
    {
      column: col(
        'Max Unavailable',
        'string',
        0,
        'The maximum number of pods that may be unavailable.',
      ),
      cell: (o) => scalar(rec(o.spec).maxUnavailable, 'N/A'),
    },
    statusCount(
      'Allowed Disruptions',
      'disruptionsAllowed',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    ageColumn,
  ],
});
