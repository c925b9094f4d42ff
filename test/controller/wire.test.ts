import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { V1Condition, V1Pod } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { configMapsResource, podsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import { UnknownModelError, fromWire, toWire } from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

const wirePod: Serialized<V1Pod> = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-0',
    namespace: 'default',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
  },
  spec: { containers: [{ name: 'web', image: 'nginx', resources: { limits: { cpu: '1' } } }] },
  status: {
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05.250Z' }],
  },
};

describe('wire form <-> client-node model objects', () => {
  test('fromWire turns timestamps into Dates and returns an instance of the model class', () => {
    const pod = fromWire(V1Pod, wirePod);
    assert.ok(pod instanceof V1Pod);
    assert.ok(pod.metadata?.creationTimestamp instanceof Date);
    assert.equal(pod.metadata?.creationTimestamp?.getTime(), Date.parse('2026-01-01T00:00:00Z'));
    assert.ok(pod.status?.conditions?.[0]?.lastTransitionTime instanceof Date);
    assert.equal(pod.spec?.containers[0]?.image, 'nginx');
  });

  test('toWire turns Dates back into RFC 3339 strings as the API server writes them', () => {
    const back = toWire(V1Pod, fromWire(V1Pod, wirePod));
    assert.deepEqual(back, wirePod);
    assert.equal(back.metadata?.creationTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(back.status?.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:05.250Z');
  });

  test('nested model types convert on their own (V1Condition)', () => {
    const condition = new V1Condition();
    condition.type = 'Ready';
    condition.status = 'True';
    condition.reason = 'Up';
    condition.message = '';
    condition.lastTransitionTime = new Date(Date.UTC(2026, 0, 2));
    assert.deepEqual(toWire(V1Condition, condition), {
      type: 'Ready',
      status: 'True',
      reason: 'Up',
      message: '',
      lastTransitionTime: '2026-01-02T00:00:00Z',
    });
  });

  test('a value that is not a client-node model class is refused with UnknownModelError', () => {
    class NotAModel {}
    assert.throws(() => fromWire(NotAModel as unknown as typeof V1Pod, wirePod), UnknownModelError);
  });
});

describe('wire form through the in-memory API server', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('an object read by a library client converts to a model with the server timestamps, and back to what the client sent', async () => {
    const pods = new ResourceClient(server.kubeConfig(), podsResource).namespace('default');
    const created = await pods.create({
      metadata: { name: 'wire' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    const model = fromWire(V1Pod, created);
    assert.equal(
      model.metadata?.creationTimestamp?.toISOString().replace('.000Z', 'Z'),
      created.metadata?.creationTimestamp,
    );
    const updated = await pods.update(toWire(V1Pod, model));
    assert.equal(updated.metadata?.name, 'wire');
  });

  test('server-side apply takes a partial object (only the fields this manager owns)', async () => {
    const cms = new ResourceClient<Serialized<V1ConfigMap>>(
      server.kubeConfig(),
      configMapsResource,
    );
    const applied = await cms.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'applied', namespace: 'default' },
        data: { a: '1' },
      },
      { fieldManager: 'wire-test' },
    );
    assert.deepEqual(applied.data, { a: '1' });
    const req = server.requests.filter((r) => r.method === 'PATCH').at(-1);
    assert.match(
      req?.url ?? '',
      /\/namespaces\/default\/configmaps\/applied\?.*fieldManager=wire-test/,
    );
  });
});
