import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultIdleTimeoutMs,
  Reflector,
  VeryShortWatchError,
  WatchIdleTimeoutError,
} from '../../src/cache/reflector.js';
import type { ReflectorOptions, ReflectorStore } from '../../src/cache/reflector.js';
import type { ListerWatcher } from '../../src/cache/listwatch.js';
import { ApiError } from '../../src/client/errors.js';
import type { ListOptions, ObjectList, Status, WatchEvent } from '../../src/client/types.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import type { Logger } from '../../src/util/logger.js';
import { ScriptedWatchStream } from '../support/scripted_watch.js';

interface Pod {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
}
const pod = (name: string, rv: string): Pod => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});
const list = (rv: string, items: Pod[], cont?: string): ObjectList<Pod> => ({
  metadata: cont === undefined ? { resourceVersion: rv } : { resourceVersion: rv, continue: cont },
  items,
});
const status = (code: number, reason: string, extra: Partial<Status> = {}): Status => ({
  kind: 'Status',
  status: 'Failure',
  code,
  reason,
  message: `${reason} (${code})`,
  ...extra,
});
const apiError = (code: number, reason: string, retryAfterSeconds?: number): ApiError =>
  retryAfterSeconds === undefined
    ? new ApiError(status(code, reason))
    : new ApiError(status(code, reason), { retryAfterSeconds });
const netError = (code: string): Error => Object.assign(new Error(`connect ${code}`), { code });
const abortError = (): Error => Object.assign(new Error('aborted'), { name: 'AbortError' });

class Stream extends ScriptedWatchStream<Pod> {}

type Reply<R> = R | Error;
interface Call {
  verb: 'list' | 'watch';
  options: ListOptions;
  at: number;
}

/** A ListerWatcher answering from queued replies; a call with nothing queued waits (until aborted). */
class ScriptedLW implements ListerWatcher<Pod> {
  readonly calls: Call[] = [];
  readonly lists: Reply<ObjectList<Pod>>[] = [];
  readonly watches: Reply<Stream>[] = [];
  constructor(readonly clock: FakeClock) {}
  list(options: ListOptions, signal: AbortSignal): Promise<ObjectList<Pod>> {
    return this.#answer('list', this.lists, options, signal);
  }
  async watch(options: ListOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<Pod>>> {
    const s = await this.#answer('watch', this.watches, options, signal);
    return s.bind(signal);
  }
  async #answer<R>(
    verb: Call['verb'],
    queue: Reply<R>[],
    options: ListOptions,
    signal: AbortSignal,
  ): Promise<R> {
    this.calls.push({ verb, options, at: this.clock.now() });
    while (queue.length === 0) {
      if (signal.aborted) throw abortError();
      await new Promise<void>((r) => {
        const t = setImmediate(r);
        signal.addEventListener('abort', () => (clearImmediate(t), r()), { once: true });
      });
    }
    const reply = queue.shift()!;
    if (reply instanceof Error) throw reply;
    return reply;
  }
  verbs(): string[] {
    return this.calls.map((c) => c.verb);
  }
  async waitForCalls(n: number): Promise<void> {
    for (let i = 0; i < 2000 && this.calls.length < n; i++)
      await new Promise<void>((r) => setImmediate(r));
    assert.ok(
      this.calls.length >= n,
      `expected ${n} calls, got ${this.calls.length}: ${this.verbs().join(',')}`,
    );
  }
}

class RecordingStore implements ReflectorStore<Pod> {
  readonly log: string[] = [];
  resyncs = 0;
  add(o: Pod): void {
    this.log.push(`add ${o.metadata.name}`);
  }
  update(o: Pod): void {
    this.log.push(`update ${o.metadata.name}`);
  }
  delete(o: Pod): void {
    this.log.push(`delete ${o.metadata.name}`);
  }
  replace(items: Pod[], rv: string): void {
    this.log.push(`replace [${items.map((i) => i.metadata.name).join(',')}] @${rv}`);
  }
  resync(): void {
    this.resyncs++;
  }
  bookmark(rv: string): void {
    this.log.push(`bookmark ${rv}`);
  }
}

