// Controller.run() never hangs on a reconcile that ignores its signal: controller-runtime's
// graceful shutdown timeout (default 30 s) bounds the wait and names the keys still running.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Controller,
  DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS,
  InvalidControllerOptionsError,
} from '../../src/controller/index.js';
import type { ControllerRunOptions, Reconciler } from '../../src/controller/index.js';
import type { KubeObject } from '../../src/client/types.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { FakeInformer, deferred, until } from './support.js';

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (message: string): void =>
      void lines.push(`${level} ${message}`);
  return {
    lines,
    logger: { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
  };
}

function start(reconcile: Reconciler, options: ControllerRunOptions = {}) {
  const clock = new FakeClock();
  const { logger, lines } = recordingLogger();
  const informer = new FakeInformer<KubeObject>();
  const signals = new Map<string, AbortSignal>();
  const controller = new Controller({
    name: 'slow',
    clock,
    logger,
    workers: 2,
    reconcile: (key, signal) => {
      signals.set(key, signal);
      return reconcile(key, signal);
    },
  }).for(informer);
  const stop = new AbortController();
  let resolved = false;
  const running = controller.run(stop.signal, options).then(() => {
    resolved = true;
  });
  return { controller, clock, lines, signals, stop, running, isResolved: () => resolved };
}

describe('Controller graceful shutdown timeout', () => {
  test('the default timeout is 30 s, as controller-runtime’s GracefulShutdownTimeout', () => {
    assert.equal(DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS, 30_000);
  });

  test('a reconcile that ignores its signal holds run() for exactly the timeout; then the stuck keys are logged and their signal aborted', async () => {
    const never = deferred();
    const h = start(async (key) => {
      if (key.startsWith('stuck')) await never.promise;
    });
    h.controller.enqueue('stuck-1');
    h.controller.enqueue('stuck-2');
    await until('both running', () => h.controller.activeKeys().length === 2);
    h.stop.abort();
    await flushAsync();
    await h.clock.advance(29_999);
    await flushAsync();
    assert.equal(h.isResolved(), false, 'still waiting 1 ms before the timeout');
    assert.equal(h.signals.get('stuck-1')?.aborted, false, 'drain mode: signal not aborted yet');
    await h.clock.advance(1);
    await h.running;
    const warning = h.lines.find((l) => l.startsWith('warn ') && l.includes('timed out'));
    assert.ok(warning, `a warning names the timeout; got ${h.lines.join(' | ')}`);
    assert.match(warning, /after 30000 ms/);
    assert.match(warning, /stuck-1 \(30000 ms\)/);
    assert.match(warning, /stuck-2 \(30000 ms\)/);
    assert.equal(h.signals.get('stuck-1')?.aborted, true, 'the stuck reconcile is told to stop');
    assert.equal(h.clock.pendingTimers(), 0, 'no timer left behind');
    never.resolve();
    await flushAsync();
  });

  test('a custom timeout is honoured, and 0 returns at once after the signal aborts', async () => {
    for (const timeout of [500, 0]) {
      const never = deferred();
      const h = start(
        async () => {
          await never.promise;
        },
        { gracefulShutdownTimeoutMs: timeout },
      );
      h.controller.enqueue('k');
      await until('running', () => h.controller.activeKeys().length === 1);
      h.stop.abort();
      await flushAsync();
      if (timeout > 0) {
        await h.clock.advance(timeout - 1);
        await flushAsync();
        assert.equal(h.isResolved(), false, `${timeout} ms: still waiting`);
        await h.clock.advance(1);
      } else {
        await h.clock.advance(0);
      }
      await h.running;
      assert.ok(
        h.lines.some((l) => l.includes(`timed out after ${timeout} ms`) && l.includes('k (')),
      );
      never.resolve();
      await flushAsync();
    }
  });

  test('reconciles that finish within the timeout: no warning, and the timer is cancelled', async () => {
    const gate = deferred();
    const h = start(async () => {
      await gate.promise;
    });
    h.controller.enqueue('k');
    await until('running', () => h.controller.activeKeys().length === 1);
    h.stop.abort();
    await flushAsync();
    await h.clock.advance(10_000);
    gate.resolve();
    await h.running;
    assert.equal(h.lines.filter((l) => l.includes('timed out')).length, 0);
    assert.equal(h.clock.pendingTimers(), 0);
    assert.deepEqual(h.controller.activeKeys(), []);
  });

  test('a negative timeout waits for ever (controller-runtime: negative = no timeout)', async () => {
    const gate = deferred();
    const h = start(
      async () => {
        await gate.promise;
      },
      { gracefulShutdownTimeoutMs: -1 },
    );
    h.controller.enqueue('k');
    await until('running', () => h.controller.activeKeys().length === 1);
    h.stop.abort();
    await h.clock.advance(3_600_000);
    await flushAsync();
    assert.equal(h.isResolved(), false);
    gate.resolve();
    await h.running;
  });

  test('a timeout that is not a number is rejected with InvalidControllerOptionsError', async () => {
    const c = new Controller({ name: 'x', reconcile: () => {} });
    await assert.rejects(
      c.run(new AbortController().signal, { gracefulShutdownTimeoutMs: Number.NaN }),
      (e: unknown) =>
        e instanceof InvalidControllerOptionsError && /gracefulShutdownTimeoutMs/.test(e.message),
    );
  });
});
