import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Controller,
  ControllerAlreadyRunningError,
  ControllerStartedError,
  InvalidControllerOptionsError,
  generationChanged,
} from '../../src/controller/index.js';
import type { ReconcileResult, Reconciler } from '../../src/controller/index.js';
import type { KubeObject } from '../../src/client/types.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import type { LogFields, Logger } from '../../src/util/logger.js';
import { noopLogger } from '../../src/util/logger.js';
import { ItemExponentialFailureRateLimiter } from '../../src/workqueue/rate_limiters.js';
import { FakeInformer, deferred, obj, until } from './support.js';

/** Keeps `level message fields` lines, an Error field by its message. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (message: string, fields?: LogFields): void =>
      void lines.push(
        `${level} ${message} ${JSON.stringify(fields ?? {}, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`,
      );
  return {
    lines,
    logger: { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
  };
}

interface Harness {
  controller: Controller;
  clock: FakeClock;
  informer: FakeInformer<KubeObject>;
  calls: { key: string; at: number }[];
  stop: AbortController;
  running: Promise<void>;
}

function start(
  reconcile: Reconciler,
  opts: {
    workers?: number;
    shutdown?: 'drain' | 'abort';
    onError?: (e: unknown, k: string) => void;
    logger?: Logger;
  } = {},
): Harness {
  const clock = new FakeClock();
  const calls: { key: string; at: number }[] = [];
  const informer = new FakeInformer<KubeObject>();
  const controller = new Controller({
    name: 'test',
    clock,
    logger: opts.logger ?? noopLogger,
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
    ...(opts.onError !== undefined ? { onError: opts.onError } : {}),
    reconcile: (key, signal) => {
      calls.push({ key, at: clock.now() });
      return reconcile(key, signal);
    },
  }).for(informer);
  const stop = new AbortController();
  const running = controller.run(stop.signal, { shutdown: opts.shutdown ?? 'drain' });
  return { controller, clock, informer, calls, stop, running };
}

async function stopAndWait(h: Harness): Promise<void> {
  h.stop.abort();
  await h.running;
}

describe('Controller reconcile results', () => {
  test('a failing reconcile is requeued through the default rate limiter: 5, 10, 20, 40 ms', async () => {
    const errors: string[] = [];
    const h = start(
      async () => {
        throw new Error('boom');
      },
      { onError: (e, k) => errors.push(`${k}: ${(e as Error).message}`) },
    );
    h.controller.enqueue('default/a');
    await until('first reconcile', () => h.calls.length === 1);
    for (const delay of [5, 10, 20, 40]) {
      const before = h.calls.length;
      await h.clock.advance(delay - 1);
      assert.equal(h.calls.length, before, `no retry before ${delay} ms`);
      await h.clock.advance(1);
      await until(`retry after ${delay} ms`, () => h.calls.length === before + 1);
    }
    const t0 = h.calls[0]!.at;
    assert.deepEqual(
      h.calls.map((c) => c.at - t0),
      [0, 5, 15, 35, 75],
    );
    assert.equal(h.controller.queue.numRequeues('default/a'), 5);
    assert.equal(errors.length, 5);
    assert.equal(errors[0], 'default/a: boom');
    await stopAndWait(h);
  });

  test('success after failures forgets the key: the next failure waits 5 ms again', async () => {
    let fail = 2;
    const h = start(async () => {
      if (fail-- > 0) throw new Error('not yet');
    });
    h.controller.enqueue('k');
    await until('first', () => h.calls.length === 1);
    await h.clock.advance(5);
    await until('second', () => h.calls.length === 2);
    await h.clock.advance(10);
    await until('third (succeeds)', () => h.calls.length === 3);
    await flushAsync();
    assert.equal(h.controller.queue.numRequeues('k'), 0);
    fail = 1;
    h.controller.enqueue('k');
    await until('fourth', () => h.calls.length === 4);
    await h.clock.advance(4);
    assert.equal(h.calls.length, 4);
    await h.clock.advance(1);
    await until('fifth after 5 ms', () => h.calls.length === 5);
    await stopAndWait(h);
  });

  test('{ requeue: true } goes through addRateLimited: 5 then 10 ms, and counts requeues', async () => {
    let n = 0;
    const h = start(async (): Promise<ReconcileResult | void> =>
      ++n <= 2 ? { requeue: true } : undefined,
    );
    h.controller.enqueue('k');
    await until('first', () => h.calls.length === 1);
    await h.clock.advance(4);
    assert.equal(h.calls.length, 1);
    await h.clock.advance(1);
    await until('second', () => h.calls.length === 2);
    assert.equal(h.controller.queue.numRequeues('k'), 2);
    await h.clock.advance(9);
    assert.equal(h.calls.length, 2);
    await h.clock.advance(1);
    await until('third', () => h.calls.length === 3);
    await flushAsync();
    assert.equal(h.controller.queue.numRequeues('k'), 0, 'forgotten after plain success');
    await stopAndWait(h);
  });

  test('{ requeueAfterMs } forgets the failure history and requeues after exactly that long', async () => {
    let n = 0;
    const h = start(async (): Promise<ReconcileResult | void> => {
      n++;
      if (n === 1) throw new Error('first fails');
      if (n === 2) return { requeueAfterMs: 30_000 };
      return undefined;
    });
    h.controller.enqueue('k');
    await until('first', () => h.calls.length === 1);
    await h.clock.advance(5);
    await until('second', () => h.calls.length === 2);
    await flushAsync();
    assert.equal(h.controller.queue.numRequeues('k'), 0, 'forget before addAfter');
    assert.equal(h.controller.queue.waitingLen(), 1);
    await h.clock.advance(29_999);
    assert.equal(h.calls.length, 2);
    await h.clock.advance(1);
    await until('third at +30 s', () => h.calls.length === 3);
    assert.equal(h.calls[2]!.at - h.calls[1]!.at, 30_000);
    await stopAndWait(h);
  });

  test('a reconcile that throws synchronously, rejects with a non-Error, or whose onError throws never crashes anything', async () => {
    const { logger, lines } = recordingLogger();
    let n = 0;
    const h = start(
      (): Promise<void> => {
        n++;
        if (n === 1) throw new TypeError('sync throw');
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        return Promise.reject('a string');
      },
      {
        logger,
        onError: () => {
          throw new Error('hook broke');
        },
      },
    );
    h.controller.enqueue('k');
    await until('first', () => h.calls.length === 1);
    await h.clock.advance(5);
    await until('second', () => h.calls.length === 2);
    await flushAsync();
    assert.equal(lines.filter((l) => l.includes('onError hook threw')).length, 2);
    assert.equal(h.controller.queue.numRequeues('k'), 2, 'both failures requeued');
    await stopAndWait(h);
  });

  test('without onError a failure is logged as an error naming the controller and the key', async () => {
    const { logger, lines } = recordingLogger();
    const h = start(
      async () => {
        throw new Error('no access');
      },
      { logger },
    );
    h.controller.enqueue('ns/x');
    await until('first', () => h.calls.length === 1);
    await flushAsync();
    assert.ok(
      lines.some(
        (l) =>
          l.startsWith('error controller test: reconcile of ns/x failed') &&
          l.includes('no access'),
      ),
      lines.join('\n'),
    );
    await stopAndWait(h);
  });
});

describe('Controller concurrency', () => {
  test('the same key is never reconciled on two workers at once; adds during a reconcile collapse into one rerun', async () => {
    const gates = new Map<string, ReturnType<typeof deferred<void>>[]>();
    const active = new Set<string>();
    let maxParallel = 0;
    let overlap = false;
    const h = start(
      async (key) => {
        if (active.has(key)) overlap = true;
        active.add(key);
        maxParallel = Math.max(maxParallel, active.size);
        const d = deferred();
        const list = gates.get(key) ?? [];
        list.push(d);
        gates.set(key, list);
        await d.promise;
        active.delete(key);
      },
      { workers: 4 },
    );
    h.controller.enqueue('a');
    h.controller.enqueue('b');
    await until('a and b running', () => active.size === 2);
    for (let i = 0; i < 5; i++) h.controller.enqueue('a');
    await flushAsync();
    assert.equal(h.calls.filter((c) => c.key === 'a').length, 1, 'a is not started twice');
    gates.get('a')![0]!.resolve();
    await until('a rerun once', () => h.calls.filter((c) => c.key === 'a').length === 2);
    gates.get('a')![1]!.resolve();
    gates.get('b')![0]!.resolve();
    await until('idle', () => active.size === 0);
    await flushAsync();
    assert.equal(h.calls.filter((c) => c.key === 'a').length, 2);
    assert.equal(overlap, false);
    assert.equal(maxParallel, 2, 'different keys run in parallel');
    await stopAndWait(h);
  });

  test('at most `workers` reconciles run at once', async () => {
    let active = 0;
    let max = 0;
    const gate = deferred();
    const h = start(
      async () => {
        active++;
        max = Math.max(max, active);
        await gate.promise;
        active--;
      },
      { workers: 3 },
    );
    for (let i = 0; i < 10; i++) h.controller.enqueue(`k${i}`);
    await until('three running', () => active === 3);
    await flushAsync();
    assert.equal(max, 3);
    assert.equal(h.controller.queue.len(), 7);
    gate.resolve();
    await until('all done', () => h.calls.length === 10 && active === 0);
    await stopAndWait(h);
  });

  test('more than ten workers trip no MaxListenersExceededWarning: each waits on the one worker signal, which is no leak', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const gate = deferred();
      let active = 0;
      const h = start(
        async () => {
          active++;
          await gate.promise;
          active--;
        },
        { workers: 16 },
      );
      // 16 workers waiting for a key, then 12 of them in a reconcile while 4 still wait.
      await flushAsync();
      for (let i = 0; i < 12; i++) h.controller.enqueue(`k${i}`);
      await until('twelve running', () => active === 12);
      gate.resolve();
      await until('all done', () => h.calls.length === 12 && active === 0);
      await stopAndWait(h);
      // A warning is emitted on a later tick than the listener that trips it.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
      [],
    );
  });
});

describe('Controller start and shutdown', () => {
  test('workers start only after every handler registration has synced', async () => {
    const clock = new FakeClock();
    const primary = new FakeInformer<KubeObject>();
    const child = new FakeInformer<KubeObject>();
    primary.synced = false;
    child.synced = false;
    const calls: string[] = [];
    const c = new Controller({
      name: 'sync',
      clock,
      logger: noopLogger,
      reconcile: (key) => void calls.push(key),
    })
      .for(primary)
      .owns(child, { kind: 'Owner' });
    const stop = new AbortController();
    const running = c.run(stop.signal);
    primary.add(obj('a'));
    await clock.advance(100);
    assert.deepEqual(calls, [], 'nothing before sync');
    assert.equal(c.queue.len(), 1, 'events before sync are queued');
    primary.synced = true;
    await clock.advance(100);
    assert.deepEqual(calls, [], 'still waiting for the child informer');
    child.synced = true;
    await clock.advance(100);
    await until('reconciled after sync', () => calls.length === 1);
    assert.deepEqual(calls, ['default/a']);
    stop.abort();
    await running;
  });

  test('stopping before the caches synced resolves without reconciling anything', async () => {
    const informer = new FakeInformer<KubeObject>();
    informer.synced = false;
    const calls: string[] = [];
    const clock = new FakeClock();
    const c = new Controller({
      name: 'x',
      clock,
      logger: noopLogger,
      reconcile: (k) => void calls.push(k),
    }).for(informer);
    const stop = new AbortController();
    const running = c.run(stop.signal);
    informer.add(obj('a'));
    stop.abort();
    await running;
    assert.deepEqual(calls, []);
    assert.equal(informer.handlers.size, 0, 'handlers removed');
    assert.equal(clock.pendingTimers(), 0);
  });

  test("shutdown 'drain' lets the in-flight and every queued key finish, with the reconcile signal never aborted", async () => {
    const gate = deferred();
    const signals: AbortSignal[] = [];
    const h = start(async (key, signal) => {
      signals.push(signal);
      if (key === 'k0') await gate.promise;
    });
    for (let i = 0; i < 5; i++) h.controller.enqueue(`k${i}`);
    h.controller.enqueueAfter('later', 60_000);
    await until('k0 running', () => h.calls.length === 1);
    h.stop.abort();
    let resolved = false;
    void h.running.then(() => (resolved = true));
    await flushAsync();
    assert.equal(resolved, false, 'run waits for the drain');
    h.controller.enqueue('after-stop');
    gate.resolve();
    await h.running;
    assert.deepEqual(
      h.calls.map((c) => c.key),
      ['k0', 'k1', 'k2', 'k3', 'k4'],
      'queued keys drained; delayed and post-stop keys dropped',
    );
    assert.ok(signals.every((s) => !s.aborted));
    assert.equal(h.informer.handlers.size, 0, 'handlers removed');
    assert.equal(h.clock.pendingTimers(), 0, 'no timers left');
  });

  test("shutdown 'abort' aborts the reconcile signal, skips queued keys, and resolves only after the in-flight reconcile returned", async () => {
    const release = deferred();
    let sawAbort = false;
    const h = start(
      async (_key, signal) => {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        sawAbort = true;
        await release.promise;
      },
      { shutdown: 'abort' },
    );
    h.controller.enqueue('k0');
    h.controller.enqueue('k1');
    await until('k0 running', () => h.calls.length === 1);
    let resolved = false;
    void h.running.then(() => (resolved = true));
    h.stop.abort();
    await until('signal seen', () => sawAbort);
    await flushAsync();
    assert.equal(resolved, false, 'waits for the in-flight reconcile');
    release.resolve();
    await h.running;
    assert.deepEqual(
      h.calls.map((c) => c.key),
      ['k0'],
    );
  });

  test('an AbortError thrown by a reconcile aborted at shutdown is neither reported nor requeued', async () => {
    const errors: unknown[] = [];
    const h = start(
      async (_key, signal) => {
        await new Promise<void>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
        );
      },
      { shutdown: 'abort', onError: (e) => errors.push(e) },
    );
    h.controller.enqueue('k0');
    await until('running', () => h.calls.length === 1);
    await stopAndWait(h);
    assert.deepEqual(errors, []);
  });

  test('run() twice rejects with ControllerAlreadyRunningError; for() after run() throws ControllerStartedError', async () => {
    const h = start(async () => {});
    await assert.rejects(
      h.controller.run(new AbortController().signal),
      ControllerAlreadyRunningError,
    );
    assert.throws(() => h.controller.for(new FakeInformer()), ControllerStartedError);
    await stopAndWait(h);
  });

  test('invalid options fail with InvalidControllerOptionsError', () => {
    const reconcile = async (): Promise<void> => {};
    assert.throws(() => new Controller({ name: '', reconcile }), InvalidControllerOptionsError);
    assert.throws(
      () => new Controller({ name: 'x', reconcile, workers: 0 }),
      /workers must be a positive integer, got 0/,
    );
    assert.throws(
      () => new Controller({ name: 'x', reconcile, workers: 1.5 }),
      InvalidControllerOptionsError,
    );
    assert.throws(
      () => new Controller({ name: 'x', reconcile: undefined as unknown as Reconciler }),
      /reconcile must be a function/,
    );
  });

  test('a custom rate limiter spaces retries', async () => {
    const clock = new FakeClock();
    const informer = new FakeInformer<KubeObject>();
    const times: number[] = [];
    const c = new Controller({
      name: 'rl',
      clock,
      logger: noopLogger,
      rateLimiter: new ItemExponentialFailureRateLimiter(100, 1000),
      onError: () => {},
      reconcile: () => {
        times.push(clock.now());
        throw new Error('x');
      },
    }).for(informer);
    const stop = new AbortController();
    const running = c.run(stop.signal);
    c.enqueue('k');
    await until('first', () => times.length === 1);
    await clock.advance(100);
    await until('second', () => times.length === 2);
    await clock.advance(200);
    await until('third', () => times.length === 3);
    assert.deepEqual(
      times.map((t) => t - times[0]!),
      [0, 100, 300],
    );
    stop.abort();
    await running;
  });
});

describe('Controller event mapping', () => {
  async function harness(): Promise<{
    c: Controller;
    primary: FakeInformer<KubeObject>;
    child: FakeInformer<KubeObject>;
    other: FakeInformer<KubeObject>;
  }> {
    const primary = new FakeInformer<KubeObject>();
    const child = new FakeInformer<KubeObject>();
    const other = new FakeInformer<KubeObject>();
    const c = new Controller({
      name: 'map',
      clock: new FakeClock(),
      logger: noopLogger,
      reconcile: () => {},
    })
      .for(primary, {
        predicate: generationChanged,
        filter: (o) => o.metadata?.labels?.['skip'] !== 'yes',
      })
      .owns(child, { kind: 'App', apiVersion: 'example.com/v1' })
      .watches(other, (o) =>
        (o.metadata?.annotations?.['apps'] ?? '')
          .split(',')
          .filter(Boolean)
          .map((n) => `default/${n}`),
      );
    return { c, primary, child, other };
  }

  test('for(): adds, deletes and tombstones enqueue the object key; updates pass only through the predicate', async () => {
    const { c, primary } = await harness();
    primary.add(obj('a'));
    primary.update(obj('b', { generation: 1 }), obj('b', { generation: 1, labels: { x: 'y' } }));
    primary.update(obj('c', { generation: 1 }), obj('c', { generation: 2 }));
    primary.delete(obj('d'));
    primary.tombstone('ns2/e', obj('e', {}, 'ns2'));
    primary.add(obj('cluster-scoped', {}, ''));
    const keys: string[] = [];
    while (c.queue.len() > 0) {
      const r = await c.queue.get();
      if (!r.shutdown) {
        keys.push(r.item);
        c.queue.done(r.item);
      }
    }
    assert.deepEqual(keys, ['default/a', 'default/c', 'default/d', 'ns2/e', 'cluster-scoped']);
  });

  test('for(): the filter drops add, update and delete events of filtered objects', async () => {
    const { c, primary } = await harness();
    const skip = { labels: { skip: 'yes' } };
    primary.add(obj('a', skip));
    primary.update(obj('a', { ...skip, generation: 1 }), obj('a', { ...skip, generation: 2 }));
    primary.delete(obj('a', skip));
    primary.tombstone('default/a', obj('a', skip));
    assert.equal(c.queue.len(), 0);
  });

  test("owns(): a child's event enqueues its controlling owner's key; an update enqueues old and new owners", async () => {
    const { c, child } = await harness();
    const ref = (name: string, extra: object = {}) => ({
      apiVersion: 'example.com/v1',
      kind: 'App',
      name,
      uid: `uid-${name}`,
      controller: true,
      ...extra,
    });
    child.add(obj('web-deploy', { ownerReferences: [ref('web')] }));
    child.add(obj('orphan'));
    child.add(obj('not-controller', { ownerReferences: [ref('x', { controller: false })] }));
    child.add(obj('other-group', { ownerReferences: [ref('y', { apiVersion: 'other.io/v1' })] }));
    child.update(
      obj('moved', { ownerReferences: [ref('old')] }),
      obj('moved', { ownerReferences: [ref('new')] }),
    );
    child.tombstone('default/gone', obj('gone', { ownerReferences: [ref('g')] }));
    const keys: string[] = [];
    while (c.queue.len() > 0) {
      const r = await c.queue.get();
      if (!r.shutdown) {
        keys.push(r.item);
        c.queue.done(r.item);
      }
    }
    assert.deepEqual(keys, ['default/web', 'default/old', 'default/new', 'default/g']);
  });

  test('watches(): the mapper decides the keys; a throwing mapper is logged and the event ignored', async () => {
    const { lines, logger } = recordingLogger();
    const informer = new FakeInformer<KubeObject>();
    const c = new Controller({
      name: 'w',
      clock: new FakeClock(),
      logger,
      reconcile: () => {},
    }).watches(informer, (o) => {
      if (o.metadata?.name === 'bad') throw new Error('cannot map');
      return ['default/x', 'default/y'];
    });
    informer.add(obj('bad'));
    informer.add(obj('good'));
    assert.equal(c.queue.len(), 2);
    assert.ok(
      lines.some(
        (l) =>
          l.startsWith('warn controller w: watches() could not map a add event') &&
          l.includes('cannot map'),
      ),
    );
  });
});
