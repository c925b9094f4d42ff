// The gateway example: ApiRoute, AuthPolicy and RateLimitPolicy resources configure an
// HTTP gateway running in the same process. Every rule is checked with real HTTP requests
// through the gateway, before and after each change to the resources.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { readManifests } from '../../src/program/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { ACCEPTED, runGateway } from '../../examples/gateway/src/gateway.js';
import type { CompiledEvent } from '../../examples/gateway/src/gateway.js';
import { GatewayConfig, RoutingTable, checkRoute } from '../../examples/gateway/src/config.js';
import type { ApiRoute } from '../../examples/gateway/src/types.js';
import { eventually } from '../support/eventually.js';
import { crdRef, examplePath } from './support.js';

const routesRef = { group: 'gateway.example.com', resource: 'apiroutes' };
const authRef = { group: 'gateway.example.com', resource: 'authpolicies' };
const limitsRef = { group: 'gateway.example.com', resource: 'ratelimitpolicies' };

interface Echo {
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
}

interface Upstream {
  url: string;
  close(): Promise<void>;
}

/** An upstream that answers with its name, the request line and the headers it got. */
async function startUpstream(name: string): Promise<Upstream> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': name });
    res.end(JSON.stringify({ name, method: req.method, url: req.url, headers: req.headers }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  echo: Echo | undefined;
}

/** One request through the gateway (node:http, no keep-alive: nothing left open). */
function request(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { headers: { connection: 'close', ...headers }, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          let echo: Echo | undefined;
          if (res.headers['x-upstream'] !== undefined) echo = JSON.parse(body) as Echo;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, echo });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function route(name: string, spec: ApiRoute['spec'], namespace = 'default'): UnstructuredObject {
  return {
    apiVersion: 'gateway.example.com/v1',
    kind: 'ApiRoute',
    metadata: { name, namespace },
    spec,
  };
}

describe('gateway example', () => {
  let server: TestApiServer;
  let a: Upstream;
  let b: Upstream;
  let base = '';
  let last: CompiledEvent | undefined;
  const stop = new AbortController();
  let running: Promise<void>;

  /** Polls real requests until `cond` holds for the answer (the gateway reloads async). */
  async function until(
    what: string,
    path: string,
    cond: (r: Answer) => boolean,
    headers: Record<string, string> = {},
    timeoutMs = 10_000,
  ): Promise<Answer> {
    let answer: Answer | undefined;
    await eventually(
      what,
      async () => {
        answer = await request(base, path, headers);
        return cond(answer);
      },
      timeoutMs,
    );
    return answer!;
  }

  function accepted(ref: typeof routesRef, name: string, ns = 'default') {
    const obj = server.get<{
      metadata?: { generation?: number };
      status?: {
        conditions?: {
          type: string;
          status: string;
          reason: string;
          observedGeneration?: number;
          message: string;
        }[];
      };
    }>(ref, name, ns);
    return { obj, condition: obj?.status?.conditions?.find((c) => c.type === ACCEPTED) };
  }

  function events(ns = 'default') {
    return server.list<{
      type?: string;
      reason?: string;
      message?: string;
      involvedObject?: { kind?: string; name?: string };
      source?: { component?: string };
    }>('events', ns);
  }

  before(async () => {
    server = await startTestApiServer({ namespaces: ['default', 'team-b'] });
    for (const crd of await readManifests(examplePath('gateway/crds.yaml'))) {
      server.create(crdRef, crd);
    }
    [a, b] = await Promise.all([startUpstream('a'), startUpstream('b')]);
    let listening!: (url: string) => void;
    const url = new Promise<string>((resolve) => (listening = resolve));
    running = runGateway(server.kubeConfig(), stop.signal, {
      listen: '127.0.0.1:0',
      onListening: listening,
      onCompiled: (e) => (last = e),
    });
    base = await url;
  });

  after(async () => {
    stop.abort();
    await running;
    await Promise.all([a.close(), b.close()]);
    await server.close();
  });

  test('with no routes every request is 404; an ApiRoute applied is served within a second, proxied with its path and query', async () => {
    assert.equal((await request(base, '/shop/cart')).status, 404);
    const t0 = Date.now();
    server.create(routesRef, route('shop', { pathPrefix: '/shop', upstream: a.url }));
    const r = await until('shop served by a', '/shop/cart?x=1', (r) => r.status === 200, {}, 1000);
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(r.echo?.name, 'a');
    assert.equal(r.echo?.url, '/shop/cart?x=1');
    assert.equal(r.echo?.headers['x-forwarded-host'], base.replace('http://', ''));
    // A prefix matches on a segment boundary only.
    assert.equal((await request(base, '/shopping')).status, 404);
    await until(
      'status Accepted=True',
      '/shop',
      () => accepted(routesRef, 'shop').condition?.status === 'True',
    );
  });

  test('changing the upstream of a route switches traffic without a restart; stripPrefix and the upstream path compose the forwarded path', async () => {
    const live = server.get<ApiRoute>(routesRef, 'shop', 'default')!;
    server.update(routesRef, {
      ...live,
      spec: { ...live.spec, upstream: `${b.url}/v2`, stripPrefix: true },
    });
    const r = await until('shop served by b', '/shop/cart', (r) => r.echo?.name === 'b');
    assert.equal(r.echo?.url, '/v2/cart');
  });

  test('a route for a host wins over one for any host, and the longest prefix wins', async () => {
    server.create(routesRef, route('root', { pathPrefix: '/', upstream: a.url }));
    server.create(
      routesRef,
      route('shop-host', { host: 'shop.example.com', pathPrefix: '/', upstream: a.url }),
    );
    await until('root served', '/other', (r) => r.echo?.name === 'a');
    // The longest prefix: /shop (to b) over / (to a).
    assert.equal((await request(base, '/shop/x')).echo?.name, 'b');
    // The host route takes everything of its host, /shop included.
    await until('host route', '/shop/x', (r) => r.echo?.name === 'a', {
      host: 'shop.example.com:80',
    });
    server.delete(routesRef, 'root', 'default');
    server.delete(routesRef, 'shop-host', 'default');
    await until('root gone', '/other', (r) => r.status === 404);
  });

  test('an AuthPolicy of API keys: 401 without a key or with a wrong one, 200 with one; the key is not forwarded upstream', async () => {
    server.create(authRef, {
      apiVersion: 'gateway.example.com/v1',
      kind: 'AuthPolicy',
      metadata: { name: 'keys', namespace: 'default' },
      spec: { type: 'apiKey', keys: ['k-1', 'k-2'] },
    });
    const live = server.get<ApiRoute>(routesRef, 'shop', 'default')!;
    server.update(routesRef, { ...live, spec: { ...live.spec, authPolicy: 'keys' } });
    const denied = await until('auth required', '/shop/a', (r) => r.status === 401);
    assert.match(denied.headers['www-authenticate'] ?? '', /ApiKey header="x-api-key"/);
    assert.equal((await request(base, '/shop/a', { 'x-api-key': 'nope' })).status, 401);
    const ok = await request(base, '/shop/a', { 'x-api-key': 'k-2' });
    assert.equal(ok.status, 200);
    assert.equal(ok.echo?.headers['x-api-key'], undefined);
  });

  test('a bearer AuthPolicy reads its tokens from a Secret, and a change of the Secret rotates them', async () => {
    const secret = (token: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tokens', namespace: 'default' },
      data: { keys: Buffer.from(`${token}\n`).toString('base64') },
    });
    server.create('secrets', secret('t-old'));
    server.create(authRef, {
      apiVersion: 'gateway.example.com/v1',
      kind: 'AuthPolicy',
      metadata: { name: 'bearer', namespace: 'default' },
      spec: { type: 'bearer', secretRef: { name: 'tokens' } },
    });
    server.create(
      routesRef,
      route('private', { pathPrefix: '/private', upstream: a.url, authPolicy: 'bearer' }),
    );
    await until('bearer ok', '/private', (r) => r.status === 200, {
      authorization: 'Bearer t-old',
    });
    const denied = await request(base, '/private');
    assert.equal(denied.status, 401);
    assert.match(denied.headers['www-authenticate'] ?? '', /^Bearer/);
    const s = server.get('secrets', 'tokens', 'default')!;
    server.update('secrets', { ...s, data: secret('t-new').data });
    await until('old token refused', '/private', (r) => r.status === 401, {
      authorization: 'Bearer t-old',
    });
    assert.equal((await request(base, '/private', { authorization: 'Bearer t-new' })).status, 200);
  });

  test('a RateLimitPolicy is a token bucket: the burst passes, then 429 with Retry-After; per client, each key has its own bucket', async () => {
    server.create(limitsRef, {
      apiVersion: 'gateway.example.com/v1',
      kind: 'RateLimitPolicy',
      metadata: { name: 'tight', namespace: 'default' },
      // One token per 1000 s: no refill during the test.
      spec: { requestsPerSecond: 0.001, burst: 2, per: 'client' },
    });
    const live = server.get<ApiRoute>(routesRef, 'shop', 'default')!;
    server.update(routesRef, { ...live, spec: { ...live.spec, rateLimitPolicy: 'tight' } });
    const k1 = { 'x-api-key': 'k-1' };
    await eventually(
      'limit compiled',
      () =>
        last?.table.routes.some((r) => r.key === 'default/shop' && r.rateLimit !== undefined) ===
        true,
    );
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await request(base, '/shop/x', k1)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const limited = await request(base, '/shop/x', k1);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers['retry-after'], '1000');
    // Another client (key) has a full bucket of its own.
    assert.equal((await request(base, '/shop/x', { 'x-api-key': 'k-2' })).status, 200);
    // Changing the policy starts new buckets.
    const p = server.get(limitsRef, 'tight', 'default')!;
    server.update(limitsRef, { ...p, spec: { requestsPerSecond: 0.001, burst: 5, per: 'client' } });
    await until('new bucket', '/shop/x', (r) => r.status === 200, k1);
  });

  test('a bad resource is reported through its Accepted condition (observedGeneration) and a Warning Event, and the routes already serving keep serving', async () => {
    const before = await request(base, '/shop/x', { 'x-api-key': 'k-2' });
    assert.equal(before.echo?.name, 'b');
    const live = server.get<ApiRoute>(routesRef, 'shop', 'default')!;
    const bad = server.update(routesRef, {
      ...live,
      spec: { ...live.spec, upstream: 'not a url' },
    });
    await eventually(
      'Accepted=False',
      () => accepted(routesRef, 'shop').condition?.status === 'False',
    );
    const { condition } = accepted(routesRef, 'shop');
    assert.equal(condition?.reason, 'InvalidUpstream');
    assert.equal(condition?.observedGeneration, bad.metadata?.generation);
    assert.match(condition?.message ?? '', /last good version keeps serving/);
    await eventually('a Warning event', () =>
      events().some(
        (e) =>
          e.type === 'Warning' &&
          e.reason === 'InvalidUpstream' &&
          e.involvedObject?.name === 'shop' &&
          e.source?.component === 'gateway',
      ),
    );
    // The last good version still serves, auth and all.
    const r = await request(base, '/shop/x', { 'x-api-key': 'k-2' });
    assert.equal(r.echo?.name, 'b');
    assert.equal((await request(base, '/shop/x')).status, 401);
    // A new route with a bad prefix or an unknown policy is not served at all.
    server.create(routesRef, route('bad-prefix', { pathPrefix: 'no-slash', upstream: a.url }));
    server.create(
      routesRef,
      route('orphan', { pathPrefix: '/orphan', upstream: a.url, authPolicy: 'missing' }),
    );
    await eventually(
      'both rejected',
      () =>
        accepted(routesRef, 'bad-prefix').condition?.reason === 'InvalidPathPrefix' &&
        accepted(routesRef, 'orphan').condition?.reason === 'UnknownAuthPolicy',
    );
    assert.equal((await request(base, '/orphan')).status, 404);
    // An invalid policy keeps its last good version in use too.
    const p = server.get(authRef, 'keys', 'default')!;
    server.update(authRef, { ...p, spec: { type: 'magic' } });
    await eventually(
      'policy rejected',
      () => accepted(authRef, 'keys').condition?.reason === 'InvalidType',
    );
    assert.equal((await request(base, '/shop/x', { 'x-api-key': 'k-2' })).status, 200);
    // Fixing the route: True again, with a Normal event, and the new upstream serves.
    const cur = server.get<ApiRoute>(routesRef, 'shop', 'default')!;
    server.update(routesRef, {
      ...cur,
      spec: { ...cur.spec, upstream: a.url, stripPrefix: false },
    });
    await until('fixed', '/shop/x', (r) => r.echo?.name === 'a', { 'x-api-key': 'k-2' });
    await eventually(
      'Accepted=True',
      () => accepted(routesRef, 'shop').condition?.status === 'True',
    );
  });

  test('two routes claiming the same host and prefix: the older keeps it, the newer is Accepted=False Conflict', async () => {
    server.create(routesRef, route('shop-copy', { pathPrefix: '/shop/', upstream: b.url }));
    await eventually(
      'conflict',
      () => accepted(routesRef, 'shop-copy').condition?.reason === 'Conflict',
    );
    assert.equal((await request(base, '/shop/x', { 'x-api-key': 'k-2' })).echo?.name, 'a');
    server.delete(routesRef, 'shop-copy', 'default');
  });

  test('deleting a route stops serving it (404) and drops its last good version', async () => {
    server.delete(routesRef, 'shop', 'default');
    await until('404', '/shop/x', (r) => r.status === 404, { 'x-api-key': 'k-2' });
    // Recreated invalid under the same name: nothing of the old one serves.
    server.create(routesRef, route('shop', { pathPrefix: '/shop', upstream: 'ftp://x' }));
    await eventually('rejected', () => accepted(routesRef, 'shop').condition?.status === 'False');
    assert.equal((await request(base, '/shop/x', { 'x-api-key': 'k-2' })).status, 404);
  });

  test('an upstream that is down answers 502, not a hang or a crash', async () => {
    const down = await startUpstream('down');
    await down.close();
    server.create(routesRef, route('down', { pathPrefix: '/down', upstream: down.url }));
    await until('502', '/down', (r) => r.status === 502);
  });
});

