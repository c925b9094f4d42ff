// A controller waits for its own informers only, for at most its cache sync timeout
// (controller-runtime's `CacheSyncTimeout`, default 2 minutes, measured from the start of
// the controller): past it, `run()` rejects with a typed error naming each informer and
// its last error ('fail', controller-runtime's behaviour), or says it and keeps waiting
// ('keepWaiting'), starting if they sync later. Its state (standby, waiting, timedOut,
// running, stopped) is a getter and the `kube_controller_kit_controller_state` gauge.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CacheSyncTimeoutError } from '../../src/cache/wait.js';
import { ApiError } from '../../src/client/errors.js';
import type { KubeObject } from '../../src/client/types.js';
import {
  Controller,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
  InvalidControllerOptionsError,
  controllerStates,
} from '../../src/controller/index.js';
import type { ControllerMetricsProvider, ControllerState } from '../../src/controller/index.js';
import { FakeClock } from '../../src/util/clock.js';
import type { LogFields, Logger } from '../../src/util/logger.js';
import { noopLogger } from '../../src/util/logger.js';
import { FakeInformer, obj, until } from './support.js';

/** A FakeInformer with a name and a last error, as a factory's informer has. */
class NamedInformer extends FakeInformer<KubeObject> {
  error: ApiError | undefined;
  constructor(readonly name: string) {
    super();
  }
  lastError(): { error: unknown; sinceMs: number } | undefined {
    return this.error === undefined ? undefined : { error: this.error, sinceMs: 0 };
  }
}

const forbidden = new ApiError(
  {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 403,
    reason: 'Forbidden',
    message:
      'secrets is forbidden: User "system:serviceaccount:ops:op" cannot list resource "secrets" in API group "" at the cluster scope',
  },
  { context: 'GET /api/v1/secrets' },
);

/** A provider that keeps each state gauge's value. */
function stateGauges(): { provider: ControllerMetricsProvider; value: () => ControllerState[] } {
  const values = new Map<ControllerState, number>();
  const noop = { inc: () => {}, dec: () => {}, set: () => {}, observe: () => {} };
  const provider: ControllerMetricsProvider = {
    newReconcileTotalMetric: () => noop,
    newReconcileErrorsMetric: () => noop,
    newReconcileTimeMetric: () => noop,
    newActiveWorkersMetric: () => noop,
    newMaxConcurrentReconcilesMetric: () => noop,
    newControllerStateMetric: (_controller, state) => ({
      set: (v: number) => void values.set(state, v),
    }),
  };
  return {
    provider,
    value: () => controllerStates.filter((s) => values.get(s) === 1),
  };
}

function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (message: string, _fields?: LogFields): void =>
      void lines.push(`${level} ${message}`);
  return {
    lines,
    logger: { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
  };
}

