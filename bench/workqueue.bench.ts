// Work queue throughput: add/get/done cycles against a raw array+Set lower bound, and
// addAfter on the waiting heap at 10k, 100k and 1M items (O(log n) per operation).
import { performance } from 'node:perf_hooks';
import { DelayingQueue, LowPriority, PriorityQueue, Queue } from '../src/workqueue/index.js';
import { FakeClock } from '../src/util/clock.js';
import { fmt, heapUsedAfterGc, machineLoad, printTable, repeat, summarize } from './lib/report.js';
import type { Summary } from './lib/report.js';

const KEYS = 10_000;
const ROUNDS = 20;
const RUNS = 7;
/**
 * Seconds of CPU time this process used since `start` (user + system). The machine these
 * run on is shared, so CPU time is a steadier measure than wall time for single-threaded
 * loops; both are printed.
 */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6;
}

const wall: number[][] = [[], [], [], []];
function rate(impl: number, t0: number, c0: NodeJS.CpuUsage): number {
  wall[impl]!.push((ROUNDS * KEYS) / ((performance.now() - t0) / 1000));
  return (ROUNDS * KEYS) / cpuSeconds(c0);
}

const keys = Array.from({ length: KEYS }, (_, i) => `default/pod-${i}`);

/** The least any deduplicating FIFO can do: an array with a head index plus a Set. */
function rawCycles(): number {
  let items: string[] = [];
  let head = 0;
  const dirty = new Set<string>();
  const processing = new Set<string>();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of keys) {
      if (dirty.has(k)) continue;
      dirty.add(k);
      if (!processing.has(k)) items.push(k);
    }
    while (head < items.length) {
      const k = items[head++]!;
      dirty.delete(k);
      processing.add(k);
      processing.delete(k);
    }
    items = [];
    head = 0;
  }
  return rate(0, t0, c0);
}

/** Same loop, with an `await` per item as a worker has. */
async function rawAwaitCycles(): Promise<number> {
  let items: string[] = [];
  let head = 0;
  const dirty = new Set<string>();
  const processing = new Set<string>();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of keys) {
      if (dirty.has(k)) continue;
      dirty.add(k);
      if (!processing.has(k)) items.push(k);
    }
    while (head < items.length) {
      const k = await Promise.resolve(items[head++]!);
      dirty.delete(k);
      processing.add(k);
      processing.delete(k);
    }
    items = [];
    head = 0;
  }
  return rate(1, t0, c0);
}

async function queueCycles(): Promise<number> {
  const q = new Queue<string>();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of keys) q.add(k);
    for (let i = 0; i < KEYS; i++) {
      const got = await q.get();
      if (got.shutdown) throw new Error('unexpected shutdown');
      q.done(got.item);
    }
  }
  const r = rate(2, t0, c0);
  q.shutDown();
  return r;
}

async function forAwaitCycles(): Promise<number> {
  const q = new Queue<string>();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of keys) q.add(k);
    let n = 0;
    for await (const _item of q) {
      if (++n === KEYS) break;
    }
  }
  const r = rate(3, t0, c0);
  q.shutDown();
  return r;
}

const M = (s: Summary): Summary => ({
  ...s,
  median: s.median / 1e6,
  min: s.min / 1e6,
  max: s.max / 1e6,
});

