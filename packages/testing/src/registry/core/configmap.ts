/**
 * ConfigMap (core/v1).
 *
 * @module
 */
import { mapOf, root, scalar } from '../../fieldmanager/builtin_schema.js';
import { ageColumn, col, nameColumn, rec } from '../../printers.js';
import { defineKind } from '../kind.js';

/** ConfigMaps. */
export const configMaps = defineKind({
  group: '',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  printers: [
    nameColumn,
    {
      column: col('Data', 'integer', 0, 'The number of keys in this ConfigMap.'),
      cell: (o) => Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length,
    },
    ageColumn,
  ],
  mergeType: {
    type: root({ data: mapOf(scalar), binaryData: mapOf(scalar) }),
    implicitStructs: [],
  },
});
