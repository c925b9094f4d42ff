/**
 * ResourceQuota (core/v1).
 *
 * @module
 */
import { ageColumn, col, nameColumn, quotaColumn } from '../../printers.js';
import { defineKind } from '../kind.js';

/** ResourceQuotas. */
export const resourceQuotas = defineKind({
  group: '',
  resource: 'resourcequotas',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  statusSubresource: true,
  printers: [
    nameColumn,
    {
      column: col(
        'Request',
        'string',
        0,
        'Request represents a minimum amount of cpu/memory that a container may consume.',
      ),
      cell: quotaColumn(false),
    },
    {
      column: col(
        'Limit',
        'string',
        0,
        'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      ),
      cell: quotaColumn(true),
    },
    ageColumn,
  ],
});
