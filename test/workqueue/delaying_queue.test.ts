import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DelayingQueue } from '../../src/workqueue/index.js';
import { FakeClock } from '../../src/util/clock.js';

describe('DelayingQueue', () => {
  test('addAfter adds the item exactly when the delay has passed on the clock', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 50);
    assert.equal(q.len(), 0);
    assert.equal(q.waitingLen(), 1);
    await clock.advance(49);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1);
    assert.equal(q.waitingLen(), 0);
    q.shutDown();
  });

  test('addAfter with a delay of 0 or less adds at once', () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    assert.equal(q.len(), 2);
    assert.equal(clock.pendingTimers(), 0);
    q.shutDown();
  });

  test('a duplicate waiting item keeps the earlier time (later request ignored)', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 500);
    assert.equal(q.waitingLen(), 1);
    await clock.advance(100);
    assert.equal(q.len(), 1);
    q.shutDown();
  });

  test('a duplicate waiting item with an earlier time moves up', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 500);
    q.addAfter('a', 100);
    assert.equal(q.waitingLen(), 1);
    await clock.advance(100);
    assert.equal(q.len(), 1);
    await clock.advance(1000);
    assert.equal(q.len(), 1, 'added once only');
    q.shutDown();
  });

  test('waiting items become ready in time order; equal times in add order', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    q.addAfter('b2', 20);
    await clock.advance(30);
    const got: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await q.get();
      if (!r.shutdown) got.push(r.item);
    }
    assert.deepEqual(got, ['a', 'b', 'b2', 'c']);
    q.shutDown();
  });

  test('only one clock timer is armed, for the earliest waiting item', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<number>({ clock });
    for (let i = 100; i > 0; i--) q.addAfter(i, i * 10);
    assert.equal(clock.pendingTimers(), 1);
    assert.equal(clock.nextTimerAt(), 10);
    await clock.advance(10);
    assert.equal(clock.pendingTimers(), 1);
    assert.equal(clock.nextTimerAt(), 20);
    q.shutDown();
  });

  test('a waiting item whose wait is longer than the current timer does not re-arm it', () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 10);
    q.addAfter('b', 1000);
    assert.equal(clock.nextTimerAt(), 10);
    q.shutDown();
  });

  test('shutDown drops waiting items and cancels the timer; addAfter is then ignored', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 10);
    q.shutDown();
    assert.equal(clock.pendingTimers(), 0);
    assert.equal(q.waitingLen(), 0);
    q.addAfter('b', 10);
    q.addAfter('c', 0);
    await clock.advance(100);
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('an item ready while being processed is queued again after done()', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.add('a');
    const r = await q.get();
    assert.equal(r.item, 'a');
    q.addAfter('a', 5);
    await clock.advance(5);
    assert.equal(q.len(), 0);
    q.done('a');
    assert.equal(q.len(), 1);
    q.shutDown();
  });

  test('an infinite delay keeps the item waiting without arming a timer', () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', Number.POSITIVE_INFINITY);
    assert.equal(q.waitingLen(), 1);
    assert.equal(clock.pendingTimers(), 0);
    q.shutDown();
  });
});
