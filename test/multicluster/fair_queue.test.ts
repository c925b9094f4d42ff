// The multicluster work queue: client-go's work queue contract (workqueue.Typed and
// TypedRateLimitingInterface), kept per item whatever its cluster, plus fairness across
// clusters (one lane per cluster, served in turn) and lanes that open and close as clusters
// are engaged and disengaged.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue } from '../../src/multicluster/index.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { ItemExponentialFailureRateLimiter } from '../../src/workqueue/index.js';
import type { MultiClusterMetricsProvider } from '../../src/multicluster/index.js';

const key = (cluster: string, name: string, namespace = 'default') =>
  `cluster://${cluster}/${namespace}/${name}`;

async function take(q: FairQueue): Promise<string> {
  const r = await q.get();
  if (r.shutdown) assert.fail('unexpected shutdown');
  return r.item;
}

function queue(clock = new FakeClock(), ...clusters: string[]): FairQueue {
  const q = new FairQueue({
    clock,
    newRateLimiter: () => new ItemExponentialFailureRateLimiter(10, 1000),
  });
  for (const c of clusters) q.addCluster(c);
  return q;
}

describe('FairQueue: the work queue contract (client-go workqueue.Typed), per item', () => {
  test('an item added again while queued is not queued twice (dirty items are deduplicated)', async () => {
    const q = queue(undefined, 'a');
    q.add(key('a', 'x'));
    q.add(key('a', 'y'));
    q.add(key('a', 'x'));
    assert.equal(q.len(), 2);
    assert.equal(await take(q), key('a', 'x'));
    assert.equal(await take(q), key('a', 'y'));
    assert.equal(q.len(), 0);
  });

  test('an item is never handed to two workers at once: added while processed, it comes back after done()', async () => {
    const q = queue(undefined, 'a');
    q.add(key('a', 'x'));
    assert.equal(await take(q), key('a', 'x'));
    q.add(key('a', 'x'));
    q.add(key('a', 'x'));
    assert.equal(q.len(), 0, 'not queued while processing');
    let second: string | undefined;
    const next = take(q).then((i) => (second = i));
    await flushAsync();
    assert.equal(second, undefined, 'a second worker must not get an item in processing');
    q.done(key('a', 'x'));
    await next;
    assert.equal(second, key('a', 'x'), 'the adds during processing collapse into one more run');
    q.done(key('a', 'x'));
    assert.equal(q.len(), 0);
  });

  test('the same name in two clusters is two items (the cluster is part of the identity)', async () => {
    const q = queue(undefined, 'a', 'b');
    q.add(key('a', 'x'));
    q.add(key('b', 'x'));
    assert.equal(q.len(), 2);
    const first = await take(q);
    const second = await take(q);
    assert.deepEqual(new Set([first, second]), new Set([key('a', 'x'), key('b', 'x')]));
  });

  test('addAfter adds after the delay on the clock; a waiting item keeps the earlier of two times', async () => {
    const clock = new FakeClock();
    const q = queue(clock, 'a');
    q.addAfter(key('a', 'x'), 1000);
    q.addAfter(key('a', 'x'), 5000);
    q.addAfter(key('a', 'y'), 300);
    assert.equal(q.waitingLen(), 2);
    assert.equal(q.len(), 0);
    await clock.advance(300);
    assert.equal(q.len(), 1);
    assert.equal(await take(q), key('a', 'y'));
    await clock.advance(699);
    assert.equal(q.len(), 0, 'not before its time');
    await clock.advance(1);
    assert.equal(await take(q), key('a', 'x'));
    assert.equal(q.waitingLen(), 0);
    assert.equal(clock.pendingTimers(), 0, 'no timer left once nothing waits');
  });

  test('rate limiting is per item and per cluster: addRateLimited backs off, forget resets, numRequeues counts', async () => {
    const clock = new FakeClock();
    const q = queue(clock, 'a', 'b');
    const x = key('a', 'x');
    q.addRateLimited(x);
    q.addRateLimited(x);
    q.addRateLimited(x);
    assert.equal(q.numRequeues(x), 3);
    assert.equal(q.numRequeues(key('b', 'x')), 0, 'another cluster has its own limiter');
    await clock.advance(10);
    assert.equal(q.len(), 1, 'the earliest of the backoffs (10 ms) wins');
    q.forget(x);
    assert.equal(q.numRequeues(x), 0);
  });

  test('get() waits for an item; a waiting worker is handed the next item directly', async () => {
    const q = queue(undefined, 'a');
    const got = take(q);
    await flushAsync();
    q.add(key('a', 'x'));
    assert.equal(await got, key('a', 'x'));
    assert.equal(q.processingLen(), 1);
  });

  test('shutDown: adds are ignored, queued items still drain, then get() reports shutdown', async () => {
    const q = queue(undefined, 'a');
    q.add(key('a', 'x'));
    q.shutDown();
    q.add(key('a', 'y'));
    assert.equal(q.len(), 1);
    assert.equal(await take(q), key('a', 'x'));
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('shutDownWithDrain resolves once nothing is being processed', async () => {
    const q = queue(undefined, 'a');
    q.add(key('a', 'x'));
    const item = await take(q);
    let drained = false;
    const done = q.shutDownWithDrain().then(() => (drained = true));
    await flushAsync();
    assert.equal(drained, false);
    q.done(item);
    await done;
    assert.equal(drained, true);
  });

  test('get() with an aborted signal rejects without taking an item', async () => {
    const q = queue(undefined, 'a');
    const ac = new AbortController();
    const waiting = q.get(ac.signal);
    ac.abort(new Error('stop'));
    await assert.rejects(waiting, /stop/);
    q.add(key('a', 'x'));
    assert.equal(await take(q), key('a', 'x'));
  });
});

describe('FairQueue: fair across clusters', () => {
  test('one busy cluster does not starve the rest: lanes are served in turn, one item each', async () => {
    const q = queue(undefined, 'busy', 'quiet-1', 'quiet-2');
    for (let i = 0; i < 1000; i++) q.add(key('busy', `obj-${i}`));
    q.add(key('quiet-1', 'one'));
    q.add(key('quiet-2', 'two'));
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const item = await take(q);
      order.push(item);
      q.done(item);
    }
    assert.deepEqual(order.slice(0, 3), [
      key('busy', 'obj-0'),
      key('quiet-1', 'one'),
      key('quiet-2', 'two'),
    ]);
    assert.deepEqual(order.slice(3), [
      key('busy', 'obj-1'),
      key('busy', 'obj-2'),
      key('busy', 'obj-3'),
    ]);
  });

  test('a request of a quiet cluster waits at most one item per busy lane, however deep they are', async () => {
    const q = queue(undefined, 'a', 'b', 'c', 'late');
    for (const c of ['a', 'b', 'c']) for (let i = 0; i < 500; i++) q.add(key(c, `o-${i}`));
    // Drain a few so the turn order is in the middle of the busy lanes.
    for (let i = 0; i < 7; i++) q.done(await take(q));
    q.add(key('late', 'urgent'));
    const before: string[] = [];
    for (;;) {
      const item = await take(q);
      q.done(item);
      if (item === key('late', 'urgent')) break;
      before.push(item);
    }
    assert.ok(
      before.length <= 3,
      `served after ${before.length} items (at most one per busy lane)`,
    );
  });

  test('within a cluster, first in first out', async () => {
    const q = queue(undefined, 'a');
    for (const n of ['x', 'y', 'z']) q.add(key('a', n));
    assert.deepEqual(
      [await take(q), await take(q), await take(q)],
      [key('a', 'x'), key('a', 'y'), key('a', 'z')],
    );
  });
});

describe('FairQueue: lanes follow engaged clusters', () => {
  test('an item of a cluster without a lane is dropped (a late requeue of a removed cluster)', () => {
    const q = queue(undefined, 'a');
    q.add(key('gone', 'x'));
    q.addAfter(key('gone', 'x'), 10);
    q.addRateLimited(key('gone', 'x'));
    assert.equal(q.len(), 0);
    assert.equal(q.waitingLen(), 0);
    assert.ok(q.dropped >= 3);
  });

  test('removing a lane drops its queued and waiting items and its rate limiter history, and cancels its timer', async () => {
    const clock = new FakeClock();
    const q = queue(clock, 'a', 'b');
    q.add(key('a', 'x'));
    q.add(key('a', 'y'));
    q.addAfter(key('a', 'z'), 1000);
    q.addRateLimited(key('a', 'w'));
    q.add(key('b', 'keep'));
    assert.equal(clock.pendingTimers(), 1);
    q.removeCluster('a');
    assert.equal(q.len(), 1);
    assert.equal(q.waitingLen(), 0);
    assert.equal(clock.pendingTimers(), 0, 'the delay timer went with the last waiting item');
    assert.equal(q.numRequeues(key('a', 'w')), 0);
    assert.deepEqual(q.clusters(), ['b']);
    assert.equal(await take(q), key('b', 'keep'));
    // Engaged again: a fresh lane with a fresh limiter, nothing of the old one.
    q.addCluster('a');
    assert.equal(q.clusterLen('a'), 0);
    q.add(key('a', 'x'));
    assert.equal(q.clusterLen('a'), 1, 'x was no longer dirty: it is queued again');
  });

  test('an item being processed when its lane is removed finishes and is not queued again; never twice at once across a re-engagement', async () => {
    const q = queue(undefined, 'a');
    q.add(key('a', 'x'));
    const item = await take(q);
    q.add(key('a', 'x')); // dirty while processing
    q.removeCluster('a');
    q.addCluster('a'); // engaged again with a new cluster object
    q.add(key('a', 'x'));
    assert.equal(q.len(), 0, 'still processing: not handed out to a second worker');
    q.done(item);
    assert.equal(q.len(), 1, 'queued once more after done, in the new lane');
    assert.equal(await take(q), key('a', 'x'));
  });

  test('a held lane collects items but hands out none until it is ready', async () => {
    const q = queue(undefined, 'a');
    q.addCluster('b', { ready: false });
    q.add(key('b', 'x'));
    q.add(key('b', 'x'));
    q.add(key('a', 'y'));
    assert.equal(q.len(), 2);
    assert.equal(await take(q), key('a', 'y'));
    let got: string | undefined;
    const waiting = take(q).then((i) => (got = i));
    await flushAsync();
    assert.equal(got, undefined, 'b is held');
    q.setClusterReady('b');
    await waiting;
    assert.equal(got, key('b', 'x'));
  });

  test('shutdown drops the items of held lanes (they can never be processed)', async () => {
    const q = queue(undefined, 'a');
    q.addCluster('held', { ready: false });
    q.add(key('held', 'x'));
    q.shutDown();
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
  });
});

describe('FairQueue: per-cluster metrics', () => {
  test('depth, adds and time in the queue per cluster (the series fairness keeps short)', async () => {
    const clock = new FakeClock();
    const values = new Map<string, number>();
    const observed = new Map<string, number[]>();
    const counter = (name: string) => ({
      inc: () => values.set(name, (values.get(name) ?? 0) + 1),
      dec: () => values.set(name, (values.get(name) ?? 0) - 1),
      set: (v: number) => values.set(name, v),
      observe: (v: number) => observed.set(name, [...(observed.get(name) ?? []), v]),
    });
    const provider: MultiClusterMetricsProvider = {
      newClusterReconcileTotalMetric: (c, cl, r) => counter(`total/${cl}/${r}`),
      newClusterReconcileTimeMetric: (c, cl) => counter(`time/${cl}`),
      newClusterQueueDepthMetric: (c, cl) => counter(`depth/${cl}`),
      newClusterQueueAddsMetric: (c, cl) => counter(`adds/${cl}`),
      newClusterQueueLatencyMetric: (c, cl) => counter(`latency/${cl}`),
      newClusterSyncedMetric: (c, cl) => counter(`synced/${cl}`),
      newEngagedClustersMetric: () => counter('engaged'),
      removeClusterSeries: () => {},
    };
    const q = new FairQueue({ name: 'q', clock, clusterMetricsProvider: provider });
    q.addCluster('a');
    q.addCluster('b');
    q.add(key('a', 'x'));
    q.add(key('a', 'x'));
    q.add(key('b', 'y'));
    assert.equal(values.get('adds/a'), 1);
    assert.equal(values.get('depth/a'), 1);
    await clock.advance(1500);
    await take(q);
    assert.equal(values.get('depth/a'), 0);
    assert.deepEqual(observed.get('latency/a'), [1.5]);
    assert.equal(values.get('depth/b'), 1);
  });
});
