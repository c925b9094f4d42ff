// The ServiceAccount a Pod runs as, as a real cluster has it: kube-apiserver's
// ServiceAccount admission plugin refuses a Pod whose account does not exist ("error
// looking up service account <ns>/<name>"), and kube-controller-manager's serviceaccounts
// controller gives every active namespace its `default` account (made again when deleted,
// never in a terminating namespace), so a Pod that names none is admitted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { raw } from './helpers.js';

const pod = (name: string, serviceAccountName?: string) =>
  JSON.stringify({
    metadata: { name },
    spec: {
      ...(serviceAccountName === undefined ? {} : { serviceAccountName }),
      containers: [{ name: 'c', image: 'busybox' }],
    },
  });

describe('ServiceAccounts of Pods (ServiceAccount admission, serviceaccounts controller)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ namespaces: ['default', 'kube-system'] });
  });
  after(() => server.close());

  it('rule (serviceaccounts controller): every namespace the server starts with has its default ServiceAccount', () => {
    for (const ns of ['default', 'kube-system']) {
      assert.ok(server.get('serviceaccounts', 'default', ns), `default/${ns}`);
    }
  });

  it('rule (serviceaccounts controller): a namespace created over the API has its default ServiceAccount before the next request; deleted, it comes back', async () => {
    const created = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces',
      JSON.stringify({ metadata: { name: 'fresh' } }),
    );
    assert.equal(created.code, 201);
    const sa = await raw(server.url, 'GET', '/api/v1/namespaces/fresh/serviceaccounts/default');
    assert.equal(sa.code, 200, sa.body);
    const uid = (sa.json.metadata as { uid: string }).uid;
    const del = await raw(server.url, 'DELETE', '/api/v1/namespaces/fresh/serviceaccounts/default');
    assert.equal(del.code, 200);
    const again = await raw(server.url, 'GET', '/api/v1/namespaces/fresh/serviceaccounts/default');
    assert.equal(again.code, 200, again.body);
    assert.notEqual((again.json.metadata as { uid: string }).uid, uid);
  });

  it('rule (ServiceAccount admission): a Pod naming no account runs as default', async () => {
    const res = await raw(server.url, 'POST', '/api/v1/namespaces/default/pods', pod('p1'));
    assert.equal(res.code, 201, res.body);
    assert.equal((res.json.spec as { serviceAccountName: string }).serviceAccountName, 'default');
  });

  it('rule (ServiceAccount admission): a Pod whose ServiceAccount does not exist is refused 403 "error looking up service account"', async () => {
    const res = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('p2', 'robot'),
    );
    assert.equal(res.code, 403);
    assert.equal(res.json.reason, 'Forbidden');
    assert.equal(
      res.json.message,
      'pods "p2" is forbidden: error looking up service account default/robot: serviceaccount "robot" not found',
    );
    assert.deepEqual(res.json.details, { name: 'p2', kind: 'pods' });
    server.create('serviceaccounts', { metadata: { name: 'robot', namespace: 'default' } });
    const ok = await raw(server.url, 'POST', '/api/v1/namespaces/default/pods', pod('p2', 'robot'));
    assert.equal(ok.code, 201, ok.body);
  });

  it('rule (admission.NewForbidden): a refused Pod with generateName is named by it; a mirror pod is not checked', async () => {
    const res = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/pods',
      JSON.stringify({
        metadata: { generateName: 'gen-' },
        spec: { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'busybox' }] },
      }),
    );
    assert.equal(res.code, 403);
    assert.match(
      String(res.json.message),
      /^pods "gen-" is forbidden: error looking up service account default\/ghost:/,
    );
    const mirror = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/pods',
      JSON.stringify({
        metadata: { name: 'static', annotations: { 'kubernetes.io/config.mirror': 'x' } },
        spec: { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'busybox' }] },
      }),
    );
    assert.equal(mirror.code, 201, mirror.body);
  });
});
