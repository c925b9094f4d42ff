import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { FakeClock } from '../../src/util/clock.js';
import {
  ApiError,
  ConnectionError,
  RequestTimeoutError,
  ResponseDecodeError,
  isNotFound,
  isTooManyRequests,
} from '../../src/client/errors.js';
import { Transport } from '../../src/client/transport.js';
import type { KubeConfigLike } from '../../src/client/transport.js';
import { redactUrl } from '../../src/client/redact.js';
import { VERSION } from '../../src/client/version.js';
import { TOKEN, json, kubeConfigFor, recordingLogger, startStub, status, until } from './stub.js';

function cleanup(t: TestContext, ...fns: (() => unknown)[]): void {
  t.after(async () => {
    for (const f of fns.reverse()) await f();
  });
}

async function setup(
  t: TestContext,
  handler: Parameters<typeof startStub>[0],
  options: ConstructorParameters<typeof Transport>[1] = {},
) {
  const stub = await startStub(handler);
  const transport = new Transport(kubeConfigFor(stub.url), options);
  cleanup(
    t,
    () => stub.close(),
    () => transport.close(),
  );
  return { stub, transport };
}

function assertNoToken(err: unknown): void {
  assert.ok(!String(err).includes(TOKEN), `token in String(err): ${String(err)}`);
  assert.ok(!inspect(err, { depth: 10 }).includes(TOKEN), 'token in inspect(err)');
  if (err instanceof Error) assert.ok(!err.message.includes(TOKEN));
}

test('a request carries the bearer token, a kube-controller-kit User-Agent, gzip and JSON headers', async (t) => {
  const { stub, transport } = await setup(t, (_req, res) => json(res, 200, { ok: true }));
  const out = await transport.request<{ ok: boolean }>({ method: 'GET', path: '/api/v1/pods' });
  assert.deepEqual(out, { ok: true });
  const req = stub.requests[0]!;
  assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(req.headers['user-agent'], `kube-controller-kit/${VERSION}`);
  assert.equal(req.headers['accept-encoding'], 'gzip');
  assert.equal(req.headers.accept, 'application/json');
});

test('rule (client-go DisableCompression): disableCompression sends no Accept-Encoding; a gzipped answer is still inflated', async (t) => {
  const { stub, transport } = await setup(
    t,
    (_req, res) => {
      const body = gzipSync(JSON.stringify({ ok: true }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(body);
    },
    { disableCompression: true },
  );
  const out = await transport.request<{ ok: boolean }>({ method: 'GET', path: '/api/v1/pods' });
  assert.deepEqual(out, { ok: true });
  assert.equal(stub.requests[0]!.headers['accept-encoding'], undefined);
});

test('VERSION equals the version in package.json', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  assert.equal(VERSION, pkg.version);
});

test('a gzipped response body is decompressed', async (t) => {
  const { transport } = await setup(t, (_req, res) => {
    const body = gzipSync(JSON.stringify({ items: [1, 2, 3] }));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    res.end(body);
  });
  assert.deepEqual(await transport.request({ method: 'GET', path: '/x' }), { items: [1, 2, 3] });
});

test('a JSON body is sent with Content-Type and query parameters are encoded, undefined ones left out', async (t) => {
  let seen = '';
  const { stub, transport } = await setup(t, (_req, res, body) => {
    seen = body;
    json(res, 201, { created: true });
  });
  await transport.request({
    method: 'POST',
    path: '/api/v1/namespaces/a/pods',
    query: { fieldManager: 'me & you', dryRun: undefined },
    body: { a: 1 },
  });
  assert.equal(seen, '{"a":1}');
  assert.equal(stub.requests[0]!.url, '/api/v1/namespaces/a/pods?fieldManager=me%20%26%20you');
  assert.equal(stub.requests[0]!.headers['content-type'], 'application/json');
});

test('an error Status becomes an ApiError with its code, reason, message and details', async (t) => {
  const { transport } = await setup(t, (_req, res) =>
    json(res, 404, {
      ...status(404, 'NotFound', 'pods "x" not found'),
      details: { name: 'x', kind: 'pods' },
    }),
  );
  const err = await transport
    .request({ method: 'GET', path: '/api/v1/namespaces/a/pods/x' })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.ok(isNotFound(err));
  assert.equal(err.code, 404);
  assert.equal(err.details?.name, 'x');
  assert.match(err.message, /pods "x" not found/);
  assert.match(err.message, /GET \/api\/v1\/namespaces\/a\/pods\/x/);
});

test('a non-Status error body gets a Status synthesized from the HTTP code', async (t) => {
  const { transport } = await setup(t, (_req, res) => {
    res.writeHead(502, { 'Content-Type': 'text/html' });
    res.end('<html>bad gateway</html>');
  });
  const err = await transport.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 502);
  assert.equal(err.reason, 'InternalError');
  assert.match(err.message, /502/);
});

