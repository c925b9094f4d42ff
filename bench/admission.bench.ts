// The test server's write path for a Deployment create: the whole store create (envelope
// and metadata checks, the store's admission chain — built-in defaults and the schema
// step; webhooks and policies with nothing configured return at once — managedFields
// bookkeeping, commit),
// as a request reaches it (`createAsync`), against the raw lower bound of any write
// (JSON.parse of the same object) in the same run. Target: within 8× JSON.parse.
import { performance } from 'node:perf_hooks';
import { builtinResources, groupResourceKey, ResourceRegistry } from '../src/testing/registry.js';
import { ResourceStore } from '../src/testing/resource_store.js';
import { Storage } from '../src/testing/storage.js';
import { realClock } from '../src/util/clock.js';
import { fmt, machineLoad, printTable, repeat, type Summary } from './lib/report.js';

const N = 2_000;
const RUNS = 5;

function deployment(i: number): Record<string, unknown> {
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

const texts = Array.from({ length: N }, (_, i) => JSON.stringify(deployment(i)));
const usPerObject = (t0: number): number => ((performance.now() - t0) / N) * 1000;

function parse(): number {
  const t0 = performance.now();
  for (const s of texts) JSON.parse(s);
  return usPerObject(t0);
}

function freshStore(): { store: ResourceStore; registry: ResourceRegistry } {
  const registry = new ResourceRegistry();
  for (const t of builtinResources()) registry.add(t);
  const store = new ResourceStore(new Storage({ historySize: 1_000 }), registry, realClock);
  const ns = registry.byGroupResource('', 'namespaces');
  if (ns === undefined) throw new Error('namespaces are not served');
  store.create(ns, 'v1', '', { metadata: { name: 'default' } });
  return { store, registry };
}

async function create(): Promise<number> {
  const { store, registry } = freshStore();
  const type = registry.byKey(groupResourceKey('apps', 'deployments'));
  if (type === undefined) throw new Error('deployments are not served');
  const t0 = performance.now();
  // As a request does: the body parsed from its bytes, then created.
  for (const s of texts) {
    await store.createAsync(type, 'v1', 'default', JSON.parse(s), {
      userAgent: 'bench/v1',
      warnings: [],
    });
  }
  return usPerObject(t0);
}

const base = await repeat(RUNS, parse);
const rows: [string, Summary][] = [
  ['JSON.parse (lower bound)', base],
  ['store createAsync (parse included)', await repeat(RUNS, create)],
];
printTable(
  `Deployment create through the write path (${N} objects, median of ${RUNS} runs; ${machineLoad()})`,
  ['step', 'µs/object median (min–max)', '× JSON.parse'],
  rows.map(([name, s]) => [name, fmt(s, 1), (s.median / base.median).toFixed(1)]),
);
