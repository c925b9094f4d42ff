// Sharding: does a ring of replicas scale a controller out?
//
// OBJECTS ConfigMaps, a reconcile that burns BURN_MS of CPU, and 1, 2 and 4 replicas, each
// a separate Node process (test/sharding/replica-process.ts) with its own informer selecting
// its shard label, on one in-memory API server in this process, with a running sharder. The
// objects are created already labelled for the ring of that run (as a settled ring would
// leave them), so the figure is the steady state of sharded work, not the first labelling.
// Measured per run, in the same run:
// - lower bound: the same OBJECTS reconciles burnt in one loop in this process, nothing else;
// - throughput: after every replica synced and reconciled its share once (warm-up), every
//   object is changed at once; OBJECTS / (time until the last of those reconciles ended);
// - cache memory per replica: heap in use after a GC with the cache full, minus the heap of
//   a replica that owns no objects (what the process costs anyway).
// Reported: medians (min–max) of RUNS runs; ratios to one replica. @kubernetes/client-node
// has no sharding, so it has no row here: one replica is the unsharded controller. This
// machine has 2 cores shared by the server, the sharder and the replicas: the ceiling is
// about 2x, not N.
//
// Usage: node --expose-gc --import tsx bench/sharding.bench.ts   (or: npm run bench -- sharding)
import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import { configMapsResource } from '../src/client/builtins.js';
import type { UnstructuredObject } from '../src/client/types.js';
import { HashRing, objectHashKey, ringLabels } from '../src/sharding/index.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { Ring } from '../test/sharding/harness.js';
import type { Interval } from '../test/sharding/harness.js';
import { ChildReplica } from '../test/sharding/processes.js';
import { fmt, printTable, summarize } from './lib/report.js';
import type { Summary } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const BURN_MS = Number(process.env.BENCH_BURN_MS ?? 0.5);
const REPLICAS = [1, 2, 4];
const labels = ringLabels('widgets');

function lowerBoundMs(): number {
  const start = performance.now();
  for (let i = 0; i < OBJECTS; i++) {
    const until = performance.now() + BURN_MS;
    while (performance.now() < until) {
      // the same CPU per reconcile as the replicas burn
    }
  }
  return performance.now() - start;
}

interface RunResult {
  perSecond: number;
  cacheBytesPerReplica: number;
}

async function run(replicas: number, runIndex: number): Promise<RunResult> {
  const server = await startTestApiServer();
  const ring = new Ring(server);
  const names = Array.from({ length: replicas }, (_, i) => `r${replicas}-${runIndex}-${i}`);
  const hash = new HashRing(names);
  const objects: UnstructuredObject[] = Array.from({ length: OBJECTS }, (_, i) => {
    const name = `cm-${i}`;
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: 'default',
        labels: { [labels.shard]: hash.get(objectHashKey('', 'ConfigMap', 'default', name)) ?? '' },
      },
      data: { value: 'x'.repeat(200) },
    };
  });
  server.seed(configMapsResource, objects);
  ring.startSharder();
  const intervals: Interval[] = [];
  const kubeConfig = server.kubeConfig().exportConfig();
  // Client-go's default lease timing: the short test timing loses Leases on a loaded machine.
  const leaseTiming = { LEASE_MS: '15000', RENEW_MS: '10000', RETRY_MS: '2000' };
  const children = names.map(
    (n) => new ChildReplica(n, kubeConfig, intervals, { BURN_MS: String(BURN_MS), ...leaseTiming }),
  );
  // Same program, in a ring of its own that owns nothing: the heap a replica costs anyway.
  const idle = new ChildReplica(`idle-${replicas}-${runIndex}`, kubeConfig, [], {
    RING: 'idle',
    ...leaseTiming,
  });
  const waitAll = async (since: number): Promise<void> => {
    const keys = new Set<string>();
    let seen = 0;
    while (keys.size < OBJECTS) {
      await new Promise((r) => setTimeout(r, 50));
      for (; seen < intervals.length; seen++) {
        const i = intervals[seen];
        if (i !== undefined && i.start >= since) keys.add(i.key);
      }
      for (const c of children) {
        if (c.proc.exitCode !== null) throw new Error(`replica ${c.name} exited: ${c.stderr}`);
      }
    }
  };
  try {
    // Warm-up: every replica syncs its share and reconciles it once.
    await waitAll(0);
    // Measured: every object changes at once; each replica reconciles its share again.
    const t0 = performance.timeOrigin + performance.now();
    for (const o of objects) {
      o.data = { value: 'y'.repeat(200) };
      server.update(configMapsResource, o);
    }
    await waitAll(t0);
    const end = Math.max(...intervals.filter((i) => i.start >= t0).map((i) => i.end));
    const heaps = await Promise.all(children.map((c) => c.heap()));
    const base = (await idle.heap()).heapUsedBytes;
    const cache = heaps.reduce((s, h) => s + (h.heapUsedBytes - base), 0) / heaps.length;
    return { perSecond: (OBJECTS / (end - t0)) * 1000, cacheBytesPerReplica: cache };
  } finally {
    await Promise.all([...children, idle].map((c) => c.terminate()));
    await ring.close();
    await server.close();
  }
}

const bound = summarize(Array.from({ length: RUNS }, () => (OBJECTS / lowerBoundMs()) * 1000));
const results = new Map<number, { rate: Summary; cache: Summary }>();
for (const n of REPLICAS) {
  const rates: number[] = [];
  const caches: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const res = await run(n, r);
    rates.push(res.perSecond);
    caches.push(res.cacheBytesPerReplica);
  }
  results.set(n, { rate: summarize(rates), cache: summarize(caches) });
}
const one = results.get(1);
if (one === undefined) throw new Error('no single-replica result');
const rows: string[][] = [
  [
    'lower bound (one loop, no server)',
    fmt(bound, 0),
    (bound.median / one.rate.median).toFixed(2) + 'x',
    '–',
    '–',
  ],
];
for (const [n, r] of results) {
  rows.push([
    `${n} replica${n > 1 ? 's' : ''} (processes)`,
    fmt(r.rate, 0),
    (r.rate.median / one.rate.median).toFixed(2) + 'x',
    fmt(
      { ...r.cache, median: r.cache.median / 1e6, min: r.cache.min / 1e6, max: r.cache.max / 1e6 },
      2,
      ' MB',
    ),
    (r.cache.median / one.cache.median).toFixed(2) + 'x',
  ]);
}
printTable(
  `Sharding: ${OBJECTS} objects, ${BURN_MS} ms CPU per reconcile, ${RUNS} runs, ${cpus().length} cores`,
  ['setup', 'reconciles/s', 'ratio to 1 replica', 'cache heap per replica', 'ratio to 1 replica'],
  rows,
);