function setup(options: ReflectorOptions<Pod> = {}) {
  const clock = new FakeClock(0);
  const lw = new ScriptedLW(clock);
  const store = new RecordingStore();
  const errors: unknown[] = [];
  const reflector = new Reflector<Pod>(lw, store, {
    clock,
    logger: noopLogger,
    random: () => 0,
    watchListEnabled: false,
    watchErrorHandler: (e) => void errors.push(e),
    ...options,
  });
  const ac = new AbortController();
  const done = reflector.run(ac.signal);
  const stop = async (): Promise<void> => {
    ac.abort();
    await done;
    assert.equal(clock.pendingTimers(), 0, 'no timer left after run() settled');
  };
  return { clock, lw, store, reflector, errors, ac, done, stop };
}

describe('Reflector list', () => {
  test('the first list asks for resourceVersion "0" with limit 500 and replaces the store; the watch starts from the list RV with bookmarks and a 5–10 min timeout', async () => {
    const t = setup();
    t.lw.lists.push(list('100', [pod('a', '90')]));
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(2);
    assert.deepEqual(t.lw.calls[0]!.options, { resourceVersion: '0', limit: 500 });
    const w = t.lw.calls[1]!.options;
    assert.equal(w.resourceVersion, '100');
    assert.equal(w.allowWatchBookmarks, true);
    assert.ok(w.timeoutSeconds! >= 300 && w.timeoutSeconds! <= 600);
    assert.deepEqual(t.store.log, ['replace [a] @100']);
    assert.equal(t.reflector.lastSyncResourceVersion(), '100');
    await t.stop();
    assert.equal(s.closed, true, 'the watch stream is closed on abort');
  });

  test("pages are joined with continue tokens; continuation pages drop the resourceVersion; the list RV is the first page's", async () => {
    const t = setup();
    t.lw.lists.push(
      list('10', [pod('a', '1')], 't1'),
      list('11', [pod('b', '2')], 't2'),
      list('12', [pod('c', '3')]),
    );
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(4);
    assert.deepEqual(
      t.lw.calls.slice(0, 3).map((c) => c.options),
      [
        { resourceVersion: '0', limit: 500 },
        { limit: 500, continue: 't1' },
        { limit: 500, continue: 't2' },
      ],
    );
    assert.deepEqual(t.store.log, ['replace [a,b,c] @10']);
    assert.equal(t.lw.calls[3]!.options.resourceVersion, '10');
    await t.stop();
  });

  test('a 410 on a later page falls back to one unpaged list at the original resourceVersion', async () => {
    const t = setup();
    t.lw.lists.push(
      list('10', [pod('a', '1')], 't1'),
      apiError(410, 'Expired'),
      list('20', [pod('a', '1'), pod('b', '2')]),
    );
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(4);
    assert.deepEqual(t.lw.calls[2]!.options, { resourceVersion: '0' });
    assert.deepEqual(t.store.log, ['replace [a,b] @20']);
    await t.stop();
  });

  test('a 410 on the list marks the RV unavailable and relists at once with resourceVersion ""', async () => {
    const t = setup();
    t.lw.lists.push(apiError(410, 'Gone'), list('30', []));
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.calls[1]!.options, { resourceVersion: '', limit: 500 });
    assert.equal(t.lw.calls[1]!.at, 0, 'no backoff before the quorum relist');
    assert.equal(t.errors.length, 0);
    await t.stop();
  });

  test('a "too large resource version" list error relists with resourceVersion ""', async () => {
    const t = setup();
    const tooLarge = new ApiError(
      status(504, 'Timeout', { details: { causes: [{ reason: 'ResourceVersionTooLarge' }] } }),
    );
    t.lw.lists.push(tooLarge, list('30', []));
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(3);
    assert.equal(t.lw.calls[1]!.options.resourceVersion, '');
    await t.stop();
  });

  test('a relist at a specific RV is unpaged (served from the watch cache) unless the "0" list came back paginated', async () => {
    for (const paginatedFirst of [false, true]) {
      const t = setup();
      if (paginatedFirst) t.lw.lists.push(list('10', [], 'c'), list('10', []));
      else t.lw.lists.push(list('10', []));
      t.lw.watches.push(new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }));
      t.lw.lists.push(list('20', []));
      t.lw.watches.push(new Stream());
      const listCalls = paginatedFirst ? 2 : 1;
      await t.lw.waitForCalls(listCalls + 1);
      await t.clock.waitForTimers(1);
      await t.clock.runNext(); // backoff before the relist
      await t.lw.waitForCalls(listCalls + 2);
      const relist = t.lw.calls[listCalls + 1]!;
      assert.equal(relist.verb, 'list');
      assert.deepEqual(
        relist.options,
        paginatedFirst ? { resourceVersion: '10', limit: 500 } : { resourceVersion: '10' },
      );
      await t.stop();
    }
  });

  test('an explicit pageSize pages every list', async () => {
    const t = setup({ pageSize: 2 });
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }));
    t.lw.lists.push(list('20', []));
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.calls[2]!.options, { resourceVersion: '10', limit: 2 });
    await t.stop();
  });

  test('a 500 on the first list is reported, backed off, and retried until it succeeds; the store stays untouched meanwhile', async () => {
    const t = setup();
    t.lw.lists.push(
      apiError(500, 'InternalError'),
      apiError(500, 'InternalError'),
      list('5', [pod('a', '5')]),
    );
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(1);
    await t.clock.waitForTimers(1);
    assert.deepEqual(t.store.log, []);
    await t.clock.advance(800);
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    await t.clock.advance(1600);
    await t.lw.waitForCalls(4);
    assert.deepEqual(t.lw.verbs(), ['list', 'list', 'list', 'watch']);
    assert.deepEqual(
      t.lw.calls.map((c) => c.at),
      [0, 800, 2400, 2400],
    );
    assert.equal(t.errors.length, 2);
    assert.deepEqual(t.store.log, ['replace [a] @5']);
    await t.stop();
  });
});

