// The test API server's garbage collector, against the rules of kube-controller-manager's
// (https://kubernetes.io/docs/concepts/architecture/garbage-collection/): Background is
// the default propagation, Foreground deletes the dependents first and waits for those
// that block, Orphan keeps them and drops their reference; a dependent with another owner
// left is kept. The DeleteOptions messages were taken from a real apiextensions-apiserver.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { OwnerReference, UnstructuredObject } from '../../src/client/types.js';
import { kubectlSkip, raw, RawWatch } from './helpers.js';

const base = '/api/v1/namespaces/default/configmaps';

function ownerRef(owner: UnstructuredObject, blockOwnerDeletion?: boolean): OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
  };
}

function configMap(
  server: TestApiServer,
  name: string,
  owners: OwnerReference[] = [],
  finalizers?: string[],
): UnstructuredObject {
  return server.create('configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'default',
      ...(owners.length > 0 ? { ownerReferences: owners } : {}),
      ...(finalizers ? { finalizers } : {}),
    },
  });
}

async function exists(server: TestApiServer, name: string): Promise<boolean> {
  return (await raw(server.url, 'GET', `${base}/${name}`)).code === 200;
}

async function del(server: TestApiServer, name: string, options?: object) {
  return raw(
    server.url,
    'DELETE',
    `${base}/${name}`,
    options === undefined
      ? undefined
      : JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...options }),
  );
}

