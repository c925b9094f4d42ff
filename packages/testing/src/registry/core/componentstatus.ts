/**
 * ComponentStatus (core/v1, cluster-scoped, deprecated): read-only (get and list), the
 * health of the control plane's components. kube-apiserver probes the scheduler, the
 * controller manager and etcd on each read; the test server has none of them, so it
 * serves the three as healthy, stored from the start. Printer: Status, Message, Error.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { arr, col, nameColumn, str } from '../../printers.js';
import { defineKind } from '../kind.js';

/** The Healthy condition of a ComponentStatus, if any. */
function healthy(o: UnstructuredObject): Record<string, unknown> | undefined {
  return arr(o.conditions).find((c) => c.type === 'Healthy');
}

/** ComponentStatuses. */
export const componentStatuses = defineKind({
  group: '',
  resource: 'componentstatuses',
  kind: 'ComponentStatus',
  namespaced: false,
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  bootstrap: () =>
    ['controller-manager', 'scheduler', 'etcd-0'].map((name) => ({
      apiVersion: 'v1',
      kind: 'ComponentStatus',
      metadata: { name },
      conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
    })),
  printers: [
    nameColumn,
    {
      column: col('Status', 'string', 0, 'Status of the component conditions'),
      cell: (o) => {
        const c = healthy(o);
        if (c === undefined) return 'Unknown';
        return c.status === 'True' ? 'Healthy' : c.status === 'False' ? 'Unhealthy' : 'Unknown';
      },
    },
    {
      column: col('Message', 'string', 0, 'Message of the component conditions'),
      cell: (o) => str(healthy(o)?.message, ''),
    },
    {
      column: col('Error', 'string', 0, 'Error of the component conditions'),
      cell: (o) => str(healthy(o)?.error, ''),
    },
  ],
});