test('a 2xx answer whose body is not JSON is a ResponseDecodeError naming the request, never a bare SyntaxError', async (t) => {
  const { transport } = await setup(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html>login required</html>');
  });
  const err = await transport
    .request({ method: 'GET', path: '/api/v1/pods' })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ResponseDecodeError, `got ${String(err)}`);
  assert.equal(err.statusCode, 200);
  assert.equal(err.excerpt, '<html>login required</html>');
  assert.match(err.message, /GET \/api\/v1\/pods/);
  assert.ok(err.cause instanceof SyntaxError);
  assertNoToken(err);
});

test('a GET answered 429 with Retry-After is retried after that many seconds of the clock', async (t) => {
  const clock = new FakeClock();
  let calls = 0;
  const { transport } = await setup(
    t,
    (_req, res) => {
      calls++;
      if (calls <= 2)
        json(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '3' });
      else json(res, 200, { ok: calls });
    },
    { clock },
  );
  const pending = transport.request({ method: 'GET', path: '/x' });
  await clock.waitForTimers(1);
  await clock.advance(2999);
  assert.equal(calls, 1);
  await clock.advance(1);
  await clock.waitForTimers(1);
  assert.equal(calls, 2);
  await clock.advance(3000);
  assert.deepEqual(await pending, { ok: 3 });
});

