// watcher(): a list-and-watch as an async iterable (kube-rs kube_runtime::watcher), on the
// reflector: event shapes, relist after 410, abort and break, backpressure, and the
// combinators (appliedObjects, touchedObjects, predicateFilter with its TTL, reflect,
// shareWatcher).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultBackoff,
  watcherFromListerWatcher,
  WatcherPermanentError,
} from '../../src/cache/watcher.js';
import type { WatcherEvent, WatcherOptions } from '../../src/cache/watcher.js';
import {
  appliedObjects,
  predicateFilter,
  predicates,
  reflect,
  shareWatcher,
  touchedObjects,
} from '../../src/cache/watcher_combinators.js';
import { Indexer } from '../../src/cache/indexer.js';
import { Lister } from '../../src/cache/listers.js';
import type { ListerWatcher } from '../../src/cache/listwatch.js';
import { ApiError } from '../../src/client/errors.js';
import type { ListOptions, ObjectList, WatchEvent } from '../../src/client/types.js';
import { defaultReflectorBackoff } from '../../src/util/backoff.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';

interface Pod {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
  };
}
const pod = (name: string, rv: string, extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, uid: `uid-${name}`, ...extra },
});
const list = (rv: string, items: Pod[]): ObjectList<Pod> => ({
  metadata: { resourceVersion: rv },
  items,
});
const goneStatus = {
  kind: 'Status',
  status: 'Failure',
  code: 410,
  reason: 'Expired',
  message: 'too old resource version',
};