// Interleave the implementations run by run, so a change in machine load hits all alike.
const impls = [rawCycles, rawAwaitCycles, queueCycles, forAwaitCycles];
const samples: number[][] = impls.map(() => []);
for (const f of impls) await f(); // warm-up
for (const w of wall) w.length = 0;
for (let run = 0; run < RUNS; run++) {
  for (let i = 0; i < impls.length; i++) samples[i]!.push(await impls[i]!());
}
const [raw, rawAwait, queue, forAwait] = samples.map((s) => summarize(s)) as [
  Summary,
  Summary,
  Summary,
  Summary,
];
printTable(
  `Queue: add/get/done cycles, 1 worker, ${KEYS} distinct keys × ${ROUNDS} rounds (median of ${RUNS} interleaved runs (min–max)) — ${machineLoad()}`,
  [
    'implementation',
    'M cycles/s (CPU time)',
    'M cycles/s (wall)',
    'vs raw (sync)',
    'vs raw + await',
  ],
  [
    ['raw array+Set, no await (lower bound)', fmt(M(raw)), fmt(M(summarize(wall[0]!))), '1.00', ''],
    [
      'raw array+Set, one await per item',
      fmt(M(rawAwait)),
      fmt(M(summarize(wall[1]!))),
      (rawAwait.median / raw.median).toFixed(2),
      '1.00',
    ],
    [
      'Queue get()/done()',
      fmt(M(queue)),
      fmt(M(summarize(wall[2]!))),
      (queue.median / raw.median).toFixed(2),
      (queue.median / rawAwait.median).toFixed(2),
    ],
    [
      'Queue for await',
      fmt(M(forAwait)),
      fmt(M(summarize(wall[3]!))),
      (forAwait.median / raw.median).toFixed(2),
      (forAwait.median / rawAwait.median).toFixed(2),
    ],
  ],
);

// addAfter with random delays on a fake clock: heap push (and timer re-arms when a new
// earliest item arrives), then firing every item (heap pop + add).
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function addAfterRun(n: number, phase: 'push' | 'fire'): number {
  const clock = new FakeClock(0);
  const q = new DelayingQueue<number>({ clock });
  const rand = rng(n);
  const c0 = process.cpuUsage();
  const t0 = 0;
  for (let i = 0; i < n; i++) q.addAfter(i, 1 + Math.floor(rand() * 1_000_000));
  const t1 = cpuSeconds(c0) * 1000;
  clock.advanceSync(1_000_001);
  const t2 = cpuSeconds(c0) * 1000;
  if (q.len() !== n) throw new Error(`expected ${n} ready items, got ${q.len()}`);
  q.shutDown();
  return ((phase === 'push' ? t1 - t0 : t2 - t1) * 1e6) / n;
}

const rows: string[][] = [];
let base: number | undefined;
for (const n of [10_000, 100_000, 1_000_000]) {
  const runs = n >= 1_000_000 ? 5 : RUNS;
  const push = await repeat(runs, () => addAfterRun(n, 'push'));
  const fire = await repeat(runs, () => addAfterRun(n, 'fire'));
  base ??= push.median;
  rows.push([
    n.toLocaleString('en-US'),
    fmt(push, 0, ' ns'),
    fmt(fire, 0, ' ns'),
    (push.median / base).toFixed(2),
    (Math.log2(n) / Math.log2(10_000)).toFixed(2),
  ]);
}
printTable(
  'DelayingQueue.addAfter with random delays, fake clock (CPU ns per item, median (min–max))',
  ['items waiting', 'addAfter', 'fire → add', 'addAfter vs 10k', 'log2 n vs 10k'],
  rows,
);

// The queue at 1M distinct keys (a controller over a 1M-object cache after a resync or a
// restart): heap per queued key (the key strings exist beforehand, as they do in the
// informer's cache, so this is the queue's own cost), add rate, and the rate at which one
// worker drains it with get()/done(), against the raw array+Set lower bound; the
// controller's PriorityQueue in the same runs, all keys at priority 0 and with half of them
// at LowPriority (an initial list's share). BENCH_QUEUE_KEYS lowers the size on a loaded
// machine.
const BIG = Number(process.env.BENCH_QUEUE_KEYS ?? 1_000_000);
const bigKeys = Array.from({ length: BIG }, (_, i) => `ns-${i % 1000}/pod-${i}`);

type BigImpl = 'raw' | 'queue' | 'priority' | 'priority-half-low';