test('Retry-After retries stop after maxRetries and the last 429 is thrown', async (t) => {
  const clock = new FakeClock();
  let calls = 0;
  const { transport } = await setup(
    t,
    (_req, res) => {
      calls++;
      json(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
    },
    { clock, maxRetries: 2 },
  );
  const pending = transport.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
  for (let i = 0; i < 2; i++) {
    await clock.waitForTimers(1);
    await clock.advance(1000);
  }
  const err = await pending;
  assert.ok(isTooManyRequests(err));
  assert.equal(err.retryAfterSeconds, 1);
  assert.equal(calls, 3);
});

test('a POST answered 429 with Retry-After is retried too, as client-go retries every verb', async (t) => {
  const clock = new FakeClock();
  const bodies: string[] = [];
  const { transport } = await setup(
    t,
    (_req, res, body) => {
      bodies.push(body);
      if (bodies.length === 1)
        json(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
      else json(res, 201, { created: true });
    },
    { clock },
  );
  const pending = transport.request({ method: 'POST', path: '/x', body: { a: 1 } });
  await clock.waitForTimers(1);
  await until(() => bodies.length === 1);
  await clock.advance(1000);
  assert.deepEqual(await pending, { created: true });
  assert.deepEqual(bodies, ['{"a":1}', '{"a":1}'], 'the same body is sent again');
});

test('a 503 with Retry-After is retried; a 500 without it is not', async (t) => {
  const clock = new FakeClock();
  let calls = 0;
  const { transport } = await setup(
    t,
    (_req, res) => {
      calls++;
      if (calls === 1)
        json(res, 503, status(503, 'ServiceUnavailable', 'busy'), { 'Retry-After': '2' });
      else json(res, 500, status(500, 'InternalError', 'boom'));
    },
    { clock },
  );
  const pending = transport.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
  await clock.waitForTimers(1);
  await clock.advance(2000);
  const err = await pending;
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 500);
  assert.equal(calls, 2);
});

test('aborting during a Retry-After sleep rejects with the abort reason and leaves no timer', async (t) => {
  const clock = new FakeClock();
  const { transport } = await setup(
    t,
    (_req, res) => json(res, 429, status(429, 'TooManyRequests', 'x'), { 'Retry-After': '30' }),
    { clock },
  );
  const ac = new AbortController();
  const pending = transport
    .request({ method: 'GET', path: '/x', signal: ac.signal })
    .catch((e: unknown) => e);
  await clock.waitForTimers(1);
  const reason = new Error('stop');
  ac.abort(reason);
  assert.equal(await pending, reason);
  assert.equal(clock.pendingTimers(), 0);
});

test('a request with no answer within timeoutMs fails with RequestTimeoutError and no token in it', async (t) => {
  const clock = new FakeClock();
  const { stub, transport } = await setup(t, () => {}, { clock, timeoutMs: 5000 });
  const pending = transport.request({ method: 'GET', path: '/slow' }).catch((e: unknown) => e);
  await until(() => stub.requests.length === 1);
  await clock.advance(5000);
  const err = await pending;
  assert.ok(err instanceof RequestTimeoutError, String(err));
  assert.equal(err.timeoutMs, 5000);
  assert.match(err.message, /GET http:\/\/127\.0\.0\.1:\d+\/slow/);
  assertNoToken(err);
});

test('aborting an in-flight request rejects with the abort reason', async (t) => {
  const { stub, transport } = await setup(t, () => {});
  const ac = new AbortController();
  const pending = transport
    .request({ method: 'GET', path: '/slow', signal: ac.signal })
    .catch((e: unknown) => e);
  await until(() => stub.requests.length === 1);
  const reason = new Error('cancelled by test');
  ac.abort(reason);
  assert.equal(await pending, reason);
});

test('an already aborted signal rejects before anything is sent', async (t) => {
  const { stub, transport } = await setup(t, (_req, res) => json(res, 200, {}));
  const err = await transport
    .request({ method: 'GET', path: '/x', signal: AbortSignal.abort(new Error('early')) })
    .catch((e: unknown) => e);
  assert.equal((err as Error).message, 'early');
  assert.equal(stub.requests.length, 0);
});

test('a refused connection is a ConnectionError with code ECONNREFUSED and no token', async (t) => {
  const stub = await startStub(() => {});
  const url = stub.url;
  await stub.close();
  const transport = new Transport(kubeConfigFor(url));
  cleanup(t, () => transport.close());
  const err = await transport.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
  assert.ok(err instanceof ConnectionError);
  assert.equal(err.code, 'ECONNREFUSED');
  assertNoToken(err);
});

/**
 * A stub that answers the first request on each connection and closes the connection
 * without an answer when a second request arrives on it: what a server does when its idle
 * keep-alive timeout fires just as the client reuses the pooled socket.
 */
async function closesReusedConnections(t: TestContext) {
  const served = new WeakSet<object>();
  const dropped: string[] = [];
  const { stub, transport } = await setup(t, (req, res) => {
    if (served.has(req.socket)) {
      dropped.push(`${req.method} ${req.url}`);
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    json(res, 200, { path: req.url });
  });
  return { stub, transport, dropped };
}

test('rule (Go transport, RFC 9110 safe methods): a GET whose reused keep-alive connection the server closed is sent once more on a new connection', async (t) => {
  const { stub, transport, dropped } = await closesReusedConnections(t);
  await transport.request({ method: 'GET', path: '/a' });
  const out = await transport.request<{ path: string }>({ method: 'GET', path: '/b' });
  assert.deepEqual(out, { path: '/b' });
  assert.deepEqual(dropped, ['GET /b'], 'the second GET reused the first connection');
  assert.deepEqual(
    stub.requests.map((r) => r.url),
    ['/a', '/b', '/b'],
  );
  assert.equal(stub.connections, 2);
});

test('rule: a write on a reused connection that drops is not sent again (the server may have acted on it)', async (t) => {
  const { stub, transport, dropped } = await closesReusedConnections(t);
  await transport.request({ method: 'GET', path: '/a' });
  const err = await transport
    .request({ method: 'POST', path: '/b', body: { x: 1 } })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ConnectionError, String(err));
  assert.deepEqual(dropped, ['POST /b']);
  assert.equal(stub.requests.length, 2);
});

test('rule: a connection dropped on its first request is an error at once, not retried', async (t) => {
  const { stub, transport } = await setup(t, (req) => req.socket.destroy());
  const err = await transport.request({ method: 'GET', path: '/a' }).catch((e: unknown) => e);
  assert.ok(err instanceof ConnectionError, String(err));
  assert.equal(stub.requests.length, 1);
});

test('rule: a watch (a streaming GET) on a reused connection that drops is opened again', async (t) => {
  const { stub, transport, dropped } = await closesReusedConnections(t);
  await transport.request({ method: 'GET', path: '/a' });
  const opened = await transport.stream({ method: 'GET', path: '/w' });
  opened.close();
  assert.equal(opened.statusCode, 200);
  assert.deepEqual(dropped, ['GET /w']);
  assert.equal(stub.requests.length, 3);
});

test('a 401 makes the transport apply the kubeconfig credentials again and retry once', async (t) => {
  let calls = 0;
  const stub = await startStub((_req, res) => {
    calls++;
    json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
  });
  const kc = kubeConfigFor(stub.url);
  let applied = 0;
  const counting: KubeConfigLike = {
    getCurrentCluster: () => kc.getCurrentCluster(),
    applyToHTTPSOptions: async (o) => {
      applied++;
      await kc.applyToHTTPSOptions(o);
    },
  };
  const transport = new Transport(counting);
  cleanup(
    t,
    () => stub.close(),
    () => transport.close(),
  );
  const err = await transport.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 401);
  assert.equal(calls, 2);
  assert.equal(applied, 2);
  assertNoToken(err);
});

