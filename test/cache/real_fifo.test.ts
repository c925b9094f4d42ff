import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RealFIFO } from '../../src/cache/real_fifo.js';
import type { RealFIFODelta } from '../../src/cache/real_fifo.js';
import { FIFOClosedError } from '../../src/cache/delta_fifo.js';
import type { KeyListerGetter } from '../../src/cache/delta_fifo.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';

interface Obj {
  metadata: { name: string; namespace?: string };
  v?: number;
}
const o = (name: string, v = 0): Obj => ({ metadata: { name, namespace: 'ns' }, v });
function known(objs: Obj[]): KeyListerGetter<Obj> {
  const m = new Map(objs.map((x) => [`ns/${x.metadata.name}`, x]));
  return { listKeys: () => [...m.keys()], getByKey: (k) => m.get(k) };
}
async function drain(f: RealFIFO<Obj>): Promise<{ d: RealFIFODelta<Obj>; initial: boolean }[]> {
  const out: { d: RealFIFODelta<Obj>; initial: boolean }[] = [];
  while (f.length > 0) await f.pop((d, initial) => void out.push({ d, initial }));
  return out;
}
const describeDelta = (f: RealFIFO<Obj>, d: RealFIFODelta<Obj>): string =>
  'object' in d ? `${d.type} ${f.keyOf(d.object)}` : d.type;

