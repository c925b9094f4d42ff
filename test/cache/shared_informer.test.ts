import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InformerAlreadyStartedError,
  InformerStoppedError,
  InvalidRegistrationError,
  SharedIndexInformer,
} from '../../src/cache/shared_informer.js';
import type { SharedIndexInformerOptions } from '../../src/cache/shared_informer.js';
import type { ResourceEventHandler } from '../../src/cache/processor.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import { NotFoundError } from '../../src/client/errors.js';
import type { WatchEvent } from '../../src/client/types.js';
import { FakeClock } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { noopLogger } from '../../src/util/logger.js';
import { deferred, pod, podList, ScriptedLW, Stream, until } from './shared_informer_support.js';
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';
import type { Pod } from './shared_informer_support.js';

const name = (o: DeepReadonly<Pod> | DeletedFinalStateUnknown<DeepReadonly<Pod>>): string =>
  o instanceof DeletedFinalStateUnknown ? `tombstone(${o.key})` : o.metadata.name;

/** A handler that records every call as a line. */
function recorder(extra: Partial<ResourceEventHandler<Pod>> = {}) {
  const log: string[] = [];
  const handler: ResourceEventHandler<Pod> = {
    onAdd: (o, initial) => void log.push(`add ${name(o)}${initial ? ' initial' : ''}`),
    onUpdate: (a, b) =>
      void log.push(
        `update ${name(b)} ${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`,
      ),
    onDelete: (o) => void log.push(`delete ${name(o)}`),
    ...extra,
  };
  return { log, handler };
}

function recordingLogger() {
  const lines: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
  };
  return { lines, logger };
}

function setup(options: SharedIndexInformerOptions<Pod> = {}) {
  const clock = new FakeClock(0);
  const lw = new ScriptedLW();
  const informer = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    clock,
    logger: noopLogger,
    idleTimeoutMs: 0,
    random: () => 0,
    watchList: false,
    ...options,
  });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  const start = (): Promise<void> => (running = informer.run(ac.signal));
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  return { clock, lw, informer, start, stop, signal: ac.signal };
}

/** Start with an initial list and an open watch; wait for sync. */
async function started(items: Pod[], options: SharedIndexInformerOptions<Pod> = {}, rv = '10') {
  const s = setup(options);
  const stream = new Stream();
  s.lw.queueList(podList(rv, items)).queueWatch(stream);
  return { ...s, stream };
}

