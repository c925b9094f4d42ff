import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { DeltaFIFO, FIFOClosedError } from '../../src/cache/delta_fifo.js';
import type { Delta } from '../../src/cache/delta_fifo.js';
import { Indexer } from '../../src/cache/indexer.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { Reflector } from '../../src/cache/reflector.js';
import type { ReflectorOptions } from '../../src/cache/reflector.js';
import { podsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { V1Pod } from '@kubernetes/client-node';
import { eventually as waitFor } from '../support/eventually.js';

type Pod = Serialized<V1Pod>;

const fastBackoff = { durationMs: 20, factor: 2, jitter: 0.5, capMs: 200, steps: 10 };

function makePod(name: string, namespace = 'default'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'it' } },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

const runningIngests: (() => Promise<void>)[] = [];

/** Reflector → DeltaFIFO → Indexer, the way the informer wires them. */
function ingest(server: TestApiServer, options: ReflectorOptions<Pod> = {}) {
  const cache = new Indexer<Pod>();
  const fifo = new DeltaFIFO<Pod>({ knownObjects: cache, emitDeltaTypeReplaced: true });
  const deltas: Delta<Pod>[] = [];
  const errors: unknown[] = [];
  const client = new ResourceClient(server.kubeConfig(), podsResource);
  const reflector = new Reflector<Pod>(listWatchFromClient(client), fifo, {
    name: 'pods',
    backoff: fastBackoff,
    logger: noopLogger,
    watchListEnabled: false,
    watchErrorHandler: (e) => void errors.push(e),
    ...options,
  });
  const ac = new AbortController();
  const running = reflector.run(ac.signal);
  const consuming = (async () => {
    for (;;) {
      try {
        await fifo.pop((ds) => {
          for (const d of ds) {
            deltas.push(d);
            if (d.type === 'Deleted') cache.delete(d.object);
            else if (cache.getByKey(fifo.keyOf(d.object)) === undefined) cache.add(d.object as Pod);
            else cache.update(d.object as Pod);
          }
        });
      } catch (err) {
        if (err instanceof FIFOClosedError) return;
        throw err;
      }
    }
  })();
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      ac.abort();
      await running;
      fifo.close();
      await consuming;
    })());
  runningIngests.push(stop);
  return {
    cache,
    fifo,
    deltas,
    errors,
    reflector,
    names: () => cache.listKeys().sort(),
    listCount: () => server.requests.filter((r) => r.verb === 'list').length,
    watchCount: () => server.requests.filter((r) => r.verb === 'watch').length,
    stop,
  };
}

