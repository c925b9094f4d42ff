import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import {
  configMaps,
  deployments,
  namespaces,
  pods,
  podsResource,
  configMapsResource,
} from '../../src/client/builtins.js';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
} from '../../src/client/errors.js';
import { NamespaceMismatchError, ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import type { Status, WatchEvent } from '../../src/client/types.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { json, kubeConfigFor, startStub } from './stub.js';

async function server(t: TestContext) {
  const s = await startTestApiServer();
  const transport = new Transport(s.kubeConfig());
  t.after(async () => {
    transport.close();
    await s.close();
  });
  return { s, transport };
}

const cm = (
  name: string,
  data: Record<string, string> = {},
  labels: Record<string, string> = {},
) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

test('create, get, update and delete round-trip a ConfigMap as plain JSON', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  const created = await c.create(cm('a', { x: '1' }));
  assert.equal(created.metadata?.namespace, 'default');
  assert.equal(typeof created.metadata?.creationTimestamp, 'string');
  const got = await c.get('a');
  assert.deepEqual(got.data, { x: '1' });
  const updated = await c.update({ ...got, data: { x: '2' } });
  assert.notEqual(updated.metadata?.resourceVersion, got.metadata?.resourceVersion);
  const deleted = await c.delete('a');
  assert.ok(deleted !== undefined);
  const err = await c.get('a').catch((e: unknown) => e);
  assert.ok(isNotFound(err));
  assert.match((err as Error).message, /configmaps "a" not found/);
});

test('create without a scoped client takes the namespace from the object', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport);
  const made = await c.create({ ...cm('b'), metadata: { name: 'b', namespace: 'kube-system' } });
  assert.equal(made.metadata?.namespace, 'kube-system');
  await assert.rejects(async () => c.create(cm('c')), NamespaceMismatchError);
  await assert.rejects(
    async () =>
      c.namespace('default').create({ ...cm('d'), metadata: { name: 'd', namespace: 'other' } }),
    NamespaceMismatchError,
  );
});

test('creating a name that exists is AlreadyExists; updating with a stale resourceVersion is Conflict', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  const first = await c.create(cm('a'));
  assert.ok(isAlreadyExists(await c.create(cm('a')).catch((e: unknown) => e)));
  await c.update({ ...first, data: { v: '1' } });
  const err = await c.update({ ...first, data: { v: '2' } }).catch((e: unknown) => e);
  assert.ok(isConflict(err), String(err));
});

test('every patch type changes the object: merge, JSON patch, strategic merge, server-side apply', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  await c.create(cm('a', { x: '1' }));
  assert.deepEqual((await c.patch('a', { data: { m: '1' } })).data, { x: '1', m: '1' });
  const jp = await c.patch('a', [{ op: 'add', path: '/data/j', value: '1' }], { type: 'json' });
  assert.equal(jp.data?.j, '1');
  const sm = await c.patch('a', { data: { s: '1' } }, { type: 'strategic' });
  assert.equal(sm.data?.s, '1');
  const ap = await c.patch('a', cm('a', { ap: '1' }), {
    type: 'apply',
    fieldManager: 'test',
    force: true,
  });
  assert.equal(ap.data?.ap, '1');
  const applied = await c.apply(
    { ...cm('z', { k: 'v' }), metadata: { name: 'z', namespace: 'default' } },
    { fieldManager: 'test' },
  );
  assert.equal(applied.metadata?.name, 'z');
  await assert.rejects(async () => c.patch('a', {}, { type: 'apply' }), /fieldManager/);
});

test('a patch with content type and query is sent as the API expects (force only for apply)', async (t) => {
  const { s, transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  await c.create(cm('a'));
  s.clearRequests();
  await c.patch('a', cm('a', { q: '1' }), {
    type: 'apply',
    fieldManager: 'mgr',
    force: true,
    dryRun: true,
  });
  const url = new URL(s.requests.at(-1)!.url, 'http://x');
  assert.equal(url.searchParams.get('fieldManager'), 'mgr');
  assert.equal(url.searchParams.get('force'), 'true');
  assert.equal(url.searchParams.get('dryRun'), 'All');
  assert.equal((await c.get('a')).data?.q, undefined, 'dry run persisted nothing');
});

test('updateStatus changes only the status; getStatus reads it', async (t) => {
  const { transport } = await server(t);
  const d = deployments(transport).namespace('default');
  const created = await d.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  });
  const withStatus = await d.updateStatus({
    ...created,
    spec: { ...created.spec!, replicas: 5 },
    status: { readyReplicas: 1 },
  });
  assert.equal(withStatus.status?.readyReplicas, 1);
  assert.equal(withStatus.spec?.replicas, 1, 'spec changes through /status are ignored');
  assert.equal((await d.getStatus('web')).status?.readyReplicas, 1);
});

