import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Discovery } from '../../src/client/discovery.js';
import { NoMatchError } from '../../src/client/errors.js';
import { Transport } from '../../src/client/transport.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { json, kubeConfigFor, startStub } from './stub.js';

async function setup(t: TestContext) {
  const s = await startTestApiServer();
  const transport = new Transport(s.kubeConfig());
  t.after(async () => {
    transport.close();
    await s.close();
  });
  return { s, discovery: new Discovery(transport) };
}

test('resolveKind maps apps/v1 Deployment to deployments, namespaced', async (t) => {
  const { discovery } = await setup(t);
  const r = await discovery.resolveKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.equal(r.resource, 'deployments');
  assert.equal(r.namespaced, true);
  const ns = await discovery.resolveKind({ group: '', version: 'v1', kind: 'Namespace' });
  assert.equal(ns.resource, 'namespaces');
  assert.equal(ns.namespaced, false);
});

test('resolveResource accepts plural, singular, short names, kinds and group-qualified names', async (t) => {
  const { discovery } = await setup(t);
  assert.equal((await discovery.resolveResource('pods')).kind, 'Pod');
  assert.equal((await discovery.resolveResource('pod')).resource, 'pods');
  assert.equal((await discovery.resolveResource('cm')).resource, 'configmaps');
  assert.equal((await discovery.resolveResource('Deployment')).group, 'apps');
  const lease = await discovery.resolveResource('leases.coordination.k8s.io');
  assert.equal(lease.group, 'coordination.k8s.io');
  assert.equal(lease.version, 'v1');
});

test('subresources such as pods/status are not resources of their own', async (t) => {
  const { discovery } = await setup(t);
  const core = await discovery.resources('', 'v1');
  assert.ok(core.some((r) => r.resource === 'pods'));
  assert.ok(!core.some((r) => r.resource.includes('/')));
});

test('an unknown kind fails with NoMatchError after one refresh', async (t) => {
  const { s, discovery } = await setup(t);
  await discovery.resolveKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
  s.clearRequests();
  const err = await discovery
    .resolveKind({ group: 'apps', version: 'v1', kind: 'Nope' })
    .catch((e: unknown) => e);
  assert.ok(err instanceof NoMatchError);
  assert.match(err.message, /apps\/v1, Kind=Nope/);
  assert.equal(s.requests.filter((r) => r.url === '/apis/apps/v1').length, 1, 'refreshed once');
  const missing = await discovery.resolveResource('widgets').catch((e: unknown) => e);
  assert.ok(missing instanceof NoMatchError);
});

test('documents are cached: a second lookup asks the server nothing; invalidate() forgets them', async (t) => {
  const calls: string[] = [];
  const stub = await startStub((req, res) => {
    calls.push(req.url!);
    if (req.url === '/api') json(res, 200, { versions: ['v1'] });
    else if (req.url === '/apis')
      json(res, 200, {
        groups: [
          {
            name: 'example.com',
            versions: [
              { groupVersion: 'example.com/v1', version: 'v1' },
              { groupVersion: 'example.com/v2', version: 'v2' },
            ],
            preferredVersion: { groupVersion: 'example.com/v2', version: 'v2' },
          },
        ],
      });
    else if (req.url === '/api/v1') json(res, 200, { resources: [] });
    else if (req.url === '/apis/example.com/v2')
      json(res, 200, {
        resources: [
          {
            name: 'widgets',
            singularName: 'widget',
            namespaced: true,
            kind: 'Widget',
            shortNames: ['wd'],
          },
          { name: 'widgets/status', namespaced: true, kind: 'Widget' },
        ],
      });
    else json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  const d = new Discovery(transport);
  const w = await d.resolveResource('wd');
  assert.deepEqual(
    { group: w.group, version: w.version, resource: w.resource, namespaced: w.namespaced },
    { group: 'example.com', version: 'v2', resource: 'widgets', namespaced: true },
  );
  const before = calls.length;
  await d.resolveResource('widget');
  assert.equal(calls.length, before);
  d.invalidate();
  await d.resolveResource('widget');
  assert.ok(calls.length > before);
  assert.deepEqual(await d.resources('nothing.io', 'v1'), [], 'an unknown group-version is empty');
});

test('a CRD created after the first lookup is found through the refresh on a miss', async (t) => {
  const { s, discovery } = await setup(t);
  await discovery.resolveResource('pods');
  s.create('customresourcedefinitions.apiextensions.k8s.io', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gd'] },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  });
  const g = await discovery.resolveResource('gd');
  assert.equal(g.resource, 'gadgets');
  assert.equal(g.namespaced, false);
  const k = await discovery.resolveKind({ group: 'example.com', version: 'v1', kind: 'Gadget' });
  assert.equal(k.resource, 'gadgets');
});

test('a lookup through every group asks for the group-version documents in parallel, at most `concurrency` at once (p-limit)', async (t) => {
  let inFlight = 0;
  let most = 0;
  const groups = Array.from({ length: 30 }, (_, i) => `g${i}.example.com`);
  const stub = await startStub((req, res) => {
    if (req.url === '/api') return json(res, 200, { versions: ['v1'] });
    if (req.url === '/apis') {
      return json(res, 200, {
        groups: groups.map((name) => ({
          name,
          versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
          preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
        })),
      });
    }
    const m = /^\/apis\/(g\d+)\.example\.com\/v1$/.exec(req.url ?? '');
    const resources =
      m === null ? [] : [{ name: `${m[1]}things`, namespaced: true, kind: `${m[1]}Thing` }];
    inFlight++;
    most = Math.max(most, inFlight);
    // Answer on a later turn, so that requests that may overlap do.
    setImmediate(() => {
      inFlight--;
      json(res, 200, { resources });
    });
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  const d = new Discovery(transport, { concurrency: 3 });
  const all = await d.preferredResources();
  assert.equal(all.length, 30);
  assert.deepEqual(
    all.slice(0, 2).map((r) => `${r.resource}.${r.group}`),
    ['g0things.g0.example.com', 'g1things.g1.example.com'],
  );
  assert.ok(most > 1, `requests overlapped (${most} at once)`);
  assert.ok(most <= 3, `at most 3 at once, saw ${most}`);
  most = 0;
  d.invalidate();
  assert.equal((await d.resolveResource('g29things')).group, 'g29.example.com');
  assert.ok(most > 1 && most <= 3, `resolveResource is bounded too (${most} at once)`);
  assert.throws(() => new Discovery(transport, { concurrency: 0 }), RangeError);
});
