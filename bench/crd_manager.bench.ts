// The cost of the CRD-driven informer manager over a bare informer of the same custom
// resource: time from start until one handler has seen every object, and heap per cached
// object, in the same run against the same in-memory server (in this process; both sides
// share its CPU cost equally).
//
// Usage: node --expose-gc --import tsx bench/crd_manager.bench.ts   (BENCH_N, BENCH_RUNS)
import { listWatchFromClient } from '../src/cache/listwatch.js';
import { SharedIndexInformer } from '../src/cache/shared_informer.js';
import { ResourceClient } from '../src/client/resource_client.js';
import type { UnstructuredObject } from '../src/client/types.js';
import { CRDInformerManager } from '../src/dynamic/crd_informer_manager.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { noopLogger } from '../src/util/logger.js';
import { fmt, heapUsedAfterGc, machineLoad, printTable, summarize } from './lib/report.js';
import type { Summary } from './lib/report.js';

const N = Number(process.env.BENCH_N ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const schema = {
  openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
};
const widgetRef = { group: 'example.com', resource: 'widgets' };
const widgets = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

const server = await startTestApiServer({
  namespaces: Array.from({ length: 50 }, (_, i) => `ns-${i}`),
});
server.create(
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema }],
    },
  },
);
server.seed(
  widgetRef,
  (function* () {
    for (let i = 0; i < N; i++) {
      yield {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: {
          name: `w-${i}`,
          namespace: `ns-${i % 50}`,
          labels: { app: 'bench', shard: String(i % 7) },
        },
        spec: {
          size: i,
          color: 'blue',
          image: `registry.example.com/widget:${i % 100}`,
          args: ['--a', '--b', String(i)],
        },
      };
    }
  })(),
);
const kc = server.kubeConfig();

interface Result {
  ms: number;
  heapPerObject: number;
}

async function bare(): Promise<Result> {
  const before = heapUsedAfterGc();
  const t0 = performance.now();
  const ac = new AbortController();
  const informer = new SharedIndexInformer<UnstructuredObject>(
    listWatchFromClient(new ResourceClient(kc, widgets)),
    { logger: noopLogger },
  );
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  informer.addEventHandler({ onAdd: () => void (++seen === N && done()) });
  const running = informer.run(ac.signal);
  await all;
  const ms = performance.now() - t0;
  const heap = heapUsedAfterGc() - before;
  ac.abort();
  await running;
  return { ms, heapPerObject: heap / N };
}

async function managed(): Promise<Result> {
  const before = heapUsedAfterGc();
  const t0 = performance.now();
  const ac = new AbortController();
  const manager = new CRDInformerManager(kc, { logger: noopLogger });
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  manager.addEventHandler({ onAdd: () => void (++seen === N && done()) });
  const running = manager.run(ac.signal);
  await all;
  const ms = performance.now() - t0;
  const heap = heapUsedAfterGc() - before;
  ac.abort();
  await running;
  return { ms, heapPerObject: heap / N };
}

const rows: string[][] = [];
const results: Record<string, { ms: Summary; heap: Summary }> = {};
for (const [name, fn] of [
  ['bare SharedIndexInformer', bare],
  ['CRDInformerManager', managed],
] as const) {
  await fn(); // warm-up
  const samples: Result[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await fn());
  results[name] = {
    ms: summarize(samples.map((r) => r.ms)),
    heap: summarize(samples.map((r) => r.heapPerObject)),
  };
}
const base = results['bare SharedIndexInformer']!;
for (const [name, r] of Object.entries(results)) {
  rows.push([
    name,
    fmt(r.ms, 0, ' ms'),
    `${(r.ms.median / base.ms.median).toFixed(2)}×`,
    fmt(r.heap, 0, ' B'),
    `${(r.heap.median / base.heap.median).toFixed(2)}×`,
  ]);
}
printTable(
  `${N} custom resources: start → one handler has seen every add (${RUNS} runs; ${machineLoad()})`,
  ['implementation', 'time median (min–max)', 'vs bare', 'heap/object', 'vs bare'],
  rows,
);
await server.close();
