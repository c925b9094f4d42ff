import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { PrometheusMetricsProvider, workqueueDurationBuckets } from '../../src/metrics/index.js';
import { LowPriority, PriorityQueue, RateLimitingQueue } from '../../src/workqueue/index.js';
import { FakeClock } from '../../src/util/clock.js';

function sample(text: string, line: string): number | undefined {
  for (const l of text.split('\n')) {
    if (l.startsWith(line + ' ')) return Number(l.slice(line.length + 1));
  }
  return undefined;
}

describe('PrometheusMetricsProvider', () => {
  test('a priority queue exports workqueue_depth with a priority label (controller-runtime)', async () => {
    const registry = new Registry();
    const metricsProvider = new PrometheusMetricsProvider({ registry });
    const q = new PriorityQueue<string>({ name: 'apps', clock: new FakeClock(0), metricsProvider });
    q.add('a', { priority: LowPriority });
    q.add('b', { priority: LowPriority });
    q.add('c');
    const text = await registry.metrics();
    assert.equal(sample(text, 'workqueue_depth{name="apps",priority="-100"}'), 2);
    assert.equal(sample(text, 'workqueue_depth{name="apps",priority="0"}'), 1);
    assert.equal(sample(text, 'workqueue_adds_total{name="apps"}'), 3);
    q.shutDown();
  });

  test('a named queue exports client-go metric names with the name label', async () => {
    const registry = new Registry();
    const clock = new FakeClock(0);
    const metricsProvider = new PrometheusMetricsProvider({ registry });
    const q = new RateLimitingQueue<string>({ name: 'pods', clock, metricsProvider });
    q.add('a');
    q.add('b');
    clock.advanceSync(2);
    await q.get();
    clock.advanceSync(30);
    q.done('a');
    q.addAfter('c', 10);
    q.addRateLimited('d');
    await q.get(); // b, still running
    // The in-progress gauges refresh 500 ms after the work in progress began: a's refresh was
    // cancelled when a finished (nothing in progress), b's comes at t = 32 + 500.
    clock.advanceSync(500); // t = 532
    const text = await registry.metrics();
    // a, b, then c (addAfter, ready at t=42) and d (addRateLimited: 5 ms).
    assert.equal(sample(text, 'workqueue_adds_total{name="pods"}'), 4);
    assert.equal(sample(text, 'workqueue_depth{name="pods"}'), 2);
    assert.equal(sample(text, 'workqueue_retries_total{name="pods"}'), 2);
    assert.equal(sample(text, 'workqueue_queue_duration_seconds_count{name="pods"}'), 2);
    const sum = sample(text, 'workqueue_queue_duration_seconds_sum{name="pods"}')!;
    assert.ok(Math.abs(sum - 0.034) < 1e-9, `a waited 2 ms and b 32 ms, got ${sum}`);
    assert.equal(sample(text, 'workqueue_work_duration_seconds_count{name="pods"}'), 1);
    assert.equal(sample(text, 'workqueue_work_duration_seconds_bucket{le="0.1",name="pods"}'), 1);
    assert.equal(sample(text, 'workqueue_work_duration_seconds_bucket{le="0.01",name="pods"}'), 0);
    assert.equal(sample(text, 'workqueue_unfinished_work_seconds{name="pods"}'), 0.5);
    assert.equal(sample(text, 'workqueue_longest_running_processor_seconds{name="pods"}'), 0.5);
    assert.match(text, /# TYPE workqueue_queue_duration_seconds histogram/);
    q.shutDown();
    assert.equal(clock.pendingTimers(), 0);
  });

  test('histograms use client-go buckets: 10 exponential from 10 ns, factor 10', async () => {
    assert.deepEqual(
      workqueueDurationBuckets,
      [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10],
    );
    const registry = new Registry();
    const p = new PrometheusMetricsProvider({ registry });
    p.newLatencyMetric('x').observe(5e-7);
    const text = await registry.metrics();
    assert.equal(sample(text, 'workqueue_queue_duration_seconds_bucket{le="1e-7",name="x"}'), 0);
    assert.equal(
      sample(text, 'workqueue_queue_duration_seconds_bucket{le="0.000001",name="x"}'),
      1,
    );
  });

  test('two queues are two label values of the same metrics', async () => {
    const registry = new Registry();
    const metricsProvider = new PrometheusMetricsProvider({ registry });
    const clock = new FakeClock(0);
    const a = new RateLimitingQueue<string>({ name: 'a', clock, metricsProvider });
    const b = new RateLimitingQueue<string>({ name: 'b', clock, metricsProvider });
    a.add('x');
    b.add('x');
    b.add('y');
    const text = await registry.metrics();
    assert.equal(sample(text, 'workqueue_depth{name="a"}'), 1);
    assert.equal(sample(text, 'workqueue_depth{name="b"}'), 2);
    a.shutDown();
    b.shutDown();
  });

  test('a second provider on the same registry fails loudly (metrics already registered)', () => {
    const registry = new Registry();
    new PrometheusMetricsProvider({ registry });
    assert.throws(() => new PrometheusMetricsProvider({ registry }), /already been registered/);
  });
});
