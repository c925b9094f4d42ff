/**
 * ServiceAccount (core/v1). Its `token` subresource (TokenRequest) is served by the
 * resource handlers (../../service_account_tokens.ts).
 *
 * @module
 */
import { ageColumn, arr, col, nameColumn } from '../../printers.js';
import { defineKind } from '../kind.js';

/** ServiceAccounts. */
export const serviceAccounts = defineKind({
  group: '',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  printers: [
    nameColumn,
    { column: col('Secrets', 'string'), cell: (o) => arr(o.secrets).length },
    ageColumn,
  ],
});
