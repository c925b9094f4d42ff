import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DeltaFIFO, FIFOClosedError } from '../../src/cache/delta_fifo.js';
import type { Deltas, KeyListerGetter } from '../../src/cache/delta_fifo.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import { flushAsync } from '../../src/util/clock.js';

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  v?: number;
}
const o = (name: string, v = 0): Obj => ({ metadata: { name, namespace: 'ns' }, v });

function known(objs: Obj[]): KeyListerGetter<Obj> {
  const m = new Map(objs.map((x) => [`ns/${x.metadata.name}`, x]));
  return { listKeys: () => [...m.keys()], getByKey: (k) => m.get(k) };
}

async function popAll(f: DeltaFIFO<Obj>): Promise<{ deltas: Deltas<Obj>; initial: boolean }[]> {
  const out: { deltas: Deltas<Obj>; initial: boolean }[] = [];
  while (f.length > 0) await f.pop((deltas, initial) => void out.push({ deltas, initial }));
  return out;
}

const types = (d: Deltas<Obj>): string[] => d.map((x) => x.type);

describe('DeltaFIFO', () => {
  test('deltas of one key accumulate in order and the key keeps its first queue position', async () => {
    const f = new DeltaFIFO<Obj>();
    f.add(o('a'));
    f.add(o('b'));
    f.update(o('a', 1));
    assert.deepEqual(f.listKeys(), ['ns/a', 'ns/b']);
    const [first, second] = await popAll(f);
    assert.deepEqual(types(first!.deltas), ['Added', 'Updated']);
    assert.equal((first!.deltas[1]!.object as Obj).v, 1);
    assert.deepEqual(types(second!.deltas), ['Added']);
  });

  test('two consecutive deletes collapse to the older one', async () => {
    const f = new DeltaFIFO<Obj>();
    f.add(o('a'));
    f.delete(o('a', 1));
    f.delete(o('a', 2));
    const [x] = await popAll(f);
    assert.deepEqual(types(x!.deltas), ['Added', 'Deleted']);
    assert.equal((x!.deltas[1]!.object as Obj).v, 1);
  });

  test('a real delete replaces an older tombstone delete when they collapse', async () => {
    const f = new DeltaFIFO<Obj>({ knownObjects: known([o('a')]) });
    f.delete(new DeletedFinalStateUnknown('ns/a', o('a')));
    f.delete(o('a', 9));
    const [x] = await popAll(f);
    assert.equal(x!.deltas.length, 1);
    assert.equal((x!.deltas[0]!.object as Obj).v, 9);
  });

  test('only deletes are deduplicated: repeated updates are all kept', async () => {
    const f = new DeltaFIFO<Obj>();
    f.update(o('a', 1));
    f.update(o('a', 1));
    const [x] = await popAll(f);
    assert.deepEqual(types(x!.deltas), ['Updated', 'Updated']);
  });

  test('delete of an object neither queued nor known is ignored', () => {
    const f = new DeltaFIFO<Obj>({ knownObjects: known([o('k')]) });
    f.delete(o('gone'));
    assert.equal(f.length, 0);
    f.delete(o('k'));
    assert.deepEqual(f.listKeys(), ['ns/k']);
    const noKnown = new DeltaFIFO<Obj>();
    noKnown.delete(o('x'));
    assert.equal(noKnown.length, 0);
  });

  test('replace emits Sync by default and Replaced with emitDeltaTypeReplaced', async () => {
    const plain = new DeltaFIFO<Obj>();
    plain.replace([o('a')], '1');
    assert.deepEqual(types((await popAll(plain))[0]!.deltas), ['Sync']);
    const informer = new DeltaFIFO<Obj>({ emitDeltaTypeReplaced: true });
    informer.replace([o('a')], '1');
    assert.deepEqual(types((await popAll(informer))[0]!.deltas), ['Replaced']);
  });

  test('replace queues tombstones for queued keys missing from the list, unwrapping a nested tombstone', async () => {
    const f = new DeltaFIFO<Obj>();
    f.add(o('a', 1));
    f.add(o('b', 1));
    f.delete(new DeletedFinalStateUnknown('ns/b', o('b', 2)));
    f.replace([], '5');
    const out = await popAll(f);
    const a = out[0]!.deltas;
    assert.deepEqual(types(a), ['Added', 'Deleted']);
    const tomb = a[1]!.object as DeletedFinalStateUnknown<Obj>;
    assert.ok(tomb instanceof DeletedFinalStateUnknown);
    assert.equal(tomb.key, 'ns/a');
    assert.equal(tomb.obj.v, 1);
    const b = out[1]!.deltas;
    // b's tombstone then another tombstone: dedup keeps the newer, whose obj is the unwrapped object
    assert.deepEqual(types(b), ['Added', 'Deleted']);
    const bt = b[1]!.object as DeletedFinalStateUnknown<Obj>;
    assert.ok(!(bt.obj instanceof DeletedFinalStateUnknown));
    assert.equal(bt.obj.v, 2);
  });

  test('replace queues tombstones for known keys missing from the list unless they have pending deltas', async () => {
    const f = new DeltaFIFO<Obj>({ knownObjects: known([o('k1', 7), o('k2'), o('kept')]) });
    f.update(o('k2', 3));
    f.replace([o('kept')], '9');
    const out = await popAll(f);
    const byKey = new Map(out.map((x) => [f.keyOf(x.deltas), x.deltas]));
    assert.deepEqual(types(byKey.get('ns/k1')!), ['Deleted']);
    const t = byKey.get('ns/k1')![0]!.object as DeletedFinalStateUnknown<Obj>;
    assert.equal(t.obj.v, 7);
    // k2 was queued: tombstoned through the items pass (its newest object), once
    assert.deepEqual(types(byKey.get('ns/k2')!), ['Updated', 'Deleted']);
    assert.equal((byKey.get('ns/k2')![1]!.object as DeletedFinalStateUnknown<Obj>).obj.v, 3);
    assert.deepEqual(types(byKey.get('ns/kept')!), ['Sync']);
  });

  test('hasSynced turns true only after every item of the first replace, deletions included, is popped', async () => {
    const f = new DeltaFIFO<Obj>({ knownObjects: known([o('old')]) });
    assert.equal(f.hasSynced(), false);
    f.replace([o('a'), o('b')], '1');
    assert.equal(f.hasSynced(), false);
    const seen: boolean[] = [];
    await f.pop((_, initial) => void seen.push(initial));
    await f.pop((_, initial) => void seen.push(initial));
    assert.equal(f.hasSynced(), false);
    f.add(o('later'));
    await f.pop((_, initial) => void seen.push(initial));
    assert.equal(f.hasSynced(), true);
    await f.pop((_, initial) => void seen.push(initial));
    assert.deepEqual(seen, [true, true, true, false]);
  });

  test('an add before any replace makes the FIFO synced and the later replace does not reset it', () => {
    const f = new DeltaFIFO<Obj>();
    f.add(o('a'));
    assert.equal(f.hasSynced(), true);
    f.replace([o('b')], '1');
    assert.equal(f.hasSynced(), true);
  });

  test('resync queues Sync for known objects but skips keys with pending deltas', async () => {
    const f = new DeltaFIFO<Obj>({ knownObjects: known([o('a', 1), o('b', 1)]) });
    f.update(o('a', 2));
    f.resync();
    const out = await popAll(f);
    assert.deepEqual(
      out.map((x) => types(x.deltas)),
      [['Updated'], ['Sync']],
    );
    assert.equal((out[0]!.deltas[0]!.object as Obj).v, 2);
  });

  test('resync without knownObjects does nothing', () => {
    const f = new DeltaFIFO<Obj>();
    f.resync();
    assert.equal(f.length, 0);
  });

  test('the transformer runs on adds and replaces but not on Sync deltas or tombstones', async () => {
    let calls = 0;
    const f = new DeltaFIFO<Obj>({
      knownObjects: known([o('k')]),
      transformer: (x) => (calls++, { ...x, v: 100 }),
    });
    f.add(o('a'));
    f.resync();
    f.replace([o('a')], '2');
    const out = await popAll(f);
    assert.equal(calls, 2);
    const a = out.find((x) => f.keyOf(x.deltas) === 'ns/a')!.deltas;
    assert.deepEqual(
      a.map((d) => (d.object as Obj).v),
      [100, 100],
    );
    const k = out.find((x) => f.keyOf(x.deltas) === 'ns/k')!.deltas;
    assert.deepEqual(types(k), ['Sync', 'Deleted']);
    assert.equal((k[0]!.object as Obj).v, 0);
  });

  test('pop waits while empty and resumes on add', async () => {
    const f = new DeltaFIFO<Obj>();
    let got: Deltas<Obj> | undefined;
    const p = f.pop((d) => {
      got = d;
    });
    await flushAsync();
    assert.equal(got, undefined);
    f.add(o('a'));
    await p;
    assert.equal(got!.length, 1);
  });

  test('an async process finishes before the next pop hands out an item', async () => {
    const f = new DeltaFIFO<Obj>();
    f.add(o('a'));
    f.add(o('b'));
    const log: string[] = [];
    let release!: () => void;
    const p1 = f.pop(async (d) => {
      log.push(`start ${f.keyOf(d)}`);
      await new Promise<void>((r) => (release = r));
      log.push(`end ${f.keyOf(d)}`);
    });
    const p2 = f.pop((d) => void log.push(`start ${f.keyOf(d)}`));
    await flushAsync();
    assert.deepEqual(log, ['start ns/a']);
    release();
    await Promise.all([p1, p2]);
    assert.deepEqual(log, ['start ns/a', 'end ns/a', 'start ns/b']);
  });

  test('a process error rejects that pop and drops the item; the next pop still works', async () => {
    const f = new DeltaFIFO<Obj>();
    f.add(o('a'));
    f.add(o('b'));
    await assert.rejects(
      f.pop(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
    const d = await f.pop(() => {});
    assert.equal(f.keyOf(d), 'ns/b');
  });

  test('close lets pop drain what remains, then rejects with FIFOClosedError; waiting pops wake up', async () => {
    const waiting = new DeltaFIFO<Obj>();
    const p = waiting.pop(() => {});
    waiting.close();
    await assert.rejects(p, FIFOClosedError);

    const f = new DeltaFIFO<Obj>();
    f.add(o('a'));
    f.close();
    const d = await f.pop(() => {});
    assert.equal(f.keyOf(d), 'ns/a');
    await assert.rejects(
      f.pop(() => {}),
      FIFOClosedError,
    );
  });

  test('keyOf uses the newest delta of a list and the key of a tombstone', () => {
    const f = new DeltaFIFO<Obj>();
    assert.equal(f.keyOf(new DeletedFinalStateUnknown('x/y', o('z'))), 'x/y');
    assert.equal(f.keyOf([{ type: 'Added', object: o('q') }]), 'ns/q');
  });

  test('queue order survives internal compaction over thousands of pops', async () => {
    const f = new DeltaFIFO<Obj>();
    for (let i = 0; i < 5000; i++) f.add(o(`p${i}`));
    const keys: string[] = [];
    for (let i = 0; i < 3000; i++) await f.pop((d) => void keys.push(f.keyOf(d)));
    for (let i = 5000; i < 6000; i++) f.add(o(`p${i}`));
    while (f.length > 0) await f.pop((d) => void keys.push(f.keyOf(d)));
    assert.deepEqual(
      keys,
      Array.from({ length: 6000 }, (_, i) => `ns/p${i}`),
    );
  });
});
