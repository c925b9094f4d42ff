// Differences from kube-apiserver found by trying it, pinned: a JSON patch that does not
// apply answers kube-apiserver's generic 422; a write through the scale subresource records
// its managedFields entry under the manager taken from the User-Agent, with subresource
// `scale`; `/openapi/v2` is served, so `kubectl create -f` of a `kind: List` validates.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { hasKubectl, raw } from './helpers.js';

interface ManagedEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  apiVersion?: string;
  fieldsV1?: Record<string, unknown>;
}

describe('write path fidelity (test API server)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  it('a failed JSON patch test op answers 422 "the server rejected our request due to an error in our request" with empty details', async () => {
    server.create('configmaps', { metadata: { name: 'jp' }, data: { a: '1' } });
    const res = await raw(
      server.url,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/jp',
      JSON.stringify([{ op: 'test', path: '/data/a', value: '2' }]),
      { 'Content-Type': 'application/json-patch+json' },
    );
    assert.equal(res.code, 422);
    assert.equal(res.json.reason, 'Invalid');
    assert.equal(
      res.json.message,
      'the server rejected our request due to an error in our request',
    );
    assert.deepEqual(res.json.details, {});
  });

  it('a scale write records managedFields with the User-Agent manager and subresource scale', async () => {
    const created = await raw(
      server.url,
      'POST',
      '/apis/apps/v1/namespaces/default/deployments',
      JSON.stringify({
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
          },
        },
      }),
      { 'User-Agent': 'creator/v1.0 (linux/amd64)' },
    );
    assert.equal(created.code, 201, created.body);
    const res = await raw(
      server.url,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/scale',
      JSON.stringify({ spec: { replicas: 3 } }),
      { 'Content-Type': 'application/merge-patch+json', 'User-Agent': 'scaler/v2.1 (linux/amd64)' },
    );
    assert.equal(res.code, 200, res.body);
    const entries = (server.get('deployments.apps', 'web')?.metadata?.managedFields ??
      []) as ManagedEntry[];
    const scale = entries.find((e) => e.subresource === 'scale');
    assert.ok(scale, JSON.stringify(entries));
    assert.equal(scale.manager, 'scaler');
    assert.equal(scale.operation, 'Update');
    assert.equal(scale.apiVersion, 'apps/v1');
    assert.deepEqual(scale.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    const creator = entries.find((e) => e.manager === 'creator');
    assert.ok(creator && creator.subresource === undefined);
  });

  it('/openapi/v2 is served as JSON and as the protobuf kubectl asks for', async () => {
    const json = await raw(server.url, 'GET', '/openapi/v2');
    assert.equal(json.code, 200);
    assert.equal(json.json.swagger, '2.0');
    const pb = await raw(server.url, 'GET', '/openapi/v2', undefined, {
      Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    });
    assert.equal(pb.code, 200);
    assert.equal(
      pb.headers['content-type'],
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
  });

  it(
    'kubectl create -f of a kind: List validates against /openapi/v2 and creates every item',
    { skip: hasKubectl() ? false : 'kubectl is not installed on this machine' },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'kck-list-'));
      try {
        await server.writeKubeconfig(join(dir, 'kubeconfig'));
        await writeFile(
          join(dir, 'list.yaml'),
          'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: l1, namespace: default}\n  data: {a: b}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: l2, namespace: default}\n',
        );
        const out = await new Promise<{ err: Error | null; stdout: string; stderr: string }>(
          (resolve) =>
            execFile(
              'kubectl',
              ['create', '-f', join(dir, 'list.yaml'), '--cache-dir', join(dir, 'cache')],
              { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir } },
              (err, stdout, stderr) => resolve({ err, stdout, stderr }),
            ),
        );
        assert.equal(out.err, null, out.stderr);
        assert.match(out.stdout, /configmap\/l1 created\nconfigmap\/l2 created/);
        assert.ok(server.get('configmaps', 'l2'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
