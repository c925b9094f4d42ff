// Kubernetes protobuf on the test API server, as kube-apiserver speaks it: built-in kinds
// in `k8s\0` + runtime.Unknown envelopes for bodies and responses, length-prefixed
// WatchEvent frames for watches; custom resources stay JSON-only (415 / 406).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  decodeObject,
  decodeWatchFrames,
  encodeObject,
  PROTOBUF_MAGIC,
} from '../../packages/testing/src/protobuf/codec.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

const PB = 'application/vnd.kubernetes.protobuf';
const KUBECTL_ACCEPT = `${PB},application/json`;

interface BinaryResponse {
  code: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(
  base: string,
  method: string,
  path: string,
  body: Buffer | string | undefined,
  headers: Record<string, string>,
): Promise<BinaryResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ code: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'default', labels: { app: 'web' } },
  data: { mode: 'fast', empty: '' },
  binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString('base64') },
};

describe('protobuf codec (JSON form ⇄ Kubernetes protobuf)', () => {
  it('round-trips Time, MicroTime, Quantity, IntOrString, bytes, FieldsV1 and zero replicas', () => {
    const objects: Record<string, unknown>[] = [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'p',
          namespace: 'default',
          creationTimestamp: '2024-05-01T10:00:00Z',
          managedFields: [
            {
              manager: 'kubectl',
              operation: 'Apply',
              apiVersion: 'v1',
              time: '2024-05-01T10:00:00Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {} } } } },
            },
          ],
        },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'nginx',
              resources: { limits: { cpu: '500m', memory: '1Gi' } },
              livenessProbe: { httpGet: { port: 'http', path: '/' } },
            },
          ],
        },
      },
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l' },
        spec: { holderIdentity: 'a', renewTime: '2024-05-01T10:00:00.123456Z' },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: { ports: [{ port: 80, targetPort: 8080 }] },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { replicas: 0, selector: { matchLabels: { app: 'd' } } },
      },
      configMap,
    ];
    for (const obj of objects) {
      const bytes = encodeObject(obj);
      assert.ok(bytes, `${String(obj.kind)} has a protobuf form`);
      assert.deepEqual(bytes.subarray(0, 4), PROTOBUF_MAGIC);
      assert.deepEqual(decodeObject(bytes), obj);
    }
  });

  it('has no protobuf form for custom resources', () => {
    assert.equal(encodeObject({ apiVersion: 'example.com/v1', kind: 'Widget' }), undefined);
    assert.equal(
      encodeObject({ apiVersion: 'apps.example.com/v1', kind: 'Deployment' }),
      undefined,
    );
  });
});

