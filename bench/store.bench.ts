// The informer cache (Indexer): add, update, delete and byIndex at 100k objects with 3
// indexes, against the raw lower bound (a plain Map keyed namespace/name) in the same run;
// and byIndex cost against store size (a value holding 10 objects in 10k and 100k stores).
import { performance } from 'node:perf_hooks';
import { Indexer, metaNamespaceIndexFunc, type IndexFunc } from '../src/cache/indexer.js';
import { fmt, machineLoad, printTable, repeat, type Summary } from './lib/report.js';

interface Pod {
  metadata: {
    namespace: string;
    name: string;
    resourceVersion: string;
    labels: Record<string, string>;
  };
  spec: { nodeName: string };
}

const N = 100_000;
const RUNS = 7;

function makePods(n: number, rv: string, nodeShift = 0): Pod[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: {
      namespace: `ns-${i % 100}`,
      name: `pod-${i}`,
      resourceVersion: rv,
      labels: { app: i < 10 ? 'needle' : `app-${i % 1000}` },
    },
    spec: { nodeName: `node-${(i + nodeShift) % 500}` },
  }));
}

const byNode: IndexFunc<Pod> = (p) => [p.spec.nodeName];
const byApp: IndexFunc<Pod> = (p) => [p.metadata.labels['app'] ?? ''];
const one = { namespace: metaNamespaceIndexFunc };
const three = { namespace: metaNamespaceIndexFunc, node: byNode, app: byApp };

const pods = makePods(N, '1');
const podsV2 = makePods(N, '2'); // same keys and index values, new objects (a typical update)
const podsMoved = makePods(N, '3', 1); // every pod moves to another node (one index value changes)

const opsPerSec = (ops: number, t0: number): number => ops / ((performance.now() - t0) / 1000);

function rawAdd(): number {
  const m = new Map<string, Pod>();
  const t0 = performance.now();
  for (const p of pods) m.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
  return opsPerSec(N, t0);
}

function rawUpdate(): number {
  const m = new Map<string, Pod>();
  for (const p of pods) m.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
  const t0 = performance.now();
  for (const p of podsV2) m.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
  return opsPerSec(N, t0);
}

function rawDelete(): number {
  const m = new Map<string, Pod>();
  for (const p of pods) m.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
  const t0 = performance.now();
  for (const p of pods) m.delete(`${p.metadata.namespace}/${p.metadata.name}`);
  return opsPerSec(N, t0);
}

function filled(indexers: Record<string, IndexFunc<Pod>>, list: Pod[] = pods): Indexer<Pod> {
  const ix = new Indexer<Pod>({ indexers });
  for (const p of list) ix.add(p);
  return ix;
}

function add(indexers: Record<string, IndexFunc<Pod>>): () => number {
  return () => {
    const ix = new Indexer<Pod>({ indexers });
    const t0 = performance.now();
    for (const p of pods) ix.add(p);
    return opsPerSec(N, t0);
  };
}

function update(indexers: Record<string, IndexFunc<Pod>>, next: Pod[]): () => number {
  return () => {
    const ix = filled(indexers);
    const t0 = performance.now();
    for (const p of next) ix.update(p);
    return opsPerSec(N, t0);
  };
}

function del(indexers: Record<string, IndexFunc<Pod>>): () => number {
  return () => {
    const ix = filled(indexers);
    const t0 = performance.now();
    for (const p of pods) ix.delete(p);
    return opsPerSec(N, t0);
  };
}

function replace(indexers: Record<string, IndexFunc<Pod>>): () => number {
  return () => {
    const ix = new Indexer<Pod>({ indexers });
    const t0 = performance.now();
    ix.replace(pods, '1');
    return opsPerSec(N, t0);
  };
}

const QUERIES = 200_000;

/** Nanoseconds per byIndex call for `value` in a store of `size` pods with 3 indexes. */
function byIndexNs(size: number, index: string, value: string): () => number {
  const ix = filled(three, pods.slice(0, size));
  return () => {
    let sink = 0;
    const t0 = performance.now();
    for (let i = 0; i < QUERIES; i++) sink += ix.byIndex(index, value).length;
    const ns = ((performance.now() - t0) * 1e6) / QUERIES;
    if (sink === 0) throw new Error(`no results for ${index}=${value}`);
    return ns;
  };
}

const k = (s: Summary): string =>
  fmt({ ...s, median: s.median / 1e3, min: s.min / 1e3, max: s.max / 1e3 }, 0);

const rows: string[][] = [];
const raw = {
  add: await repeat(RUNS, rawAdd),
  update: await repeat(RUNS, rawUpdate),
  del: await repeat(RUNS, rawDelete),
};
const ratio = (s: Summary, base: Summary): string =>
  `${(base.median / s.median).toFixed(2)}× slower`;

rows.push(['raw Map.set (lower bound)', 'add', k(raw.add), '1.00×']);
for (const [label, idx] of [
  ['1 index', one],
  ['3 indexes', three],
] as const) {
  const a = await repeat(RUNS, add(idx));
  rows.push([`Indexer, ${label}`, 'add', k(a), ratio(a, raw.add)]);
}
rows.push(['raw Map.set (lower bound)', 'update', k(raw.update), '1.00×']);
for (const [label, idx] of [
  ['1 index', one],
  ['3 indexes', three],
] as const) {
  const u = await repeat(RUNS, update(idx, podsV2));
  rows.push([`Indexer, ${label}`, 'update (values same)', k(u), ratio(u, raw.update)]);
}
const moved = await repeat(RUNS, update(three, podsMoved));
rows.push(['Indexer, 3 indexes', 'update (1 value moves)', k(moved), ratio(moved, raw.update)]);
rows.push(['raw Map.delete (lower bound)', 'delete', k(raw.del), '1.00×']);
for (const [label, idx] of [
  ['1 index', one],
  ['3 indexes', three],
] as const) {
  const d = await repeat(RUNS, del(idx));
  rows.push([`Indexer, ${label}`, 'delete', k(d), ratio(d, raw.del)]);
}
const rp = await repeat(RUNS, replace(three));
rows.push(['Indexer, 3 indexes', 'replace (100k list)', k(rp), ratio(rp, raw.add)]);

printTable(
  `Indexer at ${N / 1000}k objects: thousands of ops/s, median of ${RUNS} (min–max) — ${machineLoad()}`,
  ['store', 'operation', 'k ops/s', 'vs raw Map'],
  rows,
);

const q: string[][] = [];
for (const [size, index, value, result] of [
  [10_000, 'app', 'needle', 10],
  [100_000, 'app', 'needle', 10],
  [10_000, 'node', 'node-7', 20],
  [100_000, 'node', 'node-7', 200],
  [100_000, 'namespace', 'ns-7', 1000],
] as const) {
  const s = await repeat(RUNS, byIndexNs(size, index, value));
  q.push([
    `${size / 1000}k`,
    `${index}=${value}`,
    String(result),
    fmt(s, 0),
    (s.median / result).toFixed(1),
  ]);
}
printTable(
  `byIndex cost follows the result size, not the store size (ns per call, median of ${RUNS}, min–max)`,
  ['store size', 'query', 'results', 'ns/call', 'ns per result'],
  q,
);
