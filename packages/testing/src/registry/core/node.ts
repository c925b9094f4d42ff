/**
 * Node (core/v1): `status.allocatable` defaults to `status.capacity`.
 *
 * @module
 */
import { defaulter } from '../../defaults/index.js';
import { defaultNode } from '../../defaults/other_kinds.js';
import {
  ageColumn,
  col,
  nameColumn,
  nodeAddress,
  nodeInfo,
  nodeRoles,
  nodeStatus,
  rec,
  str,
} from '../../printers.js';
import { defineKind } from '../kind.js';

/** Nodes. */
export const nodes = defineKind({
  group: '',
  resource: 'nodes',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  statusSubresource: true,
  fieldSelectors: ['spec.unschedulable'],
  printers: [
    nameColumn,
    { column: col('Status', 'string', 0, 'The status of the node'), cell: nodeStatus },
    { column: col('Roles', 'string', 0, 'The roles of the node'), cell: nodeRoles },
    ageColumn,
    {
      column: col('Version', 'string'),
      cell: (o) => str(rec(rec(o.status).nodeInfo).kubeletVersion, ''),
    },
    { column: col('Internal-IP', 'string', 1), cell: (o) => nodeAddress(o, 'InternalIP') },
    { column: col('External-IP', 'string', 1), cell: (o) => nodeAddress(o, 'ExternalIP') },
    { column: col('OS-Image', 'string', 1), cell: nodeInfo('osImage') },
    { column: col('Kernel-Version', 'string', 1), cell: nodeInfo('kernelVersion') },
    { column: col('Container-Runtime', 'string', 1), cell: nodeInfo('containerRuntimeVersion') },
  ],
  strategy: { decode: defaulter(defaultNode) },
});
