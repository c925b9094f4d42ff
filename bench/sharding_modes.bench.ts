// Sharding modes compared: label sharding (a sharder labels every object; replicas select
// on their label) and server-side sharding (KEP-5866: replicas watch their hash ranges with
// a shardSelector; no sharder, no labels), plus server-side sharding against a server
// without the gate (the selector is ignored: every replica receives everything and filters
// on its side). OBJECTS unlabelled ConfigMaps on one in-memory API server, 1, 2 and 4
// in-process replicas (test/sharding/harness.ts), from the first replica's start until the
// ring has settled (every object last reconciled by its owner). Measured in the same run:
// - API writes to the sharded objects (labels, drains) and to Leases (memberships, renewals,
//   held ranges), counted from the server's request log;
// - per replica: objects in its cache and their JSON bytes (the largest replica). In the
//   gate-off row every replica still receives all OBJECTS from the server (and drops the
//   others): the cache is the same, the traffic and decoding are not.
// Replicas share this process, so heap per replica is not separable: the cache size is the
// memory figure. Small scale by default; the machine is shared (2 cores, other work), so
// read ratios within one run, not absolute times.
//
// Usage: node --expose-gc --import tsx bench/sharding_modes.bench.ts   (BENCH_OBJECTS=2000)
import { performance } from 'node:perf_hooks';
import { configMapsResource } from '../src/client/builtins.js';
import type { UnstructuredObject } from '../src/client/types.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { Ring } from '../test/sharding/harness.js';
import { machineLoad, printTable } from './lib/report.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 2000);
const REPLICAS = [1, 2, 4];
type Mode = 'labels' | 'server' | 'server, gate off';

interface Result {
  objectWrites: number;
  leaseWrites: number;
  maxCached: number;
  maxCacheBytes: number;
  settleMs: number;
}

async function run(mode: Mode, replicas: number): Promise<Result> {
  const server = await startTestApiServer({
    featureGates: { ShardedListAndWatch: mode === 'server' },
  });
  const ring = new Ring(server, { mode: mode === 'labels' ? 'labels' : 'server' });
  const objects: UnstructuredObject[] = Array.from({ length: OBJECTS }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default' },
    data: { value: 'x'.repeat(200) },
  }));
  server.seed(configMapsResource, objects);
  server.clearRequests();
  const t0 = performance.now();
  try {
    ring.startSharder();
    for (let i = 0; i < replicas; i++) ring.add(`r${i}`);
    await ring.settled(180_000);
    const settleMs = performance.now() - t0;
    const writes = server.requests.filter((r) =>
      ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method),
    );
    const objectWrites = writes.filter((r) => r.resource === 'configmaps').length;
    const leaseWrites = writes.filter((r) => r.resource === 'leases').length;
    let maxCached = 0;
    let maxCacheBytes = 0;
    for (const r of ring.replicas.values()) {
      const items = r.cache?.list() ?? [];
      maxCached = Math.max(maxCached, items.length);
      maxCacheBytes = Math.max(maxCacheBytes, JSON.stringify(items).length);
    }
    return { objectWrites, leaseWrites, maxCached, maxCacheBytes, settleMs };
  } finally {
    await ring.close();
    await server.close();
  }
}

const rows: string[][] = [];
for (const mode of ['labels', 'server', 'server, gate off'] as const) {
  let one: Result | undefined;
  for (const n of REPLICAS) {
    const r = await run(mode, n);
    one ??= r;
    rows.push([
      mode,
      String(n),
      String(r.objectWrites),
      String(r.leaseWrites),
      String(r.maxCached),
      `${(r.maxCacheBytes / 1e3).toFixed(0)} kB (${(r.maxCacheBytes / one.maxCacheBytes).toFixed(2)}x)`,
      `${(r.settleMs / 1000).toFixed(1)} s`,
    ]);
  }
}
printTable(
  `Sharding modes: ${OBJECTS} objects, in-process replicas, until settled (${machineLoad()})`,
  [
    'mode',
    'replicas',
    'object writes',
    'lease writes',
    'cached per replica (max)',
    'cache JSON per replica (max)',
    'settle time',
  ],
  rows,
);