test('list filters by label selector and an unscoped client lists all namespaces', async (t) => {
  const { transport } = await server(t);
  const all = configMaps(transport);
  await all.namespace('default').create(cm('a', {}, { app: 'x' }));
  await all.namespace('kube-system').create(cm('b', {}, { app: 'x' }));
  await all.namespace('default').create(cm('c', {}, { app: 'y' }));
  const xs = await all.list({ labelSelector: 'app=x' });
  assert.deepEqual(xs.items.map((i) => i.metadata?.name).sort(), ['a', 'b']);
  assert.equal(typeof xs.metadata.resourceVersion, 'string');
  const inDefault = await all.namespace('default').list({ labelSelector: 'app' });
  assert.deepEqual(inDefault.items.map((i) => i.metadata?.name).sort(), ['a', 'c']);
});

test('list honours limit and continue; listAll pages through everything', async (t) => {
  const { s, transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  for (let i = 0; i < 23; i++) await c.create(cm(`cm-${String(i).padStart(2, '0')}`));
  const page = await c.list({ limit: 10 });
  assert.equal(page.items.length, 10);
  assert.ok(page.metadata.continue);
  s.clearRequests();
  const pages: number[] = [];
  for await (const p of c.listAll({ limit: 10 }).pages()) pages.push(p.items.length);
  assert.deepEqual(pages, [10, 10, 3]);
  assert.equal(s.requests.filter((r) => r.url.includes('continue=')).length, 2);
  const names: string[] = [];
  for await (const item of c.listAll({ limit: 7 })) names.push(item.metadata!.name!);
  assert.equal(names.length, 23);
  const collected = await c.listAll({ limit: 5 }).collect();
  assert.equal(collected.items.length, 23);
  assert.ok(collected.metadata.resourceVersion);
});

test('watch from a list resourceVersion sees later changes as ADDED, MODIFIED, DELETED', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  const list = await c.list();
  const ac = new AbortController();
  const events = await c.watch(
    { resourceVersion: list.metadata.resourceVersion! },
    { signal: ac.signal },
  );
  const seen: string[] = [];
  const reading = (async () => {
    for await (const e of events) {
      seen.push(
        `${e.type} ${(e as WatchEvent<{ metadata?: { name?: string } }> & { type: 'ADDED' }).object.metadata?.name}`,
      );
      if (seen.length === 3) break;
    }
  })();
  const made = await c.create(cm('w'));
  await c.update({ ...made, data: { a: 'b' } });
  await c.delete('w');
  await reading;
  assert.deepEqual(seen, ['ADDED w', 'MODIFIED w', 'DELETED w']);
});

test("metadata() lists, gets and watches PartialObjectMetadata with the client-go Accept header, each object carrying the resource's apiVersion and kind", async (t) => {
  const { s, transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  await c.create(cm('a', { big: 'x'.repeat(1000) }));
  s.clearRequests();
  const meta = c.metadata();
  assert.equal(meta.metadataOnly, true);
  const one = await meta.get('a');
  // The server sends meta.k8s.io/v1 PartialObjectMetadata; the client names the real object.
  assert.equal(one.apiVersion, 'v1');
  assert.equal(one.kind, 'ConfigMap');
  assert.equal((one as Record<string, unknown>).data, undefined);
  const list = await meta.list();
  assert.equal(list.kind, 'PartialObjectMetadataList');
  assert.equal(list.items[0]!.metadata?.name, 'a');
  assert.equal(list.items[0]!.apiVersion, 'v1');
  assert.equal(list.items[0]!.kind, 'ConfigMap');
  const ac = new AbortController();
  const events = await meta.watch(
    { resourceVersion: list.metadata.resourceVersion! },
    { signal: ac.signal },
  );
  await c.patch('a', { metadata: { labels: { touched: 'yes' } } });
  for await (const e of events) {
    assert.equal(e.type, 'MODIFIED');
    assert.equal(e.object.apiVersion, 'v1');
    assert.equal(e.object.kind, 'ConfigMap');
    assert.equal((e.object as Record<string, unknown>).data, undefined);
    break;
  }
});

test('delete with preconditions fails with Conflict on a uid mismatch; returns the object while finalizers hold it', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  await c.create({ ...cm('a'), metadata: { name: 'a', finalizers: ['example.com/hold'] } });
  const err = await c
    .delete('a', { preconditions: { uid: 'not-the-uid' } })
    .catch((e: unknown) => e);
  assert.ok(isConflict(err), String(err));
  const held = await c.delete('a', { propagationPolicy: 'Foreground', gracePeriodSeconds: 0 });
  assert.equal(
    (held as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !==
      undefined,
    true,
  );
  await c.patch('a', { metadata: { finalizers: null } });
  assert.ok(isNotFound(await c.get('a').catch((e: unknown) => e)));
});

test('deleteCollection deletes what the selector matches', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  await c.create(cm('a', {}, { tier: 'x' }));
  await c.create(cm('b', {}, { tier: 'x' }));
  await c.create(cm('keep', {}, { tier: 'y' }));
  await c.deleteCollection({ labelSelector: 'tier=x' });
  assert.deepEqual(
    (await c.list()).items.map((i) => i.metadata?.name),
    ['keep'],
  );
  await assert.rejects(
    async () => configMaps(transport).deleteCollection(),
    NamespaceMismatchError,
  );
});

