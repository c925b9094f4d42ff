// List and watch semantics of the test API server: resourceVersions, paging, selectors,
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
// history replay, 410 after compaction, bookmarks, initial events, metadata-only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { raw, RawWatch, until } from './helpers.js';

const META = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const META_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

describe('test API server (list and watch)', () => {
  let server: TestApiServer;
  let core: k8s.CoreV1Api;
  let kc: k8s.KubeConfig;
  const clock = new FakeClock();

  before(async () => {
    server = await startTestApiServer({ clock, bookmarkIntervalMs: 1000, historySize: 1000 });
    kc = server.kubeConfig();
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'lw' } } });
    for (let i = 0; i < 10; i++) {
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: `cm-${i}`, labels: { parity: i % 2 === 0 ? 'even' : 'odd' } } },
      });
    }
  });
  after(() => server.close());

  describe('list', () => {
    it('returns items in name order with the list resourceVersion', async () => {
      const list = await core.listNamespacedConfigMap({ namespace: 'lw' });
      assert.equal(list.items.length, 10);
      assert.deepEqual(
        list.items.map((c) => c.metadata?.name),
        [...Array(10).keys()].map((i) => `cm-${i}`).sort(),
      );
      assert.equal(list.metadata?.resourceVersion, String(server.resourceVersion));
    });

    it('labelSelector and fieldSelector filter', async () => {
      const even = await core.listNamespacedConfigMap({
        namespace: 'lw',
        labelSelector: 'parity=even',
      });
      assert.equal(even.items.length, 5);
      const named = await core.listNamespacedConfigMap({
        namespace: 'lw',
        fieldSelector: 'metadata.name=cm-3',
      });
      assert.deepEqual(
        named.items.map((c) => c.metadata?.name),
        ['cm-3'],
      );
      const notNs = await core.listConfigMapForAllNamespaces({
        fieldSelector: 'metadata.namespace!=lw',
      });
      assert.ok(notNs.items.every((c) => c.metadata?.namespace !== 'lw'));
    });

    it('an unknown field selector is 400 and a registered one works', async () => {
      const res = await raw(
        server.url,
        'GET',
        '/api/v1/namespaces/lw/configmaps?fieldSelector=data.x%3Dy',
      );
      assert.equal(res.code, 400);
      assert.equal(res.json.message, 'field label not supported: data.x');
      server.registerFieldSelector('configmaps', 'data.x');
      await core.patchNamespacedConfigMap(
        { namespace: 'lw', name: 'cm-7', body: { data: { x: 'y' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      const got = await core.listNamespacedConfigMap({
        namespace: 'lw',
        fieldSelector: 'data.x=y',
      });
      assert.deepEqual(
        got.items.map((c) => c.metadata?.name),
        ['cm-7'],
      );
    });

    it('pods can be selected by spec.nodeName and status.phase', async () => {
      server.create('pods', {
        metadata: { name: 'on-n1', namespace: 'lw' },
        spec: { nodeName: 'n1', containers: [] },
        status: { phase: 'Running' },
      });
      server.create('pods', {
        metadata: { name: 'on-n2', namespace: 'lw' },
        spec: { nodeName: 'n2', containers: [] },
        status: { phase: 'Pending' },
      });
      const n1 = await core.listNamespacedPod({
        namespace: 'lw',
        fieldSelector: 'spec.nodeName=n1',
      });
      assert.deepEqual(
        n1.items.map((p) => p.metadata?.name),
        ['on-n1'],
      );
      const pending = await core.listNamespacedPod({
        namespace: 'lw',
        fieldSelector: 'status.phase=Pending',
      });
      assert.deepEqual(
        pending.items.map((p) => p.metadata?.name),
        ['on-n2'],
      );
    });

    it('a malformed label selector is 400', async () => {
      const res = await raw(
        server.url,
        'GET',
        '/api/v1/namespaces/lw/configmaps?labelSelector=a%20in%20(',
      );
      assert.equal(res.code, 400);
    });

    it('limit/continue pages over a consistent snapshot', async () => {
      const first = await core.listNamespacedConfigMap({ namespace: 'lw', limit: 4 });
      assert.equal(first.items.length, 4);
      assert.ok(first.metadata?._continue);
      assert.equal(first.metadata?.remainingItemCount, 6);
      // Changes after the first page do not show up in later pages.
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'cm-99' } },
      });
      await core.deleteNamespacedConfigMap({ namespace: 'lw', name: 'cm-8' });
      const names = first.items.map((c) => c.metadata?.name);
      let token: string | undefined = first.metadata?._continue;
      while (token) {
        const page = await core.listNamespacedConfigMap({
          namespace: 'lw',
          limit: 4,
          _continue: token,
        });
        assert.equal(page.metadata?.resourceVersion, first.metadata?.resourceVersion);
        names.push(...page.items.map((c) => c.metadata?.name));
        token = page.metadata?._continue;
      }
      assert.equal(names.length, 10);
      assert.ok(names.includes('cm-8') && !names.includes('cm-99'));
    });

    it('resourceVersionMatch=Exact lists the state at that version', async () => {
      const before = await core.listNamespacedConfigMap({ namespace: 'lw' });
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'later' } },
      });
      const exact = await core.listNamespacedConfigMap({
        namespace: 'lw',
        resourceVersion: before.metadata!.resourceVersion!,
        resourceVersionMatch: 'Exact',
      });
      assert.equal(exact.items.length, before.items.length);
      assert.equal(exact.metadata?.resourceVersion, before.metadata?.resourceVersion);
    });

    it('resourceVersion=0 serves the current state', async () => {
      const list = await core.listNamespacedConfigMap({ namespace: 'lw', resourceVersion: '0' });
      assert.equal(list.metadata?.resourceVersion, String(server.resourceVersion));
    });

    it('watch cache rule: resourceVersion=0 with a limit is served whole (limit ignored)', async () => {
      const list = await core.listNamespacedConfigMap({
        namespace: 'lw',
        resourceVersion: '0',
        limit: 3,
      });
      const all = await core.listNamespacedConfigMap({ namespace: 'lw' });
      assert.ok(all.items.length > 3);
      assert.equal(list.items.length, all.items.length);
      assert.equal(list.metadata?._continue, undefined);
    });

    it('watchCache: false pages a resourceVersion=0 list like --watch-cache=false', async () => {
      const paging = await startTestApiServer({ watchCache: false });
      try {
        const pc = paging.kubeConfig().makeApiClient(k8s.CoreV1Api);
        for (let i = 0; i < 5; i++) {
          await pc.createNamespacedConfigMap({
            namespace: 'default',
            body: { metadata: { name: `p-${i}` } },
          });
        }
        const first = await pc.listNamespacedConfigMap({
          namespace: 'default',
          resourceVersion: '0',
          limit: 2,
        });
        assert.equal(first.items.length, 2);
        assert.ok(first.metadata?._continue, 'a continue token for the rest');
        assert.equal(first.metadata?.remainingItemCount, 3);
        const rest = await pc.listNamespacedConfigMap({
          namespace: 'default',
          limit: 10,
          _continue: first.metadata._continue,
        });
        assert.deepEqual(
          [...first.items, ...rest.items].map((c) => c.metadata?.name),
          ['p-0', 'p-1', 'p-2', 'p-3', 'p-4'],
        );
      } finally {
        await paging.close();
      }
    });

    it('a list at a future resourceVersion is 504 Timeout: Too large resource version', async () => {
      const future = String(server.resourceVersion + 100);
      const res = raw(
        server.url,
        'GET',
        `/api/v1/namespaces/lw/configmaps?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`,
      );
      await new Promise((r) => setTimeout(r, 20));
      await clock.advance(1000);
      const answer = await res;
      assert.equal(answer.code, 504);
      assert.match(String(answer.json.message), /^Too large resource version/);
    });

    it('a continue token from before a compaction is 410 Expired', async () => {
      const first = await core.listNamespacedConfigMap({ namespace: 'lw', limit: 2 });
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'bump' } },
      });
      server.faults.compact();
      const res = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/lw/configmaps?limit=2&continue=${encodeURIComponent(first.metadata!._continue!)}`,
      );
      assert.equal(res.code, 410);
      assert.equal(res.json.reason, 'Expired');
    });

    it('metadata-only list returns PartialObjectMetadataList', async () => {
      const res = await raw(server.url, 'GET', '/api/v1/namespaces/lw/configmaps', undefined, {
        Accept: META_LIST,
      });
      assert.equal(res.json.kind, 'PartialObjectMetadataList');
      const items = res.json.items as Record<string, any>[];
      assert.equal(items[0]?.kind, 'PartialObjectMetadata');
      assert.equal(items[0]?.data, undefined);
      assert.ok(items[0]?.metadata.name);
    });

    it('metadata-only get returns PartialObjectMetadata', async () => {
      const res = await raw(server.url, 'GET', '/api/v1/namespaces/lw/configmaps/cm-7', undefined, {
        Accept: META,
      });
      assert.equal(res.json.kind, 'PartialObjectMetadata');
      assert.equal(res.json.apiVersion, 'meta.k8s.io/v1');
      assert.equal(res.json.data, undefined);
    });
  });

  describe('watch', () => {
    it('from a resourceVersion replays the history after it, then streams live', async () => {
      const rv = server.resourceVersion;
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'w-1' } },
      });
      await core.deleteNamespacedConfigMap({ namespace: 'lw', name: 'w-1' });
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${rv}`,
      );
      const [a, d] = await w.waitFor(2);
      assert.equal(a?.type, 'ADDED');
      assert.equal(d?.type, 'DELETED');
      assert.equal(
        Number(d?.object.metadata.resourceVersion),
        rv + 2,
        'a DELETED event carries the delete version',
      );
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'w-2' } },
      });
      const live = await w.waitFor(3);
      assert.equal(live[2]?.object.metadata.name, 'w-2');
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('without a resourceVersion starts with ADDED for the current state', async () => {
      const w = new RawWatch(
        server.url,
        '/api/v1/namespaces/lw/configmaps?watch=true&labelSelector=parity%3Dodd',
      );
      const evs = await w.waitFor(4);
      assert.ok(evs.every((e) => e.type === 'ADDED' && e.object.metadata.labels.parity === 'odd'));
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('from a compacted resourceVersion is HTTP 200 then an ERROR event with 410 Expired', async () => {
      const old = server.resourceVersion;
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'w-3' } },
      });
      server.faults.compact();
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${old}`,
      );
      const [e] = await w.waitFor(1);
      assert.equal(w.code, 200);
      assert.equal(e?.type, 'ERROR');
      assert.equal(e?.object.code, 410);
      assert.equal(e?.object.reason, 'Expired');
      assert.match(e?.object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
      assert.equal(await w.ended, 'end');
    });

    it('selector transitions: stops matching arrives as DELETED, starts matching as ADDED', async () => {
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'sel', labels: { team: 'a' } } },
      });
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${server.resourceVersion}&labelSelector=team%3Da`,
      );
      await server.waitForWatch('configmaps');
      const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
      await core.patchNamespacedConfigMap(
        { namespace: 'lw', name: 'sel', body: { data: { k: 'v' } } },
        merge,
      );
      await core.patchNamespacedConfigMap(
        { namespace: 'lw', name: 'sel', body: { metadata: { labels: { team: 'b' } } } },
        merge,
      );
      await core.patchNamespacedConfigMap(
        { namespace: 'lw', name: 'sel', body: { data: { k: 'w' } } },
        merge,
      );
      await core.patchNamespacedConfigMap(
        { namespace: 'lw', name: 'sel', body: { metadata: { labels: { team: 'a' } } } },
        merge,
      );
      const evs = await w.waitFor(3);
      assert.deepEqual(
        evs.map((e) => e.type),
        ['MODIFIED', 'DELETED', 'ADDED'],
      );
      assert.equal(evs[2]?.object.data.k, 'w');
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('allowWatchBookmarks sends periodic BOOKMARKs with only the resourceVersion', async () => {
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/lw/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${server.resourceVersion}`,
      );
      await server.waitForWatch('configmaps');
      // A change the watch does not select: the bookmark brings its version (news only).
      server.create('configmaps', { metadata: { name: 'bm-news', namespace: 'default' } });
      await clock.advance(1000);
      const [b] = await w.waitFor(1);
      assert.equal(b?.type, 'BOOKMARK');
      assert.deepEqual(b?.object, {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { resourceVersion: String(server.resourceVersion) },
      });
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('sendInitialEvents ends the initial ADDED events with the annotated bookmark', async () => {
      const w = new RawWatch(
        server.url,
        '/api/v1/namespaces/lw/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      );
      const count = server.list('configmaps', 'lw').length;
      const evs = await w.waitFor(count + 1);
      assert.ok(evs.slice(0, count).every((e) => e.type === 'ADDED'));
      const bm = evs[count];
      assert.equal(bm?.type, 'BOOKMARK');
      assert.equal(bm?.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('timeoutSeconds ends the stream cleanly', async () => {
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/lw/configmaps?watch=true&timeoutSeconds=5&resourceVersion=${server.resourceVersion}`,
      );
      await server.waitForWatch('configmaps');
      await clock.advance(5000);
      assert.equal(await w.ended, 'end');
    });

    it('metadata-only watch sends PartialObjectMetadata objects', async () => {
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${server.resourceVersion}`,
        { Accept: META },
      );
      await server.waitForWatch('configmaps');
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'meta-w' }, data: { big: 'x' } },
      });
      const [e] = await w.waitFor(1);
      assert.equal(e?.object.kind, 'PartialObjectMetadata');
      assert.equal(e?.object.data, undefined);
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it("client-node's Watch receives events with a label selector", async () => {
      const watch = new k8s.Watch(kc);
      const seen: string[] = [];
      let done!: () => void;
      const got = new Promise<void>((r) => (done = r));
      const ctl = await watch.watch(
        '/api/v1/namespaces/lw/configmaps',
        { resourceVersion: String(server.resourceVersion), labelSelector: 'w=1' },
        (type, obj: k8s.V1ConfigMap) => {
          seen.push(`${type} ${obj.metadata?.name}`);
          done();
        },
        () => undefined,
      );
      server.create('configmaps', { metadata: { name: 'cn-0', namespace: 'lw' } });
      server.create('configmaps', {
        metadata: { name: 'cn-1', namespace: 'lw', labels: { w: '1' } },
      });
      await got;
      assert.deepEqual(seen, ['ADDED cn-1']);
      ctl.abort();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it("client-node's ListWatch (makeInformer) lists then follows changes", async () => {
      const informer = k8s.makeInformer(kc, '/api/v1/namespaces/lw/configmaps', () =>
        core.listNamespacedConfigMap({ namespace: 'lw' }),
      );
      const added: string[] = [];
      let sawLate!: () => void;
      const late = new Promise<void>((r) => (sawLate = r));
      informer.on('add', (o: k8s.V1ConfigMap) => {
        added.push(o.metadata!.name!);
        if (o.metadata?.name === 'informer-late') sawLate();
      });
      await informer.start();
      await server.waitForWatch('configmaps');
      await core.createNamespacedConfigMap({
        namespace: 'lw',
        body: { metadata: { name: 'informer-late' } },
      });
      await late;
      assert.ok(added.includes('cm-0'));
      assert.ok(informer.list('lw').some((o) => o.metadata?.name === 'informer-late'));
      await informer.stop();
      await until(() => server.watchCount() === 0, 'the informer watch to close');
    });
  });
});
