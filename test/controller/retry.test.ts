import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ApiError, isConflict } from '../../src/client/errors.js';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import {
  DefaultBackoff,
  DefaultRetry,
  onError,
  retryOnConflict,
} from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';

const conflict = (): ApiError =>
  new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 409,
    reason: 'Conflict',
    message: 'conflict',
  });

/** Runs `p` to completion under a fake clock, recording each sleep's length. */
async function drive<T>(
  clock: FakeClock,
  p: Promise<T>,
): Promise<{ sleeps: number[]; result: PromiseSettledResult<T> }> {
  const sleeps: number[] = [];
  let settled: PromiseSettledResult<T> | undefined;
  p.then(
    (value) => (settled = { status: 'fulfilled', value }),
    (reason: unknown) => (settled = { status: 'rejected', reason }),
  );
  for (let i = 0; i < 100 && settled === undefined; i++) {
    const before = clock.now();
    if (await clock.runNext()) sleeps.push(clock.now() - before);
  }
  assert.ok(settled, 'settled');
  return { sleeps, result: settled };
}

describe('retryOnConflict and onError (fake clock)', () => {
  test('the client-go numbers: DefaultRetry is 5 steps of 10 ms, factor 1, jitter 0.1; DefaultBackoff 4 steps of 10 ms, factor 5', () => {
    assert.deepEqual({ ...DefaultRetry }, { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 });
    assert.deepEqual({ ...DefaultBackoff }, { steps: 4, durationMs: 10, factor: 5, jitter: 0.1 });
  });

  test('retryOnConflict with DefaultRetry tries 5 times, 10 ms apart, then throws the last conflict', async () => {
    const clock = new FakeClock();
    const errors: ApiError[] = [];
    let attempts = 0;
    const { sleeps, result } = await drive(
      clock,
      retryOnConflict(
        () => {
          attempts++;
          const e = conflict();
          errors.push(e);
          throw e;
        },
        DefaultRetry,
        { clock, random: () => 0 },
      ),
    );
    assert.equal(attempts, 5);
    assert.deepEqual(sleeps, [10, 10, 10, 10]);
    assert.equal(result.status, 'rejected');
    assert.equal(result.reason, errors[4], 'the last error');
  });

  test('DefaultBackoff sleeps 10, 50, 250 ms between its 4 attempts; jitter adds up to 10 %', async () => {
    const clock = new FakeClock();
    const run = (random: () => number) =>
      drive(
        clock,
        onError(DefaultBackoff, isConflict, () => Promise.reject(conflict()), { clock, random }),
      );
    assert.deepEqual((await run(() => 0)).sleeps, [10, 50, 250]);
    const jittered = (await run(() => 0.999)).sleeps;
    assert.deepEqual(
      jittered.map((s) => Math.floor(s)),
      [10, 54, 274],
    );
  });

  test('a non-retriable error is thrown at once, with no further attempt or sleep', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const boom = new Error('not a conflict');
    const { sleeps, result } = await drive(
      clock,
      retryOnConflict(
        () => {
          attempts++;
          if (attempts === 1) throw conflict();
          throw boom;
        },
        DefaultRetry,
        { clock },
      ),
    );
    assert.equal(attempts, 2);
    assert.equal(sleeps.length, 1);
    assert.equal((result as PromiseRejectedResult).reason, boom);
  });

  test('success resolves with the value and passes the attempt number', async () => {
    const clock = new FakeClock();
    const { result } = await drive(
      clock,
      retryOnConflict(
        (attempt) => {
          if (attempt < 3) throw conflict();
          return `ok on ${attempt}`;
        },
        DefaultRetry,
        { clock },
      ),
    );
    assert.deepEqual(result, { status: 'fulfilled', value: 'ok on 3' });
  });

  test('aborting the signal during a sleep rejects with its reason and stops retrying', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    let attempts = 0;
    const p = retryOnConflict(
      () => {
        attempts++;
        throw conflict();
      },
      DefaultRetry,
      { clock, signal: ac.signal },
    );
    await clock.waitForTimers(1);
    ac.abort(new Error('stopped'));
    await assert.rejects(p, /stopped/);
    assert.equal(attempts, 1);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('steps below 1 fail with a RangeError', async () => {
    await assert.rejects(
      onError(
        { durationMs: 1, steps: 0 },
        () => true,
        () => 1,
      ),
      RangeError,
    );
  });
});

describe('retryOnConflict against the in-memory API server', () => {
  type ConfigMap = Serialized<V1ConfigMap>;
  let server: TestApiServer;
  let client: ResourceClient<ConfigMap>;
  before(async () => {
    server = await startTestApiServer();
    client = new ResourceClient(server.kubeConfig(), configMapsResource).namespace('default');
  });
  after(async () => {
    await server.close();
  });

  test('an update with a stale resourceVersion gets a real 409, and re-reading on retry succeeds', async () => {
    await client.create({ metadata: { name: 'counter' }, data: { n: '0' } });
    const stale = await client.get('counter');
    let attempts = 0;
    let seen: unknown;
    const updated = await retryOnConflict(async () => {
      attempts++;
      // The first attempt writes the stale copy after someone else changed the object.
      let current: ConfigMap;
      if (attempts === 1) {
        await client.update({ ...stale, data: { n: '1' } });
        current = stale;
      } else {
        current = await client.get('counter');
      }
      try {
        return await client.update({
          ...current,
          data: { n: String(Number(current.data?.['n']) + 10) },
        });
      } catch (err) {
        seen = err;
        throw err;
      }
    });
    assert.equal(attempts, 2);
    assert.ok(isConflict(seen), 'the first attempt hit a 409');
    assert.equal(seen.code, 409);
    assert.equal(updated.data?.['n'], '11');
  });

  test('a persistent conflict ends with the last 409 after 5 attempts', async () => {
    await client.create({ metadata: { name: 'stuck' }, data: {} });
    const stale = await client.get('stuck');
    await client.update({ ...stale, data: { x: 'moved on' } });
    let attempts = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        attempts++;
        return client.update({ ...stale, data: { x: 'stale write' } });
      }),
      (err: unknown) => isConflict(err) && err.code === 409,
    );
    assert.equal(attempts, 5);
  });
});
