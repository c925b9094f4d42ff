/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
// The test API server's registry (packages/testing/src/registry, the generic store),
// checked against kube-apiserver's rules where the seam fixed a difference: decoding
// defaults run on every write (a Namespace's name label comes back), a PUT of a missing
// object creates it where the kind's strategy allows it, an update is one GuaranteedUpdate
// loop (a PATCH or an unconditional PUT that raced a write during a webhook call is made
// again, not 409; a resourceVersion precondition still is), a write that creates through
// PUT, PATCH or apply is authorized as `create` too, and the RBAC escalation check of such
// a write uses the request's name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { raw } from './helpers.js';
import type { RawResponse } from './helpers.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

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

/** A MutatingWebhookConfiguration sending UPDATEs of ConfigMaps to an in-process Service. */
function updateHook(service: string): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: service },
    webhooks: [
      {
        name: `${service}.example.com`,
        clientConfig: { service: { namespace: 'default', name: service, path: '/mutate' } },
        rules: [
          {
            operations: ['UPDATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
      },
    ],
  };
}

describe('GuaranteedUpdate: an update is made again when the object moved during a webhook call', () => {
  let server: TestApiServer;
  /** Calls of the webhook, and what it does on each (by call number, from 1). */
  let calls = 0;
  let onCall: (n: number) => void = () => undefined;
  before(async () => {
    server = await startTestApiServer();
    server.registerService({ namespace: 'default', name: 'racer' }, (review) => {
      calls++;
      onCall(calls);
      const request = review.request as { uid: string };
      const patch = [{ op: 'add', path: '/metadata/annotations', value: { mutated: 'yes' } }];
      return {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: request.uid,
          allowed: true,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        },
      };
    });
    server.create(
      'mutatingwebhookconfigurations.admissionregistration.k8s.io',
      updateHook('racer'),
    );
  });
  after(() => server.close());

  /** Makes a ConfigMap and has the webhook's first call write it behind the request's back. */
  function race(name: string): void {
    server.create('configmaps', { metadata: { name, namespace: 'default' }, data: { a: '1' } });
    calls = 0;
    onCall = (n) => {
      if (n !== 1) return;
      const cm = server.get<any>('configmaps', name, 'default');
      server.update('configmaps', { ...cm, data: { ...cm.data, b: '2' } });
    };
  }

  const send = (
    method: string,
    name: string,
    body: unknown,
    type = 'application/merge-patch+json',
  ): Promise<RawResponse> =>
    raw(server.url, method, `/api/v1/namespaces/default/configmaps/${name}`, JSON.stringify(body), {
      'Content-Type': type,
    });

  it('rule: a merge patch is re-applied to the new object and admitted again, not answered 409', async () => {
    race('patched');
    const res = await send('PATCH', 'patched', { data: { c: '3' } });
    assert.equal(res.code, 200, res.body);
    assert.equal(calls, 2, 'the mutating webhook is called again on the retry');
    assert.deepEqual(res.json.data, { a: '1', b: '2', c: '3' });
    assert.deepEqual((res.json.metadata as any).annotations, { mutated: 'yes' });
  });

  it('rule: a server-side apply over a moved object is made again too', async () => {
    race('applied');
    const res = await raw(
      server.url,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/applied?fieldManager=tester',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', data: { c: '3' } }),
      { 'Content-Type': 'application/apply-patch+yaml' },
    );
    assert.equal(res.code, 200, res.body);
    assert.equal(calls, 2);
    assert.deepEqual(res.json.data, { a: '1', b: '2', c: '3' });
  });

  it('rule: an unconditional PUT (no resourceVersion, AllowUnconditionalUpdate) is made again over the new object', async () => {
    race('replaced');
    const res = await send(
      'PUT',
      'replaced',
      { metadata: { name: 'replaced' }, data: { z: '9' } },
      'application/json',
    );
    assert.equal(res.code, 200, res.body);
    assert.equal(calls, 2);
    assert.deepEqual(res.json.data, { z: '9' });
  });

  it('rule: a resourceVersion the client sent is a precondition: the object moved, so 409', async () => {
    race('pinned');
    const rv = server.get<any>('configmaps', 'pinned', 'default').metadata.resourceVersion;
    const patched = await send('PATCH', 'pinned', {
      metadata: { resourceVersion: rv },
      data: { c: '3' },
    });
    assert.equal(patched.code, 409, patched.body);
    assert.equal(patched.json.reason, 'Conflict');
    assert.equal(
      patched.json.message,
      'Operation cannot be fulfilled on configmaps "pinned": the object has been modified; please apply your changes to the latest version and try again',
    );
    race('pinned-put');
    const current = server.get<any>('configmaps', 'pinned-put', 'default');
    const put = await send(
      'PUT',
      'pinned-put',
      { ...current, data: { z: '9' } },
      'application/json',
    );
    assert.equal(put.code, 409, put.body);
    assert.equal(server.get<any>('configmaps', 'pinned-put', 'default').data.z, undefined);
  });

  it('rule: a loop that never lands ends as the request deadline does, 504 Timeout', async () => {
    server.create('configmaps', { metadata: { name: 'busy', namespace: 'default' }, data: {} });
    calls = 0;
    onCall = () => {
      const cm = server.get<any>('configmaps', 'busy', 'default');
      server.update('configmaps', { ...cm, data: { n: String(calls) } });
    };
    const res = await send('PATCH', 'busy', { data: { c: '3' } });
    assert.equal(res.code, 504, res.body);
    assert.equal(res.json.reason, 'Timeout');
    assert.equal(calls, 10);
    onCall = () => undefined;
  });
});