describe('SharedIndexInformer: deltas reach the cache and the handlers', () => {
  test('the initial list is cached and each object reaches onAdd with isInInitialList=true; hasSynced then turns true', async () => {
    const s = await started([pod('a', '1'), pod('b', '2')]);
    const r = recorder();
    const reg = s.informer.addEventHandler(r.handler);
    assert.equal(s.informer.hasSynced(), false);
    assert.equal(reg.hasSynced(), false);
    void s.start();
    await until('synced', () => reg.hasSynced());
    assert.equal(s.informer.hasSynced(), true);
    assert.deepEqual(r.log.sort(), ['add a initial', 'add b initial']);
    assert.deepEqual(s.informer.getIndexer().listKeys().sort(), ['ns/a', 'ns/b']);
    assert.equal(s.informer.lastSyncResourceVersion(), '10');
    await s.stop();
  });

  test('cache presence decides: an ADDED event for a cached key is delivered as onUpdate, a MODIFIED event for an unknown key as onAdd', async () => {
    const s = await started([pod('a', '1')]);
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.push({ type: 'ADDED', object: pod('a', '11') });
    s.stream.push({ type: 'MODIFIED', object: pod('z', '12') });
    await until('two more events', () => r.log.length === 3);
    assert.deepEqual(r.log, ['add a initial', 'update a 1->11', 'add z']);
    assert.equal(s.informer.getIndexer().getByKey('ns/a')?.metadata.resourceVersion, '11');
    await s.stop();
  });

  test('a DELETED event removes the object from the cache and reaches onDelete with the object', async () => {
    const s = await started([pod('a', '1')]);
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.push({ type: 'DELETED', object: pod('a', '13') });
    await until('delete', () => r.log.length === 2);
    assert.equal(r.log[1], 'delete a');
    assert.equal(s.informer.getIndexer().getByKey('ns/a'), undefined);
    await s.stop();
  });

  test('the cache already holds the new object when a handler is called (no await between pop and the cache update)', async () => {
    const seen: (string | undefined)[] = [];
    const s = await started([pod('a', '1')]);
    s.informer.addEventHandler({
      onUpdate: (_o, n) =>
        void seen.push(
          s.informer.getIndexer().getByKey('ns/a')?.metadata.resourceVersion +
            '/' +
            n.metadata.resourceVersion,
        ),
    });
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.push({ type: 'MODIFIED', object: pod('a', '2') });
    await until('update seen', () => seen.length === 1);
    assert.deepEqual(seen, ['2/2']);
    await s.stop();
  });

  test("a relist drops objects deleted while disconnected: onDelete gets a DeletedFinalStateUnknown tombstone with the last cached state, before the relist's updates", async () => {
    const s = await started([pod('keep', '1'), pod('gone', '2')]);
    const r = recorder();
    let tomb: DeletedFinalStateUnknown<DeepReadonly<Pod>> | undefined;
    s.informer.addEventHandler(r.handler);
    s.informer.addEventHandler({
      onDelete: (o) => void (tomb = o instanceof DeletedFinalStateUnknown ? o : undefined),
    });
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    // The watch breaks with 410 Gone; the reflector backs off, then relists.
    s.lw.queueList(podList('20', [pod('keep', '15'), pod('new', '16')])).queueWatch(new Stream());
    s.stream.push({
      type: 'ERROR',
      object: {
        kind: 'Status',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: 'too old',
      },
    } as unknown as WatchEvent<Pod>);
    await s.clock.waitForTimers(1);
    await s.clock.advance(60_000);
    await until('relist applied', () => r.log.length === 5, 5000);
    assert.deepEqual(r.log.slice(2), ['delete tombstone(ns/gone)', 'update keep 1->15', 'add new']);
    assert.ok(tomb !== undefined);
    assert.equal(tomb.obj.metadata.resourceVersion, '2');
    assert.deepEqual(s.informer.getIndexer().listKeys().sort(), ['ns/keep', 'ns/new']);
    await s.stop();
  });

  test('an update whose old and new resourceVersion are equal is a sync: a handler without resync does not get it', async () => {
    const s = await started([pod('a', '1')]);
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.push({ type: 'MODIFIED', object: pod('a', '1') });
    s.stream.push({ type: 'MODIFIED', object: pod('a', '2') });
    await until('the real update', () => r.log.length === 2);
    assert.deepEqual(r.log, ['add a initial', 'update a 1->2']);
    await s.stop();
  });

  test('the transform runs before the object is cached and before handlers see it', async () => {
    const s = await started([pod('a', '1', { spec: { node: 'n1' } })], {
      transform: (o) => ({ ...o, spec: { node: 'T' } }),
    });
    const nodes: (string | undefined)[] = [];
    s.informer.addEventHandler({ onAdd: (o) => void nodes.push(o.spec?.node) });
    void s.start();
    await until('synced', () => nodes.length === 1);
    assert.deepEqual(nodes, ['T']);
    assert.equal(s.informer.getIndexer().getByKey('ns/a')?.spec?.node, 'T');
    await s.stop();
  });

  test('the lister reads the cache and its NotFound names the configured group resource', async () => {
    const s = await started([pod('a', '1')], { groupResource: { group: '', resource: 'pods' } });
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    assert.equal(s.informer.lister().byNamespace('ns').get('a').metadata.name, 'a');
    assert.throws(
      () => s.informer.lister().byNamespace('ns').get('x'),
      (e: unknown) => e instanceof NotFoundError && /pods "x" not found/.test(e.message),
    );
    assert.equal(s.informer.getStore(), s.informer.getIndexer());
    await s.stop();
  });

  test('the default indexer has the namespace index and addIndexers after start indexes the cached objects', async () => {
    const s = await started([
      pod('a', '1', { spec: { node: 'n1' } }),
      pod('b', '2', { spec: { node: 'n2' } }),
    ]);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    assert.equal(s.informer.getIndexer().byIndex('namespace', 'ns').length, 2);
    s.informer.addIndexers({ node: (o) => [o.spec?.node ?? ''] });
    assert.deepEqual(
      s.informer
        .getIndexer()
        .byIndex('node', 'n2')
        .map((o) => o.metadata.name),
      ['b'],
    );
    await s.stop();
  });

  test('an object the index function rejects is skipped and logged; the cache and handlers go on with the next', async () => {
    const log = recordingLogger();
    const s = await started([pod('a', '1')], {
      logger: log.logger,
      indexers: {
        bad: (o) => {
          if (o.metadata.name === 'bad') throw new Error('boom');
          return [];
        },
      },
    });
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.push(
      { type: 'ADDED', object: pod('bad', '2') },
      { type: 'ADDED', object: pod('ok', '3') },
    );
    await until('ok added', () => r.log.includes('add ok'));
    assert.ok(!r.log.includes('add bad'));
    assert.equal(s.informer.getIndexer().getByKey('ns/bad'), undefined);
    assert.ok(log.lines.some((l) => l.startsWith('error') && /could not be cached/.test(l)));
    await s.stop();
  });
});

