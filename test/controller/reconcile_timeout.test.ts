import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Controller,
  InvalidControllerOptionsError,
  ReconcileTimeoutError,
} from '../../src/controller/index.js';
import type {
  ControllerMetricsProvider,
  ControllerOptions,
  ReconcileResultLabel,
} from '../../src/controller/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { deferred, until } from './support.js';

interface Counts {
  timeouts: number;
  errors: number;
  total: Record<ReconcileResultLabel, number>;
}

function counting(): { provider: ControllerMetricsProvider; c: Counts } {
  const c: Counts = {
    timeouts: 0,
    errors: 0,
    total: { success: 0, error: 0, requeue: 0, requeue_after: 0 },
  };
  const provider: ControllerMetricsProvider = {
    newReconcileTotalMetric: (_n, result) => ({ inc: () => void c.total[result]++ }),
    newReconcileErrorsMetric: () => ({ inc: () => void c.errors++ }),
    newReconcileTimeMetric: () => ({ observe: () => {} }),
    newActiveWorkersMetric: () => ({ inc: () => {}, dec: () => {} }),
    newMaxConcurrentReconcilesMetric: () => ({ set: () => {} }),
    newReconcileTimeoutsMetric: () => ({ inc: () => void c.timeouts++ }),
  };
  return { provider, c };
}

function make(
  reconcile: ControllerOptions['reconcile'],
  extra: Partial<ControllerOptions> = {},
): { controller: Controller; clock: FakeClock; c: Counts; errors: unknown[] } {
  const clock = new FakeClock();
  const { provider, c } = counting();
  const errors: unknown[] = [];
  const controller = new Controller({
    name: 'deadline',
    clock,
    logger: noopLogger,
    reconcileTimeoutMs: 100,
    controllerMetricsProvider: provider,
    onError: (e) => errors.push(e),
    reconcile,
    ...extra,
  });
  return { controller, clock, c, errors };
}

describe('Controller reconcileTimeoutMs (controller-runtime ReconciliationTimeout)', () => {
  test('at the deadline the signal aborts; the attempt is an error, requeued with backoff, and counted as a timeout', async () => {
    const signals: AbortSignal[] = [];
    const { controller, clock, c, errors } = make(
      (_key, signal) =>
        new Promise((_resolve, reject) => {
          signals.push(signal);
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        }),
    );
    controller.enqueue('default/slow');
    const stop = new AbortController();
    const running = controller.run(stop.signal, { shutdown: 'abort' });
    await until('reconcile started', () => signals.length === 1);
    await clock.advance(99);
    assert.equal(signals[0]!.aborted, false);
    await clock.advance(1);
    await until('timed out', () => errors.length === 1);
    assert.ok(signals[0]!.reason instanceof ReconcileTimeoutError);
    assert.ok(errors[0] instanceof ReconcileTimeoutError);
    assert.match(
      String((errors[0] as Error).message),
      /default\/slow.*reconcileTimeoutMs \(100 ms\)/,
    );
    assert.deepEqual([c.timeouts, c.errors, c.total.error], [1, 1, 1]);
    assert.equal(controller.queue.numRequeues('default/slow'), 1, 'requeued with backoff');
    await clock.advance(5); // the default limiter's first delay
    await until('retried', () => signals.length === 2);
    stop.abort();
    await running;
  });

  test('a reconcile that ignores its signal and returns after the deadline still counts as a timed-out error', async () => {
    const gate = deferred();
    let calls = 0;
    const { controller, clock, c } = make(async () => {
      calls++;
      if (calls === 1) await gate.promise;
    });
    controller.enqueue('k');
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await until('started', () => calls === 1);
    await clock.advance(150);
    gate.resolve();
    await until('counted', () => c.errors === 1);
    assert.deepEqual([c.timeouts, c.total.success], [1, 0]);
    assert.equal(controller.queue.numRequeues('k'), 1);
    stop.abort();
    await running;
  });

  test('a timeout of the reconcile’s own is an ordinary error, not counted as the framework’s timeout', async () => {
    const { controller, c } = make(async () => {
      throw new DOMException('the reconcile’s own deadline', 'TimeoutError');
    });
    controller.enqueue('k');
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await until('counted', () => c.errors === 1);
    assert.equal(c.timeouts, 0);
    stop.abort();
    await running;
  });

  test('a reconcile that finishes in time leaves no timer behind and succeeds', async () => {
    const { controller, clock, c } = make(async () => undefined);
    controller.enqueue('k');
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await until('done', () => c.total.success === 1);
    assert.equal(c.timeouts, 0);
    stop.abort();
    await running;
    assert.equal(clock.pendingTimers(), 0);
  });

  test('shutdown with abort is not a timeout and not an error', async () => {
    const { controller, c } = make(
      (_key, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        }),
    );
    controller.enqueue('k');
    const stop = new AbortController();
    const running = controller.run(stop.signal, { shutdown: 'abort' });
    await until('running', () => controller.activeKeys().length === 1);
    stop.abort();
    await running;
    assert.deepEqual([c.timeouts, c.errors], [0, 0]);
  });

  test('reconcileTimeoutMs must be positive', () => {
    for (const bad of [0, -1, Number.NaN]) {
      assert.throws(
        () => new Controller({ name: 'x', reconcile: () => {}, reconcileTimeoutMs: bad }),
        InvalidControllerOptionsError,
      );
    }
  });
});