describe('Reflector watch', () => {
  test('events go to add/update/delete, bookmarks to store.bookmark, and each advances lastSyncResourceVersion', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []));
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(2);
    s.push(
      { type: 'ADDED', object: pod('a', '11') },
      { type: 'MODIFIED', object: pod('a', '12') },
      { type: 'DELETED', object: pod('a', '13') },
      { type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '20' } } },
    );
    await flushAsync();
    assert.deepEqual(t.store.log.slice(1), ['add a', 'update a', 'delete a', 'bookmark 20']);
    assert.equal(t.reflector.lastSyncResourceVersion(), '20');
    await t.stop();
  });

  test('a watch started at "" tracks the RV only from the first non-ADDED event (synthetic adds are unordered)', async () => {
    const t = setup();
    t.lw.lists.push(list('', []));
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(2);
    assert.equal(t.lw.calls[1]!.options.resourceVersion, '');
    s.push({ type: 'ADDED', object: pod('a', '50') }, { type: 'ADDED', object: pod('b', '40') });
    await flushAsync();
    assert.equal(t.reflector.lastSyncResourceVersion(), '');
    s.push({ type: 'MODIFIED', object: pod('a', '60') }, { type: 'ADDED', object: pod('c', '61') });
    await flushAsync();
    assert.equal(t.reflector.lastSyncResourceVersion(), '61');
    await t.stop();
  });

  test('a clean close after events re-watches at once from the last RV, without a relist', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(
      new Stream().push({ type: 'ADDED', object: pod('a', '11') }).end(),
      new Stream(),
    );
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'watch']);
    assert.equal(t.lw.calls[2]!.options.resourceVersion, '11');
    assert.equal(t.lw.calls[2]!.at, 0);
    assert.equal(t.errors.length, 0);
    await t.stop();
  });

  test('a dropped connection (ECONNRESET) mid-stream is treated as a close: re-watch from the last RV', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(
      new Stream().push({ type: 'ADDED', object: pod('a', '11') }).fail(netError('ECONNRESET')),
      new Stream(),
    );
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'watch']);
    assert.equal(t.lw.calls[2]!.options.resourceVersion, '11');
    await t.stop();
  });

  test('a watch closed within a second with no events is a very short watch: reported, backoff, relist', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []), list('10', []));
    t.lw.watches.push(new Stream().end(), new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    assert.ok(t.errors[0] instanceof VeryShortWatchError);
    await t.clock.advance(800);
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs().slice(0, 3), ['list', 'watch', 'list']);
    await t.stop();
  });

  test('a 410 ERROR event ends the watch; after backoff the relist is at the last RV, not ""', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []), list('12', []));
    const s = new Stream().push(
      { type: 'ADDED', object: pod('a', '11') },
      { type: 'ERROR', object: status(410, 'Expired') },
    );
    t.lw.watches.push(s, new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    assert.equal(s.closed, true);
    await t.clock.advance(800);
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.calls[2]!.options, { resourceVersion: '11' });
    await t.stop();
  });

  test('a 410 on watch start relists after backoff', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []), list('20', []));
    t.lw.watches.push(apiError(410, 'Gone'), new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(4);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'list', 'watch']);
    await t.stop();
  });

  test('429 on watch start backs off at least Retry-After, then re-watches without a relist', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(apiError(429, 'TooManyRequests', 5), new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    await t.clock.advance(4999);
    assert.equal(
      t.lw.calls.length,
      2,
      'nothing before Retry-After elapsed, though backoff is 800 ms',
    );
    await t.clock.advance(1);
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'watch']);
    assert.equal(t.lw.calls[2]!.options.resourceVersion, '10');
    await t.stop();
  });

  test('connection refused on watch start backs off and re-watches without a relist', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(netError('ECONNREFUSED'), new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    await t.clock.advance(800);
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'watch']);
    await t.stop();
  });

  test('a 500 on watch start and a malformed line mid-stream both relist after backoff', async () => {
    const t = setup();
    class WatchDecodeError extends Error {}
    t.lw.lists.push(list('10', []), list('10', []), list('10', []));
    t.lw.watches.push(
      apiError(500, 'InternalError'),
      new Stream()
        .push({ type: 'ADDED', object: pod('a', '11') })
        .fail(new WatchDecodeError('bad line')),
      new Stream(),
    );
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(4);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(6);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'list', 'watch', 'list', 'watch']);
    assert.ok(t.errors[1] instanceof WatchDecodeError);
    await t.stop();
  });

  test('the resync timer calls store.resync every period while watching, and stops with the watch', async () => {
    const t = setup({ resyncPeriodMs: 1000 });
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.advance(999);
    assert.equal(t.store.resyncs, 0);
    await t.clock.advance(1);
    assert.equal(t.store.resyncs, 1);
    await t.clock.advance(3000);
    assert.equal(t.store.resyncs, 4);
    await t.stop();
  });

  test('shouldResync false skips the resync', async () => {
    const t = setup({ resyncPeriodMs: 1000, shouldResync: () => false });
    t.lw.lists.push(list('10', []));
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.advance(5000);
    assert.equal(t.store.resyncs, 0);
    await t.stop();
  });

  test('a watch silent for idleTimeoutMs is closed and restarted from the last RV; events keep it alive', async () => {
    const t = setup({ idleTimeoutMs: 10_000 });
    t.lw.lists.push(list('10', []));
    const s = new Stream();
    t.lw.watches.push(s, new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.advance(9_000);
    s.push({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '15' } } });
    await t.clock.advance(9_000);
    assert.equal(t.lw.calls.length, 2, 'the bookmark reset the idle timer');
    await t.clock.advance(1_000);
    await t.lw.waitForCalls(3);
    assert.equal(s.closed, true);
    assert.ok(t.errors[0] instanceof WatchIdleTimeoutError);
    assert.deepEqual(t.lw.verbs(), ['list', 'watch', 'watch']);
    assert.equal(t.lw.calls[2]!.options.resourceVersion, '15');
    await t.stop();
  });

  test('the default idle timeout is longer than the longest watch timeout asked of the server: a quiet resource is closed by the server, never reported idle', async () => {
    // random → 0.999: the watch asks for the longest timeout, 599 s.
    const t = setup({ random: () => 0.999 });
    t.lw.lists.push(list('10', []));
    const s = new Stream();
    t.lw.watches.push(s, new Stream());
    await t.lw.waitForCalls(2);
    const timeoutSeconds = t.lw.calls[1]!.options.timeoutSeconds!;
    assert.equal(timeoutSeconds, 599);
    await t.clock.advance(timeoutSeconds * 1000);
    assert.equal(t.lw.calls.length, 2, 'no idle restart before the server timeout');
    s.end(); // the server's timeout closes the quiet watch
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.errors, [], 'nothing reported for a quiet resource');
    assert.ok(defaultIdleTimeoutMs(300) > 600_000);
    await t.stop();
  });

  test("a 403 on list is logged at error level once per distinct cause, in the server's words, retried with backoff, and visible as lastError since its first occurrence until a watch starts", async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: (m) => void lines.push(`debug ${m}`),
      info: () => {},
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
    };
    const forbidden = (): ApiError =>
      new ApiError(
        status(403, 'Forbidden', {
          message:
            'pods is forbidden: User "system:serviceaccount:x:y" cannot list resource "pods"',
        }),
      );
    const clock = new FakeClock(1000);
    const lw = new ScriptedLW(clock);
    const reflector = new Reflector<Pod>(lw, new RecordingStore(), {
      name: 'pods',
      clock,
      logger,
      random: () => 0,
      watchListEnabled: false,
    });
    lw.lists.push(forbidden(), forbidden(), apiError(404, 'NotFound'), list('10', []));
    lw.watches.push(new Stream());
    const ac = new AbortController();
    const done = reflector.run(ac.signal);
    await lw.waitForCalls(1);
    await clock.waitForTimers(1);
    assert.equal(reflector.lastError()?.sinceMs, 1000);
    await clock.runNext();
    await lw.waitForCalls(2);
    await clock.waitForTimers(1);
    assert.equal(reflector.lastError()?.sinceMs, 1000, 'the same cause keeps its start time');
    assert.match(String(reflector.lastError()?.error), /cannot list resource "pods"/);
    await clock.runNext();
    await lw.waitForCalls(3);
    await clock.waitForTimers(1);
    assert.ok(reflector.lastError()!.sinceMs > 1000, 'a new cause starts a new period');
    const errors = lines.filter((l) => l.startsWith('error'));
    assert.equal(errors.length, 2, lines.join('\n'));
    assert.match(errors[0]!, /^error pods: pods is forbidden: .*cannot list resource "pods"/);
    assert.match(errors[1]!, /NotFound/);
    assert.ok(lines.some((l) => l.startsWith('debug pods: pods is forbidden')));
    assert.ok(!lines.some((l) => l.startsWith('warn')));
    await clock.runNext();
    await lw.waitForCalls(5);
    assert.equal(reflector.lastError(), undefined, 'cleared once a watch has started');
    ac.abort();
    await done;
  });

  test('a throwing watchErrorHandler does not stop the reflector', async () => {
    const t = setup({
      watchErrorHandler: () => {
        throw new Error('handler bug');
      },
    });
    t.lw.lists.push(apiError(500, 'InternalError'), list('1', []));
    t.lw.watches.push(new Stream());
    await t.lw.waitForCalls(1);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(3);
    await t.stop();
  });

  test('a store that throws on an event is logged and the watch goes on', async () => {
    const t = setup();
    t.store.add = () => {
      throw new Error('bad key');
    };
    t.lw.lists.push(list('1', []));
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(2);
    s.push({ type: 'ADDED', object: pod('a', '2') }, { type: 'MODIFIED', object: pod('a', '3') });
    await flushAsync();
    assert.deepEqual(t.store.log.slice(1), ['update a']);
    assert.equal(t.reflector.lastSyncResourceVersion(), '3');
    await t.stop();
  });
});

