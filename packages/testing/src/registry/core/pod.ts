/**
 * Pod (core/v1), as kube-apiserver's `pkg/registry/core/pod`: its defaults on decode
 * (../../defaults/pod.ts), status `phase: Pending` and its QoS class on create, and a graceful
 * delete for a scheduled pod that has not finished (its `terminationGracePeriodSeconds`,
 * 30 by default, or the delete's own grace period).
 *
 * @module
 */
import { defaultPod } from '../../defaults/pod.js';
import { defaulter } from '../../defaults/index.js';
import { podQOSClass } from '../../defaults/qos.js';
import {
  conditions,
  listAtomic,
  listMap,
  open,
  podSpec,
  root,
  scalar,
} from '../../fieldmanager/builtin_schema.js';
import { ageColumn, arr, col, nameColumn, num, podStatus, rec, str } from '../../printers.js';
import { generic } from '../generic.js';
import { defineKind } from '../kind.js';

/** Pods. */
export const pods = defineKind({
  group: '',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  statusSubresource: true,
  fieldSelectors: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  printers: [
    nameColumn,
    {
      column: col(
        'Ready',
        'string',
        0,
        'The aggregate readiness state of this pod for accepting traffic.',
      ),
      cell: (o) => {
        const total = arr(rec(o.spec).containers).length;
        const ready = arr(rec(o.status).containerStatuses).filter((c) => c.ready === true).length;
        return `${ready}/${total}`;
      },
    },
    {
      column: col('Status', 'string', 0, 'The aggregate status of the containers in this pod.'),
      cell: podStatus,
    },
    {
      column: col(
        'Restarts',
        'string',
        0,
        'The number of times the containers in this pod have been restarted.',
      ),
      cell: (o) =>
        String(arr(rec(o.status).containerStatuses).reduce((n, c) => n + num(c.restartCount), 0)),
    },
    ageColumn,
    { column: col('IP', 'string', 1), cell: (o) => str(rec(o.status).podIP) },
    { column: col('Node', 'string', 1), cell: (o) => str(rec(o.spec).nodeName) },
    {
      column: col('Nominated Node', 'string', 1),
      cell: (o) => str(rec(o.status).nominatedNodeName),
    },
    {
      column: col('Readiness Gates', 'string', 1),
      cell: (o) => {
        const gates = arr(rec(o.spec).readinessGates);
        return gates.length === 0 ? '<none>' : `0/${gates.length}`;
      },
    },
  ],
  mergeType: {
    type: root({
      spec: podSpec,
      status: open({
        conditions,
        podIPs: listMap(['ip'], open({ ip: scalar })),
        hostIPs: listAtomic(),
        containerStatuses: listAtomic(),
        initContainerStatuses: listAtomic(),
      }),
    }),
    implicitStructs: ['spec', 'status'],
  },
  strategy: {
    decode: defaulter(defaultPod),
    prepareForCreate(obj, ctx) {
      const out = generic.prepareForCreate(obj, ctx);
      if (ctx.seed) return out;
      return { ...out, status: { phase: 'Pending', qosClass: podQOSClass(out) } };
    },
    gracePeriodSeconds(obj, requested) {
      const spec = rec(obj.spec);
      const status = rec(obj.status);
      const scheduled = typeof spec.nodeName === 'string' && spec.nodeName !== '';
      const done = status.phase === 'Succeeded' || status.phase === 'Failed';
      if (!scheduled || done) return 0;
      const dflt =
        typeof spec.terminationGracePeriodSeconds === 'number'
          ? spec.terminationGracePeriodSeconds
          : 30;
      return requested ?? dflt;
    },
  },
});
