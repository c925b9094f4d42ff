// The test server's field manager (server-side apply bookkeeping) per write of a
// Deployment with two containers: the managedFields of a create, of an update, and of an
// apply, against the raw lower bound of any write (JSON.parse of the same object) in the
// same run. There is no client-node counterpart: client-node has no API server.
import { performance } from 'node:perf_hooks';
import { builtinType } from '../packages/testing/src/registry/index.js';
import type { FieldManagerScope } from '../packages/testing/src/fieldmanager/field_manager.js';
import {
  applyToObject,
  updateManagedFields,
} from '../packages/testing/src/fieldmanager/field_manager.js';
import type { JsonValue } from '../packages/testing/src/fieldmanager/path.js';
import { fmt, machineLoad, printTable, repeat, type Summary } from './lib/report.js';

type Obj = { [k: string]: JsonValue };

const N = 2_000;
const RUNS = 5;
const b = builtinType('deployments.apps');
const scope: FieldManagerScope = {
  type: b.type,
  implicitStructs: b.implicitStructs,
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  subresource: '',
  statusSubresource: true,
  now: '2026-12-03T10:00:00Z',
};

function deployment(i: number): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `d${i}`, namespace: 'default', labels: { app: 'web', i: String(i) } },
    spec: {
      replicas: i % 5,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'a',
              image: `a:${i}`,
              ports: [{ containerPort: 80 }],
              env: [{ name: 'X', value: String(i) }],
            },
            { name: 'b', image: 'b:1' },
          ],
        },
      },
    },
  };
}

const objects = Array.from({ length: N }, (_, i) => deployment(i));
const texts = objects.map((o) => JSON.stringify(o));
const created = objects.map((o) => ({
  ...updateManagedFields(undefined, o, 'kubectl-create', scope),
}));

const usPerObject = (t0: number): number => ((performance.now() - t0) / N) * 1000;

function parse(): number {
  const t0 = performance.now();
  for (const s of texts) JSON.parse(s);
  return usPerObject(t0);
}

function create(): number {
  const t0 = performance.now();
  for (const o of objects) updateManagedFields(undefined, o, 'kubectl-create', scope);
  return usPerObject(t0);
}

function update(): number {
  const t0 = performance.now();
  for (const [i, o] of created.entries()) {
    updateManagedFields(o, { ...o, spec: { ...(o.spec as Obj), replicas: i + 7 } }, 'ctl', scope);
  }
  return usPerObject(t0);
}

function apply(): number {
  const t0 = performance.now();
  for (const [i, o] of created.entries()) {
    applyToObject(
      o,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `d${i}` },
        spec: { replicas: 3 },
      },
      'mgr',
      true,
      scope,
    );
  }
  return usPerObject(t0);
}

const base = await repeat(RUNS, parse);
const rows: [string, Summary][] = [
  ['JSON.parse (lower bound)', base],
  ['create: Update entry', await repeat(RUNS, create)],
  ['update: Update entry', await repeat(RUNS, update)],
  ['apply (force)', await repeat(RUNS, apply)],
];
printTable(
  `Field manager per Deployment write (${N} objects, median of ${RUNS} runs; ${machineLoad()})`,
  ['step', 'µs/object median (min–max)', '× JSON.parse'],
  rows.map(([name, s]) => [name, fmt(s, 1), (s.median / base.median).toFixed(1)]),
);