/** A watch stream the test feeds; counts how many events the reader pulled. */
class FedStream implements AsyncIterable<WatchEvent<Pod>> {
  readonly queue: (WatchEvent<Pod> | Error | 'end')[] = [];
  pulled = 0;
  closed = false;
  #wake: (() => void) | undefined;
  constructor(readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.#wake?.(), { once: true });
  }
  push(...items: (WatchEvent<Pod> | Error | 'end')[]): void {
    this.queue.push(...items);
    this.#wake?.();
  }
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<Pod>> {
    return {
      next: async () => {
        for (;;) {
          if (this.signal.aborted)
            throw Object.assign(new Error('aborted'), { name: 'AbortError' });
          const item = this.queue.shift();
          if (item === 'end') return { done: true, value: undefined };
          if (item instanceof Error) throw item;
          if (item !== undefined) {
            this.pulled++;
            return { done: false, value: item };
          }
          await new Promise<void>((r) => (this.#wake = r));
        }
      },
      return: async () => {
        this.closed = true;
        return { done: true, value: undefined };
      },
    };
  }
}

/** Lists from a queue; each watch is a new FedStream (exposed in `streams`). */
class FedLW implements ListerWatcher<Pod> {
  readonly lists: (ObjectList<Pod> | Error)[] = [];
  readonly watchErrors: Error[] = [];
  readonly streams: FedStream[] = [];
  readonly calls: { verb: string; options: ListOptions }[] = [];
  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList<Pod>> {
    this.calls.push({ verb: 'list', options });
    while (this.lists.length === 0) {
      if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      await new Promise<void>((r) => setImmediate(r));
    }
    const l = this.lists.shift()!;
    if (l instanceof Error) throw l;
    return l;
  }
  async watch(options: ListOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<Pod>>> {
    this.calls.push({ verb: 'watch', options });
    const err = this.watchErrors.shift();
    if (err !== undefined) throw err;
    const s = new FedStream(signal);
    this.streams.push(s);
    return s;
  }
  async waitForWatch(n: number): Promise<FedStream> {
    for (let i = 0; i < 2000 && this.streams.length < n; i++) await flushAsync(1);
    assert.ok(this.streams.length >= n, `expected ${n} watches, got ${this.streams.length}`);
    return this.streams[n - 1]!;
  }
}

function setup(options: WatcherOptions = {}) {
  const clock = new FakeClock(0);
  const lw = new FedLW();
  const ac = new AbortController();
  const stream = watcherFromListerWatcher(lw, {
    clock,
    logger: noopLogger,
    random: () => 0,
    watchList: false,
    signal: ac.signal,
    ...options,
  });
  return { clock, lw, ac, stream };
}

async function take<T>(it: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const step = await it.next();
    if (step.done === true) break;
    out.push(step.value);
  }
  return out;
}

const describeEvent = (e: WatcherEvent<Pod>): string =>
  'object' in e ? `${e.type} ${e.object.metadata.name}` : e.type;

describe('watcher()', () => {
  test('a list is Init, one InitApply per object, InitDone; then ADDED/MODIFIED are Apply and DELETED is Delete', async () => {
    const { lw, ac, stream } = setup();
    lw.lists.push(list('10', [pod('a', '5'), pod('b', '6')]));
    const first = await take(stream, 4);
    assert.deepEqual(first.map(describeEvent), ['Init', 'InitApply a', 'InitApply b', 'InitDone']);
    const w = await lw.waitForWatch(1);
    assert.equal(lw.calls[1]?.options.resourceVersion, '10', 'the watch starts at the list RV');
    w.push(
      { type: 'ADDED', object: pod('c', '11') },
      { type: 'MODIFIED', object: pod('a', '12') },
      { type: 'BOOKMARK', object: pod('', '13') },
      { type: 'DELETED', object: pod('b', '14') },
    );
    const next = await take(stream, 3);
    assert.deepEqual(next.map(describeEvent), ['Apply c', 'Apply a', 'Delete b']);
    ac.abort();
    assert.deepEqual(await stream.next(), { done: true, value: undefined });
  });

  test('a 410 on the watch is a relist: a new Init … InitDone with the new state', async () => {
    const { lw, ac, stream, clock } = setup();
    lw.lists.push(list('10', [pod('a', '5')]));
    await take(stream, 3);
    const w = await lw.waitForWatch(1);
    w.push({ type: 'ERROR', object: goneStatus as unknown as Pod });
    lw.lists.push(list('20', [pod('b', '15')]));
    const pending = take(stream, 3);
    for (let i = 0; i < 20; i++) {
      await flushAsync(2);
      clock.advanceSync(1000);
    }
    assert.deepEqual((await pending).map(describeEvent), ['Init', 'InitApply b', 'InitDone']);
    ac.abort();
    await stream.return?.();
  });

  test('aborting the signal ends the loop, closes the watch and leaves no timer', async () => {
    const { lw, ac, stream, clock } = setup();
    lw.lists.push(list('1', []));
    const seen: string[] = [];
    const loop = (async () => {
      for await (const e of stream) {
        seen.push(e.type);
        if (e.type === 'InitDone') ac.abort();
      }
    })();
    await loop;
    assert.deepEqual(seen, ['Init', 'InitDone']);
    assert.equal(clock.pendingTimers(), 0);
    for (const s of lw.streams) assert.ok(s.signal.aborted, 'every watch request was aborted');
  });

  test('break out of for-await stops the reflector: the watch is closed and no new request follows', async () => {
    const { lw, stream, clock } = setup();
    lw.lists.push(list('1', [pod('a', '1')]));
    for await (const e of stream) {
      if (e.type === 'InitDone') break;
    }
    const calls = lw.calls.length;
    await flushAsync(10);
    assert.equal(lw.calls.length, calls, 'no list or watch after break');
    assert.equal(clock.pendingTimers(), 0);
    for (const s of lw.streams) assert.ok(s.signal.aborted);
  });

  test('backpressure: a consumer that stops reading holds at most bufferSize events; the watch is not read further', async () => {
    const { lw, stream } = setup({ bufferSize: 3 });
    lw.lists.push(list('1', []));
    await take(stream, 2);
    const w = await lw.waitForWatch(1);
    for (let i = 0; i < 50; i++) w.push({ type: 'ADDED', object: pod(`p${i}`, String(2 + i)) });
    await flushAsync(20);
    // bufferSize events wait for the consumer, one more may be in the reader's hands.
    assert.ok(w.pulled <= 4, `pulled ${w.pulled} of 50 with a buffer of 3`);
    assert.equal(w.queue.length >= 46, true, 'the rest stays unread in the stream');
    const got = await take(stream, 50);
    assert.equal(got.length, 50, 'reading again resumes the watch; nothing is lost');
    assert.deepEqual(got.map((e) => describeEvent(e)).slice(0, 2), ['Apply p0', 'Apply p1']);
    await stream.return?.();
  });

  test("a consumer that pauses past idleTimeoutMs is not an idle server: no WatchIdleTimeoutError, no re-watch; a silent server still is (the idle clock measures the server's silence; issue #34 item 7)", async () => {
    const errors: unknown[] = [];
    const { lw, stream, clock } = setup({
      bufferSize: 5,
      idleTimeoutMs: 1000,
      onError: (err) => errors.push(err),
    });
    lw.lists.push(list('1', []));
    await take(stream, 2);
    const w = await lw.waitForWatch(1);
    for (let i = 0; i < 20; i++) w.push({ type: 'ADDED', object: pod(`p${i}`, String(2 + i)) });
    await flushAsync(20);
    // The consumer holds the stream (reads nothing) for 3 idle timeouts; the buffer is full.
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      await flushAsync(2);
    }
    assert.deepEqual(
      errors.map((e) => (e as Error).name),
      [],
      'a full buffer is the consumer pausing, not silence from the server',
    );
    assert.equal(lw.streams.length, 1, 'no re-watch while the consumer holds the stream');
    assert.equal(w.signal.aborted, false, 'the watch was not aborted');
    const got = await take(stream, 20);
    assert.equal(got.length, 20, 'every event is delivered once the consumer reads again');
    // Now the server goes silent with the consumer waiting: that is an idle watch.
    const pending = stream.next();
    for (let i = 0; i < 15; i++) {
      await clock.advance(100);
      await flushAsync(2);
    }
    assert.deepEqual(
      errors.map((e) => (e as Error).name),
      ['WatchIdleTimeoutError'],
      'a silent server is still detected',
    );
    assert.ok(w.signal.aborted, 'the idle watch was aborted');
    const w2 = await lw.waitForWatch(2);
    assert.equal(lw.calls.at(-1)?.options.resourceVersion, '21', 're-watch from the last event');
    w2.push({ type: 'ADDED', object: pod('late', '22') });
    assert.equal(describeEvent((await pending).value as WatcherEvent<Pod>), 'Apply late');
    await stream.return?.();
  });

  test('failOnPermanentError ends the stream with a typed WatcherPermanentError at a 403', async () => {
    const { lw, stream } = setup({ failOnPermanentError: true });
    lw.lists.push(
      new ApiError({
        kind: 'Status',
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'pods is forbidden',
      }),
    );
    await assert.rejects(stream.next(), (err: unknown) => {
      assert.ok(err instanceof WatcherPermanentError);
      assert.match(err.message, /forbidden.*HTTP 403/);
      return true;
    });
  });

  test("defaultBackoff is kube-rs's DefaultBackoff: 800 ms ×2, capped at 30 s", () => {
    assert.deepEqual(defaultBackoff(), { ...defaultReflectorBackoff });
  });
});

async function* events(...es: WatcherEvent<Pod>[]): AsyncGenerator<WatcherEvent<Pod>> {
  for (const e of es) yield e;
}
async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('watcher combinators', () => {
  const a = pod('a', '1');
  const b = pod('b', '2');
  test('appliedObjects keeps InitApply and Apply; touchedObjects adds Delete', async () => {
    const es = (): AsyncGenerator<WatcherEvent<Pod>> =>
      events(
        { type: 'Init' },
        { type: 'InitApply', object: a },
        { type: 'InitDone' },
        { type: 'Apply', object: b },
        { type: 'Delete', object: a },
      );
    assert.deepEqual(
      (await collect(appliedObjects(es()))).map((p) => p.metadata.name),
      ['a', 'b'],
    );
    assert.deepEqual(
      (await collect(touchedObjects(es()))).map((p) => p.metadata.name),
      ['a', 'b', 'a'],
    );
  });

  test('predicateFilter(generation) drops status-only updates; a recreated object (new uid) passes', async () => {
    async function* objs(): AsyncGenerator<Pod> {
      yield pod('a', '1', { generation: 1 });
      yield pod('a', '2', { generation: 1 }); // status change
      yield pod('a', '3', { generation: 2 }); // spec change
      yield pod('a', '4', { generation: 1, uid: 'other' }); // recreated
    }
    const out = await collect(predicateFilter(objs(), predicates.generation));
    assert.deepEqual(
      out.map((p) => p.metadata.resourceVersion),
      ['1', '3', '4'],
    );
  });

  test('predicateFilter(labels) passes label changes only; a function works the same', async () => {
    async function* objs(): AsyncGenerator<Pod> {
      yield pod('a', '1', { labels: { x: '1', y: '2' } });
      yield pod('a', '2', { labels: { y: '2', x: '1' } }); // same set, other order
      yield pod('a', '3', { labels: { x: '2' } });
    }
    assert.deepEqual(
      (await collect(predicateFilter(objs(), predicates.labels))).map(
        (p) => p.metadata.resourceVersion,
      ),
      ['1', '3'],
    );
    assert.deepEqual(
      (await collect(predicateFilter(objs(), (p: Pod) => p.metadata.labels?.['x']))).map(
        (p) => p.metadata.resourceVersion,
      ),
      ['1', '3'],
    );
  });

  test('predicateFilter forgets an object after its TTL (kube-rs #1836): the memory does not grow forever', async () => {
    const clock = new FakeClock(0);
    async function* objs(): AsyncGenerator<Pod> {
      yield pod('a', '1', { generation: 1 });
      clock.advanceSync(500);
      yield pod('a', '2', { generation: 1 }); // within TTL: dropped
      clock.advanceSync(1000);
      yield pod('a', '3', { generation: 1 }); // exactly the TTL since last seen: passes again
    }
    const out = await collect(
      predicateFilter(objs(), predicates.generation, { ttlMs: 1000, clock }),
    );
    assert.deepEqual(
      out.map((p) => p.metadata.resourceVersion),
      ['1', '3'],
    );
  });

  test('reflect swaps a relist in whole at InitDone (vanished objects gone) and applies Apply/Delete; a Lister reads it', async () => {
    const indexer = new Indexer<Pod>();
    const lister = new Lister<Pod>(indexer, { group: '', resource: 'pods' });
    const it = reflect(
      events(
        { type: 'Init' },
        { type: 'InitApply', object: a },
        { type: 'InitApply', object: b },
        { type: 'InitDone' },
        { type: 'Delete', object: a },
        { type: 'Init' },
        { type: 'InitApply', object: pod('c', '9') },
        { type: 'InitDone' },
      ),
      indexer,
    )[Symbol.asyncIterator]();
    await take(it, 3);
    assert.equal(indexer.size, 0, 'nothing is visible before InitDone');
    await take(it, 1);
    assert.deepEqual(
      lister
        .list()
        .map((p) => p.metadata.name)
        .sort(),
      ['a', 'b'],
    );
    await take(it, 1);
    assert.deepEqual(
      lister.list().map((p) => p.metadata.name),
      ['b'],
    );
    await take(it, 3);
    assert.deepEqual(
      lister.list().map((p) => p.metadata.name),
      ['c'],
      'b vanished in the relist',
    );
  });

  test('shareWatcher: two subscribers read one source; a late one gets the cache as Init…InitDone first', async () => {
    const { lw, ac, stream } = setup();
    lw.lists.push(list('10', [a]));
    const shared = shareWatcher(stream, { bufferSize: 10 });
    const s1 = shared.subscribe();
    assert.deepEqual((await take(s1, 3)).map(describeEvent), ['Init', 'InitApply a', 'InitDone']);
    const w = await lw.waitForWatch(1);
    w.push({ type: 'ADDED', object: b });
    assert.deepEqual((await take(s1, 1)).map(describeEvent), ['Apply b']);
    const s2 = shared.subscribe();
    const late = (await take(s2, 4)).map(describeEvent);
    assert.deepEqual(late.slice(0, 1), ['Init']);
    assert.deepEqual(late.slice(1, 3).sort(), ['InitApply a', 'InitApply b']);
    assert.equal(late[3], 'InitDone');
    w.push({ type: 'DELETED', object: a });
    assert.deepEqual((await take(s1, 1)).map(describeEvent), ['Delete a']);
    assert.deepEqual((await take(s2, 1)).map(describeEvent), ['Delete a']);
    assert.equal(lw.streams.length, 1, 'one watch for both');
    ac.abort();
    assert.equal((await s1.next()).done, true);
    assert.equal((await s2.next()).done, true);
  });

  test('shareWatcher backpressure: the slowest subscriber sets the pace', async () => {
    const { lw, stream } = setup({ bufferSize: 2 });
    lw.lists.push(list('10', []));
    const shared = shareWatcher(stream, { bufferSize: 2 });
    const fast = shared.subscribe();
    const slow = shared.subscribe();
    await take(fast, 2);
    const w = await lw.waitForWatch(1);
    for (let i = 0; i < 30; i++) w.push({ type: 'ADDED', object: pod(`p${i}`, String(11 + i)) });
    await flushAsync(20);
    // slow holds Init and InitDone unread (its bound): the shared stream stops reading; the
    // watcher then holds at most its own 2, plus 1 in the reader's hands.
    assert.ok(w.pulled <= 3, `pulled ${w.pulled} of 30 while a subscriber is stalled`);
    const [f, sl] = await Promise.all([take(fast, 30), take(slow, 32)]);
    assert.equal(f.length, 30);
    assert.equal(sl.length, 32, 'the slow subscriber gets everything');
    await shared.close();
  });
});
