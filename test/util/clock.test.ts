import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, RealClock } from '../../src/util/clock.js';

describe('FakeClock', () => {
  test('timers fire in time order, ties in the order they were set', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => fired.push('a@10'), 10);
    clock.setTimeout(() => fired.push('c@20'), 20);
    await clock.advance(15);
    assert.deepEqual(fired, ['a@10']);
    assert.equal(clock.now(), 15);
    await clock.advance(5);
    assert.deepEqual(fired, ['a@10', 'b@20', 'c@20']);
  });

  test('now() inside a callback is the timer due time, not the advance target', async () => {
    const clock = new FakeClock(1000);
    let seen = 0;
    clock.setTimeout(() => (seen = clock.now()), 30);
    await clock.advance(100);
    assert.equal(seen, 1030);
    assert.equal(clock.now(), 1100);
  });

  test('a timer set by a promise continuation during advance fires within the same advance', async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const loop = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(10);
        fired.push(clock.now());
      }
    };
    const done = loop();
    await clock.advance(30);
    await done;
    assert.deepEqual(fired, [10, 20, 30]);
  });

  test('a cancelled timer never fires', async () => {
    const clock = new FakeClock(0);
    let fired = false;
    const t = clock.setTimeout(() => (fired = true), 5);
    t.cancel();
    t.cancel();
    await clock.advance(10);
    assert.equal(fired, false);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('sleep rejects with the signal reason on abort and leaves no timer behind', async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const slept = clock.sleep(1000, ac.signal);
    assert.equal(clock.pendingTimers(), 1);
    ac.abort(new Error('stop'));
    await assert.rejects(slept, /stop/);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('sleep with an already aborted signal rejects without scheduling', async () => {
    const clock = new FakeClock(0);
    await assert.rejects(clock.sleep(10, AbortSignal.abort(new Error('gone'))), /gone/);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('waitForTimers fails instead of hanging when no timer is ever set', async () => {
    const clock = new FakeClock(0);
    await assert.rejects(clock.waitForTimers(1, 10), /expected 1 pending timer/);
  });
});

describe('RealClock', () => {
  test('sleep resolves after the delay and cancel stops a timer', async () => {
    const clock = new RealClock();
    let fired = false;
    clock.setTimeout(() => (fired = true), 1).cancel();
    const start = clock.now();
    await clock.sleep(5);
    assert.ok(clock.now() - start >= 4);
    assert.equal(fired, false);
  });
});
