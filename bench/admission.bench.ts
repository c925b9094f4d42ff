// The test server's write path for a Deployment create: the whole store create (envelope
// and metadata checks, the store's admission chain — built-in defaults and the schema
// step; webhooks and policies with nothing configured return at once — managedFields
// bookkeeping, commit),
// as a request reaches it (`write`), against the raw lower bound of any write
// (JSON.parse of the same object) in the same run. Target: within 8× JSON.parse.
//
// The machine is shared and noisy: each round times JSON.parse and the creates back to
// back, and the table gives the median of the rounds' own ratios, in wall time and in the
// process's CPU time (which leaves out the time other processes held the cores).
import { performance } from 'node:perf_hooks';
import { builtinResources } from '../packages/testing/src/registry/index.js';
import {
  groupResourceKey,
  ResourceRegistry,
} from '../packages/testing/src/registry/resource_registry.js';
import { ResourceStore } from '../packages/testing/src/resource_store.js';
import { Storage } from '../packages/testing/src/storage.js';
import { realClock } from '../src/util/clock.js';
import { fmt, machineLoad, printTable, summarize, type Summary } from './lib/report.js';

const N = 2_000;
const ROUNDS = 11;

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

/** Wall and CPU time of `fn`, in µs per object. */
async function timed(fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall: (wall / N) * 1000, cpu: (c.user + c.system) / N };
}

const PARSE_PASSES = 5;

/** JSON.parse of every text, PARSE_PASSES times (a longer sample, less at the mercy of one preemption). */
function parse(): void {
  for (let i = 0; i < PARSE_PASSES; i++) for (const s of texts) JSON.parse(s);
}

function freshStore(): { store: ResourceStore; registry: ResourceRegistry } {
  const registry = new ResourceRegistry();
  for (const t of builtinResources()) registry.add(t);
  const store = new ResourceStore(new Storage({ historySize: 1_000 }), registry, realClock);
  const ns = registry.byGroupResource('', 'namespaces');
  if (ns === undefined) throw new Error('namespaces are not served');
  store.writeNow({
    verb: 'create',
    type: ns,
    version: 'v1',
    namespace: '',
    name: '',
    subresource: '',
    body: { metadata: { name: 'default' } },
  });
  return { store, registry };
}

async function create(store: ResourceStore, registry: ResourceRegistry): Promise<void> {
  const type = registry.byKey(groupResourceKey('apps', 'deployments'));
  if (type === undefined) throw new Error('deployments are not served');
  // As a request does: the body parsed from its bytes, then created.
  for (const s of texts) {
    await store.write({
      verb: 'create',
      type,
      version: 'v1',
      namespace: 'default',
      name: '',
      subresource: '',
      body: JSON.parse(s),
      options: { userAgent: 'bench/v1', warnings: [] },
    });
  }
}

const samples = {
  parseWall: [],
  parseCpu: [],
  createWall: [],
  createCpu: [],
  wall: [],
  cpu: [],
} as Record<string, number[]>;
for (let round = -1; round < ROUNDS; round++) {
  const { store, registry } = freshStore();
  const p5 = await timed(parse);
  const p = { wall: p5.wall / PARSE_PASSES, cpu: p5.cpu / PARSE_PASSES };
  const c = await timed(() => create(store, registry));
  if (round < 0) continue; // warm-up
  samples.parseWall!.push(p.wall);
  samples.parseCpu!.push(p.cpu);
  samples.createWall!.push(c.wall);
  samples.createCpu!.push(c.cpu);
  samples.wall!.push(c.wall / p.wall);
  samples.cpu!.push(c.cpu / p.cpu);
}
const s = (k: string): Summary => summarize(samples[k]!);
printTable(
  `Deployment create through the write path (${N} objects, ${ROUNDS} rounds, medians of the rounds; ${machineLoad()})`,
  [
    'step',
    'wall µs/object (min–max)',
    'CPU µs/object (min–max)',
    '× JSON.parse, wall',
    '× JSON.parse, CPU',
  ],
  [
    ['JSON.parse (lower bound)', fmt(s('parseWall'), 1), fmt(s('parseCpu'), 1), '1.0', '1.0'],
    [
      'store write (parse included)',
      fmt(s('createWall'), 1),
      fmt(s('createCpu'), 1),
      fmt(s('wall'), 1),
      fmt(s('cpu'), 1),
    ],
  ],
);
