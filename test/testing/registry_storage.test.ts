// storage.k8s.io/v1 (StorageClasses, CSIDrivers, CSINodes, CSIStorageCapacities,
// VolumeAttachments, VolumeAttributesClasses), as kube-apiserver serves them: discovery
// (kubectl api-resources), SetDefaults_StorageClass and SetDefaults_CSIDriver, the
// validation messages of pkg/apis/storage/validation, the VolumeAttachment status
// subresource, and the printer columns `kubectl get` shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const G = '/apis/storage.k8s.io/v1';

describe('storage.k8s.io/v1', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists the six kinds with their scope and short names; volumeattachments/status', async () => {
    const group = await h.send('GET', G);
    const names = (group.json.resources as { name: string }[]).map((r) => r.name);
    for (const r of [
      'storageclasses',
      'volumeattachments',
      'volumeattachments/status',
      'csidrivers',
      'csinodes',
      'csistoragecapacities',
      'volumeattributesclasses',
    ]) {
      assert.ok(names.includes(r), r);
    }
    assert.deepEqual((await h.resource('storage.k8s.io/v1', 'storageclasses'))?.shortNames, ['sc']);
    assert.deepEqual(
      (await h.resource('storage.k8s.io/v1', 'volumeattributesclasses'))?.shortNames,
      ['vac'],
    );
    const cap = await h.resource('storage.k8s.io/v1', 'csistoragecapacities');
    assert.deepEqual([cap?.namespaced, cap?.singularName], [true, 'csistoragecapacity']);
    assert.equal((await h.resource('storage.k8s.io/v1', 'csidrivers'))?.namespaced, false);
  });

  it('rule: SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate; provisioner required, parameters immutable', async () => {
    const sc = await h.send('POST', `${G}/storageclasses`, {
      metadata: {
        name: 'standard',
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: 'rancher.io/local-path',
      parameters: { type: 'ssd' },
    });
    assert.equal(sc.code, 201, sc.body);
    assert.equal(sc.json.reclaimPolicy, 'Delete');
    assert.equal(sc.json.volumeBindingMode, 'Immediate');
    const bad = await h.send('POST', `${G}/storageclasses`, { metadata: { name: 'bad' } });
    assert.equal(bad.code, 422);
    assert.equal(
      bad.json.message,
      'StorageClass.storage.k8s.io "bad" is invalid: provisioner: Required value',
    );
    const changed = await h.send(
      'PATCH',
      `${G}/storageclasses/standard`,
      { parameters: { type: 'hdd' } },
      'application/merge-patch+json',
    );
    assert.equal(changed.code, 422);
    assert.deepEqual(causes(changed), [
      'parameters: Forbidden: updates to parameters are forbidden.',
    ]);
  });

  it('rule: SetDefaults_CSIDriver fills attachRequired true and the rest; attachRequired is immutable', async () => {
    const d = await h.send('POST', `${G}/csidrivers`, {
      metadata: { name: 'ebs.csi.aws.com' },
      spec: { tokenRequests: [{ audience: 'sts.amazonaws.com' }] },
    });
    assert.equal(d.code, 201, d.body);
    assert.deepEqual(d.json.spec, {
      tokenRequests: [{ audience: 'sts.amazonaws.com' }],
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      requiresRepublish: false,
      seLinuxMount: false,
      volumeLifecycleModes: ['Persistent'],
    });
    const changed = await h.send(
      'PATCH',
      `${G}/csidrivers/ebs.csi.aws.com`,
      { spec: { attachRequired: false } },
      'application/merge-patch+json',
    );
    assert.deepEqual(causes(changed), [
      'spec.attachRequired: Invalid value: false: field is immutable',
    ]);
  });

  it('rule: CSINode drivers need a name and a nodeID; CSIStorageCapacity needs a storageClassName', async () => {
    const bad = await h.send('POST', `${G}/csinodes`, {
      metadata: { name: 'node-1' },
      spec: { drivers: [{ name: 'ebs.csi.aws.com' }] },
    });
    assert.deepEqual(causes(bad), ['spec.drivers[0].nodeID: Required value']);
    const ok = await h.send('POST', `${G}/csinodes`, {
      metadata: { name: 'node-1' },
      spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-1' }] },
    });
    assert.equal(ok.code, 201, ok.body);
    const cap = await h.send('POST', `${G}/namespaces/default/csistoragecapacities`, {
      metadata: { name: 'c1' },
    });
    assert.deepEqual(causes(cap), ['storageClassName: Required value']);
    const cap2 = await h.send('POST', `${G}/namespaces/default/csistoragecapacities`, {
      metadata: { name: 'c1' },
      storageClassName: 'standard',
      capacity: '100Gi',
    });
    assert.equal(cap2.code, 201, cap2.body);
  });

  it('rule: a VolumeAttachment needs attacher, one source and a node; its spec is immutable; status through /status', async () => {
    const bad = await h.send('POST', `${G}/volumeattachments`, {
      metadata: { name: 'va' },
      spec: {},
    });
    assert.deepEqual(causes(bad), [
      'spec.attacher: Required value',
      'spec.source: Required value: must specify exactly one of persistentVolumeName and inlineVolumeSpec',
      'spec.nodeName: Required value',
    ]);
    const va = await h.send('POST', `${G}/volumeattachments`, {
      metadata: { name: 'va' },
      spec: {
        attacher: 'ebs.csi.aws.com',
        source: { persistentVolumeName: 'pv1' },
        nodeName: 'node-1',
      },
      status: { attached: true },
    });
    assert.equal(va.code, 201, va.body);
    assert.equal(va.json.status, undefined);
    const moved = await h.send(
      'PATCH',
      `${G}/volumeattachments/va`,
      { spec: { nodeName: 'node-2' } },
      'application/merge-patch+json',
    );
    assert.equal(moved.code, 422);
    assert.match(String(moved.json.message), /spec: Invalid value: .*: field is immutable/);
    const status = await h.send(
      'PATCH',
      `${G}/volumeattachments/va/status`,
      { status: { attached: true } },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
  });

  it('rule: a VolumeAttributesClass needs a driverName and keeps its parameters', async () => {
    const bad = await h.send('POST', `${G}/volumeattributesclasses`, {
      metadata: { name: 'gold' },
    });
    assert.deepEqual(causes(bad), ['driverName: Required value']);
    const ok = await h.send('POST', `${G}/volumeattributesclasses`, {
      metadata: { name: 'gold' },
      driverName: 'ebs.csi.aws.com',
      parameters: { iops: '3000' },
    });
    assert.equal(ok.code, 201, ok.body);
    const changed = await h.send(
      'PATCH',
      `${G}/volumeattributesclasses/gold`,
      { parameters: { iops: '6000' } },
      'application/merge-patch+json',
    );
    assert.deepEqual(causes(changed), [
      'parameters: Forbidden: updates to parameters are forbidden.',
    ]);
  });

  it('rule: the Tables of the six kinds', async () => {
    await h.clock.advance(60_000);
    const sc = await h.table(`${G}/storageclasses`);
    assert.deepEqual(sc.columns, [
      'Name',
      'Provisioner',
      'ReclaimPolicy',
      'VolumeBindingMode',
      'AllowVolumeExpansion',
      'Age',
    ]);
    assert.deepEqual(sc.rows, [
      ['standard (default)', 'rancher.io/local-path', 'Delete', 'Immediate', false, '60s'],
    ]);
    const d = await h.table(`${G}/csidrivers`);
    assert.deepEqual(d.columns, [
      'Name',
      'AttachRequired',
      'PodInfoOnMount',
      'StorageCapacity',
      'TokenRequests',
      'RequiresRepublish',
      'Modes',
      'Age',
    ]);
    assert.deepEqual(d.rows, [
      ['ebs.csi.aws.com', true, false, false, 'sts.amazonaws.com', false, 'Persistent', '60s'],
    ]);
    assert.deepEqual((await h.table(`${G}/csinodes`)).rows, [['node-1', 1, '60s']]);
    const cap = await h.table(`${G}/namespaces/default/csistoragecapacities`);
    assert.deepEqual(cap.columns, ['Name', 'StorageClassName', 'Capacity']);
    assert.deepEqual(cap.rows, [['c1', 'standard', '100Gi']]);
    const va = await h.table(`${G}/volumeattachments`);
    assert.deepEqual(va.columns, ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
    assert.deepEqual(va.rows, [['va', 'ebs.csi.aws.com', 'pv1', 'node-1', true, '60s']]);
    const vac = await h.table(`${G}/volumeattributesclasses`);
    assert.deepEqual(vac.columns, ['Name', 'DriverName', 'Age']);
  });

  it('kubectl get sc prints the default class marked', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'sc');
    assert.match(
      out,
      /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/,
    );
    assert.match(
      out,
      /\nstandard \(default\)\s+rancher\.io\/local-path\s+Delete\s+Immediate\s+false\s+60s\n/,
    );
  });
});