// Every scenario over HTTP/1.1 (plain http) and over HTTP/2 (TLS, ALPN h2: the watches and
// requests share one connection, and the faults reset streams instead of sockets).
for (const protocol of ['HTTP/1.1', 'HTTP/2'] as const) {
  describe(`Reflector against the in-memory API server (${protocol})`, () => {
    let server: TestApiServer;
    before(async () => {
      server = await startTestApiServer({ https: protocol === 'HTTP/2' });
    });
    afterEach(async () => {
      await Promise.all(runningIngests.splice(0).map((stop) => stop()));
    });
    after(async () => {
      await server.close();
    });

    /** A clean slate: no pods, no faults, no requests, and no watch left over from the last test. */
    const reset = async (): Promise<void> => {
      server.faults.reset();
      for (const p of server.list('pods'))
        server.delete('pods', p.metadata!.name!, p.metadata!.namespace);
      await waitFor('watches of the previous test to close', () => server.watchCount('pods') === 0);
      server.clearRequests();
    };

    test('lists, then follows creates, updates and deletes through the watch', async () => {
      await reset();
      server.create('pods', makePod('a'));
      server.create('pods', makePod('b'));
      const t = ingest(server);
      await waitFor('initial sync', () => t.fifo.hasSynced() && t.cache.listKeys().length === 2);
      await server.waitForWatch('pods');
      server.create('pods', makePod('c'));
      server.delete('pods', 'a', 'default');
      await waitFor('watch events', () => t.names().join() === 'default/b,default/c');
      assert.equal(t.listCount(), 1);
      await t.stop();
      // Over HTTP/2 the stop resets the stream (RST_STREAM CANCEL) and the server learns it
      // a frame later; the session itself stays for other streams.
      await waitFor('the watch to be closed after stop', () => server.watchCount('pods') === 0);
    });

    test('a watch closed cleanly mid-stream is resumed from the last resourceVersion without a relist', async () => {
      await reset();
      const t = ingest(server);
      await server.waitForWatch('pods');
      server.create('pods', makePod('x'));
      await waitFor('x', () => t.cache.listKeys().length === 1);
      server.faults.closeWatches();
      server.create('pods', makePod('y'));
      await waitFor('y after the close', () => t.names().join() === 'default/x,default/y');
      assert.equal(t.listCount(), 1);
      assert.ok(t.watchCount() >= 2);
      await t.stop();
    });

    test('a watch socket destroyed abruptly mid-stream is re-established and no event is lost', async () => {
      await reset();
      const t = ingest(server);
      await server.waitForWatch('pods');
      server.create('pods', makePod('x'));
      await waitFor('x', () => t.cache.listKeys().length === 1);
      server.faults.destroyWatches();
      server.create('pods', makePod('y'));
      server.create('pods', makePod('z'));
      await waitFor('y and z after the socket died', () => t.cache.listKeys().length === 3);
      await t.stop();
    });

    test('a 500 on the first list is retried with backoff until the cache fills', async () => {
      await reset();
      server.create('pods', makePod('a'));
      server.faults.failNext(2, { verb: 'list', resource: 'pods', code: 500 });
      const t = ingest(server);
      await waitFor(
        'sync after two 500s',
        () => t.fifo.hasSynced() && t.cache.listKeys().length === 1,
      );
      assert.equal(t.listCount(), 3);
      assert.equal(t.errors.length, 2);
      await t.stop();
    });

    test('compaction while disconnected: 410 on resume, a 500 on the relist, then deletes surface as tombstones', async () => {
      await reset();
      server.create('pods', makePod('keep'));
      server.create('pods', makePod('gone'));
      const t = ingest(server);
      await waitFor('sync', () => t.cache.listKeys().length === 2);
      await server.waitForWatch('pods');
      server.faults.pauseWatches();
      server.delete('pods', 'gone', 'default');
      server.faults.compact();
      server.faults.failNext(1, { verb: 'list', resource: 'pods', code: 500 });
      server.faults.destroyWatches();
      await waitFor('tombstone for gone', () => t.names().join() === 'default/keep');
      const del = t.deltas.find((d) => d.type === 'Deleted');
      assert.ok(
        del !== undefined && del.object instanceof DeletedFinalStateUnknown,
        'the delete is a tombstone',
      );
      assert.equal(del.object.key, 'default/gone');
      assert.ok(t.listCount() >= 3, 'initial list, failed relist, relist');
      await t.stop();
    });

    test('429 with Retry-After on a watch start waits at least that long and re-watches without relisting', async () => {
      await reset();
      const t = ingest(server);
      await server.waitForWatch('pods');
      server.create('pods', makePod('x')); // an event, so the close is not a "very short watch"
      await waitFor('x', () => t.cache.listKeys().length === 1);
      server.clearRequests();
      server.faults.failNext(1, {
        verb: 'watch',
        resource: 'pods',
        code: 429,
        retryAfterSeconds: 1,
      });
      const started = Date.now();
      server.faults.closeWatches();
      await waitFor('second watch', () => server.watchCount('pods') === 1 && t.watchCount() === 2);
      assert.ok(Date.now() - started >= 1000, `re-watched after ${Date.now() - started} ms`);
      const verbs = server.requests.map((r) => r.verb);
      const last = verbs.lastIndexOf('watch');
      assert.equal(verbs[last - 1], 'watch', 'no list between the 429 and the re-watch');
      await t.stop();
    });

    test('an idle watch (paused stream) is restarted after idleTimeoutMs and events flow again', async () => {
      await reset();
      const t = ingest(server, { idleTimeoutMs: 300 });
      await server.waitForWatch('pods');
      server.faults.pauseWatches();
      server.create('pods', makePod('during-pause'));
      await waitFor('restart after idle', () => t.cache.listKeys().length === 1);
      assert.ok(t.watchCount() >= 2);
      await t.stop();
    });

    test('a malformed line in the stream ends that watch with an error and the reflector relists', async () => {
      await reset();
      const t = ingest(server);
      await server.waitForWatch('pods');
      server.faults.writeMalformedLine();
      await waitFor('relist', () => t.listCount() >= 2);
      assert.ok(t.errors.length >= 1);
      server.create('pods', makePod('after'));
      await waitFor('events after recovery', () => t.cache.listKeys().length === 1);
      await t.stop();
    });

    test('a server restart that forgets history: the reflector reconnects, relists and stays correct', async () => {
      await reset();
      server.create('pods', makePod('a'));
      const t = ingest(server);
      await waitFor('sync', () => t.cache.listKeys().length === 1);
      await server.waitForWatch('pods');
      server.faults.restart({ forgetHistory: true });
      server.create('pods', makePod('b'));
      await waitFor('b after restart', () => t.names().join() === 'default/a,default/b');
      await t.stop();
    });

    test('abort while waiting in backoff: run() settles and no request follows', async () => {
      await reset();
      server.faults.failNext(1, { verb: 'list', resource: 'pods', code: 500 });
      const t = ingest(server, { backoff: { durationMs: 5000, factor: 1 } });
      await waitFor('first list failed', () => t.errors.length === 1);
      await t.stop();
      const before = server.requests.length;
      await delay(50);
      assert.equal(server.requests.length, before);
    });

    test('streaming list: the initial state arrives as one replace at the initial-events-end bookmark, with no list request', async () => {
      await reset();
      server.create('pods', makePod('a'));
      server.create('pods', makePod('b'));
      const t = ingest(server, { watchListEnabled: true });
      await waitFor('sync', () => t.fifo.hasSynced() && t.cache.listKeys().length === 2);
      assert.equal(t.listCount(), 0);
      assert.deepEqual(
        t.deltas.map((d) => d.type),
        ['Replaced', 'Replaced'],
      );
      server.create('pods', makePod('c'));
      await waitFor('c on the same stream', () => t.cache.listKeys().length === 3);
      assert.equal(t.watchCount(), 1);
      await t.stop();
    });

    test('streaming list rejected by the server (422) falls back to a paged list', async () => {
      await reset();
      server.create('pods', makePod('a'));
      server.faults.failNext(1, { verb: 'watch', resource: 'pods', code: 422 });
      const t = ingest(server, { watchListEnabled: true });
      await waitFor(
        'sync through the fallback list',
        () => t.fifo.hasSynced() && t.cache.listKeys().length === 1,
      );
      assert.equal(t.listCount(), 1);
      await t.stop();
    });
  });
}

