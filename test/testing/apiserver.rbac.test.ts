// The test API server's authorization gate under `authorization: 'RBAC'`, checked against
// kube-apiserver's rules and words: RBAC rule matching (verbs, groups, resources,
// subresources, resourceNames, nonResourceURLs, wildcards), bindings and their subjects,
// the bootstrap roles and their aggregation, escalation and bind prevention, the 401/403
// answers, and the default `AlwaysAllow` mode unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { raw } from './helpers.js';
import type { RawResponse } from './helpers.js';

const RBAC = { group: 'rbac.authorization.k8s.io', resource: '' };
const roles = { ...RBAC, resource: 'roles' };
const roleBindings = { ...RBAC, resource: 'rolebindings' };
const clusterRoles = { ...RBAC, resource: 'clusterroles' };
const clusterRoleBindings = { ...RBAC, resource: 'clusterrolebindings' };

function as(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

function bindRole(
  server: TestApiServer,
  name: string,
  namespace: string,
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string },
  subject: Record<string, string>,
): void {
  server.create(roleBindings, {
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
    subjects: [subject],
  });
}

describe('RBAC authorization (authorization: RBAC)', () => {
  let server: TestApiServer;
  let bot: string;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC', namespaces: ['default', 'ops'] });
    bot = server.addUser({ serviceAccount: { namespace: 'ops', name: 'bot' } }).token;
  });
  after(() => server.close());

  const get = (path: string, token?: string): Promise<RawResponse> =>
    raw(server.url, 'GET', path, undefined, token === undefined ? {} : as(token));

  it('a user with no binding is refused 403 in kube-apiserver words (namespace, cluster scope, named object)', async () => {
    const list = await get('/api/v1/namespaces/default/pods', bot);
    assert.equal(list.code, 403);
    assert.equal(list.json.reason, 'Forbidden');
    assert.equal(
      list.json.message,
      'pods is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    assert.deepEqual(list.json.details, { kind: 'pods' });
    const nodes = await get('/api/v1/nodes', bot);
    assert.equal(
      nodes.json.message,
      'nodes is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    const one = await get('/apis/apps/v1/namespaces/ops/deployments/web/scale', bot);
    assert.equal(
      one.json.message,
      'deployments.apps "web" is forbidden: User "system:serviceaccount:ops:bot" cannot get resource "deployments/scale" in API group "apps" in the namespace "ops"',
    );
    assert.deepEqual(one.json.details, { name: 'web', group: 'apps', kind: 'deployments' });
    const watch = await get('/api/v1/namespaces/ops/configmaps?watch=true', bot);
    assert.match(String(watch.json.message), /cannot watch resource "configmaps"/);
  });

  it('the gate runs before routing: an unknown resource is 403 to a user who may not, 404 to one who may', async () => {
    const denied = await get('/apis/nothing.example/v1/widgets', bot);
    assert.equal(denied.code, 403);
    assert.equal(
      denied.json.message,
      'widgets.nothing.example is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "widgets" in API group "nothing.example" at the cluster scope',
    );
    const admin = server.kubeConfig().getCurrentUser()?.token ?? '';
    assert.equal((await get('/apis/nothing.example/v1/widgets', admin)).code, 404);
  });

  it('a Role bound in a namespace grants its verbs there only; a ClusterRole through a RoleBinding likewise', async () => {
    server.create(roles, {
      metadata: { name: 'pod-reader', namespace: 'ops' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    bindRole(
      server,
      'bot-reads-pods',
      'ops',
      { kind: 'Role', name: 'pod-reader' },
      {
        kind: 'ServiceAccount',
        name: 'bot',
      },
    );
    assert.equal((await get('/api/v1/namespaces/ops/pods', bot)).code, 200);
    assert.equal((await get('/api/v1/namespaces/default/pods', bot)).code, 403);
    assert.equal(
      (await get('/api/v1/namespaces/ops/pods?watch=true&timeoutSeconds=0', bot)).code,
      403,
    );
    bindRole(
      server,
      'bot-views-default',
      'default',
      { kind: 'ClusterRole', name: 'view' },
      {
        kind: 'ServiceAccount',
        name: 'bot',
        namespace: 'ops',
      },
    );
    assert.equal((await get('/api/v1/namespaces/default/configmaps', bot)).code, 200);
    // view never reads Secrets.
    assert.equal((await get('/api/v1/namespaces/default/secrets', bot)).code, 403);
  });

  it('resourceNames limit get/update to named objects and a list or watch to one pinned by metadata.name', async () => {
    server.create(roles, {
      metadata: { name: 'one-lease', namespace: 'ops' },
      rules: [
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: ['lock'],
          verbs: ['get', 'list', 'watch'],
        },
      ],
    });
    bindRole(
      server,
      'bot-one-lease',
      'ops',
      { kind: 'Role', name: 'one-lease' },
      {
        kind: 'ServiceAccount',
        name: 'bot',
      },
    );
    const base = '/apis/coordination.k8s.io/v1/namespaces/ops/leases';
    assert.equal((await get(`${base}/lock`, bot)).code, 404); // allowed, then not found
    assert.equal((await get(`${base}/other`, bot)).code, 403);
    assert.equal((await get(base, bot)).code, 403);
    assert.equal((await get(`${base}?fieldSelector=metadata.name%3Dlock`, bot)).code, 200);
  });

  it('subresources are their own resources; "*/scale" grants one subresource of every resource', async () => {
    server.create(
      { group: 'apps', resource: 'deployments' },
      {
        metadata: { name: 'web', namespace: 'ops' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'c', image: 'x' }] },
          },
        },
      },
    );
    server.create(roles, {
      metadata: { name: 'scaler', namespace: 'ops' },
      rules: [{ apiGroups: ['*'], resources: ['*/scale'], verbs: ['get'] }],
    });
    bindRole(
      server,
      'bot-scaler',
      'ops',
      { kind: 'Role', name: 'scaler' },
      {
        kind: 'ServiceAccount',
        name: 'bot',
      },
    );
    assert.equal((await get('/apis/apps/v1/namespaces/ops/deployments/web/scale', bot)).code, 200);
    assert.equal((await get('/apis/apps/v1/namespaces/ops/deployments/web', bot)).code, 403);
    assert.equal((await get('/apis/apps/v1/namespaces/ops/deployments/web/status', bot)).code, 403);
  });

  it('a binding to a missing role grants nothing, and the refusal names the missing role', async () => {
    bindRole(
      server,
      'dangling',
      'default',
      { kind: 'Role', name: 'gone' },
      {
        kind: 'ServiceAccount',
        name: 'bot',
        namespace: 'ops',
      },
    );
    const res = await get('/api/v1/namespaces/default/secrets', bot);
    assert.equal(
      res.json.message,
      'secrets is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "secrets" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it('paths: discovery for every authenticated user, /version and /healthz for anyone, the rest by nonResourceURLs', async () => {
    assert.equal((await get('/api', bot)).code, 200);
    assert.equal((await get('/apis/apps/v1', bot)).code, 200);
    assert.equal((await get('/version')).code, 200);
    assert.equal((await get('/healthz')).code, 200);
    const anon = await get('/api');
    assert.equal(anon.code, 403);
    assert.equal(anon.json.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    const metrics = await get('/metrics', bot);
    assert.equal(
      metrics.json.message,
      'forbidden: User "system:serviceaccount:ops:bot" cannot get path "/metrics"',
    );
    server.create(clusterRoles, {
      metadata: { name: 'metrics-reader' },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    server.create(clusterRoleBindings, {
      metadata: { name: 'bot-metrics' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'metrics-reader',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'ops' }],
    });
    assert.equal((await get('/metrics', bot)).code, 404); // allowed; this server serves no /metrics
  });

  it('Group and User subjects: addUser gives a kubeconfig for a user with chosen groups', async () => {
    const alice = server.addUser({ username: 'alice', groups: ['devs'] });
    assert.deepEqual(alice.user.groups, ['devs', 'system:authenticated']);
    assert.equal(alice.kubeConfig().getCurrentUser()?.token, alice.token);
    assert.equal((await get('/api/v1/namespaces/default/pods', alice.token)).code, 403);
    bindRole(
      server,
      'devs-view',
      'default',
      { kind: 'ClusterRole', name: 'view' },
      {
        kind: 'Group',
        apiGroup: 'rbac.authorization.k8s.io',
        name: 'devs',
      },
    );
    assert.equal((await get('/api/v1/namespaces/default/pods', alice.token)).code, 200);
    const bob = server.addUser({ username: 'bob' });
    bindRole(
      server,
      'bob-edit',
      'default',
      { kind: 'ClusterRole', name: 'edit' },
      {
        kind: 'User',
        apiGroup: 'rbac.authorization.k8s.io',
        name: 'bob',
      },
    );
    assert.equal((await get('/api/v1/namespaces/default/secrets', bob.token)).code, 200);
    assert.equal((await get('/api/v1/namespaces/default/secrets', alice.token)).code, 403);
  });

  it('aggregated ClusterRoles: a ClusterRole labelled aggregate-to-view adds its rules to view, edit and admin', async () => {
    server.create(clusterRoles, {
      metadata: {
        name: 'widgets-view',
        labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
      },
      rules: [
        { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
      ],
    });
    await Promise.resolve();
    const rulesOf = (name: string): unknown[] =>
      (server.get(clusterRoles, name) as { rules: unknown[] }).rules;
    for (const role of ['view', 'edit', 'admin']) {
      assert.ok(
        rulesOf(role).some((r) => JSON.stringify(r).includes('widgets')),
        `${role} aggregates widgets-view`,
      );
    }
    server.delete(clusterRoles, 'widgets-view');
    await Promise.resolve();
    assert.ok(!rulesOf('view').some((r) => JSON.stringify(r).includes('widgets')));
  });

  it('the default mode is AlwaysAllow: anonymous may do everything, but a bearer token the server does not know is 401', async () => {
    const open = await startTestApiServer();
    try {
      assert.equal((await raw(open.url, 'GET', '/api/v1/namespaces/default/pods')).code, 200);
      const bad = await raw(
        open.url,
        'GET',
        '/api/v1/namespaces/default/pods',
        undefined,
        as('nope'),
      );
      assert.equal(bad.code, 401);
      assert.equal(bad.json.message, 'Unauthorized');
      assert.equal(bad.json.reason, 'Unauthorized');
    } finally {
      await open.close();
    }
  });
});

describe('escalation and bind prevention (RBAC writes)', () => {
  let server: TestApiServer;
  let admin: string;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC', namespaces: ['default', 'team'] });
    // A namespace admin: `admin` in `team`, nothing cluster-wide.
    const lead = server.addUser({ username: 'lead' });
    admin = lead.token;
    bindRole(
      server,
      'lead-admin',
      'team',
      { kind: 'ClusterRole', name: 'admin' },
      {
        kind: 'User',
        name: 'lead',
      },
    );
  });
  after(() => server.close());

  const post = (path: string, body: unknown, token: string): Promise<RawResponse> =>
    raw(server.url, 'POST', path, JSON.stringify(body), as(token));
  const rolePath = '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles';
  const bindingPath = '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings';

  it('a Role within what the writer holds is created', async () => {
    const res = await post(
      rolePath,
      {
        metadata: { name: 'cm-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      },
      admin,
    );
    assert.equal(res.code, 201, res.body);
  });

  it('a Role granting more than the writer holds is 403, listing the missing rules as kube-apiserver does', async () => {
    const res = await post(
      rolePath,
      {
        metadata: { name: 'too-much' },
        rules: [
          { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
        ],
      },
      admin,
    );
    assert.equal(res.code, 403);
    assert.equal(
      res.json.message,
      'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "lead" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}',
    );
  });

  it('the escalate verb lets a writer grant what it does not hold', async () => {
    server.create(clusterRoles, {
      metadata: { name: 'role-escalator' },
      rules: [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] },
      ],
    });
    bindRole(
      server,
      'lead-escalate',
      'team',
      { kind: 'ClusterRole', name: 'role-escalator' },
      {
        kind: 'User',
        name: 'lead',
      },
    );
    const res = await post(
      rolePath,
      {
        metadata: { name: 'nodes-too' },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
      },
      admin,
    );
    assert.equal(res.code, 201, res.body);
  });

  it('binding a role whose permissions the writer lacks is 403; the bind verb on that role allows it', async () => {
    const binding = (name: string): unknown => ({
      metadata: { name },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'cluster-admin',
      },
      subjects: [{ kind: 'User', name: 'mallory' }],
    });
    const denied = await post(bindingPath, binding('to-cluster-admin'), admin);
    assert.equal(denied.code, 403);
    assert.match(
      String(denied.json.message),
      /^rolebindings\.rbac\.authorization\.k8s\.io "to-cluster-admin" is forbidden: user "lead" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
    );
    server.create(clusterRoles, {
      metadata: { name: 'bind-cluster-admin' },
      rules: [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          resourceNames: ['cluster-admin'],
          verbs: ['bind'],
        },
      ],
    });
    bindRole(
      server,
      'lead-bind',
      'team',
      { kind: 'ClusterRole', name: 'bind-cluster-admin' },
      {
        kind: 'User',
        name: 'lead',
      },
    );
    assert.equal((await post(bindingPath, binding('to-cluster-admin'), admin)).code, 201);
  });

  it('binding a role the writer holds all of is allowed (view inside admin)', async () => {
    const res = await post(
      bindingPath,
      {
        metadata: { name: 'friend-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'friend' }],
      },
      admin,
    );
    assert.equal(res.code, 201, res.body);
  });

  it('an aggregationRule needs every permission (unless the writer may escalate)', async () => {
    server.create(clusterRoles, {
      metadata: { name: 'clusterrole-writer' },
      rules: [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          verbs: ['create'],
        },
      ],
    });
    server.create(clusterRoleBindings, {
      metadata: { name: 'lead-clusterrole-writer' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'clusterrole-writer',
      },
      subjects: [{ kind: 'User', name: 'lead' }],
    });
    const res = await post(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      {
        metadata: { name: 'gather-all' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { anything: 'true' } }] },
      },
      admin,
    );
    assert.equal(res.code, 403);
    assert.equal(
      res.json.message,
      'clusterroles.rbac.authorization.k8s.io "gather-all" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
  });
});
