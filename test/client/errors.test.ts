import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { configMaps, deployments, pods } from '../../src/client/builtins.js';
import {
  ApiError,
  ConnectionError,
  KubeConfigError,
  NotFoundError,
  RequestTimeoutError,
  isForbidden,
  isNotFound,
  isPermanentError,
  isUnauthorized,
} from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport, requestTarget } from '../../src/client/transport.js';
import type { ApiResource, Status, StatusReason } from '../../src/client/types.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServerOptions } from '../../packages/testing/src/index.js';
import { TOKEN, kubeConfigFor, startStub } from './stub.js';

async function server(t: TestContext, options: TestApiServerOptions = {}) {
  const s = await startTestApiServer(options);
  const transport = new Transport(s.kubeConfig());
  t.after(async () => {
    transport.close();
    await s.close();
  });
  return { s, transport };
}

const widgets: ApiResource = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError, String(err));
  return err;
}

const apiserverForbidden =
  'pods is forbidden: User "system:serviceaccount:ops:x" cannot list resource "pods" in API group "" in the namespace "y"';

test('a 403 from list reads like kubectl: forbidden: serviceaccount ops/x cannot list pods in namespace y', async (t) => {
  const { s, transport } = await server(t);
  s.faults.failNext(2, { verb: 'list', resource: 'pods', code: 403, message: apiserverForbidden });
  const first = await failure(pods(transport).namespace('y').list({ limit: 5 }));
  assert.equal(first.summary, 'forbidden: serviceaccount ops/x cannot list pods in namespace y');
  assert.match(first.message, /^GET \/api\/v1\/namespaces\/y\/pods\?limit=5: forbidden: /);
  assert.equal(first.reason, 'Forbidden');
  assert.equal(first.code, 403);
  assert.ok(isForbidden(first));
  assert.equal(first.permanent, true);
  assert.ok(isPermanentError(first));
  // The server's own words stay on the Status.
  assert.equal(first.status.message, apiserverForbidden);
  // The summary does not change with the query: a caller can deduplicate on it.
  const second = await failure(pods(transport).namespace('y').list({ limit: 7 }));
  assert.equal(second.summary, first.summary);
  assert.notEqual(second.message, first.message);
});

test("docs/testing.md: an RBAC refusal is kube-apiserver's text on err.status.message and the client's words on err.message", async (t) => {
  const { s } = await server(t, { authorization: 'RBAC' });
  const bot = s.addUser({ serviceAccount: { namespace: 'default', name: 'bot' } });
  const transport = new Transport(bot.kubeConfig());
  t.after(() => transport.close());
  const err = await failure(pods(transport).namespace('default').list());
  assert.equal(
    err.status.message,
    'pods is forbidden: User "system:serviceaccount:default:bot" cannot list resource "pods" in API group "" in the namespace "default"',
  );
  assert.equal(
    err.message,
    'GET /api/v1/namespaces/default/pods: forbidden: serviceaccount default/bot cannot list pods in namespace default',
  );
});

test('a 403 at the cluster scope, for a group resource, keeps the authorizer reason', async (t) => {
  const { s, transport } = await server(t);
  s.faults.failNext(1, {
    verb: 'watch',
    code: 403,
    message:
      'deployments.apps is forbidden: User "alice" cannot watch resource "deployments" in API group "apps" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "viewer" not found',
  });
  const err = await failure(deployments(transport).watch({}));
  assert.equal(
    err.summary,
    'forbidden: user "alice" cannot watch deployments.apps at the cluster scope ' +
      '(RBAC: clusterrole.rbac.authorization.k8s.io "viewer" not found)',
  );
});

test('a 403 whose message is not the authorizer form keeps the server message, marked forbidden', async (t) => {
  const { s, transport } = await server(t);
  s.faults.failNext(1, { verb: 'create', code: 403, message: 'admission webhook denied it' });
  const err = await failure(
    configMaps(transport)
      .namespace('a')
      .create({ metadata: { name: 'x' } }),
  );
  assert.equal(err.summary, 'forbidden: admission webhook denied it');
  assert.ok(err.permanent);
});

test('a 404 with no Status details names the resource the server does not serve, a named NotFound keeps its words', async (t) => {
  const { s, transport } = await server(t);
  const unknown = new ResourceClient(transport, widgets).namespace('a');
  for (const call of [unknown.list(), unknown.watch({}), unknown.get('w')]) {
    const err = await failure(call);
    assert.equal(err.code, 404);
    assert.ok(isNotFound(err), 'still a NotFound, as client-go says');
    assert.match(err.summary, /^the server has no resource widgets\.example\.com\/v1; /);
    assert.ok(err.permanent);
  }
  const missing = await failure(configMaps(transport).namespace('a').get('nope'));
  assert.equal(missing.summary, 'configmaps "nope" not found');
  assert.match(missing.message, /configmaps "nope" not found$/);
  const noSub = await failure(
    transport.request({ method: 'GET', path: '/api/v1/namespaces/a/configmaps/x/nosuch' }),
  );
  assert.equal(noSub.summary, 'the server has no subresource "nosuch" of configmaps/v1');
  assert.ok(s.url.startsWith('http'));
});