describe('RealFIFO', () => {
  test('onReady calls back once, when a delta is queued or the FIFO closes, and at once when either already is', () => {
    const f = new RealFIFO<Obj>();
    let calls = 0;
    f.onReady(() => calls++);
    assert.equal(calls, 0, 'empty and open: it waits');
    f.add(o('a'));
    f.add(o('b'));
    assert.equal(calls, 1, 'once, at the first delta');
    f.onReady(() => calls++);
    assert.equal(calls, 2, 'something queued: at once');
    const closing = new RealFIFO<Obj>();
    let closed = 0;
    closing.onReady(() => closed++);
    closing.close();
    assert.equal(closed, 1);
    closing.onReady(() => closed++);
    assert.equal(closed, 2, 'closed: at once');
  });

  test('every event is delivered in arrival order with no merging, deletes included', async () => {
    const f = new RealFIFO<Obj>();
    f.add(o('a'));
    f.add(o('b'));
    f.update(o('a', 1));
    f.delete(o('a', 2));
    f.delete(o('a', 3));
    const out = await drain(f);
    assert.deepEqual(
      out.map((x) => describeDelta(f, x.d)),
      ['Added ns/a', 'Added ns/b', 'Updated ns/a', 'Deleted ns/a', 'Deleted ns/a'],
    );
  });

  test('atomic mode queues a relist as one ReplacedAll, a resync as one SyncAll, and bookmarks', async () => {
    const f = new RealFIFO<Obj>({ transformer: (x) => ({ ...x, v: 5 }) });
    f.replace([o('a'), o('b')], '10');
    f.resync();
    f.bookmark('11');
    const out = await drain(f);
    assert.deepEqual(
      out.map((x) => x.d.type),
      ['ReplacedAll', 'SyncAll', 'Bookmark'],
    );
    const r = out[0]!.d;
    assert.ok(r.type === 'ReplacedAll');
    assert.equal(r.resourceVersion, '10');
    assert.deepEqual(
      r.objects.map((x) => x.v),
      [5, 5],
    );
    assert.equal(f.lastResourceVersion(), '11');
  });

  test('non-atomic replace queues tombstones first for queued and known keys missing from the list, then Replaced', async () => {
    const f = new RealFIFO<Obj>({
      atomicEvents: false,
      knownObjects: known([o('k', 4), o('keep')]),
    });
    f.add(o('q', 1));
    f.add(o('already'));
    f.delete(o('already'));
    f.replace([o('keep'), o('new')], '7');
    const out = await drain(f);
    assert.deepEqual(
      out.map((x) => describeDelta(f, x.d)),
      [
        'Added ns/q',
        'Added ns/already',
        'Deleted ns/already',
        'Deleted ns/q',
        'Deleted ns/k',
        'Replaced ns/keep',
        'Replaced ns/new',
      ],
    );
    const tq = out[3]!.d;
    assert.ok('object' in tq && tq.object instanceof DeletedFinalStateUnknown);
    assert.equal(tq.object.obj.v, 1);
    const tk = out[4]!.d;
    assert.ok('object' in tk && tk.object instanceof DeletedFinalStateUnknown);
    assert.equal(tk.object.obj.v, 4);
  });

  test('non-atomic resync skips keys that have queued deltas', async () => {
    const f = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: known([o('a'), o('b')]) });
    f.update(o('a', 1));
    f.resync();
    assert.deepEqual(
      (await drain(f)).map((x) => describeDelta(f, x.d)),
      ['Updated ns/a', 'Sync ns/b'],
    );
  });

  test('isInInitialList is true for the first relist, and hasSynced turns true only after it is processed', async () => {
    const f = new RealFIFO<Obj>({ atomicEvents: false });
    f.replace([o('a'), o('b')], '1');
    f.add(o('c'));
    let syncedDuring: boolean | undefined;
    const seen: boolean[] = [];
    await f.pop((_, initial) => void seen.push(initial));
    await f.pop((_, initial) => {
      seen.push(initial);
      syncedDuring = f.hasSynced();
    });
    assert.equal(syncedDuring, false, 'the count drops after processing');
    assert.equal(f.hasSynced(), true);
    await f.pop((_, initial) => void seen.push(initial));
    assert.deepEqual(seen, [true, true, false]);
  });

  test('popBatch takes consecutive plain deltas with distinct keys and hands ReplacedAll alone', async () => {
    const f = new RealFIFO<Obj>();
    f.add(o('a'));
    f.add(o('b'));
    f.update(o('a', 1));
    f.replace([], '3');
    f.add(o('c'));
    const batches: string[][] = [];
    while (f.length > 0)
      await f.popBatch((b) => void batches.push(b.map((d) => describeDelta(f, d))));
    assert.deepEqual(batches, [
      ['Added ns/a', 'Added ns/b'],
      ['Updated ns/a'],
      ['ReplacedAll'],
      ['Added ns/c'],
    ]);
  });

  test('popBatch hands the keys it computed for the batch; a delta without a key closes the batch and comes alone, keyless (client-go PopBatch)', async () => {
    const f = new RealFIFO<Obj>();
    const nameless = { metadata: { namespace: 'ns' } } as unknown as Obj;
    f.add(o('a'));
    f.add(o('b'));
    f.add(nameless);
    f.add(o('c'));
    const batches: { names: (string | undefined)[]; keys: (string | undefined)[] }[] = [];
    while (f.length > 0)
      await f.popBatch((b, _initial, keys) => {
        batches.push({
          names: b.map((d) => ('object' in d ? (d.object as Obj).metadata.name : d.type)),
          keys: [...keys],
        });
      });
    assert.deepEqual(batches, [
      { names: ['a', 'b'], keys: ['ns/a', 'ns/b'] },
      { names: [undefined], keys: [undefined] },
      { names: ['c'], keys: ['ns/c'] },
    ]);
  });

  test('popBatch respects maxBatch', async () => {
    const f = new RealFIFO<Obj>();
    for (let i = 0; i < 5; i++) f.add(o(`x${i}`));
    const sizes: number[] = [];
    while (f.length > 0) await f.popBatch((b) => void sizes.push(b.length), 2);
    assert.deepEqual(sizes, [2, 2, 1]);
  });

  test('close drains what remains, then pop rejects with FIFOClosedError', async () => {
    const f = new RealFIFO<Obj>();
    const waiting = f.pop(() => {});
    f.add(o('a'));
    await waiting;
    f.add(o('b'));
    f.close();
    await f.pop(() => {});
    await assert.rejects(
      f.pop(() => {}),
      FIFOClosedError,
    );
  });

  test('a process error rejects that pop and does not block the next one', async () => {
    const f = new RealFIFO<Obj>();
    f.add(o('a'));
    f.add(o('b'));
    await assert.rejects(
      f.pop(() => Promise.reject(new Error('nope'))),
      /nope/,
    );
    const d = await f.pop(() => {});
    assert.equal(describeDelta(f, d), 'Added ns/b');
  });
});