describe('Reflector backoff and stop', () => {
  test('repeated failures back off 800 ms, ×2, up to the 30 s cap, with jitter within [d, 2d)', async () => {
    for (const [random, check] of [
      [() => 0, (gap: number, d: number) => gap === d],
      [() => 0.999, (gap: number, d: number) => gap >= d && gap < 2 * d],
    ] as const) {
      const t = setup({ random, backoffResetMs: 0 });
      for (let i = 0; i < 9; i++) t.lw.lists.push(apiError(500, 'InternalError'));
      await t.lw.waitForCalls(1);
      for (let i = 1; i < 9; i++) {
        await t.clock.waitForTimers(1);
        await t.clock.runNext();
        await t.lw.waitForCalls(i + 1);
      }
      const gaps = t.lw.calls.slice(1).map((c, i) => c.at - t.lw.calls[i]!.at);
      const expected = [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000];
      gaps.forEach((g, i) =>
        assert.ok(check(g, expected[i]!), `gap ${i} = ${g}, base ${expected[i]}`),
      );
      await t.stop();
    }
  });

  test('the backoff starts over after 2 minutes since its last reset', async () => {
    const t = setup();
    for (let i = 0; i < 12; i++) t.lw.lists.push(apiError(500, 'InternalError'));
    await t.lw.waitForCalls(1);
    for (let i = 1; i < 10; i++) {
      await t.clock.waitForTimers(1);
      await t.clock.runNext();
      await t.lw.waitForCalls(i + 1);
    }
    const gaps = t.lw.calls.slice(1).map((c, i) => c.at - t.lw.calls[i]!.at);
    // 800+1600+3200+6400+12800+25600+30000+30000 = 110400 ms; the next delay is asked at 110400 (< 120 s): 30 s;
    // the one after is asked at 140400 (> 120 s since creation): starts over at 800.
    assert.deepEqual(gaps, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(11);
    assert.equal(t.lw.calls[10]!.at - t.lw.calls[9]!.at, 800);
    await t.stop();
  });

  test('abort while waiting in backoff: run() settles, no request follows, no timer is left', async () => {
    const t = setup();
    t.lw.lists.push(apiError(500, 'InternalError'));
    await t.lw.waitForCalls(1);
    await t.clock.waitForTimers(1);
    await t.stop();
    await t.clock.advance(60_000);
    await flushAsync();
    assert.equal(t.lw.calls.length, 1);
  });

  test('abort during a list in flight settles run() without another request', async () => {
    const t = setup();
    await t.lw.waitForCalls(1); // the list waits: nothing queued
    await t.stop();
    assert.equal(t.lw.calls.length, 1);
  });

  test('run() twice at once is refused', async () => {
    const t = setup();
    await assert.rejects(t.reflector.run(new AbortController().signal), /already running/);
    await t.stop();
  });
});

describe('Reflector streaming list', () => {
  const endBookmark = (rv: string): WatchEvent<Pod> => ({
    type: 'BOOKMARK',
    object: {
      metadata: {
        name: '',
        resourceVersion: rv,
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    },
  });

  test('initial events are buffered until the initial-events-end bookmark, replaced at once, and the same stream goes on as the watch', async () => {
    const t = setup({ watchListEnabled: true, resyncPeriodMs: 1000 });
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(1);
    const o = t.lw.calls[0]!.options;
    assert.equal(o.sendInitialEvents, true);
    assert.equal(o.resourceVersionMatch, 'NotOlderThan');
    assert.equal(o.allowWatchBookmarks, true);
    assert.equal(o.resourceVersion, '');
    s.push({ type: 'ADDED', object: pod('a', '5') }, { type: 'ADDED', object: pod('b', '3') });
    await flushAsync();
    assert.deepEqual(t.store.log, []);
    await t.clock.advance(5000);
    assert.equal(t.store.resyncs, 0, 'no resync before the initial list is complete');
    s.push(endBookmark('7'), { type: 'MODIFIED', object: pod('a', '8') });
    await flushAsync();
    assert.deepEqual(t.store.log, ['replace [a,b] @7', 'update a']);
    assert.equal(t.reflector.lastSyncResourceVersion(), '8');
    await t.clock.advance(1000);
    assert.equal(t.store.resyncs, 1);
    assert.equal(t.lw.calls.length, 1);
    await t.stop();
  });

  test('the transform runs on each streamed object as it arrives, before the end bookmark, so the buffer holds transformed objects', async () => {
    const seen: string[] = [];
    const t = setup({
      watchListEnabled: true,
      transform: (o) => {
        seen.push(o.metadata.name);
        return { metadata: { ...o.metadata, annotations: { stripped: 'yes' } } };
      },
    });
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(1);
    s.push({ type: 'ADDED', object: pod('a', '5') }, { type: 'ADDED', object: pod('b', '6') });
    await flushAsync();
    assert.deepEqual(seen, ['a', 'b'], 'transformed before the end bookmark');
    const replaced: Pod[][] = [];
    t.store.replace = (items) => void replaced.push(items);
    s.push(endBookmark('7'));
    await flushAsync();
    assert.deepEqual(
      replaced[0]!.map((p) => p.metadata.annotations?.['stripped']),
      ['yes', 'yes'],
    );
    await t.stop();
  });

  test('a server that rejects sendInitialEvents (422) makes the reflector fall back to lists for good', async () => {
    const t = setup({ watchListEnabled: true });
    t.lw.watches.push(
      apiError(422, 'Invalid'),
      new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }),
      new Stream(),
    );
    t.lw.lists.push(list('10', []), list('11', []));
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch']);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(5);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch', 'list', 'watch']);
    await t.stop();
  });

  const wordsLogger = () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: (m) => void lines.push(`info ${m}`),
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
    };
    return { lines, logger };
  };

  test('a dropped connection before the initial-events-end bookmark falls back to a list for that attempt only; the next relist streams again', async () => {
    const words = wordsLogger();
    const t = setup({ watchListEnabled: true, logger: words.logger });
    t.lw.watches.push(
      new Stream().push({ type: 'ADDED', object: pod('a', '1') }).fail(netError('ECONNRESET')),
      new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }),
      new Stream(),
    );
    t.lw.lists.push(list('10', [pod('a', '1')]));
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch']);
    assert.equal(t.lw.calls[2]!.options.sendInitialEvents, undefined);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(4);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch', 'watch']);
    assert.equal(t.lw.calls[3]!.options.sendInitialEvents, true, 'streaming is still on');
    assert.ok(!words.lines.some((l) => /does not support/.test(l)), words.lines.join('\n'));
    assert.ok(words.lines.some((l) => /listing instead for this attempt/.test(l)));
    await t.stop();
  });

  test('an idle timeout before the initial-events-end bookmark falls back to a list without turning streaming lists off', async () => {
    const words = wordsLogger();
    const t = setup({ watchListEnabled: true, idleTimeoutMs: 1000, logger: words.logger });
    t.lw.watches.push(
      new Stream(),
      new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }),
      new Stream(),
    );
    t.lw.lists.push(list('10', []));
    await t.lw.waitForCalls(1);
    await t.clock.advance(1000);
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch']);
    await t.clock.waitForTimers(1);
    await t.clock.advance(60_000);
    await t.lw.waitForCalls(4);
    assert.equal(t.lw.calls[3]!.options.sendInitialEvents, true, 'streaming is still on');
    assert.ok(!words.lines.some((l) => /does not support/.test(l)), words.lines.join('\n'));
    await t.stop();
  });

  test('a 400 about a selector (not about streaming) falls back to a list for that attempt, not for good', async () => {
    const t = setup({ watchListEnabled: true });
    t.lw.watches.push(
      new ApiError(
        status(400, 'BadRequest', { message: 'unable to parse requirement: found "x"' }),
      ),
      new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }),
      new Stream(),
    );
    t.lw.lists.push(list('10', []));
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch']);
    await t.clock.waitForTimers(1);
    await t.clock.runNext();
    await t.lw.waitForCalls(4);
    assert.equal(t.lw.calls[3]!.options.sendInitialEvents, true);
    await t.stop();
  });

  test('a server that ignores sendInitialEvents (a bookmark without the end annotation) makes it fall back to a list', async () => {
    const t = setup({ watchListEnabled: true });
    t.lw.watches.push(
      new Stream().push(
        { type: 'ADDED', object: pod('a', '1') },
        { type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '9' } } },
      ),
      new Stream(),
    );
    t.lw.lists.push(list('10', [pod('a', '1')]));
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.verbs(), ['watch', 'list', 'watch']);
    assert.deepEqual(t.store.log, ['replace [a] @10']);
    await t.stop();
  });
});