test('cluster-scoped resources ignore namespaces and refuse a namespace scope', async (t) => {
  const { transport } = await server(t);
  const ns = namespaces(transport);
  const made = await ns.create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-a' },
  });
  assert.equal(made.metadata?.name, 'team-a');
  assert.ok((await ns.list()).items.some((n) => n.metadata?.name === 'team-a'));
  assert.throws(() => ns.namespace('default'), NamespaceMismatchError);
});

test('an invalid object is rejected with Invalid; a namespaced get without a namespace is refused locally', async (t) => {
  const { transport } = await server(t);
  const err = await configMaps(transport)
    .namespace('default')
    .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name!' } })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.ok(isInvalid(err), String(err));
  await assert.rejects(async () => pods(transport).get('x'), NamespaceMismatchError);
});

test('a ResourceClient built from a KubeConfig makes its own transport', async (t) => {
  const s = await startTestApiServer();
  const c = new ResourceClient(s.kubeConfig(), configMapsResource, { namespace: 'default' });
  t.after(async () => {
    c.transport.close();
    await s.close();
  });
  await c.create(cm('a'));
  assert.equal((await c.get('a')).metadata?.name, 'a');
  assert.equal(new ResourceClient(c.transport, podsResource).transport, c.transport);
});

test('dryRun create persists nothing', async (t) => {
  const { transport } = await server(t);
  const c = configMaps(transport).namespace('default');
  const out = await c.create(cm('dry'), { dryRun: true });
  assert.equal(out.metadata?.name, 'dry');
  assert.ok(isNotFound(await c.get('dry').catch((e: unknown) => e)));
  void (undefined as unknown as Status);
});

test('metadata-only requests send the PartialObjectMetadata(List) Accept headers of client-go', async (t) => {
  const accepts: string[] = [];
  const stub = await startStub((req, res) => {
    accepts.push(String(req.headers.accept));
    if (req.url?.includes('watch=true')) {
      res.writeHead(200);
      res.end();
    } else json(res, 200, { metadata: {}, items: [] });
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  const meta = configMaps(transport).namespace('default').metadata();
  await meta.list();
  await meta.get('a');
  for await (const _ of await meta.watch({})) assert.fail('no events');
  assert.deepEqual(accepts, [
    'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
    'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
  ]);
});

test('list options become query parameters; an empty continue token is left out', async (t) => {
  const urls: string[] = [];
  const stub = await startStub((req, res) => {
    urls.push(req.url!);
    json(res, 200, { metadata: {}, items: [] });
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  await deployments(transport).list({
    labelSelector: 'a in (b,c)',
    fieldSelector: 'metadata.name=x',
    resourceVersion: '10',
    resourceVersionMatch: 'NotOlderThan',
    limit: 50,
    continue: '',
  });
  const url = new URL(urls[0]!, 'http://x');
  assert.equal(url.pathname, '/apis/apps/v1/deployments');
  assert.equal(url.searchParams.get('labelSelector'), 'a in (b,c)');
  assert.equal(url.searchParams.get('fieldSelector'), 'metadata.name=x');
  assert.equal(url.searchParams.get('resourceVersion'), '10');
  assert.equal(url.searchParams.get('resourceVersionMatch'), 'NotOlderThan');
  assert.equal(url.searchParams.get('limit'), '50');
  assert.equal(url.searchParams.has('continue'), false);
});

test('delete sends DeleteOptions with propagationPolicy, grace period and preconditions', async (t) => {
  const bodies: unknown[] = [];
  const stub = await startStub((_req, res, body) => {
    bodies.push(JSON.parse(body));
    json(res, 200, { kind: 'Status', status: 'Success' });
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  await pods(transport)
    .namespace('ns')
    .delete('p', {
      propagationPolicy: 'Background',
      gracePeriodSeconds: 5,
      preconditions: { resourceVersion: '9' },
    });
  assert.deepEqual(bodies[0], {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    propagationPolicy: 'Background',
    gracePeriodSeconds: 5,
    preconditions: { resourceVersion: '9' },
  });
});
