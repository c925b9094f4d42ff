import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { configMapsResource, namespacesResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { KubeObject, Serialized } from '../../src/client/types.js';
import {
  AlreadyOwnedError,
  InvalidOwnerError,
  OwnerReferenceScopeError,
  getControllerOf,
  hasOwnerReference,
  ownerKeys,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

function app(name: string, namespace = 'default', uid = `uid-${name}`): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Application', metadata: { name, namespace, uid } };
}
function child(name = 'child', namespace: string | null = 'default'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: namespace === null ? { name } : { name, namespace },
  };
}

describe('owner references (controller-runtime controllerutil rules)', () => {
  test('setControllerReference adds one reference with controller and blockOwnerDeletion true', () => {
    const c = child();
    setControllerReference(app('web'), c);
    assert.deepEqual(c.metadata?.ownerReferences, [
      {
        apiVersion: 'example.com/v1',
        kind: 'Application',
        name: 'web',
        uid: 'uid-web',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  test('an object has one controller: a second controller owner fails with AlreadyOwnedError naming the first', () => {
    const c = child();
    setControllerReference(app('web'), c);
    assert.throws(
      () => setControllerReference(app('other'), c),
      (err: unknown) =>
        err instanceof AlreadyOwnedError &&
        err.owner.name === 'web' &&
        /default\/child is already owned by another Application controller web/.test(err.message),
    );
    assert.equal(c.metadata?.ownerReferences?.length, 1);
  });

  test('setting the same controller again replaces its reference (same group, kind and name; version and uid may differ)', () => {
    const c = child();
    setControllerReference(app('web'), c);
    const recreated = { ...app('web', 'default', 'uid-new'), apiVersion: 'example.com/v2' };
    setControllerReference(recreated, c);
    assert.equal(c.metadata?.ownerReferences?.length, 1);
    assert.equal(c.metadata?.ownerReferences?.[0]?.uid, 'uid-new');
    assert.equal(c.metadata?.ownerReferences?.[0]?.apiVersion, 'example.com/v2');
  });

  test('setOwnerReference adds a plain reference beside the controller, and upserts it', () => {
    const c = child();
    setControllerReference(app('web'), c);
    setOwnerReference(app('extra'), c);
    setOwnerReference(app('extra', 'default', 'uid-2'), c);
    assert.deepEqual(c.metadata?.ownerReferences?.[1], {
      apiVersion: 'example.com/v1',
      kind: 'Application',
      name: 'extra',
      uid: 'uid-2',
    });
    assert.equal(c.metadata?.ownerReferences?.length, 2);
    assert.equal(getControllerOf(c)?.name, 'web');
  });

  test('a cluster-scoped owner may own a namespaced object', () => {
    const c = child();
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', uid: 'u1' },
    };
    setControllerReference(ns, c);
    assert.equal(getControllerOf(c)?.kind, 'Namespace');
  });

  test('a namespaced owner of a cluster-scoped object is refused with OwnerReferenceScopeError', () => {
    const cluster = child('cluster', null);
    assert.throws(
      () => setControllerReference(app('web'), cluster),
      (err: unknown) =>
        err instanceof OwnerReferenceScopeError &&
        /cluster-scoped object "cluster"/.test(err.message),
    );
    assert.throws(() => setOwnerReference(app('web'), cluster), OwnerReferenceScopeError);
    assert.equal(cluster.metadata?.ownerReferences, undefined);
  });

  test('a namespaced owner in another namespace is refused (cross-namespace references are disallowed)', () => {
    const c = child('child', 'other');
    assert.throws(
      () => setControllerReference(app('web', 'default'), c),
      (err: unknown) =>
        err instanceof OwnerReferenceScopeError &&
        /namespace "default", object "other\/child" in "other"/.test(err.message),
    );
  });

  test('an owner without uid (not read from the server) is refused with InvalidOwnerError', () => {
    const owner: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'default' },
    };
    assert.throws(
      () => setControllerReference(owner, child()),
      (err: unknown) => err instanceof InvalidOwnerError && /metadata\.uid/.test(err.message),
    );
  });

  test('remove and has find the reference by group, kind and name', () => {
    const c = child();
    setOwnerReference(app('web'), c);
    assert.equal(hasOwnerReference(app('web'), c), true);
    assert.equal(hasOwnerReference(app('nope'), c), false);
    assert.equal(removeOwnerReference(app('web'), c), true);
    assert.equal(removeOwnerReference(app('web'), c), false);
    assert.deepEqual(c.metadata?.ownerReferences, []);
  });

  test('the enqueue-owner mapping finds the owner key from the reference the setter wrote', () => {
    const c = child();
    setControllerReference(app('web'), c);
    setOwnerReference(app('side'), c);
    assert.deepEqual(ownerKeys(c, { kind: 'Application', apiVersion: 'example.com/v1' }), [
      'default/web',
    ]);
    assert.deepEqual(ownerKeys(c, { kind: 'Application', onlyController: false }), [
      'default/web',
      'default/side',
    ]);
  });
});

describe('owner references written to the in-memory API server', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('a controller reference set on a child round-trips through create', async () => {
    const kc = server.kubeConfig();
    const nsClient = new ResourceClient(kc, namespacesResource);
    const owner = await nsClient.create({ metadata: { name: 'team-a' } });
    const cms = new ResourceClient(kc, configMapsResource).namespace('default');
    const cm: Serialized<V1ConfigMap> = { metadata: { name: 'owned' } };
    setControllerReference({ ...owner, apiVersion: 'v1', kind: 'Namespace' }, cm);
    const created = await cms.create(cm);
    assert.equal(getControllerOf(created)?.uid, owner.metadata?.uid);
    assert.equal(getControllerOf(created)?.blockOwnerDeletion, true);
  });
});
