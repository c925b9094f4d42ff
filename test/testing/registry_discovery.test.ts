// discovery.k8s.io/v1 EndpointSlices, as kube-apiserver serves them: discovery (kubectl
// api-resources), SetDefaults_EndpointPort (protocol TCP, name ""), metadata.generation on
// every change but metadata (the EndpointSlice strategy), ValidateEndpointSlice's
// messages, and the printer columns (AddressType, Ports, Endpoints, Age).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const BASE = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

describe('discovery.k8s.io/v1 endpointslices', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists endpointslices, namespaced, every verb, no status subresource', async () => {
    const r = await h.resource('discovery.k8s.io/v1', 'endpointslices');
    assert.deepEqual(r, {
      name: 'endpointslices',
      singularName: 'endpointslice',
      namespaced: true,
      kind: 'EndpointSlice',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    });
    assert.equal(await h.resource('discovery.k8s.io/v1', 'endpointslices/status'), undefined);
  });

  it('rule: SetDefaults_EndpointPort gives a port protocol TCP and name ""; generation is 1 and moves on a spec change', async () => {
    const created = await h.send('POST', BASE, {
      metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }],
      ports: [{ port: 8080 }],
    });
    assert.equal(created.code, 201, created.body);
    assert.deepEqual(created.json.ports, [{ port: 8080, name: '', protocol: 'TCP' }]);
    assert.equal((created.json.metadata as { generation: number }).generation, 1);
    const patched = await h.send(
      'PATCH',
      `${BASE}/web-abc`,
      { endpoints: [{ addresses: ['10.0.0.3'] }] },
      'application/merge-patch+json',
    );
    assert.equal(patched.code, 200, patched.body);
    assert.equal((patched.json.metadata as { generation: number }).generation, 2);
  });

  it('rule: ValidateEndpointSlice refuses a missing addressType, an address-less endpoint, and a changed addressType', async () => {
    const bad = await h.send('POST', BASE, {
      metadata: { name: 'bad' },
      endpoints: [{ addresses: [] }],
    });
    assert.equal(bad.code, 422, bad.body);
    assert.deepEqual(causes(bad), [
      'addressType: Required value',
      'endpoints[0].addresses: Required value: must contain at least 1 address',
    ]);
    const unsupported = await h.send('POST', BASE, {
      metadata: { name: 'bad' },
      addressType: 'IPv5',
    });
    assert.equal(unsupported.code, 422);
    assert.match(
      String(unsupported.json.message),
      /^EndpointSlice.discovery.k8s.io "bad" is invalid: addressType: Unsupported value: "IPv5": supported values: "IPv4", "IPv6", "FQDN"$/,
    );
    const changed = await h.send(
      'PATCH',
      `${BASE}/web-abc`,
      { addressType: 'IPv6' },
      'application/merge-patch+json',
    );
    assert.equal(changed.code, 422, changed.body);
    assert.deepEqual(causes(changed), ['addressType: Invalid value: "IPv6": field is immutable']);
  });

  it('rule: the Table has AddressType, Ports, Endpoints (three and "+ N more..."), Age', async () => {
    await h.send('POST', BASE, {
      metadata: { name: 'many' },
      addressType: 'IPv4',
      endpoints: [1, 2, 3, 4, 5].map((i) => ({ addresses: [`10.1.0.${i}`] })),
    });
    await h.clock.advance(5 * 60_000);
    const t = await h.table(BASE);
    assert.deepEqual(t.columns, ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    assert.deepEqual(t.rows, [
      ['many', 'IPv4', '<unset>', '10.1.0.1,10.1.0.2,10.1.0.3 + 2 more...', '5m'],
      ['web-abc', 'IPv4', '8080', '10.0.0.3', '5m'],
    ]);
  });

  it('kubectl get endpointslices prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'endpointslices');
    assert.match(out, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n/);
    assert.match(out, /\nweb-abc\s+IPv4\s+8080\s+10\.0\.0\.3\s+5m\n/);
  });
});
