/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
// The test API server's registry (./src/testing/registry and the generic store) checked
// against kube-apiserver's rules where the seam fixed a difference: decoding defaults run on
// every write (a Namespace's name label comes back), and a PUT of a missing object creates
// it where the kind's strategy allows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { raw } from './helpers.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

describe('decoding defaults on every write (SetDefaults_Namespace, SetDefaults_NamespaceStatus)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  const send = (method: string, path: string, body: unknown, type = 'application/json') =>
    raw(server.url, method, path, JSON.stringify(body), { 'Content-Type': type });

  it('rule: a PUT that drops the kubernetes.io/metadata.name label gets it back (defaults run on decode, not only on create)', async () => {
    const created = await send('POST', '/api/v1/namespaces', {
      metadata: { name: 'labelled', labels: { team: 'a' } },
    });
    assert.equal(created.code, 201, created.body);
    const meta = created.json.metadata as { labels: Record<string, string> };
    assert.equal(meta.labels[NAME_LABEL], 'labelled');
    const put = await send('PUT', '/api/v1/namespaces/labelled', {
      metadata: { name: 'labelled', labels: { team: 'b' } },
    });
    assert.equal(put.code, 200, put.body);
    assert.deepEqual((put.json.metadata as { labels: unknown }).labels, {
      team: 'b',
      [NAME_LABEL]: 'labelled',
    });
  });

  it('rule: a JSON patch that removes the label, and a merge patch that nulls it, leave it set to the name', async () => {
    const removed = await send(
      'PATCH',
      '/api/v1/namespaces/labelled',
      [{ op: 'remove', path: '/metadata/labels/kubernetes.io~1metadata.name' }],
      'application/json-patch+json',
    );
    assert.equal(removed.code, 200, removed.body);
    assert.equal((removed.json.metadata as any).labels[NAME_LABEL], 'labelled');
    const nulled = await send(
      'PATCH',
      '/api/v1/namespaces/labelled',
      { metadata: { labels: { [NAME_LABEL]: null } } },
      'application/merge-patch+json',
    );
    assert.equal(nulled.code, 200, nulled.body);
    assert.equal((nulled.json.metadata as any).labels[NAME_LABEL], 'labelled');
  });

  it('rule: the label names a name generated from generateName (the Namespace strategy Canonicalize)', async () => {
    const created = await send('POST', '/api/v1/namespaces', {
      metadata: { generateName: 'gen-' },
    });
    assert.equal(created.code, 201, created.body);
    const meta = created.json.metadata as { name: string; labels: Record<string, string> };
    assert.match(meta.name, /^gen-[a-z0-9]{5}$/);
    assert.equal(meta.labels[NAME_LABEL], meta.name);
  });
});

describe('a PUT of a missing object creates it where the kind allows it (AllowCreateOnUpdate)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  it('rule: a Lease (leaseStrategy.AllowCreateOnUpdate true) is created, 201, with a uid and a resourceVersion', async () => {
    const res = await raw(
      server.url,
      'PUT',
      '/apis/coordination.k8s.io/v1/namespaces/default/leases/lock',
      JSON.stringify({ metadata: { name: 'lock' }, spec: { holderIdentity: 'a' } }),
    );
    assert.equal(res.code, 201, res.body);
    const meta = res.json.metadata as { uid?: string; resourceVersion?: string };
    assert.match(meta.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.notEqual(meta.resourceVersion, undefined);
    assert.deepEqual(res.json.spec, { holderIdentity: 'a' });
  });

  it('rule: a ConfigMap (AllowCreateOnUpdate false) is 404 NotFound', async () => {
    const res = await raw(
      server.url,
      'PUT',
      '/api/v1/namespaces/default/configmaps/absent',
      JSON.stringify({ metadata: { name: 'absent' } }),
    );
    assert.equal(res.code, 404, res.body);
    assert.equal(res.json.message, 'configmaps "absent" not found');
  });
});
