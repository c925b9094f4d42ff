import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Queue } from '../../src/workqueue/index.js';
import { flushAsync } from '../../src/util/clock.js';

async function take<T>(q: Queue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) assert.fail('unexpected shutdown');
  return r.item;
}

describe('Queue', () => {
  test('items come out in the order they were added', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.add('c');
    assert.deepEqual([await take(q), await take(q), await take(q)], ['a', 'b', 'c']);
  });

  test('adding a dirty item again is a no-op (duplicates collapse)', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.equal(await take(q), 'a');
    assert.equal(await take(q), 'b');
    assert.equal(q.len(), 0);
  });

  test('numbers compare by value', () => {
    const q = new Queue<number>();
    q.add(1);
    q.add(1);
    q.add(2);
    assert.equal(q.len(), 2);
  });

  test('objects without a keyFn compare by reference; with a keyFn by key', () => {
    const byRef = new Queue<{ id: string }>();
    byRef.add({ id: 'x' });
    byRef.add({ id: 'x' });
    assert.equal(byRef.len(), 2);
    const byKey = new Queue<{ id: string }>({ keyFn: (o) => o.id });
    byKey.add({ id: 'x' });
    byKey.add({ id: 'x' });
    assert.equal(byKey.len(), 1);
  });

  test('an item added while being processed is not handed out until done()', async () => {
    const q = new Queue<string>();
    q.add('a');
    assert.equal(await take(q), 'a');
    q.add('a');
    assert.equal(q.len(), 0, 'not queued while processing');
    let got = false;
    const next = q.get().then((r) => {
      got = true;
      return r;
    });
    await flushAsync();
    assert.equal(got, false, 'a second worker must not get the item in processing');
    q.done('a');
    const r = await next;
    assert.deepEqual(r, { shutdown: false, item: 'a' });
  });

  test('many adds during processing collapse into one more run', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    q.add('a');
    q.add('a');
    q.add('a');
    q.done('a');
    assert.equal(q.len(), 1);
    await take(q);
    q.done('a');
    assert.equal(q.len(), 0);
  });

  test('done() for an item not being processed is a no-op', () => {
    const q = new Queue<string>();
    q.add('a');
    q.done('a');
    q.done('zzz');
    assert.equal(q.len(), 1);
    assert.equal(q.processingLen(), 0);
  });

  test('with a keyFn, the item re-queued after done() is the one added while processing', async () => {
    const q = new Queue<{ id: string; v: number }>({ keyFn: (o) => o.id });
    q.add({ id: 'x', v: 1 });
    const first = await take(q);
    q.add({ id: 'x', v: 2 });
    q.done(first);
    assert.deepEqual(await take(q), { id: 'x', v: 2 });
  });

  test('get() waits for an add and wakes one waiter per item', async () => {
    const q = new Queue<string>();
    const w1 = q.get();
    const w2 = q.get();
    q.add('a');
    assert.deepEqual(await w1, { shutdown: false, item: 'a' });
    let second = false;
    void w2.then(() => (second = true));
    await flushAsync();
    assert.equal(second, false);
    q.add('b');
    assert.deepEqual(await w2, { shutdown: false, item: 'b' });
  });

  test('len() counts queued items, not items being processed', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    await take(q);
    assert.equal(q.len(), 1);
    assert.equal(q.processingLen(), 1);
  });

  test('after shutDown, adds are ignored but queued items are still drained', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.shutDown();
    assert.equal(q.shuttingDown(), true);
    q.add('c');
    assert.equal(q.len(), 2);
    assert.equal(await take(q), 'a');
    assert.equal(await take(q), 'b');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('shutDown releases waiting get() calls with shutdown', async () => {
    const q = new Queue<string>();
    const w = q.get();
    q.shutDown();
    assert.deepEqual(await w, { shutdown: true });
  });

  test('an item dirty during processing is still re-queued by done() after shutDown', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    q.add('a');
    q.shutDown();
    q.done('a');
    assert.equal(await take(q), 'a');
    q.done('a');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('shutDownWithDrain resolves only after every item in processing is done', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    await take(q);
    await take(q);
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    await flushAsync();
    assert.equal(drained, false);
    q.done('a');
    await flushAsync();
    assert.equal(drained, false);
    q.done('b');
    await p;
    assert.equal(drained, true);
  });

  test('shutDownWithDrain with nothing in processing resolves at once', async () => {
    const q = new Queue<string>();
    await q.shutDownWithDrain();
    assert.equal(q.shuttingDown(), true);
  });

  test('a plain shutDown releases a pending shutDownWithDrain', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    const p = q.shutDownWithDrain();
    q.shutDown();
    await p;
    assert.equal(q.processingLen(), 1);
  });

  test('get(signal) rejects with the abort reason and takes no item', async () => {
    const q = new Queue<string>();
    const ac = new AbortController();
    const w = q.get(ac.signal);
    ac.abort(new Error('stop'));
    await assert.rejects(w, /stop/);
    q.add('a');
    assert.equal(q.len(), 1, 'the aborted waiter did not take the item');
    await assert.rejects(q.get(AbortSignal.abort(new Error('already'))), /already/);
  });

  test('for await calls done() after each body, also when the body throws', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const item of q) {
        seen.push(item);
        assert.equal(q.processingLen(), 1);
        if (item === 'b') throw new Error('boom');
      }
    }, /boom/);
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal(q.processingLen(), 0, 'b was marked done despite the throw');
    q.add('b');
    assert.equal(q.len(), 1, 'b can be queued again');
  });

  test('for await ends when the queue is shut down and drained', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.shutDown();
    const seen: string[] = [];
    for await (const item of q) seen.push(item);
    assert.deepEqual(seen, ['a']);
  });

  test('the FIFO keeps order across internal compaction (5000 items)', async () => {
    const q = new Queue<number>();
    for (let i = 0; i < 5000; i++) q.add(i);
    for (let i = 0; i < 2500; i++) {
      assert.equal(await take(q), i);
      q.done(i);
    }
    for (let i = 5000; i < 6000; i++) q.add(i);
    for (let i = 2500; i < 6000; i++) assert.equal(await take(q), i);
  });
});