describe('Controller cache sync timeout (controller-runtime CacheSyncTimeout)', () => {
  test("the default is controller-runtime's 2 minutes; the timeout must be positive", () => {
    assert.equal(DEFAULT_CACHE_SYNC_TIMEOUT_MS, 120_000);
    assert.throws(
      () => new Controller({ name: 'c', reconcile: () => {}, cacheSyncTimeoutMs: 0 }),
      (e: unknown) =>
        e instanceof InvalidControllerOptionsError && /cacheSyncTimeoutMs/.test(e.message),
    );
  });

  test("'fail': past the timeout run() rejects with CacheSyncTimeoutError naming the informer that did not sync and its last cause; the synced one is not named", async () => {
    const clock = new FakeClock(0);
    const configMaps = new NamedInformer('configmaps/v1');
    const secrets = new NamedInformer('secrets/v1');
    secrets.synced = false;
    secrets.error = forbidden;
    const gauges = stateGauges();
    const controller = new Controller({
      name: 'secrets',
      clock,
      logger: noopLogger,
      reconcile: () => {},
      controllerMetricsProvider: gauges.provider,
    })
      .for(secrets)
      .owns(configMaps, { kind: 'Secret', apiVersion: 'v1' });
    assert.equal(controller.state, 'standby');
    assert.deepEqual(gauges.value(), ['standby']);
    const stop = new AbortController();
    const outcome = controller.run(stop.signal).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await clock.advance(DEFAULT_CACHE_SYNC_TIMEOUT_MS - 100);
    assert.equal(controller.state, 'waiting');
    assert.deepEqual(gauges.value(), ['waiting']);
    assert.deepEqual(
      controller.waitingFor().map((n) => n.name),
      ['secrets/v1'],
    );
    await clock.advance(100);
    const err = await outcome;
    assert.ok(err instanceof CacheSyncTimeoutError, String(err));
    assert.equal(err.controller, 'secrets');
    assert.equal(err.timeoutMs, 120_000);
    assert.deepEqual(
      err.notSynced.map((n) => n.name),
      ['secrets/v1'],
    );
    assert.equal(err.notSynced[0]!.lastError?.error, forbidden);
    assert.match(
      err.message,
      /^controller secrets: caches did not sync within 120000 ms: 1 not synced: secrets\/v1 \(last error, for 120000 ms: forbidden: serviceaccount ops\/op cannot list secrets at the cluster scope\)$/,
    );
    assert.equal(controller.state, 'timedOut');
    assert.deepEqual(gauges.value(), ['timedOut']);
    assert.equal(controller.cacheSyncError, err);
    assert.equal(secrets.handlers.size, 0, 'its handlers were removed');
    assert.equal(clock.pendingTimers(), 0);
  });

  test("'keepWaiting': past the timeout it says the error once at error level, stays timedOut, and starts when the informer syncs later", async () => {
    const clock = new FakeClock(0);
    const secrets = new NamedInformer('secrets/v1');
    secrets.synced = false;
    secrets.error = forbidden;
    const gauges = stateGauges();
    const { logger, lines } = recording();
    const reconciled: string[] = [];
    const controller = new Controller({
      name: 'secrets',
      clock,
      logger,
      cacheSyncTimeoutMs: 30_000,
      reconcile: (key) => void reconciled.push(key),
      controllerMetricsProvider: gauges.provider,
    }).for(secrets);
    const stop = new AbortController();
    const running = controller.run(stop.signal, {
      onCacheSyncTimeout: 'keepWaiting',
      cacheSyncTimeoutMs: 999_999, // the controller's own option wins
    });
    await clock.advance(30_000);
    assert.equal(controller.state, 'timedOut');
    assert.deepEqual(gauges.value(), ['timedOut']);
    assert.ok(controller.cacheSyncError instanceof CacheSyncTimeoutError);
    await clock.advance(10 * 60_000);
    const errors = lines.filter((l) => l.startsWith('error '));
    assert.equal(errors.length, 1, lines.join('\n'));
    assert.match(
      errors[0]!,
      /^error controller secrets: caches did not sync within 30000 ms: .*secrets\/v1.*forbidden.*; it keeps waiting/,
    );
    secrets.synced = true;
    secrets.error = undefined;
    await clock.advance(100);
    await until('running', () => controller.state === 'running');
    assert.deepEqual(gauges.value(), ['running']);
    assert.deepEqual(controller.waitingFor(), []);
    assert.ok(
      lines.some((l) =>
        /its informers synced after 630100 ms, past its cache sync timeout/.test(l),
      ),
    );
    secrets.add(obj('s1'));
    await until('reconciled', () => reconciled.length === 1);
    stop.abort();
    await running;
    assert.equal(controller.state, 'stopped');
    assert.deepEqual(gauges.value(), ['stopped']);
  });

  test('Infinity waits for ever; a stop before the sync ends it in state stopped', async () => {
    const clock = new FakeClock(0);
    const secrets = new NamedInformer('secrets/v1');
    secrets.synced = false;
    const controller = new Controller({
      name: 'patient',
      clock,
      logger: noopLogger,
      cacheSyncTimeoutMs: Infinity,
      reconcile: () => {},
    }).for(secrets);
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await clock.advance(5 * DEFAULT_CACHE_SYNC_TIMEOUT_MS);
    assert.equal(controller.state, 'waiting');
    stop.abort();
    await running;
    assert.equal(controller.state, 'stopped');
  });
});
