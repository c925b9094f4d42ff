// Deleting a namespace, and the status code of a delete that only marks its object, as
// kube-apiserver (namespace storage, NamespaceLifecycle admission, namespace controller)
// and its delete handler do. The status codes were checked against a real
// apiextensions-apiserver (a custom resource held by a finalizer: 200; the same with
// orphanDependents: false: 202).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { kubectlSkip, raw, RawWatch } from './helpers.js';

const cm = (name: string, namespace: string, finalizers?: string[]): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(finalizers ? { finalizers } : {}) },
});

describe('test API server: deletes that only mark, and namespace deletion', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  /** Created over HTTP, so the server sets `spec.finalizers: [kubernetes]` as kube-apiserver does. */
  const ns = async (name: string): Promise<void> => {
    const res = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces',
      JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    );
    assert.equal(res.code, 201);
  };

  it('rule (delete handler): a delete held by a finalizer answers 200 with the marked object; 202 only when orphanDependents is false', async () => {
    await ns('codes');
    server.create('configmaps', cm('a', 'codes', ['example.com/hold']));
    server.create('configmaps', cm('b', 'codes', ['example.com/hold']));
    server.create('configmaps', cm('c', 'codes', ['example.com/hold']));
    const a = await raw(server.url, 'DELETE', '/api/v1/namespaces/codes/configmaps/a');
    assert.equal(a.code, 200);
    assert.ok((a.json.metadata as { deletionTimestamp?: string }).deletionTimestamp);
    const b = await raw(
      server.url,
      'DELETE',
      '/api/v1/namespaces/codes/configmaps/b',
      JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false }),
    );
    assert.equal(b.code, 202);
    const c = await raw(
      server.url,
      'DELETE',
      '/api/v1/namespaces/codes/configmaps/c',
      JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' }),
    );
    assert.equal(c.code, 200);
  });

  it('rule (namespace lifecycle): deleting a namespace marks it Terminating, deletes its contents, keeps objects held by finalizers until they are released, then removes it', async () => {
    await ns('shop');
    server.create('configmaps', cm('plain', 'shop'));
    server.create('configmaps', cm('held', 'shop', ['example.com/cleanup']));
    server.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'shop' },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] },
    });
    const nsWatch = new RawWatch(
      server.url,
      `/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Dshop&resourceVersion=${server.resourceVersion}`,
    );
    await server.waitForWatch('namespaces');

    const del = await raw(server.url, 'DELETE', '/api/v1/namespaces/shop');
    assert.equal(del.code, 200);
    const body = del.json as {
      metadata: { deletionTimestamp?: string };
      status: { phase: string };
    };
    assert.equal(body.status.phase, 'Terminating');
    assert.ok(body.metadata.deletionTimestamp);

    // Contents without finalizers are gone (a scheduled pod too: no kubelet to wait for).
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/shop/configmaps/plain')).code,
      404,
    );
    assert.equal((await raw(server.url, 'GET', '/api/v1/namespaces/shop/pods/p')).code, 404);
    // The held object is marked, and the namespace waits for it.
    const held = await raw(server.url, 'GET', '/api/v1/namespaces/shop/configmaps/held');
    assert.equal(held.code, 200);
    assert.ok((held.json.metadata as { deletionTimestamp?: string }).deletionTimestamp);
    const terminating = await raw(server.url, 'GET', '/api/v1/namespaces/shop');
    assert.equal(terminating.code, 200);
    assert.equal((terminating.json.status as { phase: string }).phase, 'Terminating');

    // NamespaceLifecycle admission: no new content in a terminating namespace.
    const create = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/shop/configmaps',
      JSON.stringify(cm('late', 'shop')),
    );
    assert.equal(create.code, 403);
    assert.equal(create.json.reason, 'Forbidden');
    assert.equal(
      create.json.message,
      'configmaps "late" is forbidden: unable to create new content in namespace shop because it is being terminated',
    );
    assert.deepEqual((create.json.details as { causes: unknown[] }).causes, [
      {
        reason: 'NamespaceTerminating',
        message: 'namespace shop is being terminated',
        field: 'metadata.namespace',
      },
    ]);

    // Updating what is there stays allowed; releasing the finalizer lets everything go.
    const release = await raw(
      server.url,
      'PATCH',
      '/api/v1/namespaces/shop/configmaps/held',
      JSON.stringify({ metadata: { finalizers: null } }),
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(release.code, 200);
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/shop/configmaps/held')).code,
      404,
    );
    assert.equal((await raw(server.url, 'GET', '/api/v1/namespaces/shop')).code, 404);

    // Watchers saw: Terminating, the finalizer dropped (the controller's finalize), gone.
    const events = await nsWatch.waitFor(3);
    await nsWatch.close();
    assert.deepEqual(
      events.map((e) => [
        e.type,
        e.object.status?.phase,
        (e.object.spec?.finalizers as string[] | undefined)?.join(','),
      ]),
      [
        ['MODIFIED', 'Terminating', 'kubernetes'],
        ['MODIFIED', 'Terminating', ''],
        ['DELETED', 'Terminating', ''],
      ],
    );
  });

  it('rule: a namespace with nothing holding its contents is gone when the delete returns; its name can be used again', async () => {
    await ns('quick');
    server.create('configmaps', cm('x', 'quick'));
    const del = await raw(server.url, 'DELETE', '/api/v1/namespaces/quick');
    assert.equal(del.code, 200);
    assert.equal((await raw(server.url, 'GET', '/api/v1/namespaces/quick')).code, 404);
    await ns('quick');
    const list = await raw(server.url, 'GET', '/api/v1/namespaces/quick/configmaps');
    assert.deepEqual(list.json.items, []);
  });

  it('rule: a finalizer on the namespace itself holds it, empty, until it is removed', async () => {
    const created = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'kept', finalizers: ['example.com/audit'] },
      }),
    );
    assert.equal(created.code, 201);
    assert.equal((await raw(server.url, 'DELETE', '/api/v1/namespaces/kept')).code, 200);
    const still = await raw(server.url, 'GET', '/api/v1/namespaces/kept');
    assert.equal(still.code, 200);
    assert.deepEqual((still.json.spec as { finalizers: string[] }).finalizers, []);
    await raw(
      server.url,
      'PATCH',
      '/api/v1/namespaces/kept',
      JSON.stringify({ metadata: { finalizers: null } }),
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal((await raw(server.url, 'GET', '/api/v1/namespaces/kept')).code, 404);
  });

  it('rule: a dry-run namespace delete changes nothing', async () => {
    await ns('dry');
    server.create('configmaps', cm('x', 'dry'));
    const del = await raw(server.url, 'DELETE', '/api/v1/namespaces/dry?dryRun=All');
    assert.equal(del.code, 200);
    assert.equal((del.json.status as { phase: string }).phase, 'Terminating');
    const after = await raw(server.url, 'GET', '/api/v1/namespaces/dry');
    assert.equal((after.json.status as { phase: string }).phase, 'Active');
    assert.equal((await raw(server.url, 'GET', '/api/v1/namespaces/dry/configmaps/x')).code, 200);
  });

  it(
    'kubectl: delete namespace --wait=false, then create in it, says it is being terminated',
    { skip: kubectlSkip() },
    async () => {
      await ns('kube');
      server.create('configmaps', cm('held', 'kube', ['example.com/cleanup']));
      const dir = mkdtempSync(join(tmpdir(), 'kck-ns-'));
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        await server.writeKubeconfig(kubeconfig);
        // Asynchronous: the server answers from this process.
        const kubectl = (...args: string[]): Promise<{ out: string; code: number }> =>
          new Promise((resolve) => {
            execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], (err, stdout, stderr) => {
              const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
              resolve({ out: `${stdout}${stderr}`, code });
            });
          });
        assert.match(
          (await kubectl('delete', 'namespace', 'kube', '--wait=false')).out,
          /namespace "kube" deleted/,
        );
        assert.match((await kubectl('get', 'namespace', 'kube')).out, /Terminating/);
        const create = await kubectl('-n', 'kube', 'create', 'configmap', 'late');
        assert.notEqual(create.code, 0);
        assert.match(create.out, /because it is being terminated/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
