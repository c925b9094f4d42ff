// controller-runtime's controller metrics, scraped from a prom-client registry after a real
// run against the in-memory API server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import { Controller, reconcileTimeBuckets } from '../../src/controller/index.js';
import { PrometheusControllerMetricsProvider } from '../../src/metrics/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { realClock } from '../../src/util/clock.js';
import type { Clock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

function sample(text: string, line: string): number | undefined {
  for (const l of text.split('\n')) {
    if (l.startsWith(line + ' ')) return Number(l.slice(line.length + 1));
  }
  return undefined;
}

describe('controller_runtime_* metrics', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('a real run reports reconciles by result, errors, durations, active and maximum workers under controller-runtime names', async () => {
    for (const name of ['ok', 'fails-once', 'requeue-once', 'after-once', 'slow']) {
      server.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
      });
    }
    const registry = new Registry();
    const provider = new PrometheusControllerMetricsProvider({ registry });
    const cms = new ResourceClient(server.kubeConfig(), configMapsResource);
    const informer = new SharedIndexInformer<Serialized<V1ConfigMap>>(listWatchFromClient(cms), {
      name: 'configmaps',
      logger: noopLogger,
    });
    const seen = new Map<string, number>();
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    // The controller's clock: real timers, and a now() that the test moves 250 ms forward
    // while the slow reconcile is blocked. The real clock ticks in whole milliseconds, and
    // on a fast runtime (Node 24 here) all eight reconciles can start and end within one
    // tick each, so the histogram's sum may honestly be 0; with the move, the slow one lasts
    // 0.25 s on the controller's clock on any machine.
    let movedMs = 0;
    const clock: Clock = {
      now: () => realClock.now() + movedMs,
      setTimeout: (callback, delayMs) => realClock.setTimeout(callback, delayMs),
      sleep: (delayMs, signal) => realClock.sleep(delayMs, signal),
    };
    const controller = new Controller({
      name: 'cms',
      workers: 3,
      clock,
      logger: noopLogger,
      onError: () => {},
      controllerMetricsProvider: provider,
      reconcile: async (key) => {
        const n = (seen.get(key) ?? 0) + 1;
        seen.set(key, n);
        if (key === 'default/fails-once' && n === 1) throw new Error('boom');
        if (key === 'default/requeue-once' && n === 1) return { requeue: true };
        if (key === 'default/after-once' && n === 1) return { requeueAfterMs: 5 };
        if (key === 'default/slow' && n === 1) await slowGate;
        return undefined;
      },
    }).for(informer);

    const before = await registry.metrics();
    assert.equal(sample(before, 'controller_runtime_reconcile_errors_total{controller="cms"}'), 0);
    assert.equal(
      sample(before, 'controller_runtime_reconcile_timeouts_total{controller="cms"}'),
      0,
      'the timeouts series exists at zero',
    );
    assert.equal(
      sample(before, 'controller_runtime_reconcile_total{controller="cms",result="success"}'),
      0,
      'series exist at zero before the first reconcile',
    );
    assert.equal(
      sample(before, 'controller_runtime_max_concurrent_reconciles{controller="cms"}'),
      3,
    );

    const stopInformer = new AbortController();
    const informerDone = informer.run(stopInformer.signal);
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await eventually('the slow reconcile is running', () => seen.has('default/slow'));
    const during = await registry.metrics();
    assert.ok(
      (sample(during, 'controller_runtime_active_workers{controller="cms"}') ?? 0) >= 1,
      'the worker blocked in the slow reconcile counts as active',
    );
    movedMs += 250;
    releaseSlow();
    await eventually(
      'every key reconciled to success',
      () =>
        seen.get('default/fails-once') === 2 &&
        seen.get('default/requeue-once') === 2 &&
        seen.get('default/after-once') === 2 &&
        seen.get('default/ok') === 1 &&
        seen.get('default/slow') === 1 &&
        controller.activeKeys().length === 0,
    );
    stop.abort();
    await running;
    stopInformer.abort();
    await informerDone;

    const text = await registry.metrics();
    const total = (result: string): number | undefined =>
      sample(text, `controller_runtime_reconcile_total{controller="cms",result="${result}"}`);
    assert.equal(total('success'), 5, 'ok, slow, and the second run of the three others');
    assert.equal(total('error'), 1);
    assert.equal(total('requeue'), 1);
    assert.equal(total('requeue_after'), 1);
    assert.equal(sample(text, 'controller_runtime_reconcile_errors_total{controller="cms"}'), 1);
    assert.equal(
      sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="cms"}'),
      8,
    );
    const sum = sample(text, 'controller_runtime_reconcile_time_seconds_sum{controller="cms"}')!;
    assert.ok(sum >= 0.25 && sum < 60, `the slow reconcile's 0.25 s is in the sum, got ${sum}`);
    assert.ok(
      sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.1",controller="cms"}')! <
        8,
      'the slow reconcile is counted above the 0.1 s bucket',
    );
    assert.equal(
      sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="60",controller="cms"}'),
      8,
    );
    assert.match(text, /# TYPE controller_runtime_reconcile_time_seconds histogram/);
    assert.equal(reconcileTimeBuckets[0], 0.005);
    assert.equal(sample(text, 'controller_runtime_active_workers{controller="cms"}'), 0);
    assert.equal(sample(text, 'controller_runtime_max_concurrent_reconciles{controller="cms"}'), 3);
  });
});
