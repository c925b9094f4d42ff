// The event recorder and the wire conversion, against client-node and the raw lower bound.
//   1. Recording N events about N objects on the in-memory API server: how long the caller
//      (a reconcile) is held per event, and how long until all are stored. Ours queues and
//      writes in the background; client-node's CoreV1Api.createNamespacedEvent and a raw
//      keep-alive http.request POST are awaited per event, as a reconcile would.
//   2. fromWire/toWire of a pod (client-node's ObjectSerializer underneath) against the lower
//      bound of any copy, JSON.parse(JSON.stringify(obj)).
import * as http from 'node:http';
import { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { CoreV1Event } from '@kubernetes/client-node';
import { fromWire, toWire } from '../src/controller/wire.js';
import { EventBroadcaster } from '../src/record/index.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { noopLogger } from '../src/util/logger.js';
import { fmt, printTable, repeat } from './lib/report.js';

const EVENTS = 500;
const CONVERSIONS = 5_000;
const RUNS = 5;

const server = await startTestApiServer();
const kc = server.kubeConfig();
const url = new URL(kc.getCurrentCluster()?.server ?? '');
const ref = (i: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: 'default', uid: `u-${i}` },
});
let round = 0;
const coreEvent = (i: number): CoreV1Event => ({
  metadata: { name: `cm-${i}.r${round}`, namespace: 'default' },
  involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${i}`, namespace: 'default' },
  reason: 'Synced',
  message: 'configuration synced',
  type: 'Normal',
  source: { component: 'bench' },
  count: 1,
});

async function ours(): Promise<[number, number]> {
  const broadcaster = new EventBroadcaster(kc, { logger: noopLogger });
  const recorder = broadcaster.newRecorder({ component: 'bench' });
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) recorder.event(ref(i), 'Normal', 'Synced', `round ${round}`);
  const held = performance.now() - t0;
  await broadcaster.close();
  round++;
  return [(held / EVENTS) * 1000, performance.now() - t0];
}

async function clientNode(): Promise<[number, number]> {
  const api = kc.makeApiClient(CoreV1Api);
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    await api.createNamespacedEvent({ namespace: 'default', body: coreEvent(i) });
  }
  const total = performance.now() - t0;
  round++;
  return [(total / EVENTS) * 1000, total];
}

async function raw(): Promise<[number, number]> {
  const agent = new http.Agent({ keepAlive: true });
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/api/v1/namespaces/default/events',
          agent,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) await post(JSON.stringify(coreEvent(i)));
  const total = performance.now() - t0;
  agent.destroy();
  round++;
  return [(total / EVENTS) * 1000, total];
}

async function measure(fn: () => Promise<[number, number]>) {
  const held: number[] = [];
  const done: number[] = [];
  const s = await repeat(RUNS, async () => {
    const [h, d] = await fn();
    held.push(h);
    done.push(d);
    return d;
  });
  const { summarize } = await import('./lib/report.js');
  return { held: summarize(held.slice(-RUNS)), done: s };
}

const rows: string[][] = [];
const results = {
  ours: await measure(ours),
  clientNode: await measure(clientNode),
  raw: await measure(raw),
};
for (const [name, r] of [
  ['kube-controller-kit recorder.event()', results.ours],
  ['client-node createNamespacedEvent (awaited)', results.clientNode],
  ['raw http.request POST (awaited)', results.raw],
] as const) {
  rows.push([
    name,
    fmt(r.held, 2, ' µs'),
    (r.held.median / results.raw.held.median).toFixed(3),
    fmt(r.done, 0, ' ms'),
    (r.done.median / results.raw.done.median).toFixed(2),
  ]);
}
printTable(
  `Recording ${EVENTS} events (in-memory API server, ${RUNS} runs, median (min–max))`,
  ['', 'caller held per event', '× raw', 'until all stored', '× raw'],
  rows,
);

const wirePod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-0',
    namespace: 'default',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
  },
  spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] },
  status: {
    phase: 'Running',
    startTime: '2026-01-01T00:00:01Z',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }],
  },
};
const per = (fn: () => void) =>
  repeat(RUNS, () => {
    const t0 = performance.now();
    for (let i = 0; i < CONVERSIONS; i++) fn();
    return ((performance.now() - t0) / CONVERSIONS) * 1000;
  });
const json = await per(() => JSON.parse(JSON.stringify(wirePod)) as unknown);
const from = await per(() => fromWire(V1Pod, wirePod));
const model = fromWire(V1Pod, wirePod);
const to = await per(() => toWire(V1Pod, model));
printTable(
  `Converting a pod, ${CONVERSIONS} times (${RUNS} runs, µs per object, median (min–max))`,
  ['', 'µs per object', '× JSON round trip'],
  [
    ['fromWire(V1Pod, wire) (Dates)', fmt(from, 2), (from.median / json.median).toFixed(2)],
    ['toWire(V1Pod, model) (strings)', fmt(to, 2), (to.median / json.median).toFixed(2)],
    ['JSON.parse(JSON.stringify(pod)) (lower bound)', fmt(json, 2), '1.00'],
  ],
);
await server.close();
