// The priority queue against today's FIFO rate-limiting queue, in the same run:
// 1. throughput: add N distinct keys (half of them at LowPriority, as an initial list
//    would), then get/done every one, one worker (CPU time; medians of interleaved runs);
// 2. how long a real update waits behind an initial list of L keys: the list is queued
//    (LowPriority in the priority queue, plain adds in the FIFO), one worker reconciles
//    with an `await` per key, and the update arrives just after the list.
// Sizes: BENCH_PQ_N (default 1_000_000), BENCH_PQ_LIST (default 50_000), BENCH_PQ_RUNS (5).
import { performance } from 'node:perf_hooks';
import { LowPriority, PriorityQueue, RateLimitingQueue } from '../src/workqueue/index.js';
import { fmt, machineLoad, printTable, summarize } from './lib/report.js';

const N = Number(process.env.BENCH_PQ_N ?? 1_000_000);
const LIST = Number(process.env.BENCH_PQ_LIST ?? 50_000);
const RUNS = Number(process.env.BENCH_PQ_RUNS ?? 5);

const keys = Array.from({ length: N }, (_, i) => `default/obj-${i}`);

function cpuSeconds(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6;
}

/** Items per CPU second for one add-all / get-done-all pass. */
async function throughput(kind: 'fifo' | 'priority'): Promise<number> {
  const c0 = process.cpuUsage();
  if (kind === 'fifo') {
    const q = new RateLimitingQueue<string>();
    for (const k of keys) q.add(k);
    for (let i = 0; i < N; i++) {
      const r = await q.get();
      if (r.shutdown) throw new Error('unexpected shutdown');
      q.done(r.item);
    }
    q.shutDown();
  } else {
    const q = new PriorityQueue<string>();
    for (let i = 0; i < N; i++) q.add(keys[i]!, { priority: i % 2 === 0 ? LowPriority : 0 });
    for (let i = 0; i < N; i++) {
      const r = await q.get();
      if (r.shutdown) throw new Error('unexpected shutdown');
      q.done(r.item);
    }
    q.shutDown();
  }
  return N / cpuSeconds(c0);
}

/** Keys reconciled before the update, and the wall time the update waited (ms). */
async function waitBehindList(kind: 'fifo' | 'priority'): Promise<[number, number]> {
  const q = kind === 'fifo' ? new RateLimitingQueue<string>() : new PriorityQueue<string>();
  for (let i = 0; i < LIST; i++) {
    if (q instanceof PriorityQueue) q.add(keys[i]!, { priority: LowPriority });
    else q.add(keys[i]!);
  }
  const update = 'default/the-real-change';
  const t0 = performance.now();
  q.add(update);
  let ahead = 0;
  for (;;) {
    const r = await q.get();
    if (r.shutdown) throw new Error('unexpected shutdown');
    await Promise.resolve(); // a trivial reconcile
    q.done(r.item);
    if (r.item === update) break;
    ahead++;
  }
  const waited = performance.now() - t0;
  q.shutDown();
  return [ahead, waited];
}

const fifo: number[] = [];
const prio: number[] = [];
await throughput('fifo'); // warm-up
await throughput('priority');
for (let run = 0; run < RUNS; run++) {
  fifo.push(await throughput('fifo'));
  prio.push(await throughput('priority'));
}
const f = summarize(fifo);
const p = summarize(prio);
const M = (s: ReturnType<typeof summarize>): ReturnType<typeof summarize> => ({
  ...s,
  median: s.median / 1e6,
  min: s.min / 1e6,
  max: s.max / 1e6,
});
printTable(
  `Priority queue vs FIFO queue: ${N.toLocaleString('en')} distinct keys added then get/done, 1 worker (median of ${RUNS} interleaved runs (min–max), CPU time) — ${machineLoad()}`,
  ['queue', 'M items/s', 'FIFO / this (time ratio)'],
  [
    ['RateLimitingQueue (FIFO, today)', fmt(M(f)), '1.00'],
    ['PriorityQueue (half LowPriority)', fmt(M(p)), (f.median / p.median).toFixed(2)],
  ],
);

const waits: Record<'fifo' | 'priority', { ahead: number[]; ms: number[] }> = {
  fifo: { ahead: [], ms: [] },
  priority: { ahead: [], ms: [] },
};
for (let run = 0; run < RUNS; run++) {
  for (const kind of ['fifo', 'priority'] as const) {
    const [ahead, ms] = await waitBehindList(kind);
    waits[kind].ahead.push(ahead);
    waits[kind].ms.push(ms);
  }
}
const fw = summarize(waits.fifo.ms);
const pw = summarize(waits.priority.ms);
printTable(
  `A real update behind an initial list of ${LIST.toLocaleString('en')} keys, 1 worker, one await per key (median of ${RUNS} runs (min–max), wall ms)`,
  ['queue', 'keys reconciled before the update', 'update waited (ms)', 'FIFO / this'],
  [
    ['RateLimitingQueue (FIFO)', String(summarize(waits.fifo.ahead).median), fmt(fw, 3), '1'],
    [
      'PriorityQueue (list at LowPriority)',
      String(summarize(waits.priority.ahead).median),
      fmt(pw, 3),
      (fw.median / pw.median).toFixed(0),
    ],
  ],
);
