// CustomResourceDefinitions on the test API server: serving, versions, scope, status,
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
// discovery, and deletion.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { raw, RawWatch, until } from './helpers.js';

function crd(
  plural: string,
  kind: string,
  scope: 'Namespaced' | 'Cluster',
  status: boolean,
): k8s.V1CustomResourceDefinition {
  const schema = {
    // client-node's serializer names the extension x_kubernetes_preserve_unknown_fields (it
    // drops the wire name), and the server prunes fields of a schema without it.
    openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [plural.slice(0, 2)] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema,
          ...(status ? { subresources: { status: {} } } : {}),
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          schema,
          ...(status ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

describe('test API server (CustomResourceDefinitions)', () => {
  let server: TestApiServer;
  let ext: k8s.ApiextensionsV1Api;
  let custom: k8s.CustomObjectsApi;

  before(async () => {
    server = await startTestApiServer();
    const kc = server.kubeConfig();
    ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
  });
  after(() => server.close());

  it('creating a CRD sets NamesAccepted and Established and serves every served version', async () => {
    const created = await ext.createCustomResourceDefinition({
      body: crd('widgets', 'Widget', 'Namespaced', true),
    });
    const conds = Object.fromEntries(
      (created.status?.conditions ?? []).map((c) => [c.type, c.status]),
    );
    assert.deepEqual(conds, { NamesAccepted: 'True', Established: 'True' });
    const disc = await raw(server.url, 'GET', '/apis/example.com/v1beta1');
    const resources = disc.json.resources as {
      name: string;
      namespaced: boolean;
      kind: string;
      shortNames?: string[];
    }[];
    assert.deepEqual(
      resources.map((r) => r.name),
      ['widgets', 'widgets/status'],
    );
    assert.equal(resources[0]?.namespaced, true);
    assert.deepEqual(resources[0]?.shortNames, ['wi']);
    const groups = await raw(server.url, 'GET', '/apis');
    assert.ok((groups.json.groups as { name: string }[]).some((g) => g.name === 'example.com'));
  });

  it('custom objects are served at each version with that apiVersion', async () => {
    await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 1 },
      },
    });
    const beta = (await custom.getNamespacedCustomObject({
      group: 'example.com',
      version: 'v1beta1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
    })) as Record<string, any>;
    assert.equal(beta.apiVersion, 'example.com/v1beta1');
    assert.equal(beta.spec.size, 1);
  });

  it('with the status subresource, status and spec are written separately and generation follows spec', async () => {
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    const base = {
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
    };
    const st = (await custom.patchNamespacedCustomObjectStatus(
      { ...base, body: { status: { ready: true }, spec: { size: 9 } } },
      merge,
    )) as Record<string, any>;
    assert.equal(st.status.ready, true);
    assert.equal(st.spec.size, 1);
    assert.equal(st.metadata.generation, 1);
    const sp = (await custom.patchNamespacedCustomObject(
      { ...base, body: { spec: { size: 2 }, status: { ready: false } } },
      merge,
    )) as Record<string, any>;
    assert.equal(sp.spec.size, 2);
    assert.equal(sp.status.ready, true);
    assert.equal(sp.metadata.generation, 2);
  });

  it('strategic-merge patch on a custom resource is 415', async () => {
    const res = await raw(
      server.url,
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/w1',
      '{"spec":{}}',
      {
        'Content-Type': 'application/strategic-merge-patch+json',
      },
    );
    assert.equal(res.code, 415);
  });

  it('cluster-scoped custom resources are served without a namespace', async () => {
    await ext.createCustomResourceDefinition({
      body: crd('clusterthings', 'ClusterThing', 'Cluster', false),
    });
    await custom.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'clusterthings',
      body: { apiVersion: 'example.com/v1', kind: 'ClusterThing', metadata: { name: 'c1' } },
    });
    const list = (await custom.listClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'clusterthings',
    })) as { items: unknown[] };
    assert.equal(list.items.length, 1);
    const res = await raw(
      server.url,
      'GET',
      '/apis/example.com/v1/namespaces/default/clusterthings',
    );
    assert.equal(res.code, 404);
  });

  it('a CRD whose name is not plural.group is 422 Invalid', async () => {
    const bad = crd('gadgets', 'Gadget', 'Namespaced', false);
    bad.metadata = { name: 'wrong.example.com' };
    const res = await raw(
      server.url,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      JSON.stringify(bad),
    );
    assert.equal(res.code, 422);
  });

  it('deleting the CRD deletes its objects (watchers see DELETED) and stops serving it', async () => {
    await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' } },
    });
    const w = new RawWatch(
      server.url,
      `/apis/example.com/v1/widgets?watch=true&resourceVersion=${server.resourceVersion}`,
    );
    await server.waitForWatch('widgets.example.com');
    await ext.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
    const evs = await w.waitFor(2);
    assert.deepEqual(evs.map((e) => `${e.type} ${e.object.metadata.name}`).sort(), [
      'DELETED w1',
      'DELETED w2',
    ]);
    await w.close();
    await until(() => server.watchCount() === 0, 'the watch to close');
    const res = await raw(server.url, 'GET', '/apis/example.com/v1/namespaces/default/widgets');
    assert.equal(res.code, 404);
    const disc = await raw(server.url, 'GET', '/apis/example.com/v1');
    assert.deepEqual(
      (disc.json.resources as { name: string }[]).map((r) => r.name),
      ['clusterthings'],
    );
  });
});
