import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConsistencyStore,
  StaleCacheError,
  resourceVersionAtLeast,
} from '../../src/cache/index.js';
import { FakeClock } from '../../src/util/clock.js';

describe('ConsistencyStore (Kubernetes pkg/controller/util/consistency)', () => {
  test('resourceVersions compare as integers; one that is not an integer cannot be waited for', () => {
    assert.equal(resourceVersionAtLeast('10', '9'), true, 'not as strings');
    assert.equal(resourceVersionAtLeast('9', '10'), false);
    assert.equal(resourceVersionAtLeast('10', '10'), true);
    assert.equal(resourceVersionAtLeast('', '10'), false, 'nothing seen yet');
    assert.equal(resourceVersionAtLeast('5', 'opaque'), true);
  });

  test('WroteAt / EnsureReady / Clear: ready once the store reached the newest write of the key', () => {
    let storeRV = '5';
    const store = new ConsistencyStore({ storeResourceVersion: () => storeRV });
    assert.equal(store.ensureReady('ns/a'), true, 'no write: ready');
    store.wroteAt('ns/a', '7');
    store.wroteAt('ns/a', '6'); // an older answer does not lower the bar
    assert.equal(store.ensureReady('ns/a'), false);
    assert.equal(store.ensureAllReady(), false);
    storeRV = '6';
    assert.equal(store.ensureReady('ns/a'), false);
    storeRV = '7';
    assert.equal(store.ensureReady('ns/a'), true);
    assert.equal(store.pendingLen(), 0, 'cleared once ready');
    store.wroteAt('ns/b', '9');
    store.clear('ns/b');
    assert.equal(store.ensureReady('ns/b'), true);
  });

  test('isOwnWrite tells the echo of each own write once, and nothing else', () => {
    const store = new ConsistencyStore({ storeResourceVersion: () => '0' });
    store.wroteAt('ns/a', '11');
    assert.equal(store.isOwnWrite('ns/a', '12'), false, 'someone else’s change');
    assert.equal(store.isOwnWrite('ns/b', '11'), false, 'another key');
    assert.equal(store.isOwnWrite('ns/a', '11'), true);
    assert.equal(store.isOwnWrite('ns/a', '11'), false, 'once');
  });

  test('waitReady resolves when the store catches up, fails in words after the timeout, and stops on abort', async () => {
    const clock = new FakeClock(0);
    let storeRV = '1';
    const store = new ConsistencyStore({
      storeResourceVersion: () => storeRV,
      clock,
      what: 'the pods cache',
    });
    store.wroteAt('ns/a', '3');
    let done = false;
    const waiting = store.waitReady('ns/a', { timeoutMs: 1000 }).then(() => (done = true));
    await clock.advance(20);
    assert.equal(done, false);
    storeRV = '3';
    await clock.advance(5);
    await waiting;
    assert.equal(done, true);

    store.wroteAt('ns/a', '4');
    const stale = store.waitReady('ns/a', { timeoutMs: 100 });
    const rejected = assert.rejects(
      stale,
      (err: unknown) =>
        err instanceof StaleCacheError &&
        /the pods cache has seen resourceVersion 3 but this process wrote ns\/a at resourceVersion 4/.test(
          err.message,
        ),
    );
    await clock.advance(100);
    await rejected;

    const ac = new AbortController();
    const aborted = store.waitReady(undefined, { timeoutMs: 1000, signal: ac.signal });
    ac.abort(new Error('stop'));
    await assert.rejects(aborted, /stop/);
    assert.equal(clock.pendingTimers(), 0, 'no timer outlives the wait');
  });
});
