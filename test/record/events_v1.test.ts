import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ResourceClient } from '../../src/client/resource_client.js';
import {
  EventBroadcaster,
  SERIES_FINISH_MS,
  SERIES_REFRESH_MS,
  eventsV1Resource,
} from '../../src/record/index.js';
import type { EventsV1Event } from '../../src/record/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { eventually } from '../support/eventually.js';
import { configMap, memoryLogger } from './support.js';

const START = Date.UTC(2026, 0, 1);

describe('event recorder, events.k8s.io/v1 backend, against the in-memory API server', () => {
  let server: TestApiServer;
  let events: ResourceClient<EventsV1Event>;
  let clock: FakeClock;

  before(async () => {
    server = await startTestApiServer();
    events = new ResourceClient(server.kubeConfig(), eventsV1Resource).namespace('default');
  });
  after(async () => {
    await server.close();
  });
  beforeEach(async () => {
    await events.deleteCollection();
    clock = new FakeClock(START);
  });

  function make() {
    const broadcaster = new EventBroadcaster(server.kubeConfig(), {
      api: 'events.k8s.io/v1',
      clock,
      logger: memoryLogger(),
    });
    const recorder = broadcaster.newRecorder({
      component: 'example.com/app-controller',
      host: 'pod-0',
    });
    return { broadcaster, recorder };
  }

  let seen = 0;
  beforeEach(() => {
    seen = server.requests.length;
  });
  /** Writes of events.k8s.io events since the test started. */
  const writes = (): string[] =>
    server.requests
      .slice(seen)
      .filter((r) => r.url.includes('/apis/events.k8s.io/v1/') && r.method !== 'GET')
      .map((r) => r.method);

  test('an event carries regarding, related, action, note, eventTime as MicroTime and the reporter', async () => {
    const { broadcaster, recorder } = make();
    recorder.record({
      regarding: configMap('web'),
      related: configMap('source'),
      type: 'Normal',
      reason: 'Copied',
      action: 'Copy',
      message: 'copied data',
    });
    await broadcaster.close();
    const [ev, ...rest] = (await events.list()).items;
    assert.equal(rest.length, 0);
    assert.equal(ev?.eventTime, '2026-01-01T00:00:00.000000Z');
    assert.equal(ev?.reportingController, 'example.com/app-controller');
    assert.equal(ev?.reportingInstance, 'pod-0');
    assert.equal(ev?.action, 'Copy');
    assert.equal(ev?.reason, 'Copied');
    assert.equal(ev?.note, 'copied data');
    assert.equal(ev?.regarding?.name, 'web');
    assert.equal(ev?.regarding?.uid, 'uid-web');
    assert.equal(ev?.related?.name, 'source');
    assert.equal(ev?.series, undefined);
  });

  test('event() sets the action to the reason', async () => {
    const { broadcaster, recorder } = make();
    recorder.event(configMap('web'), 'Warning', 'Failed', 'boom');
    await broadcaster.close();
    const [ev] = (await events.list()).items;
    assert.equal(ev?.action, 'Failed');
    assert.equal(ev?.type, 'Warning');
  });

  test('the second isomorphic event starts a series (count 2) by patch; later ones count in memory until flush', async () => {
    const { broadcaster, recorder } = make();
    recorder.event(configMap('web'), 'Normal', 'Synced', 'ok');
    await broadcaster.flush();
    await clock.advance(1000);
    recorder.event(configMap('web'), 'Normal', 'Synced', 'ok again'); // the note is not part of the key
    await broadcaster.flush();
    let [ev] = (await events.list()).items;
    assert.deepEqual(ev?.series, { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' });
    assert.deepEqual(writes(), ['POST', 'PATCH']);

    await clock.advance(1000);
    recorder.event(configMap('web'), 'Normal', 'Synced', 'ok');
    recorder.event(configMap('web'), 'Normal', 'Synced', 'ok');
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(writes(), ['POST', 'PATCH'], 'repeats of a series are not written one by one');
    await broadcaster.close();
    [ev] = (await events.list()).items;
    assert.deepEqual(ev?.series, { count: 4, lastObservedTime: '2026-01-01T00:00:02.000000Z' });
    assert.equal((await events.list()).items.length, 1);
  });

  test('a series count that moved is written by the 30-minute refresh, from the clock', async () => {
    const { broadcaster, recorder } = make();
    const key = configMap('web');
    recorder.event(key, 'Normal', 'Tick', 'x');
    await broadcaster.flush();
    recorder.event(key, 'Normal', 'Tick', 'x');
    await broadcaster.flush();
    assert.deepEqual(writes(), ['POST', 'PATCH']);
    // Repeats every 5 minutes keep the series alive; no flush, so only the timer writes.
    for (let t = 0; t < SERIES_REFRESH_MS - 5 * 60_000; t += 5 * 60_000) {
      recorder.event(key, 'Normal', 'Tick', 'x');
      await clock.advance(5 * 60_000);
    }
    recorder.event(key, 'Normal', 'Tick', 'x');
    await flushAsync();
    assert.deepEqual(writes(), ['POST', 'PATCH'], 'nothing written before 30 minutes');
    await clock.advance(5 * 60_000);
    await eventually('the refresh patch', () => writes().length === 3);
    await eventually('the refreshed count', async () => {
      const [ev] = (await events.list()).items;
      return ev?.series?.count === 8;
    });
    await broadcaster.close();
    assert.equal(clock.pendingTimers(), 0, 'close cancels the series timer');
  });

  test('a series ends after 6 minutes without repeats: the next occurrence is a new event', async () => {
    const { broadcaster, recorder } = make();
    recorder.event(configMap('web'), 'Normal', 'Tick', 'x');
    await broadcaster.flush();
    await clock.advance(SERIES_FINISH_MS + 1000);
    await clock.advance(SERIES_FINISH_MS);
    recorder.event(configMap('web'), 'Normal', 'Tick', 'x');
    await broadcaster.close();
    assert.equal((await events.list()).items.length, 2);
  });
});
