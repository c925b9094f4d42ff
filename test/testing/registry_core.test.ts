// The core/v1 kinds the registry added (PersistentVolumes, LimitRanges, PodTemplates,
// ReplicationControllers), as kube-apiserver serves them: discovery (kubectl
// api-resources), their SetDefaults_*, their validation messages, status and scale
// subresources, and the printer columns `kubectl get` shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const PV = '/api/v1/persistentvolumes';
const LIMITS = '/api/v1/namespaces/default/limitranges';
const TEMPLATES = '/api/v1/namespaces/default/podtemplates';
const RC = '/api/v1/namespaces/default/replicationcontrollers';
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('core/v1 persistentvolumes, limitranges, podtemplates, replicationcontrollers', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists them with their scope, short names, categories and subresources', async () => {
    const pv = await h.resource('v1', 'persistentvolumes');
    assert.deepEqual(pv, {
      name: 'persistentvolumes',
      singularName: 'persistentvolume',
      namespaced: false,
      kind: 'PersistentVolume',
      verbs: VERBS,
      shortNames: ['pv'],
    });
    assert.ok(await h.resource('v1', 'persistentvolumes/status'));
    assert.deepEqual((await h.resource('v1', 'limitranges'))?.shortNames, ['limits']);
    assert.equal((await h.resource('v1', 'podtemplates'))?.namespaced, true);
    const rc = await h.resource('v1', 'replicationcontrollers');
    assert.deepEqual([rc?.shortNames, rc?.categories], [['rc'], ['all']]);
    assert.equal((await h.resource('v1', 'replicationcontrollers/scale'))?.kind, 'Scale');
    assert.ok(await h.resource('v1', 'replicationcontrollers/status'));
  });

  it('rule: a PersistentVolume gets reclaim policy Retain, volumeMode Filesystem and status Pending; status is its own subresource', async () => {
    const created = await h.send('POST', PV, {
      metadata: { name: 'pv1' },
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/data' },
        storageClassName: 'fast',
      },
      status: { phase: 'Bound' },
    });
    assert.equal(created.code, 201, created.body);
    const spec = created.json.spec as Record<string, unknown>;
    assert.equal(spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(spec.volumeMode, 'Filesystem');
    assert.equal((created.json.status as { phase: string }).phase, 'Pending');
    const status = await h.send(
      'PATCH',
      `${PV}/pv1/status`,
      { status: { phase: 'Available' } },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
    assert.equal((status.json.status as { phase: string }).phase, 'Available');
  });

  it('rule: ValidatePersistentVolume: access modes, capacity and a volume source are required', async () => {
    const bad = await h.send('POST', PV, { metadata: { name: 'bad' }, spec: {} });
    assert.equal(bad.code, 422, bad.body);
    assert.deepEqual(causes(bad), [
      'spec.accessModes: Required value',
      'spec.capacity: Required value',
      'spec: Required value: must specify a volume type',
    ]);
  });

  it('rule: SetDefaults_LimitRangeItem: default from max, defaultRequest from default then min; a type is required', async () => {
    const created = await h.send('POST', LIMITS, {
      metadata: { name: 'limits' },
      spec: {
        limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }],
      },
    });
    assert.equal(created.code, 201, created.body);
    assert.deepEqual((created.json.spec as { limits: unknown[] }).limits[0], {
      type: 'Container',
      max: { cpu: '2' },
      min: { memory: '64Mi' },
      default: { cpu: '2' },
      defaultRequest: { cpu: '2', memory: '64Mi' },
    });
    const bad = await h.send('POST', LIMITS, {
      metadata: { name: 'bad' },
      spec: { limits: [{ max: { cpu: '1' } }, { type: 'Node' }] },
    });
    assert.equal(bad.code, 422);
    assert.deepEqual(causes(bad), [
      'spec.limits[0].type: Required value',
      'spec.limits[1].type: Unsupported value: "Node": supported values: "Pod", "Container", "PersistentVolumeClaim"',
    ]);
  });

  it('rule: a PodTemplate gets the PodSpec defaults and needs containers', async () => {
    const created = await h.send('POST', TEMPLATES, {
      metadata: { name: 'tpl' },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    });
    assert.equal(created.code, 201, created.body);
    const spec = (created.json.template as { spec: Record<string, unknown> }).spec;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    const bad = await h.send('POST', TEMPLATES, { metadata: { name: 'bad' }, template: {} });
    assert.deepEqual(causes(bad), ['template.spec.containers: Required value']);
  });

  it('rule: a ReplicationController takes selector, labels and replicas 1 from its template; a selector that misses the labels is refused', async () => {
    const created = await h.send('POST', RC, {
      metadata: { name: 'web' },
      spec: {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        },
      },
    });
    assert.equal(created.code, 201, created.body);
    const spec = created.json.spec as Record<string, unknown>;
    assert.deepEqual(spec.selector, { app: 'web' });
    assert.equal(spec.replicas, 1);
    assert.deepEqual((created.json.metadata as { labels: unknown }).labels, { app: 'web' });
    assert.equal((created.json.metadata as { generation: number }).generation, 1);
    const bad = await h.send('POST', RC, {
      metadata: { name: 'bad' },
      spec: {
        selector: { app: 'other' },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx' }] },
        },
      },
    });
    assert.equal(bad.code, 422);
    assert.deepEqual(causes(bad), [
      'spec.template.metadata.labels: Invalid value: "app=web": `selector` does not match template `labels`',
    ]);
    const scaled = await h.send(
      'PATCH',
      `${RC}/web/scale`,
      { spec: { replicas: 3 } },
      'application/merge-patch+json',
    );
    assert.equal(scaled.code, 200, scaled.body);
    const status = await h.send(
      'PATCH',
      `${RC}/web/status`,
      { status: { replicas: 3, readyReplicas: 2 } },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
  });

  it('rule: the Tables: PersistentVolume, LimitRange (Created At), PodTemplate, ReplicationController', async () => {
    await h.clock.advance(3 * 60_000);
    const pv = await h.table(PV);
    assert.deepEqual(pv.columns, [
      'Name',
      'Capacity',
      'Access Modes',
      'Reclaim Policy',
      'Status',
      'Claim',
      'StorageClass',
      'VolumeAttributesClass',
      'Reason',
      'Age',
      'VolumeMode*',
    ]);
    assert.deepEqual(pv.rows, [
      ['pv1', '10Gi', 'RWO', 'Retain', 'Available', '', 'fast', '<unset>', '', '3m', 'Filesystem'],
    ]);
    const limits = await h.table(LIMITS);
    assert.deepEqual(limits.columns, ['Name', 'Created At']);
    assert.deepEqual(limits.rows, [['limits', '2026-01-01T00:00:00Z']]);
    const templates = await h.table(TEMPLATES);
    assert.deepEqual(templates.columns, ['Template', 'Containers', 'Images', 'Pod Labels']);
    assert.deepEqual(templates.rows, [['tpl', 'app', 'nginx:1.27', 'app=web']]);
    const rc = await h.table(RC);
    assert.deepEqual(rc.columns, [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    assert.deepEqual(rc.rows, [['web', 3, 3, 2, '3m', 'app', 'nginx:1.27', 'app=web']]);
  });

  it('kubectl get pv,rc prints the columns', { skip: kubectlSkip() }, async () => {
    const pv = await h.kubectl('get', 'pv');
    assert.match(
      pv,
      /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE\n/,
    );
    assert.match(pv, /\npv1\s+10Gi\s+RWO\s+Retain\s+Available\s+fast\s+<unset>\s+3m\n/);
    const rc = await h.kubectl('get', 'rc', '-o', 'wide');
    assert.match(rc, /\nweb\s+3\s+3\s+2\s+3m\s+app\s+nginx:1\.27\s+app=web\n/);
  });
});