describe('SharedIndexInformer: handlers are isolated from each other', () => {
  test('a slow async handler delays only itself: another handler gets every event while it is blocked', async () => {
    const s = await started([pod('a', '1')]);
    const gate = deferred();
    const slow: string[] = [];
    s.informer.addEventHandler({
      onAdd: async (o) => {
        slow.push(o.metadata.name);
        await gate.promise;
      },
      onUpdate: (_o, n) => void slow.push(`u${n.metadata.resourceVersion}`),
    });
    const fast = recorder();
    s.informer.addEventHandler(fast.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    for (let i = 2; i <= 50; i++) s.stream.push({ type: 'MODIFIED', object: pod('a', String(i)) });
    await until('fast handler saw all', () => fast.log.length === 50);
    assert.deepEqual(slow, ['a'], 'the slow handler is still in its first call');
    gate.resolve();
    await until('slow handler caught up', () => slow.length === 50);
    assert.equal(slow[49], 'u50', 'in order');
    await s.stop();
  });

  test('a throwing handler and a rejecting handler are reported through onHandlerError and the logger, keep receiving events, and do not affect others or the cache', async () => {
    const errors: string[] = [];
    const log = recordingLogger();
    const s = await started([pod('a', '1')], {
      logger: log.logger,
      onHandlerError: (e, ctx) =>
        void errors.push(`${ctx.handler} ${ctx.callback} ${(e as Error).message}`),
    });
    let thrown = 0;
    s.informer.addEventHandler(
      {
        onUpdate: () => {
          thrown++;
          throw new Error('sync throw');
        },
      },
      { name: 'thrower' },
    );
    s.informer.addEventHandler(
      {
        onUpdate: async () => {
          await Promise.resolve();
          throw new Error('async reject');
        },
      },
      { name: 'rejecter' },
    );
    const good = recorder();
    s.informer.addEventHandler(good.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.push(
      { type: 'MODIFIED', object: pod('a', '2') },
      { type: 'MODIFIED', object: pod('a', '3') },
    );
    await until('errors reported', () => errors.length === 4);
    await until('good handler got both', () => good.log.length === 3);
    assert.equal(thrown, 2, 'the throwing handler got the second event too');
    assert.deepEqual(errors.sort(), [
      'rejecter onUpdate async reject',
      'rejecter onUpdate async reject',
      'thrower onUpdate sync throw',
      'thrower onUpdate sync throw',
    ]);
    assert.equal(log.lines.filter((l) => l.startsWith('error')).length, 4);
    assert.equal(s.informer.getIndexer().getByKey('ns/a')?.metadata.resourceVersion, '3');
    await s.stop();
  });

  test('each handler receives its notifications in order', async () => {
    const s = await started([]);
    const seen: string[] = [];
    s.informer.addEventHandler({
      onAdd: async (o) => {
        await new Promise((r) => setImmediate(r));
        seen.push(o.metadata.name);
      },
    });
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    const names = Array.from({ length: 1500 }, (_, i) => `p${i}`);
    for (const n of names) s.stream.push({ type: 'ADDED', object: pod(n, '5') });
    await until('all delivered', () => seen.length === names.length, 100_000);
    assert.deepEqual(seen, names);
    await s.stop();
  });
});

describe('SharedIndexInformer: registration', () => {
  test('a handler added after sync is replayed the cache as onAdd(obj, true), and its registration syncs only once those are processed', async () => {
    const s = await started([pod('a', '1'), pod('b', '2')]);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    const gate = deferred();
    const seen: string[] = [];
    const reg = s.informer.addEventHandler({
      onAdd: async (o, initial) => {
        await gate.promise;
        seen.push(`${o.metadata.name} ${initial}`);
      },
    });
    await until('turns', () => true);
    assert.equal(reg.hasSynced(), false, 'replayed adds still pending');
    gate.resolve();
    await until('late handler synced', () => reg.hasSynced());
    assert.deepEqual(seen.sort(), ['a true', 'b true']);
    await s.stop();
  });

  test('removeEventHandler stops delivery to that handler; others continue; a foreign object is rejected with a typed error', async () => {
    const s = await started([pod('a', '1')]);
    const r1 = recorder();
    const r2 = recorder();
    const reg1 = s.informer.addEventHandler(r1.handler);
    s.informer.addEventHandler(r2.handler);
    void s.start();
    await until('synced', () => r1.log.length === 1 && r2.log.length === 1);
    s.informer.removeEventHandler(reg1);
    s.informer.removeEventHandler(reg1); // twice: ignored
    s.stream.push({ type: 'MODIFIED', object: pod('a', '2') });
    await until('r2 got it', () => r2.log.length === 2);
    assert.equal(r1.log.length, 1);
    assert.throws(
      () => s.informer.removeEventHandler({ hasSynced: () => true }),
      InvalidRegistrationError,
    );
    await s.stop();
  });

  test('run twice logs a warning and returns at once', async () => {
    const log = recordingLogger();
    const s = await started([], { logger: log.logger });
    void s.start();
    await s.informer.run(new AbortController().signal);
    assert.ok(log.lines.some((l) => /run\(\) called again/.test(l)));
    await s.stop();
  });

  test('setTransform and setWatchErrorHandler after start fail with "informer has already started"', async () => {
    const s = await started([]);
    s.informer.setTransform((o) => o);
    s.informer.setWatchErrorHandler(() => {});
    void s.start();
    assert.throws(
      () => s.informer.setTransform((o) => o),
      (e: unknown) =>
        e instanceof InformerAlreadyStartedError && /informer has already started/.test(e.message),
    );
    assert.throws(() => s.informer.setWatchErrorHandler(() => {}), InformerAlreadyStartedError);
    await s.stop();
  });

  test('after stop, addEventHandler and addIndexers fail with InformerStoppedError and isStopped() is true', async () => {
    const s = await started([]);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    assert.equal(s.informer.isStopped(), false);
    await s.stop();
    assert.equal(s.informer.isStopped(), true);
    assert.throws(() => s.informer.addEventHandler({}), InformerStoppedError);
    assert.throws(() => s.informer.addIndexers({ x: () => [] }), InformerStoppedError);
  });

  test('run() resolves only after the handler call in flight has settled; buffered notifications are dropped', async () => {
    const s = await started([pod('a', '1'), pod('b', '2'), pod('c', '3')]);
    const gate = deferred();
    const seen: string[] = [];
    s.informer.addEventHandler({
      onAdd: async (o) => {
        seen.push(o.metadata.name);
        await gate.promise;
      },
    });
    const running = s.start();
    await until('first call in flight', () => seen.length === 1);
    let resolved = false;
    void running.then(() => (resolved = true));
    const ac = s.signal;
    void ac;
    const stopping = s.stop();
    await until('turns', () => true, 50).catch(() => {});
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false, 'still waiting for the handler');
    gate.resolve();
    await stopping;
    assert.equal(resolved, true);
    assert.equal(seen.length, 1, 'the two buffered adds were dropped');
  });

  test('by default the informer starts with a streaming list (a watch with sendInitialEvents)', async () => {
    const s = setup({ watchList: undefined as unknown as boolean });
    void s.start();
    await until('first call', () => s.lw.calls.length === 1);
    assert.equal(s.lw.calls[0]!.verb, 'watch');
    assert.equal(s.lw.calls[0]!.options.sendInitialEvents, true);
    await s.stop();
  });

  test('the watch error handler receives errors that end a watch', async () => {
    const errs: unknown[] = [];
    const s = await started([], { watchErrorHandler: (e) => void errs.push(e) });
    s.lw.queueList(podList('11', []));
    s.lw.queueWatch(new Stream());
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    s.stream.fail(new Error('connection reset'));
    await until('reported', () => errs.length === 1, 5000);
    assert.match((errs[0] as Error).message, /connection reset/);
    await s.stop();
  });
});

describe('SharedIndexInformer: resync', () => {
  test('only handlers due for resync get onUpdate(o, o) on a resync tick; a handler with resync 0 gets none', async () => {
    const s = await started([pod('a', '1')], { resyncPeriodMs: 10_000 });
    const withResync = recorder();
    const without = recorder();
    s.informer.addEventHandler(withResync.handler);
    s.informer.addEventHandler(without.handler, { resyncPeriodMs: 0 });
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    await s.clock.advance(10_000);
    await until('resync delivered', () => withResync.log.length === 2);
    assert.deepEqual(withResync.log, ['add a initial', 'update a 1->1']);
    assert.deepEqual(without.log, ['add a initial']);
    await s.clock.advance(10_000);
    await until('second resync', () => withResync.log.length === 3);
    await s.stop();
  });

  test('per-handler periods: a handler resyncs on its own period, a multiple of the check period', async () => {
    const s = await started([pod('a', '1')], { resyncPeriodMs: 10_000 });
    const every10 = recorder();
    const every20 = recorder();
    s.informer.addEventHandler(every10.handler);
    s.informer.addEventHandler(every20.handler, { resyncPeriodMs: 20_000 });
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    for (let i = 0; i < 4; i++) await s.clock.advance(10_000);
    await until('resyncs', () => every10.log.length === 5);
    await until('resyncs 20', () => every20.log.length === 3);
    await s.stop();
  });

  test('clamping: below 1 s is raised to 1 s; below the check period lowers it before start and is raised to it after start; with a check period of 0 handler resync is disabled', async () => {
    const s = setup({ resyncPeriodMs: 60_000 });
    s.informer.addEventHandler({}, { resyncPeriodMs: 10 });
    assert.equal(s.informer.resyncCheckPeriodMs, 1000, 'lowered to the clamped 1 s before start');
    const s2 = setup({ resyncPeriodMs: 60_000 });
    s2.lw.queueList(podList('1', [pod('a', '1')])).queueWatch(new Stream());
    void s2.start();
    await until('synced', () => s2.informer.hasSynced());
    const r = recorder();
    s2.informer.addEventHandler(r.handler, { resyncPeriodMs: 5_000 });
    assert.equal(s2.informer.resyncCheckPeriodMs, 60_000, 'unchanged after start');
    await s2.clock.advance(5_000);
    await until('turns', () => true);
    assert.deepEqual(r.log, ['add a initial'], 'no resync at 5 s: raised to 60 s');
    await s2.clock.advance(55_000);
    await until('resync at 60 s', () => r.log.length === 2);
    await s2.stop();

    const log = recordingLogger();
    const s3 = setup({ logger: log.logger });
    s3.lw.queueList(podList('1', [pod('a', '1')])).queueWatch(new Stream());
    void s3.start();
    await until('synced', () => s3.informer.hasSynced());
    s3.informer.addEventHandler({}, { resyncPeriodMs: 5_000 });
    assert.ok(log.lines.some((l) => /check period is 0/.test(l)));
    await s3.stop();
  });
});

describe('SharedIndexInformer: addEventHandlerWithOptions (client-go 1.33 HandlerOptions)', () => {
  test('a per-handler logger gets that handler’s failures and clamping warnings; the informer’s logger does not', async () => {
    const informerLog = recordingLogger();
    const handlerLog = recordingLogger();
    const s = await started([pod('a', '1')], {
      logger: informerLog.logger,
      resyncPeriodMs: 60_000,
    });
    s.informer.addEventHandlerWithOptions(
      {
        onAdd: () => {
          throw new Error('handler broke');
        },
      },
      { logger: handlerLog.logger, resyncPeriodMs: 10, name: 'mine' },
    );
    void s.start();
    await until('reported', () => handlerLog.lines.some((l) => l.startsWith('error ')));
    assert.ok(
      handlerLog.lines.some((l) => /resync period 10 ms is too small/.test(l)),
      'the clamping warning went to the handler’s logger',
    );
    assert.ok(
      handlerLog.lines.some((l) => /mine/.test(l)),
      'named in its messages',
    );
    assert.deepEqual(
      informerLog.lines,
      [],
      'nothing of this handler reached the informer’s logger',
    );
    await s.stop();
  });

  test('the per-handler resync period applies to that handler only', async () => {
    const s = await started([pod('a', '1')], { resyncPeriodMs: 10_000 });
    const own = recorder();
    const plain = recorder();
    s.informer.addEventHandlerWithOptions(own.handler, { resyncPeriodMs: 0 });
    s.informer.addEventHandler(plain.handler);
    void s.start();
    await until('synced', () => s.informer.hasSynced());
    await s.clock.advance(10_000);
    await until('resync delivered', () => plain.log.length === 2);
    assert.deepEqual(own.log, ['add a initial']);
    await s.stop();
  });
});
