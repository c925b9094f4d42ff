import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { SharedIndexInformerOptions } from '../../src/cache/shared_informer.js';
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';
import type { ResourceEventHandler } from '../../src/cache/processor.js';
import { stripManagedFields } from '../../src/cache/transforms.js';
import { waitForCacheSync } from '../../src/cache/wait.js';
import { podsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { PartialObjectMetadata, Serialized } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { V1Pod } from '@kubernetes/client-node';
import { eventually as waitFor } from '../support/eventually.js';

type Pod = Serialized<V1Pod>;

const fastBackoff = { durationMs: 20, factor: 2, jitter: 0.5, capMs: 200, steps: 10 };

function makePod(name: string, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'it' }, ...extra },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

const label = (
  o:
    | { readonly metadata?: { readonly name?: string } }
    | DeletedFinalStateUnknown<DeepReadonly<Pod>>,
): string =>
  o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : (o.metadata?.name ?? '?');

function recorder(): { log: string[]; handler: ResourceEventHandler<Pod> } {
  const log: string[] = [];
  return {
    log,
    handler: {
      onAdd: (o, initial) => void log.push(`add ${label(o)}${initial ? ' initial' : ''}`),
      onUpdate: (_a, b) => void log.push(`update ${label(b)}`),
      onDelete: (o) => void log.push(`delete ${label(o)}`),
    },
  };
}

const stops: (() => Promise<void>)[] = [];

function startInformer(server: TestApiServer, options: SharedIndexInformerOptions<Pod> = {}) {
  const client = new ResourceClient(server.kubeConfig(), podsResource);
  const informer = new SharedIndexInformer<Pod>(listWatchFromClient(client), {
    name: 'pods',
    groupResource: { group: '', resource: 'pods' },
    logger: noopLogger,
    backoff: fastBackoff,
    ...options,
  });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  stops.push(stop);
  return {
    informer,
    signal: ac.signal,
    run: () => (running = informer.run(ac.signal)),
    stop,
    keys: () => informer.getIndexer().listKeys().sort(),
  };
}