describe('core/v1 componentstatuses (read-only)', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists componentstatuses (cs) with verbs get and list only', async () => {
    const r = await h.resource('v1', 'componentstatuses');
    assert.deepEqual(r, {
      name: 'componentstatuses',
      singularName: 'componentstatus',
      namespaced: false,
      kind: 'ComponentStatus',
      verbs: ['get', 'list'],
      shortNames: ['cs'],
    });
  });

  it('rule: the scheduler, controller manager and etcd read healthy; create, delete and watch have no route (405)', async () => {
    const list = await h.send('GET', '/api/v1/componentstatuses');
    assert.equal(list.code, 200, list.body);
    const t = await h.table('/api/v1/componentstatuses');
    assert.deepEqual(t.columns, ['Name', 'Status', 'Message', 'Error']);
    assert.deepEqual(t.rows, [
      ['controller-manager', 'Healthy', 'ok', ''],
      ['etcd-0', 'Healthy', 'ok', ''],
      ['scheduler', 'Healthy', 'ok', ''],
    ]);
    const get = await h.send('GET', '/api/v1/componentstatuses/etcd-0');
    assert.equal(get.code, 200);
    for (const [method, path] of [
      ['POST', '/api/v1/componentstatuses'],
      ['DELETE', '/api/v1/componentstatuses/etcd-0'],
      ['GET', '/api/v1/componentstatuses?watch=true'],
    ] as const) {
      const res = await h.send(
        method,
        path,
        method === 'POST' ? { metadata: { name: 'x' } } : undefined,
      );
      assert.equal(res.code, 405, `${method} ${path}: ${res.body}`);
      assert.equal(
        res.json.message,
        'the server does not allow this method on the requested resource',
      );
    }
  });

  it('kubectl get cs prints the components', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'componentstatuses');
    assert.match(out, /^NAME\s+STATUS\s+MESSAGE\s+ERROR\ncontroller-manager\s+Healthy\s+ok\s*\n/);
  });
});

