// Security: credentials never appear in an error or a log line, whatever fails, and TLS
// verification is on unless the kubeconfig explicitly turns it off.
//
// test/client/transport.test.ts and auth.test.ts pin the transport's own paths (403, 500
// text, reset, Retry-After, timeout, refused, 401 over HTTPS, unknown CA). This file adds the
// paths above it: the resource client (list/get/create/watch) and a running informer
// (reflector backoff, watch ERROR events, malformed lines, dropped streams), a basic-auth
// password and a client key next to the bearer token, exec credential plugins, and every
// rendering of an error (message, stack, inspect, JSON, the cause chain).
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { configMapsResource } from '../../src/client/builtins.js';
import { ConnectionError, KubeConfigError } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import { generateTestCertificates, startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer, TestCertificates } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { json, recordingLogger, startStub, status } from '../client/stub.js';
import type { Stub } from '../client/stub.js';

const TOKEN = 'sekret-token-XYZ-7d1c';
const PASSWORD = 'sekret-password-Q9w2';

/** Every rendering of an error a user or a log pipeline may see, cause chain included. */
function renderings(err: unknown): string[] {
  const out: string[] = [String(err), inspect(err, { depth: 20, showHidden: true })];
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    out.push(e.message, e.stack ?? '');
    try {
      out.push(JSON.stringify(e, Object.getOwnPropertyNames(e)));
      out.push(JSON.stringify(e));
    } catch {
      // a circular property: inspect above already covers it
    }
  }
  return out;
}

/**
 * Fails when a text holds a secret or any 10-character piece of one: V8's JSON errors, for
 * one, quote only the first characters of the text they reject.
 */
function assertNoSecret(secrets: readonly string[], where: string, texts: readonly string[]): void {
  const pieces = new Set<string>();
  for (const secret of secrets) {
    for (let i = 0; i + 10 <= secret.length; i++) pieces.add(secret.slice(i, i + 10));
  }
  for (const text of texts) {
    for (const piece of pieces) {
      assert.ok(
        !text.includes(piece),
        `${where} contains a piece of a secret (${piece}): ${text.slice(0, 300)}`,
      );
    }
  }
}

/** The base64 body lines of a PEM key: any of them in a message would leak the key. */
function keyFragments(pem: string): string[] {
  return pem
    .split('\n')
    .filter((l) => l.length >= 40 && !l.startsWith('-----'))
    .map((l) => l.slice(0, 40));
}

function kubeConfig(server: string, user: Record<string, unknown>, cluster = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: server.startsWith('http:'), ...cluster }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

type Mode =
  | 'unauthorized'
  | 'forbidden'
  | 'server-error-text'
  | 'server-error-status'
  | 'malformed-body'
  | 'reset'
  | 'watch-error-event'
  | 'watch-malformed-line'
  | 'watch-dropped';

