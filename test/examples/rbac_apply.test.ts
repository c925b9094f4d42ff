// Every example's rbac.yaml applies on a fresh cluster as `kubectl apply -f rbac.yaml`
// does (in file order): kube-apiserver's NamespaceLifecycle admission refuses a namespaced
// object whose namespace does not exist (404 `namespaces "x" not found`), so a manifest
// that binds a ServiceAccount in its own namespace must create that namespace first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { applyManifests, readManifests } from '../../src/program/index.js';
import { examplePath } from './support.js';

const MANIFESTS = [
  'pod-watcher/rbac.yaml',
  'dynamic-watcher/rbac.yaml',
  'audit/rbac.yaml',
  'gateway/rbac.yaml',
  'leader-elected/rbac.yaml',
  'sharded-operator/rbac.yaml',
];

describe('examples: rbac.yaml applies on a fresh cluster (NamespaceLifecycle)', () => {
  let server: TestApiServer;
  before(async () => {
    // A fresh cluster's namespaces; none of the examples' own.
    server = await startTestApiServer({ namespaces: ['default', 'kube-system', 'kube-public'] });
  });
  after(() => server.close());

  for (const manifest of MANIFESTS) {
    test(`kubectl apply -f ${manifest}`, async () => {
      const docs = await readManifests(examplePath(manifest));
      const applied = await applyManifests(server.kubeConfig(), docs, {
        fieldManager: 'kubectl',
      });
      assert.equal(applied.length, docs.length);
      for (const doc of docs) {
        const ns = doc.metadata?.namespace;
        if (ns !== undefined) assert.ok(server.get('namespaces', ns), `${manifest}: ${ns}`);
      }
    });
  }
});
