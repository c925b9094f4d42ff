// Issue #34 against the Manager's probe and metrics servers and the secured-metrics filter:
// - `GET //` (and `//x:99999/validate`, `//@`, `///`) answered 500 `Invalid URL`; Go's
//   server parses a request-target before any handler runs: these are paths (404 here),
//   and a target that does not parse is 400;
// - a TokenReview that cannot be made (API server unreachable, 5xx, no answer within
//   controller-runtime's 10 s TokenAccessReviewTimeout) answered 401; controller-runtime's
//   filter answers 500 `Authentication failed`, so that a scraper reports an outage. A
//   failed SubjectAccessReview is 500 `Authorization for user <name> failed`; a refused
//   token stays 401 and a denied review 403.
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { Transport } from '../../src/client/transport.js';
import { Manager } from '../../src/manager/index.js';
import { withAuthenticationAndAuthorization } from '../../src/manager/metrics_auth.js';
import { metricsHandler } from '../../src/manager/metrics_server.js';
import { HttpServer, parseBindAddress } from '../../src/manager/servers.js';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { json, kubeConfigFor, startStub, status } from '../client/stub.js';
import type { Stub } from '../client/stub.js';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { recordingLogger } from './support.js';

/** GET with the target exactly as given (curl --path-as-is) on a fresh connection. */
function rawGet(
  address: AddressInfo | undefined,
  target: string,
  headers = '',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    if (address === undefined) return reject(new Error('not listening'));
    const socket = netConnect(address.port, address.address, () =>
      socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`),
    );
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({
        status: Number(text.slice(9, 12)),
        body: text.slice(text.indexOf('\r\n\r\n') + 4),
      }),
    );
  });
}

describe('probe and metrics servers: request-targets as Go parses them', () => {
  let apiserver: TestApiServer;
  let manager: Manager;
  const stop = new AbortController();
  let running: Promise<void>;
  before(async () => {
    apiserver = await startTestApiServer();
    manager = new Manager({
      kubeConfig: apiserver.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '127.0.0.1:0',
      metricsRegistry: { metrics: () => 'up 1\n', contentType: 'text/plain; version=0.0.4' },
      logger: noopLogger,
    });
    running = manager.start(stop.signal);
    await manager.serving();
  });
  after(async () => {
    stop.abort();
    await running;
    await apiserver.close();
  });

  test("issue #34's targets are paths, 404 on both servers (was 500 Invalid URL); the next probe is answered", async () => {
    for (const target of ['//', '//x:99999/validate', '//@', '///']) {
      for (const address of [manager.healthProbeAddress, manager.metricsAddress]) {
        const answer = await rawGet(address, target);
        assert.equal(answer.status, 404, target);
        assert.equal(answer.body, '404 page not found\n');
      }
    }
    assert.equal((await rawGet(manager.healthProbeAddress, '/healthz')).body, 'ok');
    assert.equal((await rawGet(manager.metricsAddress, '/metrics')).body, 'up 1\n');
  });

  test('a target that does not parse is 400 before the handler runs; escapes in a check name are decoded once', async () => {
    for (const target of ['/healthz%zz', '/readyz/%E2%9C', '*', '/metrics?x=%%']) {
      const probe = await rawGet(manager.healthProbeAddress, target);
      if (target.startsWith('/metrics')) {
        // The query is not the path's business: /metrics?x=%% parses (Go keeps it raw).
        assert.equal((await rawGet(manager.metricsAddress, target)).status, 200);
        continue;
      }
      assert.equal(probe.status, target === '/readyz/%E2%9C' ? 404 : 400, target);
    }
    // `/healthz/%70ing` names the check `ping` (Go decodes the path once).
    assert.equal((await rawGet(manager.healthProbeAddress, '/healthz/%70ing')).body, 'ok');
    assert.equal((await rawGet(manager.healthProbeAddress, '/readyz/%ZZ')).status, 400);
    assert.equal((await rawGet(manager.healthProbeAddress, 'http://x:99999/healthz')).body, 'ok');
  });

  test('serverLimits that make no sense are refused at construction, naming the limit', () => {
    assert.throws(
      () =>
        new Manager({
          kubeConfig: apiserver.kubeConfig(),
          serverLimits: { readHeaderTimeoutMs: -1 },
        }),
      /serverLimits: readHeaderTimeoutMs must be a non-negative integer/,
    );
  });

  test('an idle keep-alive connection to the probe server is closed after serverLimits.idleTimeoutMs', async () => {
    const m = new Manager({
      kubeConfig: apiserver.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      logger: noopLogger,
      serverLimits: { idleTimeoutMs: 100, readHeaderTimeoutMs: 100, readTimeoutMs: 200 },
    });
    const ctl = new AbortController();
    const run = m.start(ctl.signal);
    try {
      await m.serving();
      const address = m.healthProbeAddress!;
      const closed = await new Promise<string>((resolve) => {
        const socket = netConnect(address.port, address.address, () =>
          socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
        );
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (c: string) => (text += c));
        socket.on('close', () => resolve(text));
      });
      assert.match(closed, /^HTTP\/1\.1 200 OK/);
      assert.match(closed, /keep-alive: timeout=0/i);
    } finally {
      ctl.abort();
      await run;
    }
  });
});

/** The filter of secured metrics over `transport`, served on 127.0.0.1 without TLS. */
async function securedMetrics(
  transport: Transport,
  clock: FakeClock,
): Promise<{ server: HttpServer; lines: string[] }> {
  const { logger, lines } = recordingLogger();
  const handler = withAuthenticationAndAuthorization(
    metricsHandler({ metrics: () => 'up 1\n', contentType: 'text/plain' }),
    { transport, clock, logger },
  );
  const server = await HttpServer.listen(
    'metrics',
    parseBindAddress('metricsBindAddress', '127.0.0.1:0')!,
    handler,
    { logger: noopLogger, clock },
  );
  return { server, lines };
}

function scrape(server: HttpServer, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.address.port,
        path: '/metrics',
        agent: false,
        headers: { Authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('secured metrics when the API server cannot be asked (controller-runtime filters)', () => {
  let stub: Stub;
  let secured: { server: HttpServer; lines: string[] };
  const clock = new FakeClock();
  let hang: (() => void) | undefined;
  const answers: {
    tokenreviews: (res: ServerResponse, req: IncomingMessage) => void;
    subjectaccessreviews: (res: ServerResponse) => void;
  } = {
    tokenreviews: (res) =>
      json(res, 200, { status: { authenticated: true, user: { username: 'prometheus' } } }),
    subjectaccessreviews: (res) => json(res, 200, { status: { allowed: true } }),
  };

  before(async () => {
    stub = await startStub((req, res) => {
      if (req.url?.includes('tokenreviews')) answers.tokenreviews(res, req);
      else answers.subjectaccessreviews(res);
    });
    secured = await securedMetrics(
      new Transport(kubeConfigFor(stub.url), { clock, logger: noopLogger, maxRetries: 0 }),
      clock,
    );
  });
  after(async () => {
    hang?.();
    await secured.server.close();
    await stub.close();
  });

  test('a TokenReview answered 5xx is 500 Authentication failed, logged; a refused token stays 401', async () => {
    answers.tokenreviews = (res) =>
      json(res, 503, status(503, 'ServiceUnavailable', 'etcd is down'));
    const failed = await scrape(secured.server, 'token-a');
    assert.deepEqual(failed, { status: 500, body: 'Authentication failed\n' });
    assert.ok(secured.lines.some((l) => /^error metrics: Authentication failed/.test(l)));

    answers.tokenreviews = (res) => json(res, 201, { status: { authenticated: false } });
    assert.deepEqual(await scrape(secured.server, 'token-b'), {
      status: 401,
      body: 'Unauthorized\n',
    });
  });

  test('a TokenReview with no answer within reviewTimeoutMs (10 s, the fake clock) is 500', async () => {
    const arrived = new Promise<void>((resolve) => {
      answers.tokenreviews = (res) => {
        hang = () => res.destroy();
        resolve();
      };
    });
    const answer = scrape(secured.server, 'token-c');
    await arrived;
    await clock.advance(10_000);
    assert.deepEqual(await answer, { status: 500, body: 'Authentication failed\n' });
  });

  test('a failed SubjectAccessReview is 500 Authorization for user <name> failed; a denied one 403', async () => {
    answers.tokenreviews = (res) =>
      json(res, 201, { status: { authenticated: true, user: { username: 'prometheus' } } });
    answers.subjectaccessreviews = (res) => json(res, 500, status(500, 'InternalError', 'boom'));
    assert.deepEqual(await scrape(secured.server, 'token-d'), {
      status: 500,
      body: 'Authorization for user prometheus failed\n',
    });
    answers.subjectaccessreviews = (res) => json(res, 201, { status: { allowed: false } });
    assert.deepEqual(await scrape(secured.server, 'token-e'), {
      status: 403,
      body: 'Authorization denied for user prometheus\n',
    });
    // The denial is remembered for 30 s (the delegating authorizer's DenyCacheTTL).
    answers.subjectaccessreviews = (res) => json(res, 201, { status: { allowed: true } });
    assert.equal((await scrape(secured.server, 'token-f')).status, 403);
    await clock.advance(30_000);
    assert.deepEqual(await scrape(secured.server, 'token-f'), { status: 200, body: 'up 1\n' });
  });

  test('an API server that cannot be reached is 500 Authentication failed', async () => {
    const gone = await startStub(() => undefined);
    const url = gone.url;
    await gone.close();
    const unreachable = await securedMetrics(
      new Transport(kubeConfigFor(url), { clock, logger: noopLogger, maxRetries: 0 }),
      clock,
    );
    try {
      assert.deepEqual(await scrape(unreachable.server, 'token-g'), {
        status: 500,
        body: 'Authentication failed\n',
      });
    } finally {
      await unreachable.server.close();
    }
  });
});
