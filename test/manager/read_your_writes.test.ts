// Read your own writes (Kubernetes 1.36 consistency store, client-go 1.36
// LastStoreSyncResourceVersion, JOSDK #3398), proven with the test server's paused watch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { StaleCacheError } from '../../src/cache/index.js';
import { configMapsResource } from '../../src/client/builtins.js';
import type { Serialized } from '../../src/client/types.js';
import { Controller } from '../../src/controller/index.js';
import { Manager } from '../../src/manager/index.js';
import type { CachedClient } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

type ConfigMap = Serialized<V1ConfigMap>;

const cm = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

async function turns(n = 50): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

describe('read your own writes', () => {
  let server: TestApiServer;
  let manager: Manager;
  let client: CachedClient<ConfigMap>;
  let stop: AbortController;
  let running: Promise<void>;

  before(async () => {
    server = await startTestApiServer();
    manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    client = manager.client(configMapsResource);
    stop = new AbortController();
    running = manager.start(stop.signal);
    await manager.elected();
    await client.list(); // the informer exists and has synced
  });
  after(async () => {
    server.faults.resumeWatches();
    stop.abort();
    await running;
    await server.close();
  });

  test('the informer reports the resourceVersion its store has reached (LastStoreSyncResourceVersion)', async () => {
    const written = await client.create(cm('rv', { v: '1' }));
    const informer = manager.cache.forResource(configMapsResource);
    await eventually(
      'the store reached the write',
      () =>
        BigInt(informer.lastStoreSyncResourceVersion()) >=
        BigInt(written.metadata!.resourceVersion!),
    );
  });

  test('after a write, a read of the cache waits until the delayed watch delivered it, then sees it', async () => {
    await client.create(cm('mine', { v: 'old' }));
    await client.get('mine', { namespace: 'default' });
    server.faults.pauseWatches({ resource: 'configmaps' });
    const current = server.get<ConfigMap>('configmaps', 'mine', 'default')!;
    await client.update({ ...current, data: { v: 'new' } });
    let answer: string | undefined;
    const reading = client
      .get('mine', { namespace: 'default' })
      .then((o) => (answer = o.data?.['v']));
    await turns();
    assert.equal(answer, undefined, 'no answer from the stale cache while the watch is held');
    assert.equal(client.consistency.ensureReady('default/mine'), false, 'the write is pending');
    server.faults.resumeWatches({ resource: 'configmaps' });
    await reading;
    assert.equal(answer, 'new', 'the read saw its own write');
  });

  test('a cache that does not catch up in time is reported as stale, in words', async () => {
    const current = server.get<ConfigMap>('configmaps', 'mine', 'default')!;
    server.faults.pauseWatches({ resource: 'configmaps' });
    const written = await client.update({ ...current, data: { v: 'newer' } });
    await assert.rejects(
      client.get('mine', { namespace: 'default', consistencyTimeoutMs: 30 }),
      (err: unknown) =>
        err instanceof StaleCacheError &&
        err.key === 'default/mine' &&
        err.writtenResourceVersion === written.metadata!.resourceVersion &&
        /stale cache: the configmaps cache has seen resourceVersion \d+ but this process wrote default\/mine at resourceVersion \d+/.test(
          err.message,
        ),
    );
    await assert.rejects(client.list({ consistencyTimeoutMs: 30 }), StaleCacheError);
    const ac = new AbortController();
    const aborted = client.get('mine', { namespace: 'default', signal: ac.signal });
    ac.abort(new Error('caller gave up'));
    await assert.rejects(aborted, /caller gave up/);
    server.faults.resumeWatches({ resource: 'configmaps' });
    assert.equal((await client.get('mine', { namespace: 'default' })).data?.['v'], 'newer');
  });

  test('the echo of the controller’s own write alone triggers no reconcile', async () => {
    await client.create(cm('solo', { spec: '1' }));
    const seen: string[] = [];
    const controller = new Controller({
      name: 'solo',
      logger: noopLogger,
      reconcile: async (key, signal) => {
        const obj = await client.get(key.split('/')[1]!, { namespace: 'default', signal });
        seen.push(`${obj.data?.['spec']}/${obj.data?.['observed'] ?? '-'}`);
        if (obj.data?.['observed'] === undefined) {
          await client.update({ ...(obj as ConfigMap), data: { ...obj.data, observed: 'yes' } });
        }
      },
    }).for(manager.informer(configMapsResource), {
      consistency: client.consistency,
      filter: (o) => o.metadata?.name === 'solo',
    });
    const ctrlStop = new AbortController();
    const ctrl = controller.run(ctrlStop.signal);
    await eventually('reconciled', () => seen.length === 1);
    const informer = manager.cache.forResource(configMapsResource);
    await eventually(
      'the echo reached the cache',
      () => informer.getIndexer().getByKey('default/solo')?.data?.['observed'] === 'yes',
    );
    await turns(200);
    assert.deepEqual(seen, ['1/-'], 'no second reconcile for the echo');
    ctrlStop.abort();
    await ctrl;
  });

  test('the echo of the controller’s own write triggers no reconcile; someone else’s change at the same moment does (JOSDK #3398)', async () => {
    await client.create(cm('app', { spec: '1' }));
    const seen: string[] = [];
    let writeBack = true;
    const controller = new Controller({
      name: 'echo',
      logger: noopLogger,
      reconcile: async (key, signal) => {
        const obj = await client.get(key.split('/')[1]!, { namespace: 'default', signal });
        seen.push(`${obj.data?.['spec']}/${obj.data?.['observed'] ?? '-'}`);
        if (!writeBack) return;
        writeBack = false;
        // The "status" write: the controller records what it observed.
        await client.update({
          ...(obj as ConfigMap),
          data: { ...obj.data, observed: obj.data?.['spec'] ?? '' },
        });
        // Someone else changes the object right after, while the watch is held.
        const latest = server.get<ConfigMap>('configmaps', 'app', 'default')!;
        server.update('configmaps', { ...latest, data: { ...latest.data, spec: '2' } });
        server.faults.resumeWatches({ resource: 'configmaps' });
      },
    }).for(manager.informer(configMapsResource), {
      consistency: client.consistency,
      filter: (o) => o.metadata?.name === 'app',
    });
    const ctrlStop = new AbortController();
    server.faults.pauseWatches({ resource: 'configmaps' });
    const ctrl = controller.run(ctrlStop.signal);
    await eventually('two reconciles', () => seen.length >= 2);
    await turns(200);
    ctrlStop.abort();
    await ctrl;
    assert.deepEqual(
      seen,
      ['1/-', '2/1'],
      'one reconcile for the other writer’s change, which sees both writes; none for the echo',
    );
  });
});
