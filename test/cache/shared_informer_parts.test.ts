import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RingGrowing } from '../../src/cache/processor.js';
import { stripManagedFields } from '../../src/cache/transforms.js';
import { waitForCacheSync, waitForCacheSyncWithOptions } from '../../src/cache/wait.js';
import { FakeClock } from '../../src/util/clock.js';

describe("RingGrowing (each listener's unbounded buffer)", () => {
  test('any interleaving of push and shift behaves like a FIFO queue, across growth and wrap-around', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 400 }),
        (ops) => {
          const ring = new RingGrowing<number>(2);
          const model: number[] = [];
          for (const op of ops) {
            if (op === null) assert.equal(ring.shift(), model.shift());
            else {
              ring.push(op);
              model.push(op);
            }
            assert.equal(ring.length, model.length);
          }
          while (model.length > 0) assert.equal(ring.shift(), model.shift());
          assert.equal(ring.shift(), undefined);
        },
      ),
    );
  });

  test('the capacity doubles when full and never shrinks', () => {
    const ring = new RingGrowing<number>(4);
    for (let i = 0; i < 5; i++) ring.push(i);
    assert.equal(ring.capacity, 8);
    while (ring.length > 0) ring.shift();
    assert.equal(ring.capacity, 8);
  });
});

describe('waitForCacheSync', () => {
  test('resolves true at once when every function is already true, and true with no functions', async () => {
    const signal = new AbortController().signal;
    assert.equal(
      await waitForCacheSync(
        signal,
        () => true,
        () => true,
      ),
      true,
    );
    assert.equal(await waitForCacheSync(signal), true);
  });

  test('polls every 100 ms until all functions are true', async () => {
    const clock = new FakeClock(0);
    let a = false;
    let calls = 0;
    const waiting = waitForCacheSyncWithOptions(
      new AbortController().signal,
      [() => (calls++, a), () => true],
      { clock },
    );
    await clock.advance(100);
    await clock.advance(100);
    assert.equal(calls, 3);
    a = true;
    await clock.advance(100);
    assert.equal(await waiting, true);
  });

  test('resolves false when the signal aborts before the caches sync (already aborted, or later)', async () => {
    const ac = new AbortController();
    ac.abort();
    assert.equal(await waitForCacheSync(ac.signal, () => true), false);
    const clock = new FakeClock(0);
    const ac2 = new AbortController();
    const waiting = waitForCacheSyncWithOptions(ac2.signal, [() => false], { clock });
    await clock.advance(300);
    ac2.abort();
    assert.equal(await waiting, false);
  });
});

describe('stripManagedFields', () => {
  test('removes metadata.managedFields in place, keeps the rest, and is idempotent', () => {
    const obj = {
      metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }], labels: { x: 'y' } },
      spec: {},
    };
    const out = stripManagedFields(obj);
    assert.equal(out, obj);
    assert.deepEqual(out, { metadata: { name: 'a', labels: { x: 'y' } }, spec: {} });
    assert.deepEqual(stripManagedFields(out), out);
    assert.deepEqual(stripManagedFields({ kind: 'X' }), { kind: 'X' });
  });
});
