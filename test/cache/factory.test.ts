// SharedInformerFactory against the in-memory API server: sharing by key, start/shutdown
// lifecycle, waitForCacheSync results, namespace and selector scoping, transforms,
// custom resync and metadata-only informers.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, afterEach, before, describe, it } from 'node:test';
import { informerKey, SharedInformerFactory } from '../../src/cache/factory.js';
import type { SharedInformerFactoryOptions } from '../../src/cache/factory.js';
import { stripManagedFields } from '../../src/cache/transforms.js';
import { configMapsResource, namespacesResource, podsResource } from '../../src/client/builtins.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { fastBackoff, until } from '../dynamic/helpers.js';

function pod(name: string, namespace = 'default', labels: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels,
      managedFields: [{ manager: 'test', operation: 'Apply' }],
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

describe('SharedInformerFactory', () => {
  let server: TestApiServer;
  const factories: SharedInformerFactory[] = [];
  const controllers: AbortController[] = [];

  const make = (options: SharedInformerFactoryOptions = {}): SharedInformerFactory => {
    const f = new SharedInformerFactory(server.kubeConfig(), {
      logger: noopLogger,
      informerOptions: { backoff: fastBackoff },
      ...options,
    });
    factories.push(f);
    return f;
  };
  const signal = (): AbortSignal => {
    const ac = new AbortController();
    controllers.push(ac);
    return ac.signal;
  };

  before(async () => {
    server = await startTestApiServer({ namespaces: ['default', 'other'] });
  });
  afterEach(async () => {
    for (const c of controllers.splice(0)) c.abort();
    await Promise.all(factories.splice(0).map((f) => f.shutdown()));
    server.faults.reset();
    for (const p of server.list('pods'))
      server.delete('pods', p.metadata!.name!, p.metadata!.namespace);
  });
  after(() => server.close());

  it('forResource returns the same informer for the same resource and options', () => {
    const f = make();
    assert.equal(f.forResource(podsResource), f.forResource(podsResource));
    assert.equal(f.pods(), f.forResource(podsResource));
    assert.equal(f.pods({ namespace: 'a' }), f.pods({ namespace: 'a' }));
    assert.equal(
      f.forResource(podsResource, { transform: stripManagedFields }),
      f.pods({ transform: stripManagedFields }),
    );
    assert.equal(f.informers().size, 3);
  });

  it('different namespace, selectors, transform, indexers or metadata-only give different informers', () => {
    const f = make();
    const base = f.pods();
    const others = [
      f.pods({ namespace: 'other' }),
      f.pods({ labelSelector: 'app=web' }),
      f.pods({ fieldSelector: 'spec.nodeName=n1' }),
      f.pods({ transform: (p) => p }),
      f.pods({ indexers: { byName: (p) => [p.metadata?.name ?? ''] } }),
      f.pods({ resyncPeriodMs: 60_000 }),
      f.forResourceMetadata(podsResource),
    ];
    assert.equal(new Set([base, ...others]).size, 8);
    assert.equal(f.informers().size, 8);
  });

  it('a factory namespace applies to namespaced resources only', () => {
    const f = make({ namespace: 'default' });
    assert.ok(f.informers().size === 0);
    f.pods();
    f.namespaces();
    assert.deepEqual([...f.informers().keys()].sort(), [
      'namespaces/v1',
      'pods/v1 namespace=default',
    ]);
    assert.equal(informerKey(namespacesResource), 'namespaces/v1');
  });

  it('start runs only informers not yet started; informers made later run at the next start', async () => {
    const f = make();
    const s = signal();
    server.clearRequests();
    f.pods();
    f.start(s);
    f.start(s);
    await server.waitForWatch('pods', 1);
    f.configMaps();
    f.start(s);
    await server.waitForWatch('configmaps', 1);
    const synced = await f.waitForCacheSync(s);
    assert.deepEqual([...synced.entries()].sort(), [
      ['configmaps/v1', true],
      ['pods/v1', true],
    ]);
    assert.equal(server.watchCount('pods'), 1);
    // One informer ran: its first list (or streaming watch) happened once.
    const podVerbs = server.requests.filter((r) => r.resource === 'pods').map((r) => r.verb);
    assert.equal(podVerbs.length, new Set(podVerbs).size, podVerbs.join(','));
  });

  it('waitForCacheSync covers only started informers and reports each one', async () => {
    server.create('pods', pod('a'));
    const f = make();
    const s = signal();
    const pods = f.pods();
    f.start(s);
    f.secrets(); // made after start, never started
    const synced = await f.waitForCacheSync(s);
    assert.deepEqual([...synced], [['pods/v1', true]]);
    assert.deepEqual(pods.getIndexer().listKeys(), ['default/a']);
  });

  it('waitForCacheSync reports false for an informer that cannot list before the signal aborts', async () => {
    server.faults.failNext(1000, { code: 500, verb: ['list', 'watch'], resource: 'configmaps' });
    const f = make();
    const s = signal();
    f.pods();
    f.configMaps();
    f.start(s);
    const waitAc = new AbortController();
    const result = f.waitForCacheSync(waitAc.signal);
    await until('pods synced', () => f.pods().hasSynced());
    waitAc.abort();
    assert.deepEqual([...(await result)].sort(), [
      ['configmaps/v1', false],
      ['pods/v1', true],
    ]);
  });

  it('shutdown resolves once every informer has stopped and closed its watch', async () => {
    const f = make();
    const s = signal();
    const pods = f.pods();
    const cms = f.configMaps();
    f.start(s);
    await f.waitForCacheSync(s);
    await server.waitForWatch('pods', 1);
    await server.waitForWatch('configmaps', 1);
    await f.shutdown();
    assert.equal(pods.isStopped(), true);
    assert.equal(cms.isStopped(), true);
    await until('watches closed on the server', () => server.watchCount() === 0);
  });

  it('start after shutdown does nothing', async () => {
    const f = make();
    f.pods();
    await f.shutdown();
    server.clearRequests();
    const late = f.configMaps();
    f.start(signal());
    assert.equal(f.isShutdown, true);
    assert.deepEqual([...(await f.waitForCacheSync(signal()))], []);
    assert.equal(late.hasSynced(), false);
    assert.equal(late.isStopped(), false);
    assert.equal(server.requests.length, 0);
  });

  it('aborting the start signal stops the informers; shutdown then resolves', async () => {
    const f = make();
    const ac = new AbortController();
    const pods = f.pods();
    f.start(ac.signal);
    await f.waitForCacheSync(ac.signal);
    ac.abort();
    await f.shutdown();
    assert.equal(pods.isStopped(), true);
  });

  it("start listens once on the caller's signal however many informers it starts, and stops listening once they stopped", async () => {
    const f = make();
    const ac = new AbortController();
    const informers = [f.pods(), f.configMaps(), f.namespaces()];
    f.start(ac.signal);
    assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
    await f.waitForCacheSync(ac.signal);
    await f.shutdown();
    for (const i of informers) assert.equal(i.isStopped(), true);
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
  });

  it('namespace and label selector scope what an informer caches', async () => {
    server.create('pods', pod('a', 'default', { app: 'web' }));
    server.create('pods', pod('b', 'default', { app: 'db' }));
    server.create('pods', pod('c', 'other', { app: 'web' }));
    const f = make({ labelSelector: 'app=web' });
    const s = signal();
    const web = f.pods();
    const webDefault = f.pods({ namespace: 'default' });
    const all = f.pods({ labelSelector: '' });
    f.start(s);
    await f.waitForCacheSync(s);
    assert.deepEqual(web.getIndexer().listKeys().sort(), ['default/a', 'other/c']);
    assert.deepEqual(webDefault.getIndexer().listKeys(), ['default/a']);
    assert.deepEqual(all.getIndexer().listKeys().sort(), ['default/a', 'default/b', 'other/c']);
  });

  it('tweakListOptions of the factory and of the call both apply to lists and watches', async () => {
    server.create('pods', pod('a', 'default', { app: 'web', tier: 'front' }));
    server.create('pods', pod('b', 'default', { app: 'web' }));
    server.create('pods', pod('c', 'default', { tier: 'front' }));
    const f = make({ tweakListOptions: (o) => ({ ...o, labelSelector: 'app=web' }) });
    const s = signal();
    const both = f.pods({
      tweakListOptions: (o) => ({ ...o, labelSelector: `${o.labelSelector ?? ''},tier=front` }),
    });
    f.start(s);
    await f.waitForCacheSync(s);
    assert.deepEqual(both.getIndexer().listKeys(), ['default/a']);
    server.create('pods', pod('d', 'default', { app: 'web', tier: 'front' }));
    server.create('pods', pod('e', 'default', { app: 'web' }));
    await until('d arrives', () => both.getIndexer().listKeys().includes('default/d'));
    assert.deepEqual(both.getIndexer().listKeys().sort(), ['default/a', 'default/d']);
  });

  it('the factory transform runs before objects are cached', async () => {
    server.create('pods', pod('a'));
    const f = make({ transform: stripManagedFields });
    const s = signal();
    const pods = f.pods();
    f.start(s);
    await f.waitForCacheSync(s);
    const cached = pods.lister().byNamespace('default').get('a');
    assert.equal(cached.metadata?.managedFields, undefined);
    assert.equal(cached.metadata?.name, 'a');
  });

  it('typed informers index by namespace by default', async () => {
    server.create('pods', pod('a', 'default'));
    server.create('pods', pod('b', 'other'));
    const f = make();
    const s = signal();
    const pods = f.pods();
    f.start(s);
    await f.waitForCacheSync(s);
    assert.deepEqual(
      pods
        .getIndexer()
        .byIndex('namespace', 'other')
        .map((p) => p.metadata?.name),
      ['b'],
    );
    assert.deepEqual(
      pods
        .lister()
        .byNamespace('default')
        .list()
        .map((p) => p.metadata?.name),
      ['a'],
    );
  });

  it('customResync sets the resync period of one resource; the factory default the others', () => {
    const f = make({ resyncPeriodMs: 30_000, customResync: { configmaps: 5_000 } });
    assert.equal(f.forResource(configMapsResource).resyncCheckPeriodMs, 5_000);
    assert.equal(f.pods().resyncCheckPeriodMs, 30_000);
  });

  it('the lister of a factory informer names the resource in NotFound errors', async () => {
    const f = make();
    const s = signal();
    const deployments = f.deployments();
    f.start(s);
    await f.waitForCacheSync(s);
    assert.throws(
      () => deployments.lister().byNamespace('default').get('nope'),
      /deployments\.apps "nope" not found/,
    );
  });

  it('metadata-only informers cache PartialObjectMetadata without spec, typed as the resource (v1 Pod)', async () => {
    server.create('pods', pod('a', 'default', { app: 'web' }));
    const f = make();
    const s = signal();
    const meta = f.forResourceMetadata(podsResource);
    f.start(s);
    await f.waitForCacheSync(s);
    const cached = meta.lister().byNamespace('default').get('a') as Record<string, unknown>;
    assert.equal(cached.apiVersion, 'v1');
    assert.equal(cached.kind, 'Pod');
    assert.equal(cached.spec, undefined);
    assert.deepEqual((cached.metadata as { labels?: unknown }).labels, { app: 'web' });
  });
});
