// Controller overhead: events → keys → rate-limited queue → workers → reconcile.
//
// A burst of update events (EVENTS over KEYS distinct objects, 4 workers, a no-op async
// reconcile) is pushed through three paths, in the same run:
// - lower bound: compute each key (metaNamespaceKeyFunc), dedupe in a Set, then await the
//   reconcile of every distinct key in one loop;
// - raw work queue: RateLimitingQueue + runWorkers, the loop users write by hand;
// - Controller: for(informer) handler → queue → 4 workers → reconcile, result handling
//   (forget) included.
// Two feeds: one synchronous burst (repeated keys collapse), and chunks of 1000 events
// with a yield between (workers keep up, so most events cost a reconcile).
// Reported: wall time until every key was reconciled, events per second, reconciles run
// (dedupe means fewer reconciles than events), and the ratio to the lower bound.
//
// Usage: node --expose-gc --import tsx bench/controller.bench.ts   (or: npm run bench -- controller)
import type { ResourceEventHandler } from '../src/cache/processor.js';
import { metaNamespaceKeyFunc } from '../src/cache/keys.js';
import type { KubeObject } from '../src/client/types.js';
import { Controller } from '../src/controller/index.js';
import type { ControllerInformer } from '../src/controller/index.js';
import { noopLogger } from '../src/util/logger.js';
import { RateLimitingQueue } from '../src/workqueue/rate_limiting_queue.js';
import { runWorkers } from '../src/workqueue/workers.js';
import { fmt, printTable, repeat } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const KEYS = Number(process.env.BENCH_KEYS ?? 10_000);
const WORKERS = 4;

const objects: KubeObject[] = Array.from({ length: KEYS }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: `cm-${i}`,
    namespace: `ns-${i % 50}`,
    resourceVersion: String(i),
    generation: 1,
  },
}));

class BenchInformer implements ControllerInformer<KubeObject> {
  handler: ResourceEventHandler<KubeObject> | undefined;
  addEventHandler(h: ResourceEventHandler<KubeObject>) {
    this.handler = h;
    return { hasSynced: () => true };
  }
}

/** Feeds events in chunks, yielding between chunks as an informer's delivery loop does. */
let chunk = EVENTS;
async function feed(emit: (o: KubeObject) => void): Promise<void> {
  for (let i = 0; i < EVENTS; i++) {
    emit(objects[i % KEYS]!);
    if (i % chunk === chunk - 1) await new Promise<void>((r) => setImmediate(r));
  }
}

let reconciles = 0;
const reconcile = async (): Promise<void> => {
  reconciles++;
};

async function lowerBound(): Promise<number> {
  reconciles = 0;
  const t0 = performance.now();
  const dirty = new Set<string>();
  await feed((o) => dirty.add(metaNamespaceKeyFunc(o)));
  for (const k of dirty) {
    void k;
    await reconcile();
  }
  return performance.now() - t0;
}

async function rawQueue(): Promise<number> {
  reconciles = 0;
  const queue = new RateLimitingQueue<string>();
  const stop = new AbortController();
  const t0 = performance.now();
  const workers = runWorkers(
    queue,
    WORKERS,
    async (key) => {
      await reconcile();
      queue.forget(key);
    },
    stop.signal,
  );
  await feed((o) => queue.add(metaNamespaceKeyFunc(o)));
  await queue.shutDownWithDrain();
  await workers;
  return performance.now() - t0;
}

async function controller(usePriorityQueue = true): Promise<number> {
  reconciles = 0;
  const informer = new BenchInformer();
  const c = new Controller({
    name: 'bench',
    workers: WORKERS,
    logger: noopLogger,
    reconcile,
    usePriorityQueue,
  }).for(informer);
  const stop = new AbortController();
  const t0 = performance.now();
  const running = c.run(stop.signal);
  await feed((o) => void informer.handler!.onUpdate!(o, o === objects[0] ? o : { ...o }));
  stop.abort(); // drain: every queued key is reconciled before run() resolves
  await running;
  return performance.now() - t0;
}

for (const [label, size] of [
  ['one burst (keys collapse in the queue)', EVENTS],
  ['chunks of 1000 with a yield between (workers keep up)', 1000],
] as const) {
  chunk = size;
  const rows: string[][] = [];
  const results: [string, () => Promise<number>][] = [
    ['lower bound (Set dedupe + loop)', lowerBound],
    ['raw RateLimitingQueue + runWorkers', rawQueue],
    ['Controller.for → reconcile (priority queue, the default)', () => controller(true)],
    ['Controller.for → reconcile, usePriorityQueue: false', () => controller(false)],
  ];
  let base = 0;
  for (const [name, fn] of results) {
    let ran = 0;
    const s = await repeat(RUNS, async () => {
      const ms = await fn();
      ran = reconciles;
      return ms;
    });
    if (base === 0) base = s.median;
    rows.push([
      name,
      fmt(s, 1, ' ms'),
      `${Math.round(EVENTS / (s.median / 1000)).toLocaleString('en-US')}`,
      String(ran),
      `${(s.median / base).toFixed(2)}×`,
    ]);
  }
  printTable(
    `Controller, ${label}: ${EVENTS.toLocaleString('en-US')} update events over ${KEYS.toLocaleString('en-US')} keys, ${WORKERS} workers, no-op reconcile (median of ${RUNS}, min–max)`,
    ['path', 'time', 'events/s', 'reconciles', 'vs lower bound'],
    rows,
  );
}