describe('Reflector progress logging', () => {
  const linesLogger = () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: (m) => void lines.push(`debug ${m}`),
      info: (m) => void lines.push(`info ${m}`),
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
    };
    return { lines, logger };
  };

  test('a list logs "listed N objects in X ms" at info, a watch start its resourceVersion at debug, a 410 "relisting because" at info', async () => {
    const words = linesLogger();
    const t = setup({ logger: words.logger });
    t.lw.lists.push(list('10', [pod('a', '1'), pod('b', '2')]), list('20', []));
    t.lw.watches.push(
      new Stream().push({ type: 'ERROR', object: status(410, 'Expired') }),
      new Stream(),
    );
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    assert.ok(words.lines.includes('info reflector: listed 2 objects in 0 ms; resourceVersion 10'));
    assert.ok(words.lines.includes('debug reflector: watch started from resourceVersion "10"'));
    assert.ok(
      words.lines.some((l) =>
        /^info reflector: relisting because resourceVersion 10 is too old/.test(l),
      ),
      words.lines.join('\n'),
    );
    await t.stop();
  });

  test('a streaming list shows it is alive: a progress line every 5 s (or 10 000 objects) while streaming, then "streamed N objects in X ms"', async () => {
    const words = linesLogger();
    const t = setup({ watchListEnabled: true, logger: words.logger });
    const s = new Stream();
    t.lw.watches.push(s);
    await t.lw.waitForCalls(1);
    s.push({ type: 'ADDED', object: pod('a', '1') });
    await flushAsync();
    await t.clock.advance(5000);
    s.push({ type: 'ADDED', object: pod('b', '2') });
    await flushAsync();
    assert.ok(
      words.lines.some((l) =>
        /^info reflector: streaming list: 2 events so far, 1 objects, 5000 ms/.test(l),
      ),
      words.lines.join('\n'),
    );
    await t.clock.advance(1000);
    s.push({
      type: 'BOOKMARK',
      object: {
        metadata: {
          name: '',
          resourceVersion: '7',
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      },
    });
    await flushAsync();
    assert.ok(
      words.lines.includes('info reflector: streamed 2 objects in 6000 ms; resourceVersion 7'),
    );
    await t.stop();
  });
});

