import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemExponentialFailureRateLimiter, RateLimitingQueue } from '../../src/workqueue/index.js';
import { FakeClock } from '../../src/util/clock.js';

describe('RateLimitingQueue', () => {
  test('addRateLimited waits the limiter delay: 1, 2, 4 ms on successive failures', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(1, 1000),
    });
    for (const expected of [1, 2, 4]) {
      q.addRateLimited('a');
      await clock.advance(expected - 1);
      assert.equal(q.len(), 0, `not ready before ${expected} ms`);
      await clock.advance(1);
      assert.equal(q.len(), 1, `ready at ${expected} ms`);
      const r = await q.get();
      assert.equal(r.item, 'a');
      q.done('a');
    }
    assert.equal(q.numRequeues('a'), 3);
    q.shutDown();
  });

  test('forget clears the history so the next failure waits the base delay', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
    });
    q.addRateLimited('a');
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 2);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
    await clock.advance(10);
    assert.equal(q.len(), 1, 'the earlier of the two waits (10 ms) won');
    q.shutDown();
  });

  test('the limiter sees the key given by keyFn', () => {
    const q = new RateLimitingQueue<{ ns: string; name: string }>({
      clock: new FakeClock(0),
      keyFn: (o) => `${o.ns}/${o.name}`,
      rateLimiter: new ItemExponentialFailureRateLimiter(1, 1000),
    });
    q.addRateLimited({ ns: 'd', name: 'x' });
    q.addRateLimited({ ns: 'd', name: 'x' });
    assert.equal(q.numRequeues({ ns: 'd', name: 'x' }), 2);
    assert.equal(q.rateLimiter.numRequeues('d/x'), 2);
    q.shutDown();
  });

  test('the default limiter is the controller limiter on the queue clock (5 ms first)', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>({ clock });
    q.addRateLimited('a');
    await clock.advance(4);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1);
    q.shutDown();
  });
});