test('a plain-text 404, as kube-apiserver sends for a group it does not serve, names the resource too', async (t) => {
  const stub = await startStub((_req, res) => {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('404 page not found\n');
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  const err = await failure(new ResourceClient(transport, widgets).watch({}));
  assert.ok(isNotFound(err));
  assert.match(err.summary, /^the server has no resource widgets\.example\.com\/v1; /);
  assert.match(err.message, /^GET \/apis\/example\.com\/v1\/widgets\?watch=true/);
});

test('a 401 reads "unauthorized: …" and names what to check; a 400 reads "bad request: …"', async (t) => {
  const s = await startTestApiServer({ auth: { token: TOKEN } });
  t.after(() => s.close());
  const kc = new KubeConfig();
  const c = s.kubeConfig().getCurrentCluster()!;
  kc.loadFromOptions({
    clusters: [c],
    users: [{ name: 'u', token: 'wrong' }],
    contexts: [{ name: 'x', cluster: c.name, user: 'u' }],
    currentContext: 'x',
  });
  const wrong = new Transport(kc);
  t.after(() => wrong.close());
  const unauthorized = await failure(configMaps(wrong).namespace('a').list());
  assert.ok(isUnauthorized(unauthorized));
  assert.match(
    unauthorized.summary,
    /^unauthorized: the server did not accept the kubeconfig user's credentials/,
  );
  assert.ok(unauthorized.permanent);

  const right = new Transport(s.kubeConfig());
  t.after(() => right.close());
  const bad = await failure(
    configMaps(right).namespace('a').list({ labelSelector: 'app in (web' }),
  );
  assert.equal(bad.code, 400);
  assert.match(bad.summary, /^bad request: unable to parse requirement/);
  assert.ok(bad.permanent);
});

test('409, 410, 429 and 5xx answers, timeouts and connection failures are transient; a KubeConfigError is permanent', () => {
  const status = (code: number, reason: StatusReason): Status => ({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message: 'x',
  });
  const transient: [number, StatusReason][] = [
    [409, 'Conflict'],
    [409, 'AlreadyExists'],
    [410, 'Expired'],
    [410, 'Gone'],
    [429, 'TooManyRequests'],
    [500, 'InternalError'],
    [503, 'ServiceUnavailable'],
    [504, 'Timeout'],
  ];
  for (const [code, reason] of transient) {
    assert.equal(isPermanentError(new ApiError(status(code, reason))), false, `${code} ${reason}`);
  }
  const permanent: [number, StatusReason][] = [
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [405, 'MethodNotAllowed'],
    [415, 'UnsupportedMediaType'],
    [422, 'Invalid'],
  ];
  for (const [code, reason] of permanent) {
    assert.equal(isPermanentError(new ApiError(status(code, reason))), true, `${code} ${reason}`);
  }
  // The reason decides over the code, as client-go's helpers do.
  assert.equal(isPermanentError(new ApiError(status(500, 'Forbidden'))), true);
  assert.equal(isPermanentError(new NotFoundError({ group: '', resource: 'pods' }, 'x')), true);
  assert.equal(isPermanentError(new ConnectionError('GET /x', new Error('reset'))), false);
  assert.equal(isPermanentError(new RequestTimeoutError('GET /x', 5)), false);
  assert.equal(isPermanentError(new KubeConfigError('no credentials')), true);
  assert.equal(isPermanentError(new Error('x')), false);
});

test('requestTarget reads group, version, namespace, resource, name and subresource from a path', () => {
  assert.deepEqual(requestTarget('/apis/apps/v1/namespaces/a/deployments/web/scale'), {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    namespace: 'a',
    name: 'web',
    subresource: 'scale',
  });
  assert.deepEqual(requestTarget('/api/v1/namespaces/a'), {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    namespace: '',
    name: 'a',
    subresource: '',
  });
  assert.deepEqual(requestTarget('/api/v1/namespaces/a/status'), {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    namespace: '',
    name: 'a',
    subresource: 'status',
  });
  assert.equal(requestTarget('/apis/example.com/v1')?.resource, undefined);
  assert.equal(requestTarget('/version'), undefined);
});
