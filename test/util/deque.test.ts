// Deque: the library's one growable FIFO (handler buffers, CRD manager handler queues).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Deque } from '../../src/util/deque.js';
import { RingGrowing } from '../../src/cache/processor.js';

test('a Deque keeps FIFO order across wrap-around and growth; peek and iteration see oldest first', () => {
  const d = new Deque<number>(3);
  assert.equal(d.capacity, 4, 'capacity rounds up to a power of two');
  for (let i = 0; i < 3; i++) d.push(i);
  assert.equal(d.shift(), 0);
  for (let i = 3; i < 9; i++) d.push(i); // wraps, then grows
  assert.equal(d.peek(), 1);
  assert.deepEqual([...d], [1, 2, 3, 4, 5, 6, 7, 8]);
  d.clear();
  assert.equal(d.length, 0);
  assert.equal(d.shift(), undefined);
});

test("the processor's RingGrowing is the same Deque (one queue implementation)", () => {
  assert.equal(RingGrowing, Deque);
});
