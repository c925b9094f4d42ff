import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LowPriority,
  MAX_PRIORITY_LABELS,
  PRIORITY_CARDINALITY_EXCEEDED,
  PriorityQueue,
  ItemExponentialFailureRateLimiter,
  runWorkers,
} from '../../src/workqueue/index.js';
import type { MetricsProvider } from '../../src/workqueue/index.js';
import { FakeClock } from '../../src/util/clock.js';

async function drain<T>(q: PriorityQueue<T>): Promise<[T, number][]> {
  const out: [T, number][] = [];
  while (q.len() > 0) {
    const r = await q.get();
    if (r.shutdown) break;
    out.push([r.item, r.priority]);
    q.done(r.item);
  }
  return out;
}

describe('PriorityQueue', () => {
  test('LowPriority is controller-runtime handler.LowPriority (-100)', () => {
    assert.equal(LowPriority, -100);
  });

  test('ready items come out highest priority first, first-in first-out within a priority', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    q.add('low-1', { priority: LowPriority });
    q.add('a');
    q.add('low-2', { priority: LowPriority });
    q.add('high', { priority: 10 });
    q.add('b');
    assert.deepEqual(await drain(q), [
      ['high', 10],
      ['a', 0],
      ['b', 0],
      ['low-1', LowPriority],
      ['low-2', LowPriority],
    ]);
    q.shutDown();
  });

  test('a duplicate keeps the highest priority and queues at the end of that priority', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    q.add('x', { priority: LowPriority });
    q.add('a');
    q.add('y', { priority: LowPriority });
    q.add('x'); // raised to 0: behind 'a', ahead of the low ones
    q.add('a', { priority: LowPriority }); // lower: ignored
    assert.equal(q.len(), 3, 'one entry per item');
    assert.deepEqual(await drain(q), [
      ['a', 0],
      ['x', 0],
      ['y', LowPriority],
    ]);
    q.shutDown();
  });

  test('a ready item stays ready whatever delay a later add asks for', async () => {
    const clock = new FakeClock(0);
    const q = new PriorityQueue<string>({ clock });
    q.add('a');
    q.add('a', { after: 1000 });
    q.add('a', { rateLimited: true });
    assert.equal(q.len(), 1);
    assert.equal(q.waitingLen(), 0);
    q.shutDown();
  });

  test('a waiting item takes the earliest time, and a plain add makes it ready at once', async () => {
    const clock = new FakeClock(0);
    const q = new PriorityQueue<string>({ clock });
    q.add('a', { after: 500 });
    q.add('a', { after: 100 });
    q.add('a', { after: 900 });
    assert.equal(q.waitingLen(), 1);
    await clock.advance(99);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1, 'ready at the earliest time asked for');
    q.add('b', { after: 100 });
    q.add('b', { priority: 3 });
    assert.equal(q.waitingLen(), 0);
    assert.equal(clock.pendingTimers() <= 1, true);
    assert.deepEqual(await drain(q), [
      ['b', 3],
      ['a', 0],
    ]);
    q.shutDown();
    assert.equal(clock.pendingTimers(), 0, 'no timer outlives shutdown');
  });

  test('a waiting item keeps the highest priority it was asked for and queues by readiness time', async () => {
    const clock = new FakeClock(0);
    const q = new PriorityQueue<string>({ clock });
    q.add('late', { after: 10, priority: 1 });
    q.add('late', { after: 10, priority: 5 });
    q.add('early', { priority: 5 });
    await clock.advance(10);
    assert.deepEqual(await drain(q), [
      ['early', 5],
      ['late', 5],
    ]);
    q.shutDown();
  });

  test('rateLimited uses the rate limiter, and the shorter of it and after', async () => {
    const clock = new FakeClock(0);
    const rateLimiter = new ItemExponentialFailureRateLimiter(100, 10_000);
    const q = new PriorityQueue<string>({ clock, rateLimiter });
    q.add('a', { rateLimited: true }); // 100 ms
    q.add('b', { rateLimited: true, after: 50 }); // min(50, 100)
    q.add('c', { rateLimited: true, after: 5000 }); // min(5000, 100)
    assert.equal(q.numRequeues('a'), 1);
    await clock.advance(50);
    assert.deepEqual(await drain(q), [['b', 0]]);
    await clock.advance(50);
    assert.deepEqual(await drain(q), [
      ['a', 0],
      ['c', 0],
    ]);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
    q.shutDown();
  });

  test('never two workers on one item: an add while processing is held until done, at the highest priority', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    q.add('a', { priority: LowPriority });
    const first = await q.get();
    assert.equal(first.item, 'a');
    q.add('a', { priority: LowPriority });
    q.add('a', { priority: 2 });
    assert.equal(q.len(), 0, 'not handed out while processing');
    assert.equal(q.processingPriority('a'), LowPriority);
    q.add('b');
    const second = await q.get();
    assert.equal(second.item, 'b');
    q.done('b');
    q.done('a');
    assert.equal(q.len(), 1);
    const third = await q.get();
    assert.ok(!third.shutdown);
    assert.deepEqual([third.item, third.priority], ['a', 2]);
    q.done('a');
    q.shutDown();
  });

  test('a delayed add of an item being processed becomes ready only after done', async () => {
    const clock = new FakeClock(0);
    const q = new PriorityQueue<string>({ clock });
    q.add('a');
    await q.get();
    q.add('a', { after: 10 });
    await clock.advance(10);
    assert.equal(q.len(), 0);
    q.done('a');
    assert.equal(q.len(), 1);
    q.shutDown();
  });

  test('a waiting get is handed the first item added', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    const pending = q.get();
    q.add('a', { priority: 7 });
    const r = await pending;
    assert.ok(!r.shutdown);
    assert.deepEqual([r.item, r.priority], ['a', 7]);
    q.done('a');
    q.shutDown();
  });

  test('shutDown drains the ready items, drops the waiting ones, and ignores later adds', async () => {
    const clock = new FakeClock(0);
    const q = new PriorityQueue<string>({ clock });
    q.add('a');
    q.add('w', { after: 100 });
    q.shutDown();
    q.add('late');
    assert.equal(q.waitingLen(), 0);
    assert.equal(clock.pendingTimers(), 0);
    const r = await q.get();
    assert.equal(r.item, 'a');
    q.done('a');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('shutDownWithDrain resolves once the items in flight are done (and their re-adds processed)', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    q.add('a');
    await q.get();
    q.add('a'); // dirty while processing
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    q.done('a');
    await Promise.resolve();
    assert.equal(drained, false, 'the re-added item is still to be processed');
    const again = await q.get();
    assert.equal(again.item, 'a');
    q.done('a');
    await p;
    assert.equal(drained, true);
  });

  test('an aborted get rejects and takes no item', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    const ac = new AbortController();
    const p = q.get(ac.signal);
    ac.abort(new Error('stop'));
    await assert.rejects(p, /stop/);
    q.add('a');
    assert.equal(q.len(), 1);
    q.shutDown();
  });

  test('runWorkers runs over a priority queue (the WorkQueue contract)', async () => {
    const q = new PriorityQueue<string>({ clock: new FakeClock(0) });
    q.add('b', { priority: LowPriority });
    q.add('a');
    const seen: string[] = [];
    const ac = new AbortController();
    const run = runWorkers(
      q,
      1,
      (item) => {
        seen.push(item);
        if (seen.length === 2) q.shutDown();
      },
      ac.signal,
    );
    await run;
    assert.deepEqual(seen, ['a', 'b']);
  });

  test('metrics: workqueue_depth by priority, adds when ready, retries for delayed adds', async () => {
    const clock = new FakeClock(0);
    const depth = new Map<string, number>();
    let adds = 0;
    let retries = 0;
    let plainDepth = 0;
    const provider: MetricsProvider = {
      newDepthMetric: () => ({ inc: () => plainDepth++, dec: () => plainDepth-- }),
      newAddsMetric: () => ({ inc: () => adds++ }),
      newLatencyMetric: () => ({ observe: () => {} }),
      newWorkDurationMetric: () => ({ observe: () => {} }),
      newUnfinishedWorkSecondsMetric: () => ({ set: () => {} }),
      newLongestRunningProcessorSecondsMetric: () => ({ set: () => {} }),
      newRetriesMetric: () => ({ inc: () => retries++ }),
      newDepthWithPriorityMetric: (name, priority) => {
        assert.equal(name, 'pq');
        return {
          inc: () => depth.set(priority, (depth.get(priority) ?? 0) + 1),
          dec: () => depth.set(priority, (depth.get(priority) ?? 0) - 1),
        };
      },
    };
    const q = new PriorityQueue<string>({ name: 'pq', clock, metricsProvider: provider });
    q.add('a', { priority: LowPriority });
    q.add('b', { priority: LowPriority });
    q.add('b'); // raised: moves from -100 to 0
    q.add('c', { after: 10 });
    assert.deepEqual(Object.fromEntries(depth), { '-100': 1, '0': 1 });
    assert.equal(adds, 2, 'the waiting item is not counted yet');
    assert.equal(retries, 1);
    await clock.advance(10);
    assert.equal(adds, 3);
    assert.deepEqual(Object.fromEntries(depth), { '-100': 1, '0': 2 });
    await drain(q);
    assert.deepEqual(Object.fromEntries(depth), { '-100': 0, '0': 0 });
    assert.equal(plainDepth, 0, 'the plain depth is not used when the provider has priorities');
    for (let p = 1; p <= MAX_PRIORITY_LABELS + 3; p++) q.add(`k${p}`, { priority: p });
    // -100 and 0 are known already; 1..23 make 25 labels; 24..28 fold into one.
    assert.equal(depth.size, MAX_PRIORITY_LABELS + 1);
    assert.equal(depth.get(PRIORITY_CARDINALITY_EXCEEDED), 5, 'labels beyond 25 priorities fold');
    q.shutDown();
  });

  test('1000 random adds (priorities, delays) come out in priority order with no item twice', async () => {
    const clock = new FakeClock(0);
    const q = new PriorityQueue<number>({ clock });
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const want = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const item = rnd(300);
      const priority = rnd(3) === 0 ? LowPriority : rnd(4);
      q.add(item, { priority });
      want.set(item, Math.max(want.get(item) ?? -Infinity, priority));
    }
    const out = await drain(q);
    assert.equal(out.length, want.size);
    for (const [item, priority] of out) assert.equal(priority, want.get(item));
    for (let i = 1; i < out.length; i++) assert.ok(out[i - 1]![1] >= out[i]![1]);
    q.shutDown();
  });
});
