// apiregistration.k8s.io/v1 APIServices and the order of `/apis`, as kube-apiserver 1.36
// (with its aggregator) serves them: the aggregator lists its own group first, then every
// group by its APIService's groupPriorityMinimum (ties by name); each built-in group
// version has its local APIService from the start (Available: Local); ValidateAPIService's
// messages; the status subresource; the printer's Service and Available columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const API = '/apis/apiregistration.k8s.io/v1/apiservices';

/** kube-apiserver 1.36's `/apis` group order (without the beta and alpha groups). */
const GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
];

describe('apiregistration.k8s.io/v1 apiservices and the /apis order', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: /apis lists the 20 groups in the aggregator order; a CRD group (priority 1000) comes after them', async () => {
    const before = await h.send('GET', '/apis');
    assert.deepEqual(
      (before.json.groups as { name: string }[]).map((g) => g.name),
      GROUP_ORDER,
    );
    const crd = await h.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'widgets.aaa.example.com' },
      spec: {
        group: 'aaa.example.com',
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
    assert.equal(crd.code, 201, crd.body);
    const after = await h.send('GET', '/apis');
    assert.deepEqual(
      (after.json.groups as { name: string }[]).map((g) => g.name),
      [...GROUP_ORDER, 'aaa.example.com'],
    );
  });

  it('rule: every built-in group version has its local APIService, Available (Local)', async () => {
    const list = await h.send('GET', API);
    const items = list.json.items as {
      metadata: { name: string };
      spec: Record<string, unknown>;
      status: { conditions: { type: string; status: string; reason: string }[] };
    }[];
    const names = items.map((i) => i.metadata.name);
    for (const n of [
      'v1.',
      'v1.apps',
      'v2.autoscaling',
      'v1.autoscaling',
      'v1.resource.k8s.io',
      'v1.apiregistration.k8s.io',
    ]) {
      assert.ok(names.includes(n), n);
    }
    const apps = items.find((i) => i.metadata.name === 'v1.apps');
    assert.deepEqual(apps?.spec, {
      group: 'apps',
      version: 'v1',
      groupPriorityMinimum: 17800,
      versionPriority: 15,
    });
    assert.deepEqual(
      apps?.status.conditions.map((c) => [c.type, c.status, c.reason]),
      [['Available', 'True', 'Local']],
    );
  });

  it('rule: ValidateAPIService: the name is version.group, priorities in range; a service port defaults to 443', async () => {
    const bad = await h.send('POST', API, {
      metadata: { name: 'v1beta1.metrics' },
      spec: {
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        groupPriorityMinimum: 0,
        versionPriority: 100,
      },
    });
    assert.equal(bad.code, 422);
    assert.deepEqual(causes(bad), [
      'metadata.name: Invalid value: "v1beta1.metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"',
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
    ]);
    const ok = await h.send('POST', API, {
      metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: {
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { namespace: 'kube-system', name: 'metrics-server' },
        insecureSkipTLSVerify: true,
      },
    });
    assert.equal(ok.code, 201, ok.body);
    assert.deepEqual((ok.json.spec as { service: unknown }).service, {
      namespace: 'kube-system',
      name: 'metrics-server',
      port: 443,
    });
    const status = await h.send(
      'PATCH',
      `${API}/v1beta1.metrics.k8s.io/status`,
      {
        status: {
          conditions: [
            {
              type: 'Available',
              status: 'False',
              reason: 'MissingEndpoints',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
  });

  it('rule: the Table has Service (Local or namespace/name), Available (status and reason), Age', async () => {
    await h.clock.advance(60_000);
    const t = await h.table(API);
    assert.deepEqual(t.columns, ['Name', 'Service', 'Available', 'Age']);
    const byName = new Map(t.rows.map((r) => [r[0], r]));
    assert.deepEqual(byName.get('v1beta1.metrics.k8s.io'), [
      'v1beta1.metrics.k8s.io',
      'kube-system/metrics-server',
      'False (MissingEndpoints)',
      '60s',
    ]);
    assert.deepEqual(byName.get('v1.apps')?.slice(0, 3), ['v1.apps', 'Local', 'True']);
  });

  it('kubectl get apiservices prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'apiservices');
    assert.match(out, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
    assert.match(
      out,
      /\nv1beta1\.metrics\.k8s\.io\s+kube-system\/metrics-server\s+False \(MissingEndpoints\)\s+60s\n/,
    );
  });
});