function answer(mode: Mode, req: http.IncomingMessage, res: http.ServerResponse): void {
  const isWatch = (req.url ?? '').includes('watch=true');
  switch (mode) {
    case 'unauthorized':
      json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
      return;
    case 'forbidden':
      json(
        res,
        403,
        status(403, 'Forbidden', 'configmaps is forbidden: User "system:anonymous" cannot list'),
      );
      return;
    case 'server-error-text':
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end('internal error while handling the request');
      return;
    case 'server-error-status':
      json(res, 500, status(500, 'InternalError', 'etcd is unhappy'), { 'Retry-After': '0' });
      return;
    case 'malformed-body':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"ConfigMapList","items":[{');
      return;
    case 'reset':
      req.socket.destroy();
      return;
    default:
      break;
  }
  if (!isWatch) {
    json(res, 200, { kind: 'ConfigMapList', metadata: { resourceVersion: '5' }, items: [] });
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  if (mode === 'watch-error-event') {
    res.end(
      JSON.stringify({
        type: 'ERROR',
        object: status(410, 'Expired', 'too old resource version'),
      }) + '\n',
    );
  } else if (mode === 'watch-malformed-line') {
    res.end('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\nnot json at all\n');
  } else {
    res.write('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"6"}}}\n');
    setImmediate(() => req.socket.destroy());
  }
}

describe('no credential in any error or log line', () => {
  let certs: TestCertificates;
  let mode: Mode = 'forbidden';
  let stub: Stub;
  let secrets: string[];
  const users: [string, Record<string, unknown>][] = [];

  before(async () => {
    certs = await generateTestCertificates();
    secrets = [TOKEN, PASSWORD, ...keyFragments(certs.clientKey)];
    stub = await startStub((req, res) => answer(mode, req, res));
    users.push(
      ['bearer token', { token: TOKEN }],
      ['basic auth', { username: 'alice', password: PASSWORD }],
      [
        'token and client key',
        {
          token: TOKEN,
          certData: Buffer.from(certs.clientCert).toString('base64'),
          keyData: Buffer.from(certs.clientKey).toString('base64'),
        },
      ],
    );
  });
  after(() => stub.close());

  test('the resource client: list, get, create and watch fail on 401, 403, 500, a malformed body and a reset without showing a secret', async () => {
    const modes: Mode[] = [
      'unauthorized',
      'forbidden',
      'server-error-text',
      'server-error-status',
      'malformed-body',
      'reset',
    ];
    let failures = 0;
    for (const [userName, user] of users) {
      const logger = recordingLogger();
      const transport = new Transport(kubeConfig(stub.url, user), { logger, maxRetries: 0 });
      try {
        const client = new ResourceClient(transport, configMapsResource).namespace('default');
        for (const m of modes) {
          mode = m;
          const attempts: [string, () => Promise<unknown>][] = [
            ['list', () => client.list()],
            ['get', () => client.get('x')],
            ['create', () => client.create({ metadata: { name: 'x' } })],
            ['watch', () => client.watch({ resourceVersion: '1' })],
          ];
          for (const [op, run] of attempts) {
            const err = await run().then(
              () => undefined,
              (e: unknown) => e,
            );
            if (m === 'malformed-body' && op === 'watch') continue; // a 200 watch is not an error
            assert.ok(err instanceof Error, `${userName} ${m} ${op} did not fail`);
            failures++;
            assertNoSecret(secrets, `${userName} ${m} ${op}`, renderings(err));
          }
        }
        assertNoSecret(secrets, `${userName} log`, logger.lines);
      } finally {
        transport.close();
      }
    }
    assert.ok(failures >= 60, `only ${failures} failures exercised`);
    // The secrets were really sent: the stub saw the token and the basic-auth password.
    const sent = stub.requests.map((r) => r.headers.authorization ?? '');
    assert.ok(sent.includes(`Bearer ${TOKEN}`));
    assert.ok(sent.includes(`Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`));
  });

  test('a refused connection and a failed TLS handshake show no secret, with a client key configured', async () => {
    const closed = await startStub(() => {});
    const url = closed.url;
    await closed.close();
    const https = await startTestApiServer({ https: true, auth: { token: 'the-right-one' } });
    try {
      for (const [userName, user] of users) {
        for (const [what, server] of [
          ['refused', url],
          ['unknown CA', https.url],
        ] as const) {
          const logger = recordingLogger();
          const transport = new Transport(kubeConfig(server, user), { logger });
          try {
            const err = await new ResourceClient(transport, configMapsResource)
              .list()
              .catch((e: unknown) => e);
            assert.ok(err instanceof ConnectionError, `${userName} ${what}: ${String(err)}`);
            assertNoSecret(secrets, `${userName} ${what}`, renderings(err));
            assertNoSecret(secrets, `${userName} ${what} log`, logger.lines);
          } finally {
            transport.close();
          }
        }
      }
    } finally {
      await https.close();
    }
  });

  test('a running informer logs every failure (401, 403, 500, malformed body, reset, watch ERROR event, malformed line, dropped watch) without a secret', async () => {
    const clock = new FakeClock();
    const script: Mode[] = [
      'unauthorized',
      'forbidden',
      'server-error-text',
      'malformed-body',
      'reset',
      'watch-error-event',
      'watch-malformed-line',
      'watch-dropped',
      'server-error-status',
    ];
    for (const [userName, user] of users) {
      const logger = recordingLogger();
      let served = 0;
      const informerStub = await startStub((req, res) => {
        const m = script[Math.min(served, script.length - 1)] as Mode;
        served++;
        if (served > script.length && (req.url ?? '').includes('watch=true')) {
          // Done: leave the last watch open until the informer stops.
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.flushHeaders();
          return;
        }
        answer(served > script.length ? 'watch-dropped' : m, req, res);
      });
      const factory = new SharedInformerFactory(kubeConfig(informerStub.url, user), {
        clock,
        logger,
        transportOptions: { clock, logger, maxRetries: 0 },
      });
      factory.forResource(configMapsResource);
      const stop = new AbortController();
      factory.start(stop.signal);
      try {
        for (let i = 0; i < 400 && served <= script.length + 1; i++) {
          await new Promise<void>((r) => setImmediate(r));
          await clock.advance(30_000);
        }
        assert.ok(served > script.length, `${userName}: the informer made only ${served} requests`);
      } finally {
        stop.abort();
        await factory.shutdown();
        await informerStub.close();
      }
      assert.ok(logger.lines.length >= 3, `${userName}: failures were logged`);
      assertNoSecret(secrets, `${userName} informer log`, logger.lines);
    }
  });

  test('an exec credential plugin that prints a bare token, or fails, gives a KubeConfigError without the token', async () => {
    const plugins: [string, string, boolean][] = [
      // A plugin that prints the token instead of an ExecCredential: client-node's JSON
      // parse error quotes it (fixed in the transport).
      ['bare token on stdout', `process.stdout.write(${JSON.stringify(TOKEN)})`, true],
      ['truncated ExecCredential', `process.stdout.write('{"status":{"token":"${TOKEN}')`, true],
      ['exit 1 with a plain message', `console.error('login expired'); process.exit(1)`, false],
    ];
    for (const [what, script, checkToken] of plugins) {
      const logger = recordingLogger();
      const kc = kubeConfig(stub.url, {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: ['-e', script],
          interactiveMode: 'Never',
        },
      });
      const transport = new Transport(kc, { logger });
      try {
        const err = await transport.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
        assert.ok(err instanceof KubeConfigError, `${what}: ${String(err)}`);
        if (checkToken) assertNoSecret([TOKEN], what, renderings(err));
        assertNoSecret([TOKEN], `${what} log`, logger.lines);
      } finally {
        transport.close();
      }
    }
  });
});

describe('TLS verification is on by default', () => {
  let server: TestApiServer;
  let otherCa: TestCertificates;

  before(async () => {
    server = await startTestApiServer({ https: true, auth: { token: TOKEN } });
    otherCa = await generateTestCertificates();
  });
  after(() => server.close());

  async function list(cluster: Record<string, unknown>): Promise<unknown> {
    const kc = kubeConfig(server.url, { token: TOKEN }, cluster);
    const transport = new Transport(kc);
    try {
      return await new ResourceClient(transport, configMapsResource).list();
    } catch (err) {
      return err;
    } finally {
      transport.close();
    }
  }

  const ca = (pem: string): string => Buffer.from(pem).toString('base64');

  test('without a CA, with another CA, or with a server name the certificate does not cover, the request fails with a TLS error', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['no CA (system roots only)', {}],
      ['skipTLSVerify explicitly false', { skipTLSVerify: false }],
      ['a CA that did not sign the server certificate', { caData: ca(otherCa.caCert) }],
      [
        'the right CA, a server name not in the certificate',
        { caData: ca(server.certificates!.caCert), tlsServerName: 'wrong.example.com' },
      ],
    ];
    for (const [what, cluster] of cases) {
      const err = await list(cluster);
      assert.ok(
        err instanceof ConnectionError,
        `${what}: expected a TLS failure, got ${String(err)}`,
      );
      assert.match(
        `${err.code} ${err.message}`,
        /certificate|self.signed|altname|UNABLE_TO_VERIFY|CERT/i,
        what,
      );
      assertNoSecret([TOKEN], what, renderings(err));
    }
  });

  test('the right CA verifies; turning verification off takes the explicit skipTLSVerify flag', async () => {
    const verified = await list({ caData: ca(server.certificates!.caCert) });
    assert.ok(!(verified instanceof Error), String(verified));
    const skipped = await list({ skipTLSVerify: true });
    assert.ok(!(skipped instanceof Error), String(skipped));
  });
});
