import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DelayingQueue,
  Queue,
  RateLimitingQueue,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
  setDefaultMetricsProvider,
} from '../../src/workqueue/index.js';
import type { MetricsProvider } from '../../src/workqueue/index.js';
import { FakeClock } from '../../src/util/clock.js';

interface Recorded {
  depth: number;
  adds: number;
  retries: number;
  latency: number[];
  work: number[];
  unfinished: number;
  longest: number;
  names: Set<string>;
}

function recorder(): { provider: MetricsProvider; r: Recorded } {
  const r: Recorded = {
    depth: 0,
    adds: 0,
    retries: 0,
    latency: [],
    work: [],
    unfinished: -1,
    longest: -1,
    names: new Set(),
  };
  const provider: MetricsProvider = {
    newDepthMetric: (n) => (r.names.add(n), { inc: () => r.depth++, dec: () => r.depth-- }),
    newAddsMetric: () => ({ inc: () => r.adds++ }),
    newLatencyMetric: () => ({ observe: (v) => r.latency.push(v) }),
    newWorkDurationMetric: () => ({ observe: (v) => r.work.push(v) }),
    newUnfinishedWorkSecondsMetric: () => ({ set: (v) => (r.unfinished = v) }),
    newLongestRunningProcessorSecondsMetric: () => ({ set: (v) => (r.longest = v) }),
    newRetriesMetric: () => ({ inc: () => r.retries++ }),
  };
  return { provider, r };
}

describe('work queue metrics', () => {
  test('depth, adds, queue and work durations follow add/get/done on the clock', async () => {
    const clock = new FakeClock(0);
    const { provider, r } = recorder();
    const q = new Queue<string>({ name: 'q', clock, metricsProvider: provider });
    q.add('a');
    q.add('a'); // duplicate: not counted
    q.add('b');
    assert.equal(r.adds, 2);
    assert.equal(r.depth, 2);
    clock.advanceSync(250);
    await q.get();
    assert.equal(r.depth, 1);
    assert.deepEqual(r.latency, [0.25]);
    clock.advanceSync(1000);
    q.done('a');
    assert.deepEqual(r.work, [1]);
    q.shutDown();
  });

  test('an add while processing counts as an add and depth, like client-go', async () => {
    const { provider, r } = recorder();
    const q = new Queue<string>({ name: 'q', clock: new FakeClock(0), metricsProvider: provider });
    q.add('a');
    await q.get();
    q.add('a');
    assert.equal(r.adds, 2);
    assert.equal(r.depth, 1);
    q.shutDown();
  });

  test('unfinished work and longest processor gauges refresh every 500 ms of clock time', async () => {
    const clock = new FakeClock(0);
    const { provider, r } = recorder();
    const q = new Queue<string>({ name: 'q', clock, metricsProvider: provider });
    q.add('a');
    q.add('b');
    await q.get();
    assert.equal(r.unfinished, -1, 'not set before the first period');
    clock.advanceSync(499);
    assert.equal(r.unfinished, -1);
    clock.advanceSync(1);
    assert.equal(r.unfinished, 0.5, 'updated at t=500 with a running for 0.5 s');
    assert.equal(r.longest, 0.5);
    clock.advanceSync(500);
    assert.equal(r.unfinished, 1);
    await q.get();
    clock.advanceSync(UNFINISHED_WORK_UPDATE_PERIOD_MS); // t=1500: a 1.5 s, b 0.5 s
    assert.equal(r.unfinished, 2);
    assert.equal(r.longest, 1.5);
    q.shutDown();
  });

  test('the refresh timer runs only while an item is being processed, and stops on shutDown', async () => {
    const clock = new FakeClock(0);
    const { provider, r } = recorder();
    const q = new Queue<string>({ name: 'q', clock, metricsProvider: provider });
    // A queue made but never used (a controller constructed and never run) sets no timer,
    // so it keeps no process alive.
    assert.equal(clock.pendingTimers(), 0);
    q.add('a');
    assert.equal(clock.pendingTimers(), 0, 'waiting work is not work in progress');
    await q.get();
    assert.equal(clock.pendingTimers(), 1);
    clock.advanceSync(UNFINISHED_WORK_UPDATE_PERIOD_MS);
    assert.equal(r.unfinished, 0.5);
    q.done('a');
    assert.equal(clock.pendingTimers(), 0, 'nothing in progress: the timer is gone');
    assert.equal(r.unfinished, 0, 'and the gauges read 0');
    assert.equal(r.longest, 0);
    q.add('b');
    await q.get();
    assert.equal(clock.pendingTimers(), 1);
    q.shutDown();
    assert.equal(clock.pendingTimers(), 0);
  });

  test('a named queue on the real clock, constructed and never used, leaves no timer (the process can exit)', () => {
    new Queue<string>({ name: 'never-used', metricsProvider: recorder().provider });
    // Not even shut down: the file-level leak check fails this file if a refresh timer runs.
  });

  test('a named queue on the real clock leaves no timer behind after shutDown', () => {
    const q = new RateLimitingQueue<string>({ name: 'real', metricsProvider: recorder().provider });
    q.addAfter('a', 60_000);
    q.shutDown();
    // The file-level leak check fails this file if the refresh or delay timer survived.
  });

  test('addAfter and addRateLimited count retries, also with a delay of 0', () => {
    const { provider, r } = recorder();
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>({ name: 'q', clock, metricsProvider: provider });
    q.addAfter('a', 0);
    q.addAfter('b', 10);
    q.addRateLimited('c');
    assert.equal(r.retries, 3);
    q.shutDown();
  });

  test('a queue without a name emits nothing and sets no timer', () => {
    const clock = new FakeClock(0);
    const { provider, r } = recorder();
    const q = new DelayingQueue<string>({ clock, metricsProvider: provider });
    q.add('a');
    assert.equal(r.adds, 0);
    assert.equal(clock.pendingTimers(), 0);
    q.shutDown();
  });

  test('setDefaultMetricsProvider applies to named queues created afterwards', () => {
    const { provider, r } = recorder();
    setDefaultMetricsProvider(provider);
    try {
      const q = new Queue<string>({ name: 'dflt', clock: new FakeClock(0) });
      q.add('a');
      assert.equal(r.adds, 1);
      assert.deepEqual([...r.names], ['dflt']);
      q.shutDown();
    } finally {
      setDefaultMetricsProvider(undefined);
    }
  });
});
