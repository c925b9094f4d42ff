// SharedTimers: many deadlines on one timer of a clock, each behaving as a timer of that
// clock (runs once at its deadline, in deadline order, cancellable), with no timer left once
// no deadline is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedTimers, sharedTimers } from '../../src/cache/shared_timers.js';
import { FakeClock } from '../../src/util/clock.js';

test('deadlines run at their time, earliest first (ties in the order set), on one timer of the clock', async () => {
  const clock = new FakeClock(0);
  const timers = new SharedTimers(clock);
  const ran: string[] = [];
  timers.setTimeout(() => ran.push(`c@${clock.now()}`), 300);
  timers.setTimeout(() => ran.push(`a@${clock.now()}`), 100);
  timers.setTimeout(() => ran.push(`b@${clock.now()}`), 100);
  timers.setTimeout(() => ran.push(`d@${clock.now()}`), 1000);
  assert.equal(clock.pendingTimers(), 1);
  await clock.advance(99);
  assert.deepEqual(ran, []);
  await clock.advance(1);
  assert.deepEqual(ran, ['a@100', 'b@100']);
  await clock.advance(500);
  assert.deepEqual(ran, ['a@100', 'b@100', 'c@300']);
  assert.equal(clock.pendingTimers(), 1);
  await clock.advance(400);
  assert.deepEqual(ran, ['a@100', 'b@100', 'c@300', 'd@1000']);
  assert.equal(clock.pendingTimers(), 0, 'no deadline left, no timer left');
  assert.equal(timers.size, 0);
});

test('a cancelled deadline never runs, also when an earlier one due at the same time cancels it; the last cancel leaves no timer', async () => {
  const clock = new FakeClock(0);
  const timers = new SharedTimers(clock);
  const ran: string[] = [];
  timers.setTimeout(() => {
    ran.push('first');
    second.cancel();
  }, 50);
  const second = timers.setTimeout(() => ran.push('second'), 50);
  const third = timers.setTimeout(() => ran.push('third'), 80);
  third.cancel();
  third.cancel();
  await clock.advance(100);
  assert.deepEqual(ran, ['first']);
  const late = timers.setTimeout(() => ran.push('late'), 10);
  assert.equal(clock.pendingTimers(), 1);
  late.cancel();
  assert.equal(clock.pendingTimers(), 0);
  await clock.advance(100);
  assert.deepEqual(ran, ['first']);
});

test('a deadline earlier than the armed one moves the timer; one set from a callback runs when due', async () => {
  const clock = new FakeClock(0);
  const timers = new SharedTimers(clock);
  const ran: number[] = [];
  timers.setTimeout(() => ran.push(clock.now()), 1000);
  timers.setTimeout(() => {
    ran.push(clock.now());
    timers.setTimeout(() => ran.push(clock.now()), 100);
  }, 200);
  assert.equal(clock.nextTimerAt(), 200);
  await clock.advance(2000);
  assert.deepEqual(ran, [200, 300, 1000]);
});

test('sharedTimers gives one set per clock', () => {
  const a = new FakeClock(0);
  const b = new FakeClock(0);
  assert.equal(sharedTimers(a), sharedTimers(a));
  assert.notEqual(sharedTimers(a), sharedTimers(b));
});