describe('gateway example: compiling resources', () => {
  test('a path prefix must start with "/" and has its trailing slash removed; an upstream must be http(s) without query', () => {
    assert.equal(checkRoute({ pathPrefix: '/api/', upstream: 'http://x' }).prefix, '/api');
    assert.equal(checkRoute({ pathPrefix: '/', upstream: 'http://x' }).prefix, '/');
    assert.throws(
      () => checkRoute({ pathPrefix: 'api', upstream: 'http://x' }),
      /must start with "\/"/,
    );
    assert.throws(() => checkRoute({ pathPrefix: '/a/../b', upstream: 'http://x' }), /"\.\."/);
    assert.throws(() => checkRoute({ pathPrefix: '/a', upstream: 'http://x?q=1' }), /no query/);
    assert.throws(
      () => checkRoute({ pathPrefix: '/a', upstream: 'file:///etc' }),
      /http: or https:/,
    );
    assert.throws(
      () => checkRoute({ host: 'Bad Host', pathPrefix: '/a', upstream: 'http://x' }),
      /DNS name/,
    );
  });

  test('the last good version of a route is kept only for the same object (uid): a recreated route starts from nothing', () => {
    const config = new GatewayConfig();
    const obj = (uid: string, upstream: string) => ({
      metadata: { name: 'r', namespace: 'ns', uid, generation: 1 },
      spec: { pathPrefix: '/r', upstream },
    });
    const inputs = (routes: ReturnType<typeof obj>[]) => ({
      routes,
      authPolicies: [],
      rateLimitPolicies: [],
      secretValue: () => undefined,
    });
    assert.equal(config.compile(inputs([obj('u1', 'http://good')])).table.routes.length, 1);
    const kept = config.compile(inputs([obj('u1', 'bad')]));
    assert.equal(kept.table.routes[0]?.upstream.href, 'http://good/');
    assert.equal(kept.verdicts[0]?.accepted, false);
    assert.equal(config.compile(inputs([obj('u2', 'bad')])).table.routes.length, 0);
  });

  test('the routing table is ordered: host routes first, then longer prefixes', () => {
    const r = (key: string, host: string, prefix: string) => ({
      key,
      host,
      prefix,
      upstream: new URL('http://x'),
      stripPrefix: false,
      auth: undefined,
      rateLimit: undefined,
    });
    const table = new RoutingTable([r('a', '', '/'), r('b', '', '/api'), r('c', 'h.io', '/')]);
    assert.equal(table.match('h.io:8080', '/api/x')?.key, 'c');
    assert.equal(table.match('other', '/api/x')?.key, 'b');
    assert.equal(table.match('other', '/apix')?.key, 'a');
  });
});
