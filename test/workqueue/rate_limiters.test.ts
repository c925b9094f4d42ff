import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BucketRateLimiter,
  InvalidRateLimiterError,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from '../../src/workqueue/index.js';
import type { RateLimiter } from '../../src/workqueue/index.js';
import { FakeClock } from '../../src/util/clock.js';

const seq = (l: RateLimiter<string>, item: string, n: number): number[] =>
  Array.from({ length: n }, () => l.when(item));

describe('ItemExponentialFailureRateLimiter', () => {
  test('delays double from base per failure and are capped at max', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    assert.deepEqual(seq(l, 'a', 12), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000]);
    assert.equal(l.numRequeues('a'), 12);
  });

  test('items have separate histories; forget resets one item', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    assert.deepEqual(seq(l, 'a', 3), [5, 10, 20]);
    assert.deepEqual(seq(l, 'b', 2), [5, 10]);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.equal(l.when('a'), 5);
    assert.equal(l.numRequeues('b'), 2);
  });

  test('a huge failure count cannot overflow: the delay stays at max', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = l.when('a');
    assert.equal(last, 1_000_000);
    assert.equal(Number.isFinite(last), true);
  });

  test('a zero base always gives 0', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(0, 1000);
    assert.deepEqual(seq(l, 'a', 3), [0, 0, 0]);
    for (let i = 0; i < 1100; i++) l.when('a');
    assert.equal(l.when('a'), 0);
  });

  test('a negative delay is rejected with InvalidRateLimiterError', () => {
    assert.throws(() => new ItemExponentialFailureRateLimiter(-1, 10), InvalidRateLimiterError);
  });

  test('defaultItemBasedRateLimiter is 1 ms doubling to 1000 s', () => {
    const l = defaultItemBasedRateLimiter<string>();
    assert.deepEqual(seq(l, 'a', 3), [1, 2, 4]);
    for (let i = 0; i < 30; i++) l.when('a');
    assert.equal(l.when('a'), 1_000_000);
  });
});

describe('BucketRateLimiter', () => {
  test('the first burst calls pass, then each waits 1/qps more (tokens go into debt)', () => {
    const clock = new FakeClock(0);
    const l = new BucketRateLimiter<string>(10, 3, clock);
    assert.deepEqual(seq(l, 'x', 6), [0, 0, 0, 100, 200, 300]);
  });

  test('tokens refill at qps over clock time, up to burst', () => {
    const clock = new FakeClock(0);
    const l = new BucketRateLimiter<string>(10, 2, clock);
    assert.deepEqual(seq(l, 'x', 3), [0, 0, 100]); // debt of one token
    clock.advanceSync(250); // +2.5 tokens → 1.5 left
    assert.deepEqual(seq(l, 'x', 3), [0, 50, 150]);
    clock.advanceSync(10_000); // refill is capped at burst
    assert.deepEqual(seq(l, 'x', 3), [0, 0, 100]);
  });

  test('it is global: the item does not matter, numRequeues is 0, forget does nothing', () => {
    const clock = new FakeClock(0);
    const l = new BucketRateLimiter<string>(1, 1, clock);
    assert.equal(l.when('a'), 0);
    assert.equal(l.when('b'), 1000);
    l.forget('b');
    assert.equal(l.when('c'), 2000);
    assert.equal(l.numRequeues('a'), 0);
  });

  test('an infinite qps never delays; burst 0 never allows (Infinity)', () => {
    const l = new BucketRateLimiter<string>(Number.POSITIVE_INFINITY, 0, new FakeClock(0));
    assert.deepEqual(seq(l, 'x', 3), [0, 0, 0]);
    const none = new BucketRateLimiter<string>(10, 0, new FakeClock(0));
    assert.equal(none.when('x'), Number.POSITIVE_INFINITY);
  });

  test('qps 0 allows only the burst, then Infinity', () => {
    const l = new BucketRateLimiter<string>(0, 2, new FakeClock(0));
    assert.deepEqual(seq(l, 'x', 3), [0, 0, Number.POSITIVE_INFINITY]);
  });

  test('invalid qps or burst is rejected', () => {
    assert.throws(() => new BucketRateLimiter(-1, 1), InvalidRateLimiterError);
    assert.throws(() => new BucketRateLimiter(1, 1.5), InvalidRateLimiterError);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  test('fast for the first maxFastAttempts attempts, then slow; per item; forget resets', () => {
    const l = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
    assert.deepEqual(seq(l, 'a', 5), [5, 5, 5, 10_000, 10_000]);
    assert.equal(l.numRequeues('a'), 5);
    assert.equal(l.when('b'), 5);
    l.forget('a');
    assert.equal(l.when('a'), 5);
    assert.equal(l.numRequeues('a'), 1);
  });
});

describe('MaxOfRateLimiter', () => {
  test('returns the largest delay and calls every limiter each time', () => {
    const fastSlow = new ItemFastSlowRateLimiter<string>(5, 3000, 3);
    const exp = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const l = new MaxOfRateLimiter<string>(fastSlow, exp);
    assert.deepEqual(seq(l, 'a', 6), [5, 5, 5, 3000, 3000, 3000]);
    assert.equal(exp.numRequeues('a'), 6, 'the smaller limiter was called too');
    assert.equal(l.numRequeues('a'), 6);
    l.forget('a');
    assert.equal(fastSlow.numRequeues('a'), 0);
    assert.equal(exp.numRequeues('a'), 0);
  });
});

describe('WithMaxWaitRateLimiter', () => {
  test('clamps the inner delay at maxDelay and delegates forget/numRequeues', () => {
    const l = new WithMaxWaitRateLimiter<string>(
      new ItemExponentialFailureRateLimiter(100, 100_000),
      500,
    );
    assert.deepEqual(seq(l, 'a', 5), [100, 200, 400, 500, 500]);
    assert.equal(l.numRequeues('a'), 5);
    l.forget('a');
    assert.equal(l.when('a'), 100);
  });
});

describe('defaultControllerRateLimiter', () => {
  test('is max(exponential 5 ms → 1000 s, bucket 10 qps burst 100): exact sequence', () => {
    const clock = new FakeClock(0);
    const l = defaultControllerRateLimiter<string>(clock);
    // Per-item exponential for one item: 5, 10, 20, ...; bucket still has tokens.
    assert.deepEqual(seq(l, 'a', 5), [5, 10, 20, 40, 80]);
    // 95 more distinct items use up the burst of 100 at 5 ms each.
    for (let i = 0; i < 95; i++) assert.equal(l.when(`k${i}`), 5);
    // The bucket is now empty: new items wait 100 ms, 200 ms, ... (global 10 qps).
    assert.deepEqual([l.when('n1'), l.when('n2'), l.when('n3')], [100, 200, 300]);
    // Exponential dominates for an item with many failures: 'a' is at 2^5·5 = 160 < 400.
    assert.equal(l.when('a'), 400);
    assert.equal(l.numRequeues('a'), 6);
  });

  test('reaches the 1000 s cap', () => {
    const l = defaultControllerRateLimiter<string>(new FakeClock(0));
    let last = 0;
    for (let i = 0; i < 40; i++) last = l.when('a');
    assert.equal(last, 1_000_000);
  });
});
