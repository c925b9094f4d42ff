// waitForCacheSync and waitForInformersSync: resolve when every cache synced, false on
// abort, and with a timeout throw CacheSyncTimeoutError naming what did not sync and why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CacheSyncTimeoutError,
  waitForCacheSync,
  waitForCacheSyncWithOptions,
  waitForInformersSync,
} from '../../src/cache/wait.js';
import { FakeClock } from '../../src/util/clock.js';

test('with a timeout, giving up throws CacheSyncTimeoutError naming each source that did not sync and its last error', async () => {
  const clock = new FakeClock(0);
  const ac = new AbortController();
  const waiting = waitForInformersSync(
    ac.signal,
    [
      { name: 'pods', hasSynced: () => true },
      {
        name: 'secrets',
        hasSynced: () => false,
        lastError: () => ({ error: new Error('secrets is forbidden'), sinceMs: 200 }),
      },
      { name: 'leases', hasSynced: () => false },
    ],
    { clock, timeoutMs: 1000 },
  );
  const settled = waiting.then(
    () => 'resolved',
    (e: unknown) => e,
  );
  await clock.advance(999);
  await clock.advance(1);
  const err = await settled;
  assert.ok(err instanceof CacheSyncTimeoutError, String(err));
  assert.deepEqual(
    err.notSynced.map((n) => n.name),
    ['secrets', 'leases'],
  );
  assert.match(err.message, /within 1000 ms/);
  assert.match(err.message, /secrets \(last error, for 800 ms: secrets is forbidden\)/);
  assert.match(err.message, /leases \(no error reported\)/);
  assert.equal(clock.pendingTimers(), 0);
});

test('waitForCacheSyncWithOptions names functions by `names` in its timeout error', async () => {
  const clock = new FakeClock(0);
  const p = waitForCacheSyncWithOptions(new AbortController().signal, [() => false], {
    clock,
    timeoutMs: 50,
    names: ['pods informer'],
  }).catch((e: unknown) => e);
  await clock.advance(50);
  const err = await p;
  assert.ok(err instanceof CacheSyncTimeoutError);
  assert.match(err.message, /pods informer \(no error reported\)/);
});

test('without a timeout it resolves true once every function returns true, false on abort', async () => {
  const clock = new FakeClock(0);
  let synced = false;
  const p = waitForCacheSyncWithOptions(new AbortController().signal, [() => synced], { clock });
  await clock.advance(100);
  synced = true;
  await clock.advance(100);
  assert.equal(await p, true);
  const ac = new AbortController();
  const q = waitForCacheSync(ac.signal, () => false);
  ac.abort();
  assert.equal(await q, false);
});
