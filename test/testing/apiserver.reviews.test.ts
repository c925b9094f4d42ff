// The authorization and authentication reviews of the test API server: create-only,
// never stored, answered as kube-apiserver answers them with no authorizer (AlwaysAllow).
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { decodeObject, encodeObject } from '../../packages/testing/src/protobuf/codec.js';
import { raw } from './helpers.js';

const AUTHZ = '/apis/authorization.k8s.io/v1';
const AUTHN = '/apis/authentication.k8s.io/v1';

function post(server: TestApiServer, path: string, body: unknown) {
  return raw(server.url, 'POST', path, JSON.stringify(body));
}

/** A POST of raw bytes; resolves with the status, the body bytes and the content type. */
function postBytes(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ code: number; bytes: Buffer; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () =>
        resolve({
          code: r.statusCode ?? 0,
          bytes: Buffer.concat(chunks),
          type: String(r.headers['content-type']),
        }),
      );
      r.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('test API server (authorization and authentication reviews)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  it('a SelfSubjectAccessReview is answered 201 with allowed: true and the request echoed', async () => {
    const body = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } },
    };
    const res = await post(server, `${AUTHZ}/selfsubjectaccessreviews`, body);
    assert.equal(res.code, 201);
    assert.deepEqual(res.json.spec, body.spec);
    assert.deepEqual(res.json.status, { allowed: true });
    assert.equal(res.json.kind, 'SelfSubjectAccessReview');
    assert.equal(res.json.apiVersion, 'authorization.k8s.io/v1');
  });

  it('reviews are never stored: the in-process helpers refuse them, and no watch event is written', async () => {
    const rv = server.resourceVersion;
    await post(server, `${AUTHZ}/selfsubjectaccessreviews`, {
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    });
    assert.equal(server.resourceVersion, rv);
    assert.throws(
      () => server.create('selfsubjectaccessreviews.authorization.k8s.io', { spec: {} }),
      /never stored/,
    );
  });

  it('a SubjectAccessReview without user or group is 422 Invalid, worded and shaped as by kube-apiserver', async () => {
    const res = await post(server, `${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {},
    });
    assert.equal(res.code, 422);
    assert.equal(res.json.reason, 'Invalid');
    assert.equal(
      res.json.message,
      '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    assert.deepEqual(res.json.details, {
      group: 'authorization.k8s.io',
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.resourceAttributes',
          message:
            'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.user',
          message: 'Invalid value: "": at least one of user or group must be specified',
        },
      ],
    });
  });

  it('a SubjectAccessReview with both resource and non-resource attributes is 422; a valid one is allowed', async () => {
    const both = await post(server, `${AUTHZ}/subjectaccessreviews`, {
      spec: {
        user: 'alice',
        resourceAttributes: { verb: 'get', resource: 'pods' },
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      },
    });
    assert.equal(both.code, 422);
    assert.equal(
      (both.json.details as any).causes[0].message,
      'Invalid value: authorization.NonResourceAttributes{Path:"/metrics", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    const ok = await post(server, `${AUTHZ}/subjectaccessreviews`, {
      spec: { groups: ['devs'], nonResourceAttributes: { path: '/metrics', verb: 'get' } },
    });
    assert.equal(ok.code, 201);
    assert.deepEqual(ok.json.status, { allowed: true });
  });

  it("a LocalSubjectAccessReview takes the URL's namespace, and its resourceAttributes.namespace must match it", async () => {
    const path = `${AUTHZ}/namespaces/team-a/localsubjectaccessreviews`;
    const ok = await post(server, path, {
      spec: {
        user: 'bob',
        resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'pods' },
      },
    });
    assert.equal(ok.code, 201);
    assert.equal((ok.json.metadata as any).namespace, 'team-a');
    assert.deepEqual(ok.json.status, { allowed: true });
    const other = await post(server, path, {
      spec: {
        user: 'bob',
        resourceAttributes: { namespace: 'team-b', verb: 'get', resource: 'pods' },
      },
    });
    assert.equal(other.code, 422);
    assert.equal(
      other.json.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "team-b": must match metadata.namespace',
    );
    const objectNamespace = await post(server, path, {
      metadata: { namespace: 'team-b' },
      spec: { user: 'bob', resourceAttributes: { namespace: 'team-b', verb: 'get' } },
    });
    assert.equal(objectNamespace.code, 400);
    assert.equal(
      objectNamespace.json.message,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  it('a SelfSubjectRulesReview lists everything (AlwaysAllow) and needs spec.namespace', async () => {
    const res = await post(server, `${AUTHZ}/selfsubjectrulesreviews`, {
      spec: { namespace: 'default' },
    });
    assert.equal(res.code, 201);
    assert.deepEqual(res.json.status, {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
    const none = await post(server, `${AUTHZ}/selfsubjectrulesreviews`, { spec: {} });
    assert.equal(none.code, 400);
    assert.equal(none.json.message, 'no namespace on request');
  });

  it('GET, list, watch, PUT and DELETE of a review are 405 MethodNotAllowed; an object path is 404', async () => {
    const expected = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: {},
      code: 405,
    };
    for (const [method, path] of [
      ['GET', `${AUTHZ}/selfsubjectaccessreviews`],
      ['GET', `${AUTHZ}/subjectaccessreviews?watch=true`],
      ['GET', `${AUTHZ}/namespaces/default/localsubjectaccessreviews`],
      ['DELETE', `${AUTHZ}/selfsubjectrulesreviews`],
      ['PUT', `${AUTHN}/tokenreviews`],
    ] as const) {
      const res = await raw(server.url, method, path);
      assert.equal(res.code, 405, `${method} ${path}`);
      assert.deepEqual(res.json, expected, `${method} ${path}`);
    }
    const named = await raw(server.url, 'GET', `${AUTHZ}/selfsubjectaccessreviews/x`);
    assert.equal(named.code, 404);
  });

  it('discovery lists the review groups, with verbs ["create"] only', async () => {
    const groups = await raw(server.url, 'GET', '/apis');
    const names = (groups.json.groups as { name: string }[]).map((g) => g.name);
    assert.ok(names.includes('authorization.k8s.io'));
    assert.ok(names.includes('authentication.k8s.io'));
    const authz = await raw(server.url, 'GET', AUTHZ);
    assert.deepEqual(authz.json.resources, [
      {
        name: 'selfsubjectaccessreviews',
        singularName: 'selfsubjectaccessreview',
        namespaced: false,
        kind: 'SelfSubjectAccessReview',
        verbs: ['create'],
      },
      {
        name: 'subjectaccessreviews',
        singularName: 'subjectaccessreview',
        namespaced: false,
        kind: 'SubjectAccessReview',
        verbs: ['create'],
      },
      {
        name: 'localsubjectaccessreviews',
        singularName: 'localsubjectaccessreview',
        namespaced: true,
        kind: 'LocalSubjectAccessReview',
        verbs: ['create'],
      },
      {
        name: 'selfsubjectrulesreviews',
        singularName: 'selfsubjectrulesreview',
        namespaced: false,
        kind: 'SelfSubjectRulesReview',
        verbs: ['create'],
      },
    ]);
    const authn = await raw(server.url, 'GET', AUTHN);
    assert.deepEqual(
      (authn.json.resources as { name: string; verbs: string[] }[]).map((r) => [r.name, r.verbs]),
      [
        ['selfsubjectreviews', ['create']],
        ['tokenreviews', ['create']],
      ],
    );
    const openapi = await raw(server.url, 'GET', '/openapi/v3/apis/authorization.k8s.io/v1');
    assert.deepEqual(
      Object.keys((openapi.json.paths as any)[`${AUTHZ}/selfsubjectaccessreviews`]),
      ['post'],
    );
  });

  it('a SelfSubjectReview without credentials names system:anonymous (the server admits anonymous requests)', async () => {
    const res = await post(server, `${AUTHN}/selfsubjectreviews`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    assert.equal(res.code, 201);
    assert.deepEqual(res.json.status, {
      userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    });
  });

  it('reviews travel in Kubernetes protobuf, as kubectl sends them', async () => {
    const body = encodeObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'carol',
        extra: { scopes: ['a', 'b'] },
        resourceAttributes: { verb: 'get', resource: 'pods' },
      },
    });
    assert.ok(body);
    const res = await postBytes(`${server.url}${AUTHZ}/subjectaccessreviews`, body, {
      'Content-Type': 'application/vnd.kubernetes.protobuf',
      Accept: 'application/vnd.kubernetes.protobuf,application/json',
    });
    assert.equal(res.code, 201);
    assert.equal(res.type, 'application/vnd.kubernetes.protobuf');
    const answer = decodeObject(res.bytes);
    assert.deepEqual((answer.spec as any).extra, { scopes: ['a', 'b'] });
    assert.deepEqual(answer.status, { allowed: true });
  });
});

describe('test API server (who a request comes from)', () => {
  it('with a bearer token: SelfSubjectReview names test-user in system:masters, and a TokenReview knows the token', async () => {
    const server = await startTestApiServer({ auth: { token: 's3cret' } });
    try {
      const api = server.kubeConfig().makeApiClient(k8s.AuthenticationV1Api);
      const me = await api.createSelfSubjectReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      assert.deepEqual(
        { ...me.status?.userInfo },
        {
          username: 'test-user',
          groups: ['system:masters', 'system:authenticated'],
        },
      );
      const known = await api.createTokenReview({
        body: { spec: { token: 's3cret', audiences: ['api'] } },
      });
      assert.equal(known.status?.authenticated, true);
      assert.equal(known.status?.user?.username, 'test-user');
      assert.deepEqual(known.status?.audiences, ['api']);
      const unknown = await api.createTokenReview({ body: { spec: { token: 'nope' } } });
      assert.equal(unknown.status?.authenticated, false);
    } finally {
      await server.close();
    }
  });

  it("with a client certificate: the user is the certificate's CN and its organizations are groups", async () => {
    const server = await startTestApiServer({ auth: { clientCertificate: true } });
    try {
      const api = server.kubeConfig().makeApiClient(k8s.AuthenticationV1Api);
      const me = await api.createSelfSubjectReview({ body: {} });
      assert.deepEqual(
        { ...me.status?.userInfo },
        {
          username: 'test-user',
          groups: ['system:masters', 'system:authenticated'],
        },
      );
    } finally {
      await server.close();
    }
  });
});
