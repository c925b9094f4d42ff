// The audit example: follows every resource (built-in through discovery, custom through the
// CRD manager), checks each object against its rules, records violations as Events.
// Its RBAC manifest is proven enough and least in rbac.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { Audit, check, isBuiltinGroup, latestTag } from '../../examples/audit/src/audit.js';
import type { Violation } from '../../examples/audit/src/audit.js';
import { eventually } from '../support/eventually.js';
import { crdRef } from './support.js';

const backupsRef = { group: 'example.com', resource: 'backups' };
const backupsCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'backups.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'backups', singular: 'backup', kind: 'Backup', listKind: 'BackupList' },
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
};

describe('audit example', () => {
  let server: TestApiServer;
  const stop = new AbortController();
  let running: Promise<void>;
  const seen: Violation[] = [];
  const audit = new Audit({ onViolation: (v) => seen.push(v) });
  const labels = { 'app.kubernetes.io/name': 'x' };

  before(async () => {
    server = await startTestApiServer();
    server.create('configmaps', { metadata: { name: 'bare', namespace: 'default' } });
    server.create('configmaps', { metadata: { name: 'ok', namespace: 'default', labels } });
    server.create('pods', {
      metadata: { name: 'web', namespace: 'default', labels },
      spec: {
        initContainers: [{ name: 'i', image: 'busybox' }],
        containers: [{ name: 'c', image: 'registry.io:5000/nginx:1.27' }],
      },
    });
    running = audit.run(server.kubeConfig(), stop.signal);
    await eventually('synced', () => audit.synced);
  });
  after(async () => {
    stop.abort();
    await running;
    await server.close();
  });

  test('built-in kinds come from discovery: workloads in full, the rest metadata-only; events are not audited', () => {
    const { resources } = audit.summary();
    assert.equal(resources['pods/v1'], 'full');
    assert.equal(resources['configmaps/v1'], 'metadata');
    assert.equal(resources['secrets/v1'], 'metadata');
    assert.equal(resources['events/v1'], undefined);
  });

  test('a namespaced object without a required label and a workload with an untagged image are violations, recorded as Warning Events on the objects themselves (a metadata-only ConfigMap too)', async () => {
    assert.deepEqual(
      audit.violations().map((v) => `${v.rule} ${v.gvr} ${v.key}`),
      ['required-labels configmaps/v1 default/bare', 'latest-image pods/v1 default/web'],
    );
    type Ref = { apiVersion?: string; kind?: string; name?: string; uid?: string };
    const warnings = (): Ref[] =>
      server
        .list<{ type?: string; reason?: string; involvedObject?: Ref }>('events', 'default')
        .filter((e) => e.type === 'Warning' && e.reason === 'AuditViolation')
        .map((e) => e.involvedObject ?? {});
    await eventually('two events', () => warnings().length === 2);
    // Each Event points at the object (its real apiVersion, kind and uid), so `kubectl
    // describe configmap bare` shows it: ConfigMaps are followed metadata-only, and their
    // objects carry the resource's kind, not meta.k8s.io/v1 PartialObjectMetadata.
    const byKind = new Map(warnings().map((r) => [r.kind, r]));
    assert.deepEqual(byKind.get('ConfigMap'), {
      ...byKind.get('ConfigMap'),
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'bare',
      uid: server.get('configmaps', 'bare', 'default')?.metadata?.uid,
    });
    assert.deepEqual(byKind.get('Pod'), {
      ...byKind.get('Pod'),
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'web',
      uid: server.get('pods', 'web', 'default')?.metadata?.uid,
    });
  });

  test('fixing an object clears its violation; a new bad object is reported once', async () => {
    const cm = server.get('configmaps', 'bare', 'default')!;
    server.update('configmaps', { ...cm, metadata: { ...cm.metadata, labels } });
    await eventually('cleared', () => audit.summary().violations['required-labels'] === 0);
    server.create('configmaps', { metadata: { name: 'bare-2', namespace: 'default' } });
    await eventually('reported', () => seen.some((v) => v.key === 'default/bare-2'));
    assert.equal(seen.filter((v) => v.key === 'default/bare-2').length, 1);
  });

  test('a CRD created after start is followed with full objects; a Secret named in another namespace is a violation; deleting the CRD stops following it', async () => {
    server.create(crdRef, backupsCrd);
    await eventually('watch', () => server.watchCount(backupsRef) > 0);
    server.create(backupsRef, {
      apiVersion: 'example.com/v1',
      kind: 'Backup',
      metadata: { name: 'nightly', namespace: 'default', labels },
      spec: {
        target: { secretRef: { name: 's3', namespace: 'kube-system' } },
        same: { secretRef: { name: 'x', namespace: 'default' } },
      },
    });
    await eventually('violation', () => audit.summary().violations['cross-namespace-secret'] === 1);
    assert.equal(audit.summary().resources['backups.example.com/v1'], 'full');
    server.delete(crdRef, 'backups.example.com');
    await eventually(
      'unfollowed',
      () => audit.summary().resources['backups.example.com/v1'] === undefined,
    );
    await eventually(
      'its violations dropped',
      () => audit.summary().violations['cross-namespace-secret'] === 0,
    );
  });
});

describe('audit example: rules', () => {
  test('an image without a tag, or tagged latest, is :latest; a digest or another tag is not; a registry port is not a tag', () => {
    assert.match(latestTag('nginx') ?? '', /no tag/);
    assert.match(latestTag('nginx:latest') ?? '', /uses :latest/);
    assert.match(latestTag('registry.io:5000/nginx') ?? '', /no tag/);
    assert.equal(latestTag('registry.io:5000/nginx:1.27'), undefined);
    assert.equal(latestTag('nginx@sha256:abc'), undefined);
  });

  test('cluster-scoped objects need no labels; built-in groups are the core group, unqualified ones and *.k8s.io', () => {
    assert.deepEqual(check({ metadata: { name: 'n' } }, ['a'], undefined, true), []);
    assert.ok(isBuiltinGroup('') && isBuiltinGroup('apps') && isBuiltinGroup('networking.k8s.io'));
    assert.ok(!isBuiltinGroup('example.com'));
  });
});