/**
 * A stream whose iterator also has `takeBuffered()`, as the library's watch decoder: the
 * reflector drains the buffered events without a `next()` each.
 */
class BufferedStream extends Stream {
  readonly queued: WatchEvent<Pod>[] = [];
  taken = 0;
  returned = false;
  override [Symbol.asyncIterator](): AsyncIterator<WatchEvent<Pod>> {
    const inner = super[Symbol.asyncIterator]();
    return {
      next: () => inner.next(),
      return: async () => {
        this.returned = true;
        return (await inner.return?.()) ?? { value: undefined, done: true };
      },
      takeBuffered: (): WatchEvent<Pod> | undefined => {
        const e = this.queued.shift();
        if (e !== undefined) this.taken++;
        return e;
      },
    } as AsyncIterator<WatchEvent<Pod>>;
  }
}

describe('Reflector watch: buffered events', () => {
  test('events the decoder already holds are applied in order, taken without a next() each', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []));
    const s = new BufferedStream().push({ type: 'ADDED', object: pod('a', '11') });
    s.queued.push(
      { type: 'MODIFIED', object: pod('a', '12') },
      { type: 'DELETED', object: pod('a', '13') },
      { type: 'ADDED', object: pod('b', '14') },
    );
    t.lw.watches.push(s);
    await t.lw.waitForCalls(2);
    for (let i = 0; i < 50 && t.store.log.length < 5; i++) await flushAsync();
    assert.deepEqual(t.store.log, ['replace [] @10', 'add a', 'update a', 'delete a', 'add b']);
    assert.equal(s.taken, 3);
    assert.equal(t.reflector.lastSyncResourceVersion(), '14');
    await t.stop();
    assert.equal(s.closed, true, 'the watch stream is closed on abort');
  });

  test('an ERROR among buffered events fails the watch: later buffered events are not applied, the iterator is closed', async () => {
    const t = setup();
    t.lw.lists.push(list('10', []), list('12', []));
    const s = new BufferedStream().push({ type: 'ADDED', object: pod('a', '11') });
    s.queued.push(
      { type: 'ERROR', object: status(410, 'Expired') },
      { type: 'ADDED', object: pod('b', '12') },
    );
    t.lw.watches.push(s, new Stream());
    await t.lw.waitForCalls(2);
    await t.clock.waitForTimers(1);
    assert.equal(s.returned, true);
    assert.deepEqual(t.store.log, ['replace [] @10', 'add a']);
    assert.equal(s.queued.length, 1, 'the event after the ERROR stays untaken');
    await t.clock.advance(800);
    await t.lw.waitForCalls(3);
    assert.deepEqual(t.lw.calls[2]!.options, { resourceVersion: '11' });
    await t.stop();
  });
});
