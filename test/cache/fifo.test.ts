// The rules both FIFOs share (src/cache/fifo.ts), checked on DeltaFIFO and RealFIFO alike:
// one rule for the initial-population count (it drops once process settled, so hasSynced()
// never turns true while the last item of the initial list is still being processed), a
// batch never mixing initial-list items with later ones, the one-consumer gate, and the
// wait/close behaviour; and the informer imports the shared types, not the FIFO it does not use.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { DeltaFIFO } from '../../src/cache/delta_fifo.js';
import { FIFOClosedError } from '../../src/cache/fifo.js';
import type { FIFOQueue } from '../../src/cache/fifo.js';
import { RealFIFO } from '../../src/cache/real_fifo.js';

interface Obj {
  metadata: { name: string; namespace?: string };
}
const o = (name: string): Obj => ({ metadata: { name, namespace: 'ns' } });

const queues: [string, () => FIFOQueue<Obj, unknown>][] = [
  ['DeltaFIFO', () => new DeltaFIFO<Obj>({ emitDeltaTypeReplaced: true })],
  ['RealFIFO (non-atomic)', () => new RealFIFO<Obj>({ atomicEvents: false })],
  ['RealFIFO (atomic)', () => new RealFIFO<Obj>()],
];

describe('FIFO rules shared by DeltaFIFO and RealFIFO', () => {
  for (const [name, make] of queues) {
    test(`${name}: hasSynced() stays false while the last item of the initial list is being processed, and turns true once process settled`, async () => {
      const q = make();
      q.replace([o('a'), o('b')], '10');
      assert.equal(q.hasSynced(), false, 'populated by the first replace, nothing processed');
      const seen: [boolean, boolean][] = [];
      while (q.length > 0) {
        await q.pop(async (_item, isInInitialList) => {
          await Promise.resolve();
          seen.push([isInInitialList, q.hasSynced()]);
        });
      }
      assert.ok(seen.length > 0);
      for (const [isInInitialList, syncedDuring] of seen) {
        assert.equal(isInInitialList, true);
        assert.equal(syncedDuring, false, 'never synced while an initial item is in process');
      }
      assert.equal(q.hasSynced(), true, 'synced once the last initial item settled');
    });

    test(`${name}: a process that throws still counts its item; an add before any replace means synced at once`, async () => {
      const q = make();
      q.replace([o('a')], '1');
      await assert.rejects(
        q.pop(() => {
          throw new Error('handler failed');
        }),
        /handler failed/,
      );
      assert.equal(q.hasSynced(), true);
      const fresh = make();
      fresh.add(o('x'));
      assert.equal(fresh.hasSynced(), true);
      fresh.close();
    });

    test(`${name}: one consumer at a time; a pop waits for an item; close drains then rejects with FIFOClosedError`, async () => {
      const q = make();
      const order: string[] = [];
      const first = q.pop(async () => {
        order.push('first start');
        await new Promise((r) => setImmediate(r));
        order.push('first end');
      });
      const second = q.pop(() => void order.push('second'));
      await Promise.resolve();
      assert.deepEqual(order, [], 'waiting while empty');
      q.add(o('a'));
      q.add(o('b'));
      await Promise.all([first, second]);
      assert.deepEqual(order, ['first start', 'first end', 'second']);
      const waiting = q.pop(() => {});
      q.close();
      await assert.rejects(waiting, FIFOClosedError);
      assert.equal(q.isClosed(), true);
    });
  }

  test('RealFIFO: a batch never mixes the tail of the initial list with later deltas (client-go PopBatch)', async () => {
    const q = new RealFIFO<Obj>({ atomicEvents: false });
    q.replace([o('a'), o('b')], '1');
    q.add(o('c'));
    const batches: { keys: string[]; initial: boolean }[] = [];
    while (q.length > 0) {
      await q.popBatch((batch, initial) => {
        batches.push({
          keys: batch.map((d) => ('object' in d ? q.keyOf(d.object) : d.type)),
          initial,
        });
      });
    }
    assert.deepEqual(batches, [
      { keys: ['ns/a', 'ns/b'], initial: true },
      { keys: ['ns/c'], initial: false },
    ]);
  });

  test('the informer imports the shared FIFO types from fifo.ts, not from the DeltaFIFO it does not use', async () => {
    const source = await readFile(
      new URL('../../src/cache/shared_informer.ts', import.meta.url),
      'utf8',
    );
    assert.doesNotMatch(source, /from '\.\/delta_fifo\.js'/);
  });
});
