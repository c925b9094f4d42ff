/**
 * Endpoints (core/v1): port protocols default to TCP; a PUT of missing Endpoints creates
 * them (AllowCreateOnUpdate).
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultEndpoints } from '../../defaults/other_kinds.js';
import { ageColumn, col, formatEndpoints, nameColumn } from '../../printers.js';
import { defineKind } from '../kind.js';

/** Endpoints. */
export const endpoints = defineKind({
  group: '',
  resource: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  printers: [nameColumn, { column: col('Endpoints', 'string'), cell: formatEndpoints }, ageColumn],
  strategy: { allowCreateOnUpdate: true, decode: defaulter(defaultEndpoints) },
});