async function bigRun(impl: BigImpl): Promise<{ heap: number; add: number; drain: number }> {
  const before = heapUsedAfterGc();
  let c0 = process.cpuUsage();
  if (impl === 'raw') {
    const items: string[] = [];
    const dirty = new Set<string>();
    for (const k of bigKeys) {
      if (dirty.has(k)) continue;
      dirty.add(k);
      items.push(k);
    }
    const add = BIG / cpuSeconds(c0);
    const heap = (heapUsedAfterGc() - before) / BIG;
    c0 = process.cpuUsage();
    const processing = new Set<string>();
    for (let head = 0; head < items.length; head++) {
      const k = await Promise.resolve(items[head]!);
      dirty.delete(k);
      processing.add(k);
      processing.delete(k);
    }
    return { heap, add, drain: BIG / cpuSeconds(c0) };
  }
  if (impl !== 'queue') {
    const pq = new PriorityQueue<string>();
    if (impl === 'priority') for (const k of bigKeys) pq.add(k);
    else
      for (let i = 0; i < BIG; i++)
        pq.add(bigKeys[i]!, { priority: i % 2 === 0 ? LowPriority : 0 });
    const add = BIG / cpuSeconds(c0);
    const heap = (heapUsedAfterGc() - before) / BIG;
    c0 = process.cpuUsage();
    for (let i = 0; i < BIG; i++) {
      const got = await pq.get();
      if (got.shutdown) throw new Error('queue shut down early');
      pq.done(got.item);
    }
    const drain = BIG / cpuSeconds(c0);
    pq.shutDown();
    return { heap, add, drain };
  }
  const q = new Queue<string>();
  for (const k of bigKeys) q.add(k);
  const add = BIG / cpuSeconds(c0);
  const heap = (heapUsedAfterGc() - before) / BIG;
  c0 = process.cpuUsage();
  for (let i = 0; i < BIG; i++) {
    const got = await q.get();
    if (got.shutdown) throw new Error('queue shut down early');
    q.done(got.item);
  }
  const drain = BIG / cpuSeconds(c0);
  q.shutDown();
  return { heap, add, drain };
}

const big: Record<BigImpl, { heap: number[]; add: number[]; drain: number[] }> = {
  raw: { heap: [], add: [], drain: [] },
  queue: { heap: [], add: [], drain: [] },
  priority: { heap: [], add: [], drain: [] },
  'priority-half-low': { heap: [], add: [], drain: [] },
};
const bigRuns = Number(process.env.BENCH_QUEUE_RUNS ?? 3);
for (let run = 0; run < bigRuns; run++) {
  for (const impl of ['raw', 'queue', 'priority', 'priority-half-low'] as const) {
    const r = await bigRun(impl);
    big[impl].heap.push(r.heap);
    big[impl].add.push(r.add / 1e6);
    big[impl].drain.push(r.drain / 1e6);
  }
}
const bigRow = (name: string, impl: BigImpl): string[] => {
  const b = big[impl];
  const ratio = (xs: number[], ys: number[]): string =>
    `${(summarize(xs).median / summarize(ys).median).toFixed(2)}×`;
  return [
    name,
    fmt(summarize(b.heap), 0, ' B'),
    ratio(b.heap, big.raw.heap),
    fmt(summarize(b.add), 2),
    fmt(summarize(b.drain), 2),
    ratio(b.drain, big.raw.drain),
  ];
};
printTable(
  `Queue at ${BIG.toLocaleString('en-US')} distinct keys, 1 worker (median of ${bigRuns} interleaved runs (min–max), CPU time) — ${machineLoad()}`,
  ['implementation', 'heap / queued key', 'vs raw', 'M adds/s', 'M get+done/s', 'vs raw'],
  [
    bigRow('raw array+Set, one await per item (lower bound)', 'raw'),
    bigRow('Queue add, then get()/done()', 'queue'),
    bigRow('PriorityQueue add (priority 0), then get()/done()', 'priority'),
    bigRow('PriorityQueue, half the keys at LowPriority', 'priority-half-low'),
  ],
);
