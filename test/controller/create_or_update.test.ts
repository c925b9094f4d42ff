import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { configMapsResource, deploymentsResource } from '../../src/client/builtins.js';
import { NamespaceMismatchError, ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import {
  MutateIdentityError,
  createMergePatch,
  createOrPatch,
  createOrUpdate,
} from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

type ConfigMap = Serialized<V1ConfigMap>;
type Deployment = Serialized<V1Deployment>;

function deployment(name: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
      },
    },
  };
}

describe('createOrUpdate / createOrPatch (controllerutil semantics) against the in-memory API server', () => {
  let server: TestApiServer;
  let cms: ResourceClient<ConfigMap>;
  let deps: ResourceClient<Deployment>;
  before(async () => {
    server = await startTestApiServer();
    cms = new ResourceClient(server.kubeConfig(), configMapsResource);
    deps = new ResourceClient(server.kubeConfig(), deploymentsResource);
  });
  after(async () => {
    await server.close();
  });

  const writes = (): string[] =>
    server.requests
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.url.split('?')[0]}`);

  test('a missing object is mutated and created: result created', async () => {
    const { result, object } = await createOrUpdate(
      cms,
      { metadata: { name: 'cou-new', namespace: 'default' } },
      (cm) => {
        cm.data = { a: '1' };
      },
    );
    assert.equal(result, 'created');
    assert.deepEqual(object.data, { a: '1' });
    assert.ok(object.metadata?.uid);
  });

  test('an existing object is read, mutated and updated when the mutation changed it: result updated', async () => {
    await cms.namespace('default').create({ metadata: { name: 'cou-upd' }, data: { a: '1' } });
    const seen: (string | undefined)[] = [];
    const { result, object } = await createOrUpdate(
      cms,
      { metadata: { name: 'cou-upd', namespace: 'default' } },
      (cm) => {
        seen.push(cm.data?.a); // mutate sees the server's object, not the argument
        cm.data = { ...cm.data, b: '2' };
      },
    );
    assert.equal(result, 'updated');
    assert.deepEqual(seen, ['1']);
    assert.deepEqual(object.data, { a: '1', b: '2' });
    assert.deepEqual(writes().at(-1), 'PUT /api/v1/namespaces/default/configmaps/cou-upd');
  });

  test('no write at all when the mutation changes nothing: result unchanged', async () => {
    await cms.namespace('default').create({ metadata: { name: 'cou-same' }, data: { a: '1' } });
    const before = writes().length;
    const { result } = await createOrUpdate(
      cms,
      { metadata: { name: 'cou-same', namespace: 'default' } },
      (cm) => {
        cm.data = { a: '1' };
      },
    );
    assert.equal(result, 'unchanged');
    assert.equal(writes().length, before);
  });

  test('a mutate that renames the object fails with MutateIdentityError and writes nothing', async () => {
    await cms.namespace('default').create({ metadata: { name: 'cou-ren' } });
    const before = writes().length;
    await assert.rejects(
      createOrUpdate(cms, { metadata: { name: 'cou-ren', namespace: 'default' } }, (cm) => {
        cm.metadata = { ...cm.metadata, name: 'other' };
      }),
      (err: unknown) =>
        err instanceof MutateIdentityError &&
        /"default\/cou-ren".*"default\/other"/.test(err.message),
    );
    await assert.rejects(
      createOrPatch(cms, { metadata: { name: 'cou-ren', namespace: 'default' } }, (cm) => {
        cm.metadata = { ...cm.metadata, namespace: 'kube-system' };
      }),
      MutateIdentityError,
    );
    assert.equal(writes().length, before);
  });

  test('a mutate that renames a new object fails before create', async () => {
    await assert.rejects(
      createOrUpdate(cms, { metadata: { name: 'cou-never', namespace: 'default' } }, (cm) => {
        cm.metadata = { name: 'x', namespace: 'default' };
      }),
      MutateIdentityError,
    );
    await assert.rejects(cms.namespace('default').get('cou-never'), /not found/);
  });

  test('an object in another namespace than the client is scoped to fails with NamespaceMismatchError', async () => {
    await assert.rejects(
      createOrUpdate(
        cms.namespace('kube-system'),
        { metadata: { name: 'cou-ns', namespace: 'default' } },
        () => {},
      ),
      (err: unknown) =>
        err instanceof NamespaceMismatchError && /scoped to "kube-system"/.test(err.message),
    );
  });

  test('a scoped client supplies the namespace the object leaves out', async () => {
    const { result, object } = await createOrUpdate(
      cms.namespace('default'),
      { metadata: { name: 'cou-scoped' } },
      (cm) => {
        cm.data = { a: '1' };
      },
    );
    assert.equal(result, 'created');
    assert.equal(object.metadata?.namespace, 'default');
  });

  test('createOrPatch creates a missing object: result created', async () => {
    const { result } = await createOrPatch(deps, deployment('cop-new'), (d) => {
      d.metadata = { ...d.metadata, labels: { tier: 'web' } };
    });
    assert.equal(result, 'created');
  });

  test('createOrPatch sends a merge patch of only what changed outside status: result updated', async () => {
    await deps.create(deployment('cop-spec'));
    const { result, object } = await createOrPatch(deps, deployment('cop-spec'), (d) => {
      d.spec = { ...d.spec!, replicas: 4 };
    });
    assert.equal(result, 'updated');
    assert.equal(object.spec?.replicas, 4);
    const patch = server.requests.filter((r) => r.method === 'PATCH').at(-1);
    assert.equal(patch?.url.split('?')[0], '/apis/apps/v1/namespaces/default/deployments/cop-spec');
  });

  test('createOrPatch patches the status subresource when only status changed: result updatedStatusOnly', async () => {
    await deps.create(deployment('cop-status'));
    const { result, object } = await createOrPatch(deps, deployment('cop-status'), (d) => {
      d.status = { ...d.status, observedGeneration: 1, replicas: 2 };
    });
    assert.equal(result, 'updatedStatusOnly');
    assert.equal(object.status?.replicas, 2);
    const patches = server.requests.filter((r) => r.method === 'PATCH');
    assert.equal(
      patches.at(-1)?.url.split('?')[0],
      '/apis/apps/v1/namespaces/default/deployments/cop-status/status',
    );
    assert.equal((await deps.namespace('default').get('cop-status')).status?.replicas, 2);
  });

  test('createOrPatch patches object and status when both changed: result updatedStatus', async () => {
    await deps.create(deployment('cop-both'));
    const { result } = await createOrPatch(deps, deployment('cop-both'), (d) => {
      d.spec = { ...d.spec!, replicas: 2 };
      d.status = { ...d.status, replicas: 2 };
    });
    assert.equal(result, 'updatedStatus');
    const got = await deps.namespace('default').get('cop-both');
    assert.equal(got.spec?.replicas, 2);
    assert.equal(got.status?.replicas, 2);
  });

  test('createOrPatch writes nothing when nothing changed: result unchanged', async () => {
    await deps.create(deployment('cop-same'));
    const before = writes().length;
    const { result } = await createOrPatch(deps, deployment('cop-same'), (d) => {
      d.spec = { ...d.spec!, selector: { matchLabels: { app: 'cop-same' } } };
    });
    assert.equal(result, 'unchanged');
    assert.equal(writes().length, before);
  });

  test('the merge patch carries changed members, null for removed ones, and recurses into objects', () => {
    assert.deepEqual(
      createMergePatch(
        { a: 1, b: { c: 1, d: 2 }, e: [1, 2], gone: 'x' },
        { a: 1, b: { c: 1, d: 3 }, e: [1], added: true },
      ),
      { gone: null, b: { d: 3 }, e: [1], added: true },
    );
  });
});
