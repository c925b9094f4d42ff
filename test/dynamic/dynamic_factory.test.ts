// The dynamic and metadata-only informer factories against the in-memory API server:
// custom resources as unstructured objects, GVR resolution through discovery, and
// metadata-only caches.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { NoMatchError } from '../../src/client/errors.js';
import { podsResource } from '../../src/client/builtins.js';
import {
  DynamicSharedInformerFactory,
  MetadataSharedInformerFactory,
  nestedNumber,
} from '../../src/dynamic/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { crdRef, fastBackoff, makeCr, makeCrd, until } from './helpers.js';

const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const widgetRef = { group: 'example.com', resource: 'widgets' };

describe('DynamicSharedInformerFactory and MetadataSharedInformerFactory', () => {
  let server: TestApiServer;
  const stops: (() => Promise<void>)[] = [];
  const options = { logger: noopLogger, informerOptions: { backoff: fastBackoff } };

  before(async () => {
    server = await startTestApiServer({ namespaces: ['default', 'other'] });
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    server.create(crdRef, makeCrd('gadgets', 'Gadget', { scope: 'Cluster' }));
  });
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((s) => s()));
    for (const w of server.list(widgetRef))
      server.delete(widgetRef, w.metadata!.name!, w.metadata!.namespace);
  });
  after(() => server.close());

  function dynamic(extra: ConstructorParameters<typeof DynamicSharedInformerFactory>[1] = {}) {
    const f = new DynamicSharedInformerFactory(server.kubeConfig(), { ...options, ...extra });
    const ac = new AbortController();
    stops.push(async () => {
      ac.abort();
      await f.shutdown();
    });
    return { f, signal: ac.signal };
  }

  it("a dynamic informer over a CRD's custom resources caches unstructured objects and follows changes", async () => {
    server.create(widgetRef, makeCr('Widget', 'w1'));
    const { f, signal } = dynamic();
    const informer = await f.forGroupVersionResource(widgets);
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void seen.push(`add ${o.metadata?.name}`),
      onDelete: () => void seen.push('delete'),
    });
    f.start(signal);
    assert.deepEqual([...(await f.waitForCacheSync(signal))], [['widgets.example.com/v1', true]]);
    const cached = informer.lister().byNamespace('default').get('w1');
    assert.equal(nestedNumber(cached, 'spec', 'size').value, 3);
    server.create(widgetRef, makeCr('Widget', 'w2', 'other'));
    await until('w2 arrives', () => seen.includes('add w2'));
    server.delete(widgetRef, 'w1', 'default');
    await until('w1 deleted', () => seen.includes('delete'));
    assert.deepEqual(informer.getIndexer().listKeys(), ['other/w2']);
  });

  it('forGroupVersionResource resolves kind and scope through discovery and shares the informer', async () => {
    const { f } = dynamic({ namespace: 'default' });
    const a = await f.forGroupVersionResource(widgets);
    const b = f.forResource({ ...widgets, kind: 'Widget', namespaced: true });
    assert.equal(a, b);
    const cluster = await f.forGroupVersionResource({ ...widgets, resource: 'gadgets' });
    assert.deepEqual([...f.informers().keys()].sort(), [
      'gadgets.example.com/v1',
      'widgets.example.com/v1 namespace=default',
    ]);
    assert.notEqual(cluster, a);
  });

  it('a namespace-scoped dynamic factory caches only that namespace', async () => {
    server.create(widgetRef, makeCr('Widget', 'in'));
    server.create(widgetRef, makeCr('Widget', 'out', 'other'));
    const { f, signal } = dynamic({ namespace: 'default' });
    const informer = await f.forGroupVersionResource(widgets);
    f.start(signal);
    await f.waitForCacheSync(signal);
    assert.deepEqual(informer.getIndexer().listKeys(), ['default/in']);
  });

  it('a group/version/resource the server does not serve is a NoMatchError naming it', async () => {
    const { f } = dynamic();
    await assert.rejects(
      f.forGroupVersionResource({ group: 'example.com', version: 'v1', resource: 'nothings' }),
      (err: unknown) =>
        err instanceof NoMatchError && /example\.com\/v1, Resource=nothings/.test(err.message),
    );
  });

  it("metadata-only objects carry metadata but no spec, and their resource's apiVersion and kind, for built-in and custom resources", async () => {
    server.create(widgetRef, makeCr('Widget', 'm1'));
    server.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p1', namespace: 'default', labels: { app: 'x' } },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    const f = new MetadataSharedInformerFactory(server.kubeConfig(), options);
    const ac = new AbortController();
    stops.push(async () => {
      ac.abort();
      await f.shutdown();
      server.delete('pods', 'p1', 'default');
    });
    const crs = await f.forGroupVersionResource(widgets);
    const pods = f.forResource(podsResource);
    f.start(ac.signal);
    const synced = await f.waitForCacheSync(ac.signal);
    assert.deepEqual([...synced.values()], [true, true]);
    const w = crs.lister().byNamespace('default').get('m1') as Record<string, unknown>;
    const p = pods.lister().byNamespace('default').get('p1') as Record<string, unknown>;
    // Each carries the kind of the resource it came from, not PartialObjectMetadata.
    assert.equal(w.kind, 'Widget');
    assert.equal(w.apiVersion, 'example.com/v1');
    assert.equal(p.kind, 'Pod');
    assert.equal(p.apiVersion, 'v1');
    for (const o of [w, p]) {
      assert.equal(o.spec, undefined);
      assert.equal(typeof (o.metadata as { uid?: unknown }).uid, 'string');
    }
    assert.deepEqual((p.metadata as { labels?: unknown }).labels, { app: 'x' });
    assert.ok([...synced.keys()].every((k) => k.endsWith('metadata-only')));
  });
});