describe('core/v1 bindings (create-only: assigns a pod to a node)', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists bindings with the create verb only', async () => {
    const r = await h.resource('v1', 'bindings');
    assert.deepEqual([r?.namespaced, r?.kind, r?.verbs], [true, 'Binding', ['create']]);
  });

  it("rule: a Binding sets the pod's nodeName and PodScheduled, answers a Success Status; a bound pod is 409, a missing one 404", async () => {
    const pod = await h.send('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    assert.equal(pod.code, 201, pod.body);
    const BINDINGS = '/api/v1/namespaces/default/bindings';
    const bad = await h.send('POST', BINDINGS, {
      metadata: { name: 'p' },
      target: { kind: 'Pod' },
    });
    assert.equal(bad.code, 422);
    assert.deepEqual(causes(bad), [
      'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
      'target.name: Required value',
    ]);
    const bound = await h.send('POST', BINDINGS, {
      metadata: { name: 'p' },
      target: { kind: 'Node', name: 'node-1' },
    });
    assert.equal(bound.code, 201, bound.body);
    assert.deepEqual(bound.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    });
    const got = await h.send('GET', '/api/v1/namespaces/default/pods/p');
    assert.equal((got.json.spec as { nodeName: string }).nodeName, 'node-1');
    assert.deepEqual(
      (got.json.status as { conditions: { type: string; status: string }[] }).conditions.map(
        (c) => [c.type, c.status],
      ),
      [['PodScheduled', 'True']],
    );
    const again = await h.send('POST', BINDINGS, {
      metadata: { name: 'p' },
      target: { name: 'node-2' },
    });
    assert.equal(again.code, 409, again.body);
    assert.equal(
      again.json.message,
      'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"',
    );
    const missing = await h.send('POST', BINDINGS, {
      metadata: { name: 'nope' },
      target: { name: 'node-1' },
    });
    assert.equal(missing.code, 404, missing.body);
    const list = await h.send('GET', BINDINGS);
    assert.equal(list.code, 405);
  });
});