describe('a write that creates through PUT, PATCH or apply is authorized as create (withAuthorization)', () => {
  let server: TestApiServer;
  let bot: string;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC' });
    bot = server.addUser({ serviceAccount: { namespace: 'default', name: 'bot' } }).token;
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'roles' },
      {
        metadata: { name: 'patcher', namespace: 'default' },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'patch'] },
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'] },
        ],
      },
    );
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
      {
        metadata: { name: 'patcher', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'patcher' },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'default' }],
      },
    );
  });
  after(() => server.close());

  const apply = (name: string): Promise<RawResponse> =>
    raw(
      server.url,
      'PATCH',
      `/api/v1/namespaces/default/configmaps/${name}?fieldManager=bot`,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } }),
      { ...bearer(bot), 'Content-Type': 'application/apply-patch+yaml' },
    );

  it('rule: an apply that creates needs create: patch alone is refused 403 in kube-apiserver words, and nothing is stored', async () => {
    const res = await apply('fresh');
    assert.equal(res.code, 403, res.body);
    assert.equal(res.json.reason, 'Forbidden');
    assert.equal(
      res.json.message,
      'configmaps "fresh" is forbidden: User "system:serviceaccount:default:bot" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    assert.deepEqual(res.json.details, { name: 'fresh', kind: 'configmaps' });
    assert.equal(server.get('configmaps', 'fresh', 'default'), undefined);
  });

  it('rule: an apply that updates needs patch only', async () => {
    server.create('configmaps', { metadata: { name: 'existing', namespace: 'default' } });
    const res = await apply('existing');
    assert.equal(res.code, 200, res.body);
    assert.deepEqual(res.json.data, { k: 'v' });
  });

  it('rule: a PUT that creates (AllowCreateOnUpdate: Leases) needs create; with create it is 201', async () => {
    const lease = JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lock', namespace: 'default' },
      spec: { holderIdentity: 'bot' },
    });
    const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases/lock';
    const refused = await raw(server.url, 'PUT', path, lease, bearer(bot));
    assert.equal(refused.code, 403, refused.body);
    assert.equal(
      refused.json.message,
      'leases.coordination.k8s.io "lock" is forbidden: User "system:serviceaccount:default:bot" cannot create resource "leases" in API group "coordination.k8s.io" in the namespace "default"',
    );
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'roles' },
      {
        metadata: { name: 'lease-creator', namespace: 'default' },
        rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] }],
      },
    );
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
      {
        metadata: { name: 'lease-creator', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'lease-creator' },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'default' }],
      },
    );
    const created = await raw(server.url, 'PUT', path, lease, bearer(bot));
    assert.equal(created.code, 201, created.body);
    assert.equal((created.json.spec as { holderIdentity: string }).holderIdentity, 'bot');
  });
});

describe('the RBAC escalate check of an apply that creates uses the request name (RoleEscalationAuthorized)', () => {
  let server: TestApiServer;
  let writer: string;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC' });
    writer = server.addUser({ username: 'writer' }).token;
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      {
        metadata: { name: 'role-writer' },
        rules: [
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles'],
            verbs: ['get', 'create', 'patch', 'update'],
          },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles'],
            resourceNames: ['granted'],
            verbs: ['escalate'],
          },
        ],
      },
    );
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
      {
        metadata: { name: 'role-writer' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'role-writer',
        },
        subjects: [{ kind: 'User', name: 'writer' }],
      },
    );
  });
  after(() => server.close());

  const apply = (name: string): Promise<RawResponse> =>
    raw(
      server.url,
      'PATCH',
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}?fieldManager=writer`,
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
      }),
      { ...bearer(writer), 'Content-Type': 'application/apply-patch+yaml' },
    );

  it('rule: escalate limited by resourceNames allows an apply that creates the named role', async () => {
    const res = await apply('granted');
    assert.equal(res.code, 201, res.body);
  });

  it('rule: and still refuses one of another name, as not holding what it grants', async () => {
    const res = await apply('other');
    assert.equal(res.code, 403, res.body);
    assert.match(
      String(res.json.message),
      /^clusterroles\.rbac\.authorization\.k8s\.io "other" is forbidden: user "writer" .* is attempting to grant RBAC permissions not currently held:/,
    );
  });
});