describe('protobuf over HTTP', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
    server.create('customresourcedefinitions.apiextensions.k8s.io', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
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
  });
  after(() => server.close());

  it('a protobuf create body is decoded and the response is protobuf when Accept lists it first', async () => {
    const res = await call(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      encodeObject(configMap),
      { 'Content-Type': PB, Accept: KUBECTL_ACCEPT },
    );
    assert.equal(res.code, 201, res.body.toString());
    assert.equal(res.headers['content-type'], PB);
    const created = decodeObject(res.body) as typeof configMap & {
      metadata: { uid?: string; resourceVersion?: string; creationTimestamp?: string };
    };
    assert.deepEqual(created.data, configMap.data);
    assert.deepEqual(created.binaryData, configMap.binaryData);
    assert.ok(created.metadata.uid);
    assert.match(created.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const stored = server.get('configmaps', 'settings', 'default');
    assert.deepEqual(stored?.data, configMap.data);
  });

  it('get and list answer protobuf to protobuf clients and JSON to JSON clients', async () => {
    const one = await call(
      server.url,
      'GET',
      '/api/v1/namespaces/default/configmaps/settings',
      undefined,
      {
        Accept: KUBECTL_ACCEPT,
      },
    );
    assert.equal(one.headers['content-type'], PB);
    assert.equal(decodeObject(one.body).kind, 'ConfigMap');
    const list = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {
      Accept: KUBECTL_ACCEPT,
    });
    const decoded = decodeObject(list.body) as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    assert.equal(decoded.kind, 'ConfigMapList');
    assert.deepEqual(
      decoded.items.map((i) => i.metadata.name),
      ['settings'],
    );
    const json = await call(
      server.url,
      'GET',
      '/api/v1/namespaces/default/configmaps/settings',
      undefined,
      {
        Accept: 'application/json',
      },
    );
    assert.equal(json.headers['content-type'], 'application/json');
  });

  it('custom resources stay JSON: JSON answers to a protobuf-first Accept, 406 to protobuf alone, 415 for protobuf bodies', async () => {
    const body = JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
    });
    const created = await call(
      server.url,
      'POST',
      '/apis/example.com/v1/namespaces/default/widgets',
      body,
      {
        'Content-Type': 'application/json',
        Accept: KUBECTL_ACCEPT,
      },
    );
    assert.equal(created.code, 201);
    assert.equal(created.headers['content-type'], 'application/json');
    const only = await call(
      server.url,
      'GET',
      '/apis/example.com/v1/namespaces/default/widgets/w',
      undefined,
      {
        Accept: PB,
      },
    );
    assert.equal(only.code, 406);
    const pbBody = await call(
      server.url,
      'POST',
      '/apis/example.com/v1/namespaces/default/widgets',
      Buffer.from('k8s\0'),
      {
        'Content-Type': PB,
      },
    );
    assert.equal(pbBody.code, 415);
    assert.match(
      pbBody.body.toString(),
      /accepted media types include: application\/json, application\/yaml"/,
    );
  });

  it('a 415 for built-ins advertises protobuf, and YAML bodies are accepted as advertised', async () => {
    const bad = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', 'x', {
      'Content-Type': 'text/plain',
    });
    assert.equal(bad.code, 415);
    assert.match(
      bad.body.toString(),
      /application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf/,
    );
    const yaml = await call(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n',
      { 'Content-Type': 'application/yaml' },
    );
    assert.equal(yaml.code, 201, yaml.body.toString());
    assert.deepEqual(server.get('configmaps', 'from-yaml', 'default')?.data, { k: 'v' });
  });

  it('a malformed protobuf body is 400, not a crash', async () => {
    const res = await call(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      Buffer.from('k8s\0\xff\xff'),
      {
        'Content-Type': PB,
      },
    );
    assert.equal(res.code, 400);
  });

  it('a protobuf watch streams length-prefixed WatchEvent frames holding k8s\\0 envelopes', async () => {
    const chunks: Buffer[] = [];
    let wake: (() => void) | undefined;
    let contentType = '';
    const req = request(
      `${server.url}/api/v1/namespaces/default/pods?watch=true&resourceVersion=${server.resourceVersion}`,
      { headers: { Accept: KUBECTL_ACCEPT }, agent: false },
      (res) => {
        contentType = res.headers['content-type'] ?? '';
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          wake?.();
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', () => undefined);
    req.end();
    try {
      await server.waitForWatch('pods');
      server.create('pods', {
        metadata: { name: 'p1', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
      server.delete('pods', 'p1', 'default');
      const frames = async (n: number): Promise<{ type: string; object: unknown }[]> => {
        for (;;) {
          const events = decodeWatchFrames(Buffer.concat(chunks));
          if (events.length >= n) return events;
          await new Promise<void>((r) => (wake = r));
        }
      };
      const events = await frames(2);
      assert.equal(contentType, `${PB};stream=watch`);
      assert.deepEqual(
        events.map((e) => e.type),
        ['ADDED', 'DELETED'],
      );
      const pod = events[0]?.object as { kind: string; metadata: { name: string }; spec: unknown };
      assert.equal(pod.kind, 'Pod');
      assert.equal(pod.metadata.name, 'p1');
      // The stored pod carries kube-apiserver's defaults (this decoder drops empty
      // messages such as `securityContext: {}` and `resources: {}`).
      assert.deepEqual(pod.spec, {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            imagePullPolicy: 'Always',
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        enableServiceLinks: true,
      });
      const first = Buffer.concat(chunks);
      assert.equal(first.readUInt32BE(0) + 4 <= first.length, true);
    } finally {
      req.destroy();
    }
  });
});
