// ServiceAccount tokens, impersonation and the reviews of the test API server, as
// kube-apiserver has them: TokenRequest issues signed JWTs bound to their ServiceAccount
// (and a Pod when asked), refused once expired, once the account or Pod is gone, or for
// another audience; Impersonate-* headers act as another user once `impersonate` is
// allowed; SubjectAccessReview, SelfSubjectAccessReview, SelfSubjectRulesReview and
// TokenReview answer with the server's real decision.
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { raw } from './helpers.js';
import type { RawResponse } from './helpers.js';

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

describe('ServiceAccount tokens (TokenRequest) and TokenReview', () => {
  let server: TestApiServer;
  let clock: FakeClock;
  let admin: string;
  before(async () => {
    clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    server = await startTestApiServer({
      authorization: 'RBAC',
      clock,
      namespaces: ['default', 'ops'],
    });
    admin = server.kubeConfig().getCurrentUser()?.token ?? '';
    server.create('serviceaccounts', { metadata: { name: 'bot', namespace: 'ops' } });
  });
  after(() => server.close());

  const request = (body: unknown, name = 'bot'): Promise<RawResponse> =>
    raw(
      server.url,
      'POST',
      `/api/v1/namespaces/ops/serviceaccounts/${name}/token`,
      JSON.stringify(body),
      bearer(admin),
    );
  const whoami = async (token: string): Promise<RawResponse> =>
    raw(
      server.url,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      bearer(token),
    );

  it('a TokenRequest answers 201 with a token, its expiry and the defaulted spec; the token authenticates as the ServiceAccount', async () => {
    const res = await request({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    assert.equal(res.code, 201, res.body);
    const status = res.json.status as { token: string; expirationTimestamp: string };
    assert.equal(status.expirationTimestamp, '2026-01-01T01:00:00Z');
    assert.deepEqual(res.json.spec, {
      audiences: ['https://kubernetes.default.svc.cluster.local'],
      expirationSeconds: 3600,
    });
    assert.equal(status.token.split('.').length, 3);
    const me = await whoami(status.token);
    const user = (me.json.status as { userInfo: Record<string, unknown> }).userInfo;
    assert.equal(user.username, 'system:serviceaccount:ops:bot');
    assert.equal(user.uid, server.get('serviceaccounts', 'bot', 'ops')?.metadata?.uid);
    assert.deepEqual(user.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:ops',
      'system:authenticated',
    ]);
  });

  it('rule (kube-apiserver TokenREST.Create fills the object meta system fields): a TokenRequest answer has its own metadata.uid and creationTimestamp', async () => {
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} };
    const first = (await request(body)).json.metadata as Record<string, unknown>;
    const second = (await request(body)).json.metadata as Record<string, unknown>;
    assert.match(
      String(first.uid),
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    assert.notEqual(first.uid, second.uid);
    assert.notEqual(first.uid, server.get('serviceaccounts', 'bot', 'ops')?.metadata?.uid);
    assert.deepEqual(Object.keys(first), ['name', 'namespace', 'uid', 'creationTimestamp']);
  });

  it('rule (kube-apiserver ServiceAccountIssuerDiscovery, bootstrap role system:service-account-issuer-discovery): the issuer discovery documents are served to ServiceAccounts, and the keys verify their tokens', async () => {
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} };
    const token = ((await request(body)).json.status as { token: string }).token;
    const config = await raw(
      server.url,
      'GET',
      '/.well-known/openid-configuration',
      undefined,
      bearer(token),
    );
    assert.equal(config.code, 200, config.body);
    assert.equal(config.headers['cache-control'], 'public, max-age=3600');
    const port = new URL(server.url).port;
    assert.deepEqual(config.json, {
      issuer: 'https://kubernetes.default.svc.cluster.local',
      jwks_uri: `https://127.0.0.1:${port}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const keys = await raw(server.url, 'GET', '/openid/v1/jwks/', undefined, bearer(token));
    assert.equal(keys.code, 200, keys.body);
    assert.equal(keys.headers['content-type'], 'application/jwk-set+json');
    const [jwk] = (keys.json as { keys: Record<string, string>[] }).keys;
    assert.equal(jwk?.use, 'sig');
    assert.equal(jwk?.alg, 'ES256');
    const [h = '', c = '', sig = ''] = token.split('.');
    assert.equal(JSON.parse(Buffer.from(h, 'base64url').toString()).kid, jwk?.kid);
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    assert.equal(
      verify(
        'sha256',
        Buffer.from(`${h}.${c}`),
        { key, dsaEncoding: 'ieee-p1363' },
        Buffer.from(sig, 'base64url'),
      ),
      true,
      'the published key verifies a token the server issued',
    );
    // The binding is for system:serviceaccounts: an anonymous request is refused.
    assert.equal((await raw(server.url, 'GET', '/openid/v1/jwks')).code, 403);
    // What `kubectl auth can-i --list` shows a ServiceAccount (its SelfSubjectRulesReview).
    const rules = await raw(
      server.url,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        spec: { namespace: 'ops' },
      }),
      bearer(token),
    );
    const urls = (
      rules.json.status as { nonResourceRules: { nonResourceURLs: string[] }[] }
    ).nonResourceRules.flatMap((r) => r.nonResourceURLs);
    for (const u of [
      '/.well-known/openid-configuration',
      '/.well-known/openid-configuration/',
      '/openid/v1/jwks',
      '/openid/v1/jwks/',
    ]) {
      assert.ok(urls.includes(u), `can-i --list includes ${u}: ${urls.join(' ')}`);
    }
  });

  it('a token is refused 401 once it has expired', async () => {
    const token = server.createToken('ops', 'bot', { expirationSeconds: 600 });
    assert.equal((await whoami(token)).code, 201);
    clock.advanceSync(600_000);
    const res = await whoami(token);
    assert.equal(res.code, 401);
    assert.equal(res.json.message, 'Unauthorized');
  });

  it('a token is refused once its ServiceAccount is deleted, even if one of the same name comes back', async () => {
    server.create('serviceaccounts', { metadata: { name: 'temp', namespace: 'ops' } });
    const token = server.createToken('ops', 'temp');
    assert.equal((await whoami(token)).code, 201);
    server.delete('serviceaccounts', 'temp', 'ops');
    assert.equal((await whoami(token)).code, 401);
    server.create('serviceaccounts', { metadata: { name: 'temp', namespace: 'ops' } });
    assert.equal((await whoami(token)).code, 401);
  });

  it('a token bound to a Pod names it in extra and dies with it', async () => {
    server.create('pods', {
      metadata: { name: 'p', namespace: 'ops' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    const res = await request({
      spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } },
    });
    assert.equal(res.code, 201, res.body);
    const token = (res.json.status as { token: string }).token;
    const user = (
      (await whoami(token)).json.status as { userInfo: { extra: Record<string, string[]> } }
    ).userInfo;
    assert.deepEqual(user.extra['authentication.kubernetes.io/pod-name'], ['p']);
    assert.deepEqual(user.extra['authentication.kubernetes.io/pod-uid'], [
      server.get('pods', 'p', 'ops')?.metadata?.uid,
    ]);
    server.delete('pods', 'p', 'ops');
    assert.equal((await whoami(token)).code, 401);
  });

  it('a TokenRequest for a missing ServiceAccount is 404; under 10 minutes is 422', async () => {
    const missing = await request({ spec: {} }, 'nobody');
    assert.equal(missing.code, 404);
    assert.equal(missing.json.message, 'serviceaccounts "nobody" not found');
    const short = await request({ spec: { expirationSeconds: 60 } });
    assert.equal(short.code, 422);
    assert.match(String(short.json.message), /may not specify a duration less than 10 minutes/);
  });

  it('a TokenReview authenticates the token for the asked audiences', async () => {
    const token = server.createToken('ops', 'bot', { audiences: ['metrics'] });
    const review = async (audiences?: string[]): Promise<Record<string, unknown>> => {
      const spec: Record<string, unknown> = { token };
      if (audiences) spec.audiences = audiences;
      const res = await raw(
        server.url,
        'POST',
        '/apis/authentication.k8s.io/v1/tokenreviews',
        JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec }),
        bearer(admin),
      );
      return res.json.status as Record<string, unknown>;
    };
    assert.equal((await review(['metrics'])).authenticated, true);
    assert.equal((await review()).authenticated, false);
    // Nor is it accepted by the API server itself.
    assert.equal((await whoami(token)).code, 401);
  });

  it('garbage in the Authorization header is 401, never a crash', async () => {
    for (const header of [
      'Bearer a.b.c',
      'Bearer eyJhbGciOiJub25lIn0.e30.',
      'Bearer ....',
      'bearer x',
    ]) {
      const res = await raw(server.url, 'GET', '/api', undefined, { Authorization: header });
      assert.equal(res.code, 401, header);
    }
    // Not a Bearer header at all: anonymous, who may not list /api under RBAC.
    assert.equal(
      (await raw(server.url, 'GET', '/api', undefined, { Authorization: 'Basic eA==' })).code,
      403,
    );
  });
});

describe('impersonation and access reviews under RBAC', () => {
  let server: TestApiServer;
  let alice: string;
  let admin: string;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC', namespaces: ['default', 'ops'] });
    admin = server.kubeConfig().getCurrentUser()?.token ?? '';
    alice = server.addUser({ username: 'alice' }).token;
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
      {
        metadata: { name: 'alice-view', namespace: 'ops' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
    );
  });
  after(() => server.close());

  const post = (
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<RawResponse> => raw(server.url, 'POST', path, JSON.stringify(body), headers);

  it('impersonating without the impersonate verb is 403 in kube-apiserver words', async () => {
    const res = await raw(server.url, 'GET', '/api/v1/namespaces/ops/pods', undefined, {
      ...bearer(alice),
      'Impersonate-User': 'bob',
    });
    assert.equal(res.code, 403);
    assert.equal(
      res.json.message,
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const sa = await raw(server.url, 'GET', '/api', undefined, {
      ...bearer(alice),
      'Impersonate-User': 'system:serviceaccount:ops:bot',
    });
    assert.equal(
      sa.json.message,
      'serviceaccounts "bot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ops"',
    );
  });

  it('a superuser impersonates a user and groups: the request is decided as them', async () => {
    const headers = { ...bearer(admin), 'Impersonate-User': 'alice' };
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/ops/pods', undefined, headers)).code,
      200,
    );
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/default/pods', undefined, headers)).code,
      403,
    );
    const me = await post(
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      { ...headers, 'Impersonate-Group': 'devs', 'Impersonate-Extra-Scopes': 'a' },
    );
    assert.deepEqual((me.json.status as { userInfo: unknown }).userInfo, {
      username: 'alice',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a'] },
    });
  });

  it('a SelfSubjectAccessReview answers the real decision, with the RBAC reason when allowed', async () => {
    const ssar = async (attrs: Record<string, string>): Promise<Record<string, unknown>> =>
      (
        await post(
          '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
          {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: attrs },
          },
          bearer(alice),
        )
      ).json.status as Record<string, unknown>;
    assert.deepEqual(await ssar({ verb: 'list', resource: 'pods', namespace: 'ops' }), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "alice-view/ops" of ClusterRole "view" to User "alice"',
    });
    assert.deepEqual(await ssar({ verb: 'delete', resource: 'pods', namespace: 'ops' }), {
      allowed: false,
    });
  });

  it('a SubjectAccessReview decides for the named user (what a secured metrics endpoint asks)', async () => {
    const sar = await post(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', nonResourceAttributes: { path: '/metrics', verb: 'get' } },
      },
      bearer(admin),
    );
    assert.deepEqual(sar.json.status, { allowed: false });
    // Creating a SubjectAccessReview itself needs system:auth-delegator (or more).
    const denied = await post(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'x', nonResourceAttributes: { path: '/', verb: 'get' } },
      },
      bearer(alice),
    );
    assert.equal(denied.code, 403);
  });

  it('a SelfSubjectRulesReview lists the rules bound to the user in the namespace', async () => {
    const res = await post(
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        spec: { namespace: 'ops' },
      },
      bearer(alice),
    );
    const status = res.json.status as {
      resourceRules: { verbs: string[]; resources: string[] }[];
      incomplete: boolean;
    };
    assert.equal(status.incomplete, false);
    assert.ok(
      status.resourceRules.some((r) => r.resources.includes('pods') && r.verbs.includes('list')),
    );
    assert.ok(status.resourceRules.some((r) => r.resources.includes('selfsubjectaccessreviews')));
    assert.ok(!status.resourceRules.some((r) => r.resources.includes('secrets')));
  });
});
