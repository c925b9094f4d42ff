/**
 * Service (core/v1), as kube-apiserver's `pkg/registry/core/service`: its defaults on
 * decode (../../defaults/service.ts); cluster IPs, IP families and node ports allocated in
 * BeginCreate/BeginUpdate (after mutating admission; an update keeps what was allocated);
 * `status: {loadBalancer: {}}` on create; a PUT of a missing Service creates it
 * (AllowCreateOnUpdate).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { defaultService } from '../../defaults/service.js';
import { allocateServiceFields, child, defaulter, isObj } from '../../defaults/index.js';
import { jsonCopy } from '../../json_copy.js';
import {
  conditions,
  listAtomic,
  listMap,
  mapOf,
  open,
  root,
  scalar,
} from '../../fieldmanager/builtin_schema.js';
import { ageColumn, arr, col, nameColumn, num, rec, str } from '../../printers.js';
import { generic } from '../generic.js';
import { defineKind } from '../kind.js';
import type { StrategyContext } from '../types.js';

/** The Service with its cluster IPs and node ports allocated (its spec copied first). */
function allocate(
  obj: UnstructuredObject,
  old: UnstructuredObject | undefined,
  ctx: StrategyContext,
): UnstructuredObject {
  if (!isObj(obj.spec)) return obj;
  const spec = jsonCopy(obj.spec);
  const selector = child(spec, 'selector');
  const hasSelector = selector !== undefined && Object.keys(selector).length > 0;
  allocateServiceFields(spec, old === undefined ? undefined : child(old, 'spec'), hasSelector, () =>
    ctx.read.list('services').map((s) => s.obj),
  );
  return { ...obj, spec };
}

/** Services. */
export const services = defineKind({
  group: '',
  resource: 'services',
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  statusSubresource: true,
  nameRule: 'label',
  printers: [
    nameColumn,
    {
      column: col('Type', 'string', 0, 'The type of the service.'),
      cell: (o) => str(rec(o.spec).type, 'ClusterIP'),
    },
    {
      column: col('Cluster-IP', 'string', 0, 'The IP address of the service.'),
      cell: (o) => str(rec(o.spec).clusterIP),
    },
    {
      column: col('External-IP', 'string', 0, 'The external IP address of the service.'),
      cell: (o) => {
        const ips = rec(o.spec).externalIPs;
        return Array.isArray(ips) && ips.length > 0 ? ips.join(',') : '<none>';
      },
    },
    {
      column: col('Port(s)', 'string', 0, 'The ports of the service.'),
      cell: (o) => {
        const ports = arr(rec(o.spec).ports).map(
          (p) =>
            `${num(p.port)}${typeof p.nodePort === 'number' ? `:${p.nodePort}` : ''}/${str(p.protocol, 'TCP')}`,
        );
        return ports.length === 0 ? '<none>' : ports.join(',');
      },
    },
    ageColumn,
    {
      column: col('Selector', 'string', 1),
      cell: (o) => {
        const sel = Object.entries(rec(rec(o.spec).selector));
        return sel.length === 0 ? '<none>' : sel.map(([k, v]) => `${k}=${String(v)}`).join(',');
      },
    },
  ],
  mergeType: {
    type: root({
      spec: open({
        ports: listMap(
          ['port', 'protocol'],
          open({ port: scalar, protocol: scalar }, { protocol: 'TCP' }),
        ),
        selector: mapOf(scalar, true),
        clusterIPs: listAtomic(scalar),
        externalIPs: listAtomic(scalar),
        ipFamilies: listAtomic(scalar),
        loadBalancerSourceRanges: listAtomic(scalar),
      }),
      status: open({ conditions }),
    }),
    implicitStructs: ['spec', 'status'],
  },
  strategy: {
    allowCreateOnUpdate: true,
    decode: defaulter(defaultService),
    beginCreate: (obj, ctx) => allocate(obj, undefined, ctx),
    beginUpdate: (obj, old, ctx) => allocate(obj, old, ctx),
    prepareForCreate(obj, ctx) {
      const out = generic.prepareForCreate(obj, ctx);
      return ctx.seed ? out : { ...out, status: { loadBalancer: {} } };
    },
  },
});
