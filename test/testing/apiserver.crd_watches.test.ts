// Open watches of a CustomResourceDefinition's resource when the CRD is deleted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { makeCrd } from '../dynamic/helpers.js';
import { raw, RawWatch, until } from './helpers.js';

const gadgetsCrd = makeCrd('gadgets', 'Gadget');

describe('test API server (watches of a deleted CRD)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  // A bound, not a wait: without the rule the watch would never end.
  it(
    'deleting a watched CRD ends its watches after their DELETED events, and watchCount still counts (0 for the gone resource)',
    { timeout: 10_000 },
    async () => {
      server.create('customresourcedefinitions.apiextensions.k8s.io', gadgetsCrd);
      server.create('gadgets.example.com', {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g1', namespace: 'default' },
      });
      const w = new RawWatch(
        server.url,
        `/apis/example.com/v1/gadgets?watch=true&resourceVersion=${server.resourceVersion}`,
      );
      const cms = new RawWatch(server.url, '/api/v1/configmaps?watch=true');
      await server.waitForWatch('gadgets.example.com');
      await server.waitForWatch('configmaps');
      const res = await raw(
        server.url,
        'DELETE',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com',
      );
      assert.equal(res.code, 200);
      assert.equal(server.watchCount('gadgets.example.com'), 0, 'counting a gone resource works');
      // kube-apiserver tears down the custom resource's storage, which ends its watches.
      assert.equal(await w.ended, 'end');
      assert.deepEqual(
        w.events.map((e) => `${e.type} ${String(e.object.metadata?.name)}`),
        ['DELETED g1'],
      );
      assert.equal(server.watchCount('gadgets.example.com'), 0);
      assert.equal(server.watchCount({ group: 'example.com', resource: 'gadgets' }), 0);
      assert.equal(server.watchCount(), 1, 'the configmaps watch stays open');
      assert.equal(server.watchCount('configmaps'), 1);
      await cms.close();
      await until(() => server.watchCount() === 0, 'the configmaps watch to close');
    },
  );
});