describe('Reflector paging against a server without the watch cache model', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ watchCache: false });
  });
  afterEach(async () => {
    await Promise.all(runningIngests.splice(0).map((stop) => stop()));
  });
  after(async () => {
    await server.close();
  });

  test('pager rule: the initial list at "0" comes in pages of 500 joined by continue tokens, every object once', async () => {
    server.seed(
      'pods',
      Array.from({ length: 1201 }, (_, i) => makePod(`p-${String(i).padStart(4, '0')}`)),
    );
    server.clearRequests();
    const t = ingest(server);
    await waitFor(
      'sync of 1201 pods',
      () => t.fifo.hasSynced() && t.cache.listKeys().length === 1201,
    );
    const lists = server.requests
      .filter((r) => r.verb === 'list')
      .map((r) => new URL(r.url, 'http://x').searchParams);
    assert.equal(lists.length, 3, 'ceil(1201 / 500) pages');
    assert.deepEqual(
      lists.map((q) => q.get('limit')),
      ['500', '500', '500'],
    );
    assert.equal(lists[0]?.get('resourceVersion'), '0');
    assert.ok(lists[1]?.get('continue') && lists[2]?.get('continue'), 'later pages carry continue');
    assert.equal(lists[1]?.get('resourceVersion'), null, 'continuation pages drop resourceVersion');
    const replaced = t.deltas.filter((d) => d.type === 'Replaced').length;
    assert.equal(replaced, 1201, 'one replace() with every object of every page');
    await t.stop();
  });
});
