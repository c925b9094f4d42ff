import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import { deploymentsResource, podsResource } from '../../src/client/builtins.js';
import {
  COMBINED_PREFIX,
  EventBroadcaster,
  InvalidObjectReferenceError,
  coreEventsResource,
  getReference,
  setDefaultEventMetricsProvider,
} from '../../src/record/index.js';
import type { CoreEvent, EventBroadcasterOptions } from '../../src/record/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { configMap, countingMetrics, memoryLogger } from './support.js';

const START = Date.UTC(2026, 0, 1);

describe('event recorder, core/v1 backend, against the in-memory API server', () => {
  let server: TestApiServer;
  let events: ResourceClient<CoreEvent>;
  let clock: FakeClock;
  let broadcasters: EventBroadcaster[];

  before(async () => {
    server = await startTestApiServer();
    events = new ResourceClient(server.kubeConfig(), coreEventsResource).namespace('default');
  });
  after(async () => {
    await server.close();
  });
  beforeEach(async () => {
    await events.deleteCollection();
    clock = new FakeClock(START);
    broadcasters = [];
  });

  function make(options: EventBroadcasterOptions = {}) {
    const logger = memoryLogger();
    const broadcaster = new EventBroadcaster(server.kubeConfig(), { clock, logger, ...options });
    broadcasters.push(broadcaster);
    const recorder = broadcaster.newRecorder({ component: 'app-controller' });
    return { broadcaster, recorder, logger };
  }

  async function stored(): Promise<CoreEvent[]> {
    const list = await events.list();
    return list.items.sort((a, b) =>
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
    );
  }

  test('event() returns at once and writes an Event with involvedObject, source, timestamps and count 1', async () => {
    const { broadcaster, recorder } = make();
    const before = server.requests.length;
    const returned: unknown = recorder.event(configMap('web'), 'Normal', 'Created', 'made it');
    assert.equal(returned, undefined);
    assert.equal(server.requests.length, before, 'nothing is sent before event() returns');
    await broadcaster.flush();
    const [ev, ...rest] = await stored();
    assert.equal(rest.length, 0);
    assert.deepEqual(ev?.involvedObject, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'web',
      namespace: 'default',
      uid: 'uid-web',
      resourceVersion: '7',
    });
    assert.equal(ev?.type, 'Normal');
    assert.equal(ev?.reason, 'Created');
    assert.equal(ev?.message, 'made it');
    assert.deepEqual(ev?.source, { component: 'app-controller' });
    assert.equal(ev?.reportingComponent, 'app-controller');
    assert.equal(ev?.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(ev?.lastTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(ev?.count, 1);
    await broadcaster.close();
  });

  test('event names are <object>.<hex nanoseconds> as client-go, unique within one millisecond across broadcasters', async () => {
    // A time later than any other test's, since stamps increase across the whole process.
    const later = Date.UTC(2030, 0, 1);
    clock = new FakeClock(later);
    const { broadcaster, recorder } = make();
    recorder.event(configMap('web'), 'Normal', 'A', 'one');
    recorder.event(configMap('web'), 'Normal', 'B', 'two');
    await broadcaster.close();
    const names = (await stored()).map((e) => e.metadata?.name);
    const ns = BigInt(later) * 1_000_000n;
    assert.deepEqual(names, [`web.${ns.toString(16)}`, `web.${(ns + 1n).toString(16)}`]);
  });

  test('a cluster-scoped object gets its events in the default namespace, without involvedObject.namespace', async () => {
    const { broadcaster, recorder } = make();
    recorder.event(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'u' } },
      'Warning',
      'Stuck',
      'finalizer pending',
    );
    await broadcaster.close();
    const [ev] = await stored();
    assert.equal(ev?.metadata?.namespace, 'default');
    assert.equal(ev?.involvedObject.namespace, undefined);
    assert.equal(ev?.type, 'Warning');
  });

  test('eventf formats printf-style (Go %v read as %s); annotatedEventf sets annotations', async () => {
    const { broadcaster, recorder } = make();
    recorder.eventf(configMap('web'), 'Normal', 'Scaled', 'scaled %v to %d replicas', 'web', 3);
    recorder.annotatedEventf(configMap('web'), { team: 'a' }, 'Normal', 'Tagged', 'tag %s', 'x');
    await broadcaster.close();
    const evs = await stored();
    assert.equal(evs[0]?.message, 'scaled web to 3 replicas');
    assert.deepEqual(evs[1]?.metadata?.annotations, { team: 'a' });
    assert.equal(evs[1]?.message, 'tag x');
  });

  test('an identical repeat is a PATCH of the existing Event: count 2, lastTimestamp moves, firstTimestamp stays', async () => {
    const { broadcaster, recorder } = make();
    recorder.event(configMap('web'), 'Warning', 'Failed', 'boom');
    await broadcaster.flush();
    await clock.advance(65_000);
    recorder.event(configMap('web'), 'Warning', 'Failed', 'boom');
    await broadcaster.close();
    const evs = await stored();
    assert.equal(evs.length, 1);
    assert.equal(evs[0]?.count, 2);
    assert.equal(evs[0]?.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(evs[0]?.lastTimestamp, '2026-01-01T00:01:05Z');
    const last = server.requests
      .filter((r) => r.url.includes('/events') && r.method !== 'GET')
      .at(-1);
    assert.equal(last?.method, 'PATCH');
  });

  test('a repeat whose Event was deleted meanwhile is created again', async () => {
    const { broadcaster, recorder } = make();
    recorder.event(configMap('web'), 'Normal', 'Synced', 'ok');
    await broadcaster.flush();
    await events.deleteCollection();
    recorder.event(configMap('web'), 'Normal', 'Synced', 'ok');
    await broadcaster.close();
    const evs = await stored();
    assert.equal(evs.length, 1);
    assert.equal(evs[0]?.count, 2);
  });

  test('similar events (same object and reason, different messages) are combined from the 10th within 10 minutes', async () => {
    const { broadcaster, recorder } = make();
    for (let i = 1; i <= 11; i++) {
      recorder.event(configMap('web'), 'Warning', 'BackOff', `attempt ${i}`);
      await clock.advance(1000);
    }
    await broadcaster.close();
    const evs = await stored();
    const single = evs.filter((e) => !(e.message ?? '').startsWith(COMBINED_PREFIX));
    const combined = evs.filter((e) => (e.message ?? '').startsWith(COMBINED_PREFIX));
    assert.equal(single.length, 9, 'the first 9 distinct messages are events of their own');
    assert.equal(combined.length, 1, 'the 10th and 11th update one combined event');
    assert.equal(combined[0]?.message, `${COMBINED_PREFIX}attempt 11`);
    assert.equal(combined[0]?.count, 2);
    assert.equal(combined[0]?.reason, 'BackOff');
  });

  test('aggregation restarts when more than 10 minutes passed since the last similar event', async () => {
    const { broadcaster, recorder } = make();
    for (let i = 1; i <= 9; i++) recorder.event(configMap('web'), 'Warning', 'BackOff', `a${i}`);
    await broadcaster.flush();
    await clock.advance(601_000);
    recorder.event(configMap('web'), 'Warning', 'BackOff', 'a10');
    await broadcaster.close();
    const evs = await stored();
    assert.equal(evs.length, 10);
    assert.ok(evs.every((e) => !(e.message ?? '').startsWith(COMBINED_PREFIX)));
  });

  test('the spam filter lets 25 events per object through, then one per 5 minutes', async () => {
    const { broadcaster, recorder } = make();
    // Distinct reasons so that aggregation does not combine them.
    for (let i = 1; i <= 30; i++) recorder.event(configMap('web'), 'Normal', `R${i}`, 'x');
    await broadcaster.flush();
    assert.equal((await stored()).length, 25);
    recorder.event(configMap('other'), 'Normal', 'R1', 'x');
    await broadcaster.flush();
    assert.equal((await stored()).length, 26, 'another object has its own bucket');
    await clock.advance(299_000);
    recorder.event(configMap('web'), 'Normal', 'R31', 'x');
    await broadcaster.flush();
    assert.equal((await stored()).length, 26, 'no token before 5 minutes');
    await clock.advance(1_000);
    recorder.event(configMap('web'), 'Normal', 'R32', 'x');
    await broadcaster.close();
    assert.equal((await stored()).length, 27, 'one token after 5 minutes');
  });

  test('the correlator caches are LRU-bounded: a repeat of an evicted event is created anew', async () => {
    const { broadcaster, recorder } = make({ correlator: { lruCacheSize: 2 } });
    recorder.event(configMap('a'), 'Normal', 'R', 'x');
    recorder.event(configMap('b'), 'Normal', 'R', 'x');
    recorder.event(configMap('a'), 'Normal', 'R', 'x'); // still cached: patched
    recorder.event(configMap('c'), 'Normal', 'R', 'x');
    recorder.event(configMap('d'), 'Normal', 'R', 'x'); // evicts b (least recently used)
    recorder.event(configMap('b'), 'Normal', 'R', 'x'); // forgotten: a new Event
    await broadcaster.close();
    const byObject = new Map<string, number[]>();
    for (const e of await stored()) {
      const n = e.involvedObject.name ?? '';
      byObject.set(n, [...(byObject.get(n) ?? []), e.count ?? 0]);
    }
    assert.deepEqual(byObject.get('a'), [2]);
    assert.deepEqual(byObject.get('b'), [1, 1]);
  });

  test('a full queue drops events, logs them and counts them in the metric; the reconcile is not delayed', async () => {
    const metrics = countingMetrics();
    const { broadcaster, recorder, logger } = make({
      queueLength: 3,
      metricsProvider: metrics,
      name: 'test-recorder',
    });
    for (let i = 1; i <= 6; i++) recorder.event(configMap('web'), 'Normal', `Q${i}`, 'x');
    // The first is taken off the queue by the writer at once; 3 wait; 2 are dropped.
    assert.equal(broadcaster.dropped, 2);
    assert.equal(metrics.dropped.get('test-recorder'), 2);
    assert.ok(logger.lines.some((l) => /too many queued events/.test(l.message)));
    await broadcaster.close();
    assert.equal((await stored()).length, 4);
  });

  test('without a metricsProvider option the default provider (setDefaultEventMetricsProvider) counts drops', async () => {
    const metrics = countingMetrics();
    setDefaultEventMetricsProvider(metrics);
    try {
      const { broadcaster, recorder } = make({ queueLength: 1 });
      for (let i = 0; i < 4; i++) recorder.event(configMap('web'), 'Normal', `D${i}`, 'x');
      await broadcaster.close();
      assert.equal(metrics.dropped.get('events'), 2);
    } finally {
      setDefaultEventMetricsProvider(undefined);
    }
  });

  test('close leaves a shared Transport open for its other users', async () => {
    const transport = new Transport(server.kubeConfig());
    try {
      const shared = new EventBroadcaster(transport, { clock, logger: memoryLogger() });
      shared.newRecorder({ component: 'c' }).event(configMap('web'), 'Normal', 'One', 'x');
      await shared.close();
      await events.list(); // the test's own client still works
      const again = new EventBroadcaster(transport, { clock, logger: memoryLogger() });
      again.newRecorder({ component: 'c' }).event(configMap('web'), 'Normal', 'Two', 'x');
      await again.close();
      assert.deepEqual(
        (await stored()).map((e) => e.reason),
        ['One', 'Two'],
        'the shared transport was still usable after the first close',
      );
    } finally {
      transport.close();
    }
  });

  test('close writes what is queued; events recorded after close are dropped and counted', async () => {
    const metrics = countingMetrics();
    const { broadcaster, recorder } = make({ metricsProvider: metrics });
    recorder.event(configMap('a'), 'Normal', 'One', 'x');
    recorder.event(configMap('b'), 'Normal', 'Two', 'x');
    await broadcaster.close();
    assert.equal((await stored()).length, 2);
    recorder.event(configMap('c'), 'Normal', 'Three', 'x');
    assert.equal(broadcaster.dropped, 1);
    assert.equal(metrics.dropped.get('events'), 1);
  });

  test('close with a signal that aborts cancels a write in flight and resolves without waiting for it', async () => {
    const { broadcaster, recorder, logger } = make();
    const removeLatency = server.faults.addLatency(30_000, { resource: 'events', verb: 'create' });
    try {
      recorder.event(configMap('slow'), 'Normal', 'Slow', 'x');
      assert.equal(broadcaster.queued, 0, 'the writer took the event: its create is in flight');
      const started = Date.now();
      const stop = new AbortController();
      const closed = broadcaster.close(stop.signal);
      await flushAsync(20);
      stop.abort();
      await closed;
      assert.ok(Date.now() - started < 5_000, 'close did not wait for the slow write');
      assert.ok(logger.lines.some((l) => /broadcaster is shut down/.test(l.message)));
    } finally {
      removeLatency();
    }
  });

  test('an object from a lister (no apiVersion/kind) is referenced through its ApiResource with getReference', async () => {
    const { broadcaster, recorder } = make();
    const fromLister = { metadata: { name: 'web-0', namespace: 'default', uid: 'p1' } };
    assert.throws(() => getReference(fromLister), InvalidObjectReferenceError);
    recorder.event(getReference(fromLister, podsResource), 'Normal', 'Seen', 'x');
    await broadcaster.close();
    const [ev] = await stored();
    assert.deepEqual(ev?.involvedObject, {
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'web-0',
      namespace: 'default',
      uid: 'p1',
    });
    assert.deepEqual(
      getReference({ metadata: { name: 'd' } }, deploymentsResource).apiVersion,
      'apps/v1',
    );
  });

  test('invalid input is logged and dropped, never thrown: unknown type, object without kind', async () => {
    const { broadcaster, recorder, logger } = make();
    assert.doesNotThrow(() => {
      recorder.event(configMap('web'), 'Info' as 'Normal', 'R', 'x');
      recorder.event({ metadata: { name: 'nokind' } }, 'Normal', 'R', 'x');
    });
    await broadcaster.close();
    assert.equal((await stored()).length, 0);
    assert.ok(logger.lines.some((l) => /unsupported event type "Info"/.test(l.message)));
    assert.ok(logger.lines.some((l) => /has no apiVersion, kind/.test(l.message)));
  });

  test('a write the server rejects is logged, not retried, and never rejects flush', async () => {
    const { broadcaster, recorder, logger } = make();
    server.faults.failNext(1, { code: 500, verb: 'create', resource: 'events' });
    recorder.event(configMap('web'), 'Normal', 'Rejected', 'x');
    recorder.event(configMap('web'), 'Normal', 'Accepted', 'x');
    await broadcaster.close();
    const evs = await stored();
    assert.deepEqual(
      evs.map((e) => e.reason),
      ['Accepted'],
    );
    assert.ok(logger.lines.some((l) => l.level === 'error' && /server rejected/.test(l.message)));
  });
});