describe('test API server: garbage collection', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  it('rule (Background, the default): deleting an owner deletes its dependents, and theirs, after the owner', async () => {
    const owner = configMap(server, 'bg-owner');
    const child = configMap(server, 'bg-child', [ownerRef(owner)]);
    configMap(server, 'bg-grandchild', [ownerRef(child)]);
    const watch = new RawWatch(
      server.url,
      `${base}?watch=true&resourceVersion=${server.resourceVersion}`,
    );
    await server.waitForWatch('configmaps');
    assert.equal((await del(server, 'bg-owner')).code, 200);
    assert.equal(await exists(server, 'bg-child'), false);
    assert.equal(await exists(server, 'bg-grandchild'), false);
    const events = await watch.waitFor(3);
    await watch.close();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['DELETED', 'bg-owner'],
        ['DELETED', 'bg-child'],
        ['DELETED', 'bg-grandchild'],
      ],
    );
  });

  it('rule: a dependent with a finalizer is only marked, and goes when its finalizer is removed', async () => {
    const owner = configMap(server, 'fin-owner');
    configMap(server, 'fin-child', [ownerRef(owner)], ['example.com/cleanup']);
    await del(server, 'fin-owner');
    const child = await raw(server.url, 'GET', `${base}/fin-child`);
    assert.ok((child.json.metadata as { deletionTimestamp?: string }).deletionTimestamp);
    await raw(server.url, 'PATCH', `${base}/fin-child`, '{"metadata":{"finalizers":null}}', {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.equal(await exists(server, 'fin-child'), false);
  });

  it('rule: a dependent with another owner left is kept and only loses the reference to the deleted one', async () => {
    const a = configMap(server, 'two-a');
    const b = configMap(server, 'two-b');
    configMap(server, 'two-child', [ownerRef(a), ownerRef(b)]);
    await del(server, 'two-a');
    const child = await raw(server.url, 'GET', `${base}/two-child`);
    assert.equal(child.code, 200);
    assert.deepEqual(
      (child.json.metadata as { ownerReferences: OwnerReference[] }).ownerReferences.map(
        (r) => r.name,
      ),
      ['two-b'],
    );
    await del(server, 'two-b');
    assert.equal(await exists(server, 'two-child'), false);
  });

  it('rule (Foreground): the owner is held by foregroundDeletion while dependents that block it remain, then goes last', async () => {
    const owner = configMap(server, 'fg-owner');
    configMap(server, 'fg-blocking', [ownerRef(owner, true)], ['example.com/cleanup']);
    configMap(server, 'fg-plain', [ownerRef(owner)]);
    const watch = new RawWatch(
      server.url,
      `${base}?watch=true&resourceVersion=${server.resourceVersion}`,
    );
    await server.waitForWatch('configmaps');
    const res = await del(server, 'fg-owner', { propagationPolicy: 'Foreground' });
    assert.equal(res.code, 200);
    const held = await raw(server.url, 'GET', `${base}/fg-owner`);
    const meta = held.json.metadata as { finalizers?: string[]; deletionTimestamp?: string };
    assert.deepEqual(meta.finalizers, ['foregroundDeletion']);
    assert.ok(meta.deletionTimestamp);
    assert.equal(await exists(server, 'fg-plain'), false, 'dependents are deleted first');
    await raw(server.url, 'PATCH', `${base}/fg-blocking`, '{"metadata":{"finalizers":null}}', {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.equal(await exists(server, 'fg-owner'), false, 'the owner goes once nothing blocks it');
    const events = await watch.waitFor(5);
    await watch.close();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['MODIFIED', 'fg-owner'],
        ['MODIFIED', 'fg-blocking'],
        ['DELETED', 'fg-plain'],
        ['DELETED', 'fg-blocking'],
        ['DELETED', 'fg-owner'],
      ],
    );
  });

  it('rule (Orphan, and the deprecated orphanDependents: true): the owner goes, its dependents stay without the reference', async () => {
    for (const [name, options] of [
      ['or-owner', { propagationPolicy: 'Orphan' }],
      ['od-owner', { orphanDependents: true }],
    ] as const) {
      const owner = configMap(server, name);
      configMap(server, `${name}-child`, [ownerRef(owner)]);
      assert.equal((await del(server, name, options)).code, 200);
      assert.equal(await exists(server, name), false);
      const child = await raw(server.url, 'GET', `${base}/${name}-child`);
      assert.equal(child.code, 200);
      assert.equal(
        (child.json.metadata as { ownerReferences?: unknown }).ownerReferences,
        undefined,
      );
    }
  });

  it('rule (DeleteOptions validation): an unknown propagationPolicy, or one with orphanDependents, is 422 as kube-apiserver words it', async () => {
    configMap(server, 'bad-opts');
    const unknown = await del(server, 'bad-opts', { propagationPolicy: 'Sideways' });
    assert.equal(unknown.code, 422);
    assert.equal(
      unknown.json.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await del(server, 'bad-opts', {
      propagationPolicy: 'Orphan',
      orphanDependents: true,
    });
    assert.equal(both.code, 422);
    assert.equal(
      both.json.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
    assert.equal(await exists(server, 'bad-opts'), true);
  });

  it('rule (ObjectMeta validation): owner references need apiVersion, kind, name and uid, and at most one controller (messages from a real apiextensions-apiserver)', async () => {
    const post = (refs: unknown) =>
      raw(
        server.url,
        'POST',
        base,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'refs', ownerReferences: refs },
        }),
      );
    const noUid = await post([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '' }]);
    assert.equal(noUid.code, 422);
    assert.equal(
      noUid.json.message,
      'ConfigMap "refs" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    );
    const blank = await post([{ apiVersion: '', kind: '', name: '', uid: 'u1' }]);
    assert.deepEqual(
      (blank.json.details as { causes: { field: string; message: string }[] }).causes,
      [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences.apiVersion',
          message: 'Invalid value: "": version must not be empty',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences.kind',
          message: 'Invalid value: "": must not be empty',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences.name',
          message: 'Invalid value: "": must not be empty',
        },
      ],
    );
    const twoControllers = await post([
      { apiVersion: 'v1', kind: 'A', name: 'a', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'B', name: 'b', uid: 'u2', controller: true },
    ]);
    assert.equal(twoControllers.code, 422);
    assert.match(
      String(twoControllers.json.message),
      /Only one reference can have Controller set to true\. Found "true" in references for A\/a and B\/b$/,
    );
  });

  it(
    'kubectl delete --cascade=foreground and --cascade=orphan',
    { skip: kubectlSkip() },
    async () => {
      const fg = configMap(server, 'k-fg');
      configMap(server, 'k-fg-child', [ownerRef(fg)]);
      const or = configMap(server, 'k-or');
      configMap(server, 'k-or-child', [ownerRef(or)]);
      const dir = mkdtempSync(join(tmpdir(), 'kck-gc-'));
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        await server.writeKubeconfig(kubeconfig);
        const kubectl = (...args: string[]): Promise<string> =>
          new Promise((resolve, reject) => {
            execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], (err, stdout, stderr) => {
              if (err) reject(new Error(`${stdout}${stderr}`));
              else resolve(stdout);
            });
          });
        await kubectl('delete', 'configmap', 'k-fg', '--cascade=foreground');
        assert.equal(await exists(server, 'k-fg'), false);
        assert.equal(await exists(server, 'k-fg-child'), false);
        await kubectl('delete', 'configmap', 'k-or', '--cascade=orphan');
        assert.equal(await exists(server, 'k-or'), false);
        assert.equal(await exists(server, 'k-or-child'), true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('test API server: garbageCollection: false', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ garbageCollection: false });
  });
  after(() => server.close());

  it('rule: without a collector (envtest, a bare apiextensions-apiserver) dependents stay, and a Foreground delete stays held by foregroundDeletion', async () => {
    const owner = configMap(server, 'owner');
    configMap(server, 'child', [ownerRef(owner)]);
    await del(server, 'owner', { propagationPolicy: 'Foreground' });
    const held = await raw(server.url, 'GET', `${base}/owner`);
    assert.deepEqual((held.json.metadata as { finalizers?: string[] }).finalizers, [
      'foregroundDeletion',
    ]);
    assert.equal(await exists(server, 'child'), true);
    const other = configMap(server, 'owner2');
    configMap(server, 'child2', [ownerRef(other)]);
    await del(server, 'owner2');
    assert.equal(await exists(server, 'owner2'), false);
    assert.equal(await exists(server, 'child2'), true);
  });
});
