// networking.k8s.io/v1 IngressClasses, IPAddresses and ServiceCIDRs, as kube-apiserver
// serves them: discovery (kubectl api-resources), the validation messages of
// pkg/apis/networking/validation (a required, immutable IngressClass controller; an
// IPAddress named by a canonical IP with a parentRef; one or two ServiceCIDR CIDRs), the
// ServiceCIDR status subresource, and the printer columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const G = '/apis/networking.k8s.io/v1';

describe('networking.k8s.io/v1 ingressclasses, ipaddresses, servicecidrs', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists them cluster-scoped, ipaddresses with short name ip, servicecidrs/status', async () => {
    assert.equal((await h.resource('networking.k8s.io/v1', 'ingressclasses'))?.namespaced, false);
    const ip = await h.resource('networking.k8s.io/v1', 'ipaddresses');
    assert.deepEqual([ip?.namespaced, ip?.shortNames, ip?.kind], [false, ['ip'], 'IPAddress']);
    assert.equal((await h.resource('networking.k8s.io/v1', 'servicecidrs'))?.kind, 'ServiceCIDR');
    assert.ok(await h.resource('networking.k8s.io/v1', 'servicecidrs/status'));
  });

  it('rule: an IngressClass needs spec.controller, which cannot change', async () => {
    const bad = await h.send('POST', `${G}/ingressclasses`, {
      metadata: { name: 'nginx' },
      spec: {},
    });
    assert.equal(bad.code, 422);
    assert.equal(
      bad.json.message,
      'IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Required value',
    );
    const ok = await h.send('POST', `${G}/ingressclasses`, {
      metadata: { name: 'nginx' },
      spec: {
        controller: 'k8s.io/ingress-nginx',
        parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'p' },
      },
    });
    assert.equal(ok.code, 201, ok.body);
    const changed = await h.send(
      'PATCH',
      `${G}/ingressclasses/nginx`,
      { spec: { controller: 'other' } },
      'application/merge-patch+json',
    );
    assert.deepEqual(causes(changed), [
      'spec.controller: Invalid value: "other": field is immutable',
    ]);
  });

  it('rule: an IPAddress is named by a canonical IP and needs a parentRef', async () => {
    const ref = { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' };
    const notIp = await h.send('POST', `${G}/ipaddresses`, {
      metadata: { name: 'x' },
      spec: { parentRef: ref },
    });
    assert.deepEqual(causes(notIp), [
      'metadata.name: Invalid value: "x": ParseAddr("x"): unable to parse IP',
    ]);
    const long = await h.send('POST', `${G}/ipaddresses`, {
      metadata: { name: '2001:db8:0::1' },
      spec: {},
    });
    assert.deepEqual(causes(long), [
      'metadata.name: Invalid value: "2001:db8:0::1": must be a canonical format IP address',
      'spec.parentRef: Required value',
    ]);
    const ok = await h.send('POST', `${G}/ipaddresses`, {
      metadata: { name: '10.96.0.1' },
      spec: { parentRef: ref },
    });
    assert.equal(ok.code, 201, ok.body);
  });

  it('rule: a ServiceCIDR needs one or two valid CIDRs; status through /status', async () => {
    const none = await h.send('POST', `${G}/servicecidrs`, {
      metadata: { name: 'extra' },
      spec: {},
    });
    assert.deepEqual(causes(none), ['spec.cidrs: Required value: at least one CIDR required']);
    const bad = await h.send('POST', `${G}/servicecidrs`, {
      metadata: { name: 'extra' },
      spec: { cidrs: ['10.0.0.0/33'] },
    });
    assert.deepEqual(causes(bad), [
      'spec.cidrs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
    const ok = await h.send('POST', `${G}/servicecidrs`, {
      metadata: { name: 'extra' },
      spec: { cidrs: ['10.100.0.0/16', 'fd00:10:100::/108'] },
      status: { conditions: [] },
    });
    assert.equal(ok.code, 201, ok.body);
    assert.equal(ok.json.status, undefined);
    const status = await h.send(
      'PATCH',
      `${G}/servicecidrs/extra/status`,
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: '',
              message: '',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
  });

  it('rule: the Tables: IngressClass Controller/Parameters, IPAddress ParentRef (no Age), ServiceCIDR CIDRs', async () => {
    await h.clock.advance(60_000);
    const ic = await h.table(`${G}/ingressclasses`);
    assert.deepEqual(ic.columns, ['Name', 'Controller', 'Parameters', 'Age']);
    assert.deepEqual(ic.rows, [
      ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/p', '60s'],
    ]);
    const ip = await h.table(`${G}/ipaddresses`);
    assert.deepEqual(ip.columns, ['Name', 'ParentRef']);
    assert.deepEqual(ip.rows, [['10.96.0.1', 'services/default/kubernetes']]);
    const sc = await h.table(`${G}/servicecidrs`);
    assert.deepEqual(sc.columns, ['Name', 'CIDRs', 'Age']);
    assert.deepEqual(sc.rows, [['extra', '10.100.0.0/16,fd00:10:100::/108', '60s']]);
  });

  it('kubectl get ingressclass prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'ingressclasses');
    assert.match(
      out,
      /^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nnginx\s+k8s\.io\/ingress-nginx\s+IngressParameters\.k8s\.example\.com\/p\s+60s\n$/,
    );
  });
});
