// The kinds the registry added, in Kubernetes protobuf: kube-apiserver answers every
// built-in kind in protobuf when a client asks for it first (client-go's protobuf clients,
// kubectl's `application/vnd.kubernetes.protobuf,application/json`), so a GET of each new
// kind decodes to the object its JSON GET shows. APIServices (kube-aggregator's types,
// whose .proto files are not vendored here) answer in JSON, as the server does for custom
// resources.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { decodeObject } from '../../packages/testing/src/protobuf/codec.js';
import { startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';

const ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';

function getBinary(base: string, path: string): Promise<{ type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { Accept: ACCEPT }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ type: String(res.headers['content-type']), body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** [collection path, object] of one object of each new kind served in protobuf. */
const OBJECTS: [string, Record<string, unknown>][] = [
  [
    '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices',
    {
      metadata: { name: 'es' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
      ports: [{ port: 80 }],
    },
  ],
  [
    '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers',
    {
      metadata: { name: 'hpa' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 3,
      },
    },
  ],
  [
    '/api/v1/persistentvolumes',
    {
      metadata: { name: 'pv' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/d' },
      },
    },
  ],
  [
    '/api/v1/namespaces/default/limitranges',
    { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } },
  ],
  [
    '/apis/storage.k8s.io/v1/storageclasses',
    { metadata: { name: 'sc' }, provisioner: 'p', allowVolumeExpansion: false },
  ],
  ['/apis/storage.k8s.io/v1/csidrivers', { metadata: { name: 'd.example.com' }, spec: {} }],
  [
    '/apis/networking.k8s.io/v1/ingressclasses',
    { metadata: { name: 'ic' }, spec: { controller: 'x/y' } },
  ],
  ['/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'p' }, value: 0 }],
  ['/apis/node.k8s.io/v1/runtimeclasses', { metadata: { name: 'rt' }, handler: 'runc' }],
  [
    '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
    {
      metadata: { name: 'pl' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
    },
  ],
  [
    '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims',
    {
      metadata: { name: 'rc' },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] } },
    },
  ],
];

describe('the added kinds in Kubernetes protobuf', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: each new kind is answered in protobuf when asked first, and decodes to its JSON form', async () => {
    for (const [path, obj] of OBJECTS) {
      const created = await h.send('POST', path, obj);
      assert.equal(created.code, 201, `${path}: ${created.body}`);
      const name = (obj.metadata as { name: string }).name;
      const json = await h.send('GET', `${path}/${name}`);
      const pb = await getBinary(h.server.url, `${path}/${name}`);
      assert.equal(pb.type, 'application/vnd.kubernetes.protobuf', path);
      assert.deepEqual(decodeObject(pb.body), json.json, path);
    }
  });

  it('rule: an HPA read at autoscaling/v1 is the v1 protobuf message', async () => {
    const pb = await getBinary(
      h.server.url,
      '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/hpa',
    );
    const obj = decodeObject(pb.body) as { apiVersion: string; spec: Record<string, unknown> };
    assert.equal(obj.apiVersion, 'autoscaling/v1');
    assert.equal(obj.spec.targetCPUUtilizationPercentage, 80);
  });

  it('rule: an APIService (no vendored .proto) is answered in JSON under the same Accept', async () => {
    const res = await getBinary(
      h.server.url,
      '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps',
    );
    assert.equal(res.type, 'application/json');
    assert.equal((JSON.parse(res.body.toString()) as { kind: string }).kind, 'APIService');
  });
});