describe('SharedIndexInformer against the in-memory API server', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((s) => s()));
    server.faults.reset();
    for (const p of server.list('pods'))
      server.delete('pods', p.metadata!.name!, p.metadata!.namespace);
  });
  after(async () => {
    await server.close();
  });

  test('several handlers, one slow and one throwing: all events reach the good ones in order, errors are reported, the cache is complete', async () => {
    server.create('pods', makePod('a'));
    const t = startInformer(server, {
      onHandlerError: (e) => void errors.push(String((e as Error).message)),
    });
    const errors: string[] = [];
    const fast = recorder();
    const slowSeen: string[] = [];
    let throws = 0;
    t.informer.addEventHandler(fast.handler);
    t.informer.addEventHandler({
      onAdd: async (o) => {
        await delay(20);
        slowSeen.push(label(o));
      },
    });
    t.informer.addEventHandler({
      onAdd: () => {
        throws++;
        throw new Error('bad handler');
      },
    });
    void t.run();
    assert.equal(await waitForCacheSync(t.signal, () => t.informer.hasSynced()), true);
    await server.waitForWatch('pods');
    for (let i = 0; i < 5; i++) server.create('pods', makePod(`p${i}`));
    await waitFor('fast handler saw all', () => fast.log.length === 6);
    assert.deepEqual(fast.log, ['add a initial', 'add p0', 'add p1', 'add p2', 'add p3', 'add p4']);
    await waitFor('slow handler caught up', () => slowSeen.length === 6);
    assert.deepEqual(slowSeen, ['a', 'p0', 'p1', 'p2', 'p3', 'p4']);
    await waitFor('throwing handler called for each', () => throws === 6);
    assert.equal(errors.length, 6);
    assert.equal(t.keys().length, 6);
  });

  test('a handler added late is replayed the cache as initial adds and then gets live events; its registration syncs', async () => {
    server.create('pods', makePod('a'));
    server.create('pods', makePod('b'));
    const t = startInformer(server);
    void t.run();
    await waitFor('sync', () => t.informer.hasSynced());
    const late = recorder();
    const reg = t.informer.addEventHandler(late.handler);
    assert.equal(await waitForCacheSync(t.signal, () => reg.hasSynced()), true);
    assert.deepEqual(late.log.sort(), ['add a initial', 'add b initial']);
    await server.waitForWatch('pods');
    server.create('pods', makePod('c'));
    await waitFor('live add', () => late.log.includes('add c'));
  });

  test('removing a handler stops its delivery while the others go on', async () => {
    const t = startInformer(server);
    const kept = recorder();
    const removed = recorder();
    t.informer.addEventHandler(kept.handler);
    const reg = t.informer.addEventHandler(removed.handler);
    void t.run();
    await waitFor('sync', () => t.informer.hasSynced());
    await server.waitForWatch('pods');
    server.create('pods', makePod('x'));
    await waitFor('both got x', () => kept.log.length === 1 && removed.log.length === 1);
    t.informer.removeEventHandler(reg);
    server.create('pods', makePod('y'));
    await waitFor('kept got y', () => kept.log.length === 2);
    assert.deepEqual(removed.log, ['add x']);
  });

  test('resync re-delivers the cache as updates with an unchanged resourceVersion, only to the handler that asked for it', async () => {
    server.create('pods', makePod('a'));
    const t = startInformer(server, { resyncPeriodMs: 1000 });
    const withResync: string[] = [];
    const without = recorder();
    t.informer.addEventHandler({
      onUpdate: (o, n) =>
        void withResync.push(`${o.metadata?.resourceVersion}=${n.metadata?.resourceVersion}`),
    });
    t.informer.addEventHandler(without.handler, { resyncPeriodMs: 0 });
    void t.run();
    await waitFor('a resync', () => withResync.length >= 1, 5000);
    const [a, b] = withResync[0]!.split('=');
    assert.equal(a, b);
    assert.deepEqual(without.log, ['add a initial']);
  });

  for (const watchList of [true, false])
    test(`compaction while disconnected: the relist's tombstones reach onDelete (${watchList ? 'streaming list' : 'paged list'})`, async () => {
      server.create('pods', makePod('keep'));
      server.create('pods', makePod('gone'));
      const t = startInformer(server, { watchList });
      let tomb: DeletedFinalStateUnknown<DeepReadonly<Pod>> | undefined;
      t.informer.addEventHandler({
        onDelete: (o) => void (o instanceof DeletedFinalStateUnknown && (tomb = o)),
      });
      void t.run();
      await waitFor('sync', () => t.keys().length === 2);
      await server.waitForWatch('pods');
      server.faults.pauseWatches();
      server.delete('pods', 'gone', 'default');
      server.faults.compact();
      server.faults.destroyWatches();
      await waitFor('tombstone', () => tomb !== undefined);
      assert.equal(tomb!.key, 'default/gone');
      assert.equal(tomb!.obj.metadata?.name, 'gone', 'carries the last cached state');
      assert.deepEqual(t.keys(), ['default/keep']);
    });

  test('the managedFields transform: cached objects and handlers never see managedFields', async () => {
    server.create(
      'pods',
      makePod('a', { managedFields: [{ manager: 'kubectl', operation: 'Apply' }] }),
    );
    const t = startInformer(server, { transform: stripManagedFields });
    const seen: unknown[] = [];
    t.informer.addEventHandler({ onAdd: (o) => void seen.push(o.metadata?.managedFields) });
    void t.run();
    await waitFor('sync', () => seen.length === 1);
    assert.deepEqual(seen, [undefined]);
    assert.equal(
      t.informer.lister().byNamespace('default').get('a').metadata?.managedFields,
      undefined,
    );
  });

  test('metadata-only: an informer over the metadata client caches PartialObjectMetadata without spec', async () => {
    server.create('pods', makePod('a'));
    const client = new ResourceClient(server.kubeConfig(), podsResource).metadata();
    const informer = new SharedIndexInformer<PartialObjectMetadata>(listWatchFromClient(client), {
      name: 'pods-metadata',
      logger: noopLogger,
      backoff: fastBackoff,
    });
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    stops.push(async () => {
      ac.abort();
      await running;
    });
    const added: DeepReadonly<PartialObjectMetadata>[] = [];
    informer.addEventHandler({ onAdd: (o) => void added.push(o) });
    await waitFor('sync', () => informer.hasSynced() && added.length === 1);
    await server.waitForWatch('pods');
    server.create('pods', makePod('b'));
    await waitFor('watch add', () => added.length === 2);
    for (const o of added) {
      assert.equal(o.apiVersion, 'v1');
      assert.equal(o.kind, 'Pod');
      assert.equal((o as { spec?: unknown }).spec, undefined);
    }
    assert.deepEqual(informer.getIndexer().listKeys().sort(), ['default/a', 'default/b']);
  });

  test('stop closes the watch and run() resolves', async () => {
    const t = startInformer(server);
    const running = t.run();
    await server.waitForWatch('pods');
    await t.stop();
    await running;
    await waitFor('the server saw the watch close', () => server.watchCount('pods') === 0);
    assert.equal(t.informer.isStopped(), true);
  });
});
