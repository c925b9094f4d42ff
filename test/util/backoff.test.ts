import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Backoff,
  DelayWithReset,
  defaultReflectorBackoff,
  jitter,
} from '../../src/util/backoff.js';
import { FakeClock } from '../../src/util/clock.js';

const zero = (): number => 0;
const almostOne = (): number => 0.999999;

describe('Backoff', () => {
  test('the reflector default doubles from 800 ms and settles at the 30 s cap', () => {
    const b = new Backoff(defaultReflectorBackoff, zero);
    const seq = Array.from({ length: 9 }, () => b.step());
    assert.deepEqual(seq, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  test('jitter 1.0 keeps every delay within [d, 2d)', () => {
    for (const random of [zero, almostOne, Math.random]) {
      const b = new Backoff(defaultReflectorBackoff, random);
      let d = 800;
      for (let i = 0; i < 10; i++) {
        const got = b.step();
        assert.ok(got >= d && got < 2 * d, `step ${i}: ${got} not in [${d}, ${2 * d})`);
        d = Math.min(d * 2, 30_000);
      }
    }
  });

  test('reaching the cap drops the remaining steps to 0', () => {
    const b = new Backoff({ durationMs: 10, factor: 10, steps: 5, capMs: 50 }, zero);
    assert.equal(b.step(), 10);
    assert.equal(b.stepsRemaining, 0);
    assert.equal(b.step(), 50);
  });

  test('without steps left the delay stops growing', () => {
    const b = new Backoff({ durationMs: 10, factor: 2, steps: 2 }, zero);
    assert.deepEqual([b.step(), b.step(), b.step(), b.step()], [10, 20, 40, 40]);
  });

  test('jitter with a non-positive factor counts as 1', () => {
    assert.equal(
      jitter(100, 0, () => 0.5),
      150,
    );
    assert.equal(
      jitter(100, 0.1, () => 0.5),
      105,
    );
  });
});

describe('DelayWithReset', () => {
  test('starts over once more than resetAfterMs has passed since the last reset, not since the last failure', async () => {
    const clock = new FakeClock(0);
    const d = new DelayWithReset(defaultReflectorBackoff, {
      resetAfterMs: 120_000,
      clock,
      random: zero,
    });
    assert.deepEqual([d.next(), d.next(), d.next()], [800, 1600, 3200]);
    // Failures keep coming every 50 s: the reset is measured from creation, not from the last failure.
    await clock.advance(50_000);
    assert.equal(d.next(), 6400);
    await clock.advance(50_000);
    assert.equal(d.next(), 12800);
    await clock.advance(20_000); // exactly 120 s: not more than the period yet
    assert.equal(d.next(), 25600);
    await clock.advance(1);
    assert.equal(d.next(), 800);
    assert.equal(d.next(), 1600);
  });

  test('resetAfterMs 0 never resets', async () => {
    const clock = new FakeClock(0);
    const d = new DelayWithReset(
      { durationMs: 1, factor: 2, capMs: 1000 },
      { resetAfterMs: 0, clock, random: zero },
    );
    d.next();
    await clock.advance(10_000_000);
    assert.equal(d.next(), 2);
  });
});