test('credentials are reused within credentialTtlMs and applied again after it', async (t) => {
  const clock = new FakeClock();
  const stub = await startStub((_req, res) => json(res, 200, {}));
  const kc = kubeConfigFor(stub.url);
  let applied = 0;
  const counting: KubeConfigLike = {
    getCurrentCluster: () => kc.getCurrentCluster(),
    applyToHTTPSOptions: async (o) => {
      applied++;
      await kc.applyToHTTPSOptions(o);
    },
  };
  const transport = new Transport(counting, { clock, credentialTtlMs: 1000 });
  cleanup(
    t,
    () => stub.close(),
    () => transport.close(),
  );
  await transport.request({ method: 'GET', path: '/x' });
  await transport.request({ method: 'GET', path: '/x' });
  assert.equal(applied, 1);
  await clock.advance(1000);
  await transport.request({ method: 'GET', path: '/x' });
  assert.equal(applied, 2);
});

test('sequential requests reuse one keep-alive connection', async (t) => {
  const { stub, transport } = await setup(t, (_req, res) => json(res, 200, {}));
  for (let i = 0; i < 5; i++) await transport.request({ method: 'GET', path: '/x' });
  assert.equal(stub.connections, 1);
});

test('a token file and basic auth from the kubeconfig are applied', async (t) => {
  const stub = await startStub((_req, res) => json(res, 200, {}));
  cleanup(t, () => stub.close());
  const basic = new Transport(kubeConfigFor(stub.url, { username: 'alice', password: 'pw' }));
  cleanup(t, () => basic.close());
  await basic.request({ method: 'GET', path: '/x' });
  assert.equal(
    stub.requests[0]!.headers.authorization,
    `Basic ${Buffer.from('alice:pw').toString('base64')}`,
  );
});

test('no error message or log line contains the token, whatever the failure', async (t) => {
  const logger = recordingLogger();
  const clock = new FakeClock();
  let mode = 'status';
  const { stub, transport } = await setup(
    t,
    (req, res) => {
      if (mode === 'status') json(res, 403, status(403, 'Forbidden', 'forbidden'));
      else if (mode === 'text') {
        res.writeHead(500);
        res.end('oops');
      } else if (mode === 'retry')
        json(res, 429, status(429, 'TooManyRequests', 'x'), { 'Retry-After': '1' });
      else if (mode === 'reset') req.socket.destroy();
    },
    { clock, logger, maxRetries: 1 },
  );
  const errors: unknown[] = [];
  for (const m of ['status', 'text', 'reset']) {
    mode = m;
    errors.push(
      await transport
        .request({ method: 'GET', path: '/x', query: { token: TOKEN } })
        .catch((e: unknown) => e),
    );
  }
  mode = 'retry';
  const retried = transport
    .request({ method: 'GET', path: '/x', query: { access_token: TOKEN } })
    .catch((e: unknown) => e);
  await clock.waitForTimers(1);
  await clock.advance(1000);
  errors.push(await retried);
  mode = 'none';
  const slow = transport
    .request({ method: 'GET', path: '/x', query: { token: TOKEN }, timeoutMs: 10 })
    .catch((e: unknown) => e);
  await until(() => stub.requests.length === 6);
  await clock.advance(10);
  errors.push(await slow);
  assert.equal(errors.length, 5);
  for (const e of errors) {
    assert.ok(e instanceof Error, String(e));
    assertNoToken(e);
  }
  assert.ok(logger.lines.length > 0);
  for (const line of logger.lines) assert.ok(!line.includes(TOKEN), line);
});

test('redactUrl drops user-info and secret-looking query parameters', () => {
  assert.equal(
    redactUrl(`https://u:${TOKEN}@h:6443/api?access_token=${TOKEN}&limit=5`),
    'https://h:6443/api?access_token=REDACTED&limit=5',
  );
  assert.equal(redactUrl(`/api/v1/pods?token=${TOKEN}`), '/api/v1/pods?token=REDACTED');
});

test('a kubeconfig without a current cluster is rejected with a KubeConfigError', async () => {
  const { KubeConfig } = await import('@kubernetes/client-node');
  assert.throws(() => new Transport(new KubeConfig()), { name: 'KubeConfigError' });
});

test('the server URL path prefix is kept in front of every request path', async (t) => {
  const stub = await startStub((_req, res) => json(res, 200, {}));
  const transport = new Transport(kubeConfigFor(`${stub.url}/k8s/clusters/c-1/`));
  cleanup(
    t,
    () => stub.close(),
    () => transport.close(),
  );
  await transport.request({ method: 'GET', path: '/api/v1/pods' });
  assert.equal(stub.requests[0]!.url, '/k8s/clusters/c-1/api/v1/pods');
});