describe('event recorder retries when the server does not answer', () => {
  test('a write that gets no answer is retried 12 times, 10 s apart on the clock, then given up', async () => {
    const server = await startTestApiServer();
    const kc = server.kubeConfig();
    await server.close(); // nothing listens there any more
    const clock = new FakeClock(START);
    const logger = memoryLogger();
    const broadcaster = new EventBroadcaster(kc, { clock, logger, random: () => 0.5 });
    broadcaster.newRecorder({ component: 'c' }).event(configMap('web'), 'Normal', 'R', 'x');
    const sleeps: number[] = [];
    for (let i = 1; i < 12; i++) {
      await clock.waitForTimers(1, 1_000_000);
      const at = clock.nextTimerAt() ?? 0;
      sleeps.push(at - clock.now());
      await clock.advance(at - clock.now());
    }
    await broadcaster.flush();
    const tries = logger.lines.filter((l) => /may retry/.test(l.message)).length;
    assert.equal(tries, 12);
    assert.deepEqual(sleeps, [5000, ...Array<number>(10).fill(10_000)]);
    assert.ok(logger.lines.some((l) => /retry limit exceeded/.test(l.message)));
    await broadcaster.close();
  });

  test('close with an aborted signal stops the retries at once and drops what is left', async () => {
    const server = await startTestApiServer();
    const kc = server.kubeConfig();
    await server.close();
    const clock = new FakeClock(START);
    const logger = memoryLogger();
    const broadcaster = new EventBroadcaster(kc, { clock, logger });
    const recorder = broadcaster.newRecorder({ component: 'c' });
    recorder.event(configMap('a'), 'Normal', 'R', 'x');
    recorder.event(configMap('b'), 'Normal', 'R', 'x');
    await clock.waitForTimers(1, 1_000_000);
    await broadcaster.close(AbortSignal.abort());
    assert.equal(clock.pendingTimers(), 0, 'no retry timer is left');
    assert.equal(broadcaster.dropped, 1);
    assert.ok(logger.lines.some((l) => /broadcaster is shut down/.test(l.message)));
  });
});

describe('dropped events in Prometheus', () => {
  test('event_recorder_dropped_events_total{name} counts events dropped from a full queue', async () => {
    const { Registry } = await import('prom-client');
    const { PrometheusEventMetricsProvider } = await import('../../src/metrics/index.js');
    const registry = new Registry();
    const server = await startTestApiServer();
    try {
      const broadcaster = new EventBroadcaster(server.kubeConfig(), {
        queueLength: 1,
        name: 'operator',
        logger: memoryLogger(),
        metricsProvider: new PrometheusEventMetricsProvider({ registry }),
      });
      const recorder = broadcaster.newRecorder({ component: 'c' });
      for (let i = 0; i < 5; i++) recorder.event(configMap('web'), 'Normal', `R${i}`, 'x');
      await broadcaster.close();
      const text = await registry.metrics();
      assert.match(text, /^event_recorder_dropped_events_total\{name="operator"\} 3$/m);
    } finally {
      await server.close();
    }
  });
});
