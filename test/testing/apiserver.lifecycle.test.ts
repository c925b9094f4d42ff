// Object lifecycle and errors of the test API server, driven by @kubernetes/client-node.
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { raw } from './helpers.js';

let server: TestApiServer;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let coord: k8s.CoordinationV1Api;
let objects: k8s.KubernetesObjectApi;

describe('test API server (lifecycle)', () => {
  before(async () => {
    server = await startTestApiServer();
    const kc = server.kubeConfig();
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    coord = kc.makeApiClient(k8s.CoordinationV1Api);
    objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  });
  after(() => server.close());

  function status(err: unknown): { code: number; body: Record<string, any> } {
    assert.ok(err instanceof k8s.ApiException, `expected ApiException, got ${String(err)}`);
    const e = err as k8s.ApiException<unknown>;
    return { code: e.code, body: JSON.parse(String(e.body)) as Record<string, any> };
  }

  async function rejects(
    p: Promise<unknown>,
  ): Promise<{ code: number; body: Record<string, any> }> {
    try {
      await p;
    } catch (err) {
      return status(err);
    }
    assert.fail('expected the request to fail');
  }

  const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  const JSONPATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
  const SMP = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

  describe('object lifecycle', () => {
    it('the namespaces default and kube-system exist at start', async () => {
      const list = await core.listNamespace();
      const names = list.items.map((n) => n.metadata?.name);
      assert.ok(names.includes('default') && names.includes('kube-system'));
    });

    it('create assigns uid, creationTimestamp and an increasing resourceVersion', async () => {
      const a = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'lc-a' }, data: { x: '1' } },
      });
      const b = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'lc-b' } },
      });
      assert.match(a.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(a.metadata?.creationTimestamp instanceof Date);
      assert.ok(Number(b.metadata?.resourceVersion) > Number(a.metadata?.resourceVersion));
      assert.equal(a.data?.x, '1');
    });

    it('generateName produces a name with the prefix and five random characters', async () => {
      const cm = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { generateName: 'gen-' } },
      });
      assert.match(cm.metadata?.name ?? '', /^gen-[a-z0-9]{5}$/);
    });

    it('creating a name that exists is 409 AlreadyExists', async () => {
      const { code, body } = await rejects(
        core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: 'lc-a' } },
        }),
      );
      assert.equal(code, 409);
      assert.equal(body.reason, 'AlreadyExists');
      assert.equal(body.message, 'configmaps "lc-a" already exists');
      assert.equal(body.kind, 'Status');
    });

    it('creating in a namespace that does not exist is 404 naming the namespace', async () => {
      const { code, body } = await rejects(
        core.createNamespacedConfigMap({ namespace: 'nope', body: { metadata: { name: 'x' } } }),
      );
      assert.equal(code, 404);
      assert.equal(body.message, 'namespaces "nope" not found');
    });

    it('get of a missing object is 404 NotFound with details', async () => {
      const { code, body } = await rejects(
        core.readNamespacedPod({ namespace: 'default', name: 'missing' }),
      );
      assert.equal(code, 404);
      assert.equal(body.reason, 'NotFound');
      assert.deepEqual(body.details, { name: 'missing', kind: 'pods' });
    });

    it('a non-DNS-1123 name is 422 Invalid with a metadata.name cause', async () => {
      const { code, body } = await rejects(
        core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: 'Bad_Name' } },
        }),
      );
      assert.equal(code, 422);
      assert.equal(body.reason, 'Invalid');
      assert.equal(body.details.causes[0].field, 'metadata.name');
      assert.match(body.message, /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value/);
    });

    it('a missing name is 422 Invalid: name or generateName is required', async () => {
      const { code, body } = await rejects(
        core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: {} } }),
      );
      assert.equal(code, 422);
      assert.match(body.message, /name or generateName is required/);
    });

    it('update with a stale resourceVersion is 409 Conflict and changes nothing', async () => {
      const cm = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'lc-conflict' }, data: { v: '1' } },
      });
      await core.replaceNamespacedConfigMap({
        namespace: 'default',
        name: 'lc-conflict',
        body: { ...cm, data: { v: '2' } },
      });
      const { code, body } = await rejects(
        core.replaceNamespacedConfigMap({
          namespace: 'default',
          name: 'lc-conflict',
          body: { ...cm, data: { v: '3' } },
        }),
      );
      assert.equal(code, 409);
      assert.equal(body.reason, 'Conflict');
      assert.match(
        body.message,
        /^Operation cannot be fulfilled on configmaps "lc-conflict": the object has been modified/,
      );
      assert.equal(
        (await core.readNamespacedConfigMap({ namespace: 'default', name: 'lc-conflict' })).data?.v,
        '2',
      );
    });

    it('an update that changes nothing keeps the resourceVersion', async () => {
      const cm = await core.readNamespacedConfigMap({ namespace: 'default', name: 'lc-conflict' });
      const same = await core.replaceNamespacedConfigMap({
        namespace: 'default',
        name: 'lc-conflict',
        body: cm,
      });
      assert.equal(same.metadata?.resourceVersion, cm.metadata?.resourceVersion);
    });

    it('leases use optimistic concurrency: two updates from the same version, the second is 409', async () => {
      const lease = await coord.createNamespacedLease({
        namespace: 'kube-system',
        body: {
          metadata: { name: 'leader' },
          spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
        },
      });
      const first = { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } };
      const second = { ...lease, spec: { ...lease.spec, holderIdentity: 'c' } };
      await coord.replaceNamespacedLease({ namespace: 'kube-system', name: 'leader', body: first });
      const { code } = await rejects(
        coord.replaceNamespacedLease({ namespace: 'kube-system', name: 'leader', body: second }),
      );
      assert.equal(code, 409);
      assert.equal(
        (await coord.readNamespacedLease({ namespace: 'kube-system', name: 'leader' })).spec
          ?.holderIdentity,
        'b',
      );
    });

    it('generation increases on spec changes only; a status write does not change spec nor generation', async () => {
      const d = await apps.createNamespacedDeployment({
        namespace: 'default',
        body: {
          metadata: { name: 'gen-deploy' },
          spec: {
            replicas: 1,
            selector: { matchLabels: { a: 'b' } },
            template: {
              metadata: { labels: { a: 'b' } },
              spec: { containers: [{ name: 'c', image: 'i' }] },
            },
          },
          status: { replicas: 7 },
        },
      });
      assert.equal(d.metadata?.generation, 1);
      assert.equal(d.status, undefined, 'status is dropped on create');
      const labelled = await apps.patchNamespacedDeployment(
        { namespace: 'default', name: 'gen-deploy', body: { metadata: { labels: { x: 'y' } } } },
        MERGE,
      );
      assert.equal(labelled.metadata?.generation, 1);
      const scaled = await apps.patchNamespacedDeployment(
        { namespace: 'default', name: 'gen-deploy', body: { spec: { replicas: 3 } } },
        MERGE,
      );
      assert.equal(scaled.metadata?.generation, 2);
      const st = await apps.replaceNamespacedDeploymentStatus({
        namespace: 'default',
        name: 'gen-deploy',
        body: {
          ...scaled,
          spec: { ...scaled.spec!, replicas: 99 },
          status: { replicas: 3, observedGeneration: 2 },
        },
      });
      assert.equal(st.spec?.replicas, 3, 'a status write does not change spec');
      assert.equal(st.status?.replicas, 3);
      assert.equal(st.metadata?.generation, 2);
      const main = await apps.replaceNamespacedDeployment({
        namespace: 'default',
        name: 'gen-deploy',
        body: { ...st, status: { replicas: 0 } },
      });
      assert.equal(main.status?.replicas, 3, 'a main-resource write does not change status');
    });

    it('delete with finalizers marks deletionTimestamp; removing the last finalizer deletes', async () => {
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } },
      });
      const marked = await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'fin' });
      assert.ok(marked);
      const held = await core.readNamespacedConfigMap({ namespace: 'default', name: 'fin' });
      assert.ok(held.metadata?.deletionTimestamp instanceof Date);
      await core.patchNamespacedConfigMap(
        {
          namespace: 'default',
          name: 'fin',
          body: [{ op: 'remove', path: '/metadata/finalizers' }],
        },
        JSONPATCH,
      );
      const { code } = await rejects(
        core.readNamespacedConfigMap({ namespace: 'default', name: 'fin' }),
      );
      assert.equal(code, 404);
    });

    it('delete with a stale resourceVersion precondition is 409 Conflict', async () => {
      const cm = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'pre' } },
      });
      const { code, body } = await rejects(
        core.deleteNamespacedConfigMap({
          namespace: 'default',
          name: 'pre',
          body: { preconditions: { resourceVersion: '1' } },
        }),
      );
      assert.equal(code, 409);
      assert.match(body.message, /the ResourceVersion in the precondition \(1\) does not match/);
      await core.deleteNamespacedConfigMap({
        namespace: 'default',
        name: 'pre',
        body: { preconditions: { uid: cm.metadata!.uid! } },
      });
    });

    it('deletecollection deletes only the selected objects', async () => {
      for (const [n, l] of [
        ['dc-1', 'a'],
        ['dc-2', 'a'],
        ['dc-3', 'b'],
      ] as const) {
        await core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: n, labels: { dc: l } } },
        });
      }
      await core.deleteCollectionNamespacedConfigMap({
        namespace: 'default',
        labelSelector: 'dc=a',
      });
      const left = await core.listNamespacedConfigMap({
        namespace: 'default',
        labelSelector: 'dc',
      });
      assert.deepEqual(
        left.items.map((c) => c.metadata?.name),
        ['dc-3'],
      );
    });

    it('merge, JSON and strategic-merge patches apply; a failing JSON patch test is 422', async () => {
      await core.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name: 'patchme' },
          spec: {
            containers: [
              { name: 'a', image: 'a:1' },
              { name: 'b', image: 'b:1' },
            ],
          },
        },
      });
      const smp = await core.patchNamespacedPod(
        {
          namespace: 'default',
          name: 'patchme',
          body: { spec: { containers: [{ name: 'b', image: 'b:2' }] } },
        },
        SMP,
      );
      assert.deepEqual(
        smp.spec?.containers.map((c) => `${c.name}=${c.image}`),
        ['a=a:1', 'b=b:2'],
      );
      const merged = await core.patchNamespacedPod(
        { namespace: 'default', name: 'patchme', body: { metadata: { labels: { m: '1' } } } },
        MERGE,
      );
      assert.equal(merged.metadata?.labels?.m, '1');
      const tested = await core.patchNamespacedPod(
        {
          namespace: 'default',
          name: 'patchme',
          body: [
            { op: 'test', path: '/metadata/labels/m', value: '1' },
            { op: 'replace', path: '/metadata/labels/m', value: '2' },
          ],
        },
        JSONPATCH,
      );
      assert.equal(tested.metadata?.labels?.m, '2');
      const { code } = await rejects(
        core.patchNamespacedPod(
          {
            namespace: 'default',
            name: 'patchme',
            body: [{ op: 'test', path: '/metadata/labels/m', value: '1' }],
          },
          JSONPATCH,
        ),
      );
      assert.equal(code, 422);
    });

    it('an unknown patch content type is 415', async () => {
      const res = await raw(server.url, 'PATCH', '/api/v1/namespaces/default/pods/patchme', '{}', {
        'Content-Type': 'application/x-unknown',
      });
      assert.equal(res.code, 415);
      assert.equal(res.json.reason, 'UnsupportedMediaType');
    });

    it('KubernetesObjectApi creates, reads, patches and deletes generic objects', async () => {
      const created = await objects.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'generic', namespace: 'default' },
        data: { a: 'Yg==' },
      } as k8s.KubernetesObject);
      assert.equal(created.metadata?.name, 'generic');
      const read = await objects.read({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'generic', namespace: 'default' },
      });
      assert.equal((read as k8s.V1Secret).data?.a, 'Yg==');
      const patched = await objects.patch(
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'generic', namespace: 'default', labels: { p: 'q' } },
        },
        undefined,
        undefined,
        undefined,
        undefined,
        k8s.PatchStrategy.MergePatch,
      );
      assert.equal(patched.metadata?.labels?.p, 'q');
      await objects.delete({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'generic', namespace: 'default' },
      });
      assert.equal(server.get('secrets', 'generic'), undefined);
    });

    it('pods get status Pending on create; a scheduled pod is held by its grace period until deleted with grace 0', async () => {
      const p = await core.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name: 'graceful' },
          spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
          status: { phase: 'Running' },
        },
      });
      assert.equal(p.status?.phase, 'Pending');
      await core.deleteNamespacedPod({ namespace: 'default', name: 'graceful' });
      const held = await core.readNamespacedPod({ namespace: 'default', name: 'graceful' });
      assert.equal(held.metadata?.deletionGracePeriodSeconds, 30);
      await core.deleteNamespacedPod({
        namespace: 'default',
        name: 'graceful',
        gracePeriodSeconds: 0,
      });
      assert.equal(server.get('pods', 'graceful'), undefined);
    });

    it('deleting a namespace deletes what is in it', async () => {
      await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
      await core.createNamespacedConfigMap({
        namespace: 'doomed',
        body: { metadata: { name: 'inside' } },
      });
      await core.deleteNamespace({ name: 'doomed' });
      assert.equal(server.get('configmaps', 'inside', 'doomed'), undefined);
      assert.equal(server.get('namespaces', 'doomed'), undefined);
    });
  });

  describe('bad input', () => {
    it('a malformed JSON body is 400 BadRequest and the store is unchanged', async () => {
      const before = server.resourceVersion;
      const res = await raw(
        server.url,
        'POST',
        '/api/v1/namespaces/default/configmaps',
        '{"metadata": {"name": "x"',
      );
      assert.equal(res.code, 400);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(server.resourceVersion, before);
    });

    it('a body of the wrong kind is 400 BadRequest', async () => {
      const res = await raw(
        server.url,
        'POST',
        '/api/v1/namespaces/default/configmaps',
        JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }),
      );
      assert.equal(res.code, 400);
      assert.match(String(res.json.message), /kind in the data \(Secret\) does not match/);
    });

    it('a body of the wrong apiVersion is 400 BadRequest', async () => {
      const res = await raw(
        server.url,
        'POST',
        '/api/v1/namespaces/default/configmaps',
        JSON.stringify({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'k' } }),
      );
      assert.equal(res.code, 400);
      assert.match(
        String(res.json.message),
        /API version in the data \(apps\/v1\) does not match the expected API version \(v1\)/,
      );
    });

    it('a body that is not an object is 400', async () => {
      const res = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', '[1,2]');
      assert.equal(res.code, 400);
    });

    it('an oversized body is 413 RequestEntityTooLarge', async () => {
      const big = JSON.stringify({
        metadata: { name: 'big' },
        data: { x: 'a'.repeat(3 * 1024 * 1024 + 10) },
      });
      const res = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', big);
      assert.equal(res.code, 413);
      assert.equal(server.get('configmaps', 'big'), undefined);
    });

    it('an unknown resource is 404 NotFound', async () => {
      const res = await raw(server.url, 'GET', '/api/v1/namespaces/default/gizmos');
      assert.equal(res.code, 404);
      assert.equal(res.json.kind, 'Status');
    });

    it('an unsupported verb is 405 MethodNotAllowed', async () => {
      const res = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps/lc-a');
      assert.equal(res.code, 405);
      assert.equal(res.json.reason, 'MethodNotAllowed');
    });

    it('a PUT whose body names another object is 400', async () => {
      const res = await raw(
        server.url,
        'PUT',
        '/api/v1/namespaces/default/configmaps/lc-a',
        JSON.stringify({ metadata: { name: 'other' } }),
      );
      assert.equal(res.code, 400);
      assert.match(String(res.json.message), /does not match the name on the URL/);
    });

    it('labels that are not strings are 422 and do not reach the store', async () => {
      const res = await raw(
        server.url,
        'POST',
        '/api/v1/namespaces/default/configmaps',
        JSON.stringify({ metadata: { name: 'badlabels', labels: { a: 5 } } }),
      );
      assert.equal(res.code, 422);
      assert.equal(server.get('configmaps', 'badlabels'), undefined);
    });

    it('the server still serves after bad input', async () => {
      const list = await core.listNamespacedConfigMap({ namespace: 'default' });
      assert.ok(list.items.length > 0);
    });
  });

  describe('in-process helpers', () => {
    it('create keeps status as given and list returns objects in key order', () => {
      server.create('pods', {
        metadata: { name: 'seed-b', namespace: 'default' },
        spec: { containers: [] },
        status: { phase: 'Running' },
      });
      server.create('pods', {
        metadata: { name: 'seed-a', namespace: 'default' },
        spec: { containers: [] },
      });
      assert.equal(
        server.get<{ status?: { phase?: string } }>('pods', 'seed-b')?.status?.phase,
        'Running',
      );
      const names = server
        .list('pods', 'default')
        .map((p) => p.metadata?.name)
        .filter((n) => n?.startsWith('seed-'));
      assert.deepEqual(names, ['seed-a', 'seed-b']);
    });

    it('helpers throw the same Status errors as HTTP', () => {
      assert.throws(
        () => server.create('pods', { metadata: { name: 'seed-a', namespace: 'default' } }),
        /already exists/,
      );
      assert.throws(
        () => server.create('gizmos', { metadata: { name: 'x' } }),
        /does not serve gizmos/,
      );
    });
  });
});
