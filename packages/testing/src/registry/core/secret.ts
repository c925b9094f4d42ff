/**
 * Secret (core/v1): `type: Opaque` by default.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultSecret } from '../../defaults/other_kinds.js';
import { mapOf, root, scalar } from '../../fieldmanager/builtin_schema.js';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { defineKind } from '../kind.js';

/** Secrets. */
export const secrets = defineKind({
  group: '',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
  fieldSelectors: ['type'],
  printers: [
    nameColumn,
    {
      column: col('Type', 'string', 0, 'The type of the secret.'),
      cell: (o) => str(o.type, 'Opaque'),
    },
    {
      column: col('Data', 'integer', 0, 'The number of keys in this Secret.'),
      cell: (o) => Object.keys(rec(o.data)).length + Object.keys(rec(o.stringData)).length,
    },
    ageColumn,
  ],
  mergeType: {
    type: root({ data: mapOf(scalar), stringData: mapOf(scalar) }),
    implicitStructs: [],
  },
  strategy: { decode: defaulter(defaultSecret) },
});
