// The HTTP/2 transport (src/client/http2_pool.ts through Transport): ALPN, multiplexing,
// SETTINGS_MAX_CONCURRENT_STREAMS, flow control per stream, the PING health check, GOAWAY,
// refused streams, the stale-connection retry, and the behaviours HTTP/1.1 already had
// (gzip, Retry-After, metrics, timeouts) over h2.
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { before, test } from 'node:test';
import type { TestContext } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ConnectionError, RequestTimeoutError } from '../../src/client/errors.js';
import { Transport } from '../../src/client/transport.js';
import type { TransportOptions } from '../../src/client/transport.js';
import { generateTestCertificates } from '../../packages/testing/src/certs.js';
import type { TestCertificates } from '../../packages/testing/src/certs.js';
import { FakeClock } from '../../src/util/clock.js';
import { TOKEN, until } from './stub.js';

let certs: TestCertificates;
before(async () => {
  certs = await generateTestCertificates();
});

type StreamHandler = (
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  session: http2.ServerHttp2Session,
) => void;

interface H2Stub {
  url: string;
  port: number;
  sessions: http2.ServerHttp2Session[];
  requests: { method: string; path: string; session: number; authorization: string }[];
  streams: http2.ServerHttp2Stream[];
}

async function startH2(
  t: TestContext,
  handler: StreamHandler,
  settings: http2.Settings = {},
): Promise<H2Stub> {
  const server = http2.createSecureServer({
    key: certs.serverKey,
    cert: certs.serverCert,
    settings,
  });
  const stub: H2Stub = { url: '', port: 0, sessions: [], requests: [], streams: [] };
  server.on('session', (s) => {
    stub.sessions.push(s);
    s.on('error', () => undefined);
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    stub.streams.push(stream);
    stub.requests.push({
      method: String(headers[':method']),
      path: String(headers[':path']),
      session: stub.sessions.indexOf(stream.session as http2.ServerHttp2Session),
      authorization: String(headers.authorization),
    });
    handler(stream, headers, stream.session as http2.ServerHttp2Session);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stub.port = (server.address() as AddressInfo).port;
  stub.url = `https://127.0.0.1:${stub.port}`;
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of stub.sessions) s.destroy();
        server.close(() => r());
      }),
  );
  return stub;
}

function kubeConfig(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, caData: Buffer.from(certs.caCert).toString('base64') }],
    users: [{ name: 'u', token: TOKEN }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

function transportFor(t: TestContext, url: string, options: TransportOptions = {}): Transport {
  const transport = new Transport(kubeConfig(url), options);
  t.after(() => transport.close());
  return transport;
}

function ok(stream: http2.ServerHttp2Stream, body: unknown, headers = {}): void {
  stream.respond({ ':status': 200, 'content-type': 'application/json', ...headers });
  stream.end(JSON.stringify(body));
}

/** A watch-like answer: headers and one line, the stream left open. */
function openWatch(stream: http2.ServerHttp2Stream, line = '{"type":"BOOKMARK"}\n'): void {
  stream.respond({ ':status': 200, 'content-type': 'application/json' });
  stream.write(line);
}

function firstChunk(body: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    body.once('data', (c: Buffer) => resolve(c.toString()));
    body.once('error', reject);
  });
}

test('rule (client-go, ALPN): over TLS the transport speaks h2 and multiplexes requests and watches on one connection', async (t) => {
  const stub = await startH2(t, (stream, headers) => {
    if (String(headers[':path']).includes('watch=true')) openWatch(stream);
    else ok(stream, { path: headers[':path'] });
  });
  const transport = transportFor(t, stub.url);
  const watches = await Promise.all(
    [1, 2, 3].map(() =>
      transport.stream({ method: 'GET', path: '/api/v1/pods', query: { watch: true } }),
    ),
  );
  const answers = await Promise.all(
    [1, 2, 3, 4, 5].map((i) =>
      transport.request<{ path: string }>({ method: 'GET', path: `/api/v1/pods/p${i}` }),
    ),
  );
  assert.equal(answers[4]!.path, '/api/v1/pods/p5');
  assert.equal(transport.protocol, 'h2');
  assert.equal(stub.sessions.length, 1, 'one connection for 3 watches and 5 requests');
  assert.equal(transport.http2SessionCount, 1);
  assert.ok(stub.requests.every((r) => r.authorization === `Bearer ${TOKEN}`));
  for (const w of watches) w.close();
});

test('rule (ALPN): a TLS server that does not offer h2 is spoken to in HTTP/1.1', async (t) => {
  const server = https.createServer(
    { key: certs.serverKey, cert: certs.serverCert },
    (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ version: req.httpVersion }));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const transport = transportFor(t, `https://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const out = await transport.request<{ version: string }>({ method: 'GET', path: '/version' });
  assert.deepEqual(out, { version: '1.1' });
  assert.equal(transport.protocol, 'http/1.1');
  assert.equal(transport.http2SessionCount, 0);
});

test('rule (client-go DISABLE_HTTP2): http2: false, or the DISABLE_HTTP2 environment variable, keeps HTTP/1.1 with a server that offers h2', async (t) => {
  const server = http2.createSecureServer(
    { key: certs.serverKey, cert: certs.serverCert, allowHTTP1: true },
    (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ version: req.httpVersion }));
    },
  );
  const sockets = new Set<net.Socket>();
  server.on('secureConnection', (s: net.Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h1 = transportFor(t, url, { http2: false });
  assert.deepEqual(await h1.request({ method: 'GET', path: '/version' }), { version: '1.1' });
  assert.equal(h1.protocol, 'http/1.1');
  const h2 = transportFor(t, url);
  assert.deepEqual(await h2.request({ method: 'GET', path: '/version' }), { version: '2.0' });
  // client-go's environment switch: a non-empty DISABLE_HTTP2 is the default's opposite.
  process.env.DISABLE_HTTP2 = '1';
  let byEnv: Transport;
  try {
    byEnv = transportFor(t, url);
  } finally {
    delete process.env.DISABLE_HTTP2;
  }
  assert.deepEqual(await byEnv.request({ method: 'GET', path: '/version' }), { version: '1.1' });
  assert.equal(byEnv.protocol, 'http/1.1');
});

test('rule (Go StrictMaxConcurrentStreams=false, kube-apiserver --http2-max-streams-per-connection): a second connection opens when SETTINGS_MAX_CONCURRENT_STREAMS is reached', async (t) => {
  const stub = await startH2(t, (stream) => openWatch(stream), { maxConcurrentStreams: 2 });
  const transport = transportFor(t, stub.url);
  const watches = [];
  for (let i = 0; i < 5; i++) {
    watches.push(await transport.stream({ method: 'GET', path: `/w${i}`, query: { watch: true } }));
  }
  assert.equal(stub.sessions.length, 3, '5 streams at 2 per connection');
  assert.deepEqual(
    stub.requests.map((r) => r.session),
    [0, 0, 1, 1, 2],
  );
  // A closed stream frees room: the next one goes to a connection that has it.
  watches[0]!.close();
  await until(() => stub.streams[0]!.closed);
  watches.push(await transport.stream({ method: 'GET', path: '/w5', query: { watch: true } }));
  assert.equal(stub.sessions.length, 3, 'no fourth connection');
  for (const w of watches) w.close();
});

test('rule (HTTP/2 flow control): a slow consumer stalls only its own stream; the others go on', async (t) => {
  const total = 8 << 20;
  const chunk = Buffer.alloc(64 << 10, 120);
  let slowSent = 0;
  let slowStalled = false;
  const stub = await startH2(t, (stream, headers) => {
    if (headers[':path'] === '/slow') {
      stream.respond({ ':status': 200 });
      const pump = (): void => {
        while (slowSent < total) {
          slowSent += chunk.length;
          if (!stream.write(chunk)) {
            slowStalled = true;
            stream.once('drain', pump);
            return;
          }
        }
        stream.end();
      };
      pump();
    } else {
      stream.respond({ ':status': 200 });
      for (let i = 0; i < 64; i++) stream.write(chunk); // 4 MiB
      stream.end();
    }
  });
  const transport = transportFor(t, stub.url);
  const slow = await transport.stream({ method: 'GET', path: '/slow' });
  // Nobody reads `slow`. The other stream on the same connection is read to its end.
  const fast = await transport.stream({ method: 'GET', path: '/fast' });
  let fastBytes = 0;
  for await (const c of fast.body) fastBytes += (c as Buffer).length;
  assert.equal(fastBytes, 4 << 20);
  assert.equal(stub.sessions.length, 1, 'both streams on one connection');
  assert.ok(slowStalled, 'the server was held back on the unread stream');
  assert.ok(slowSent < total, `the server could not send all of the unread stream (${slowSent})`);
  // Reading it now lets it finish.
  let slowBytes = 0;
  for await (const c of slow.body) slowBytes += (c as Buffer).length;
  assert.equal(slowBytes, total);
  slow.close();
  fast.close();
});

/**
 * A TCP proxy in front of the h2 stub whose `blackhole()` stops all traffic of the
 * connections open now (a peer that vanished without a FIN: no PING answer ever comes).
 */
async function blackholeProxy(t: TestContext, port: number) {
  const pairs: { client: net.Socket; upstream: net.Socket; dead: boolean }[] = [];
  const proxy = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    const pair = { client, upstream, dead: false };
    pairs.push(pair);
    client.on('data', (d) => {
      if (!pair.dead) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!pair.dead) client.write(d);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        proxy.close(() => r());
      }),
  );
  return {
    url: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    blackhole: () => {
      for (const p of pairs) p.dead = true;
    },
  };
}

test('rule (client-go ReadIdleTimeout 30 s / PingTimeout 15 s): a connection that stops answering PINGs is closed and every stream on it fails, so watches start again', async (t) => {
  const stub = await startH2(t, (stream, headers) => {
    if (String(headers[':path']).startsWith('/w')) openWatch(stream);
    else ok(stream, {});
  });
  const proxy = await blackholeProxy(t, stub.port);
  const clock = new FakeClock();
  const transport = transportFor(t, proxy.url, { clock });
  const w1 = await transport.stream({ method: 'GET', path: '/w1' });
  const w2 = await transport.stream({ method: 'GET', path: '/w2' });
  await firstChunk(w1.body);
  await firstChunk(w2.body);
  const errors = [w1, w2].map(
    (w) =>
      new Promise<unknown>((resolve) => {
        w.body.on('error', resolve);
        w.body.on('end', () => resolve('ended'));
      }),
  );
  proxy.blackhole();
  await clock.advance(30_000); // idle: the PING goes out and is never answered
  await clock.advance(14_999);
  assert.equal(transport.http2SessionCount, 1, 'not closed before PingTimeout');
  await clock.advance(1);
  for (const err of await Promise.all(errors)) {
    assert.equal((err as { code?: string }).code, 'ERR_HTTP2_PING_TIMEOUT', String(err));
  }
  await until(() => transport.http2SessionCount === 0);
  // The next watch goes to a new connection.
  const w3 = await transport.stream({ method: 'GET', path: '/w3' });
  assert.equal(stub.sessions.length, 2);
  w1.close();
  w2.close();
  w3.close();
});

test('rule (health check): a connection that answers its PINGs stays open', async (t) => {
  const stub = await startH2(t, (stream, headers) => {
    if (headers[':path'] === '/w') openWatch(stream);
    else ok(stream, {});
  });
  const clock = new FakeClock();
  const transport = transportFor(t, stub.url, { clock });
  const w = await transport.stream({ method: 'GET', path: '/w' });
  await clock.advance(30_000); // PING sent
  // A request after the PING on the same connection returns after the PING's answer.
  await transport.request({ method: 'GET', path: '/x' });
  await clock.advance(15_000);
  await clock.advance(30_000); // the next PING, answered as well
  await transport.request({ method: 'GET', path: '/y' });
  await clock.advance(15_000);
  assert.equal(transport.http2SessionCount, 1);
  assert.equal(stub.sessions.length, 1);
  assert.equal(w.body.destroyed, false);
  w.close();
  // An idle connection runs no health-check timer: its only timer is the idle close.
  await until(() => clock.pendingTimers() === 1 && clock.nextTimerAt() === clock.now() + 90_000);
});

test('rule (Go http2.Transport IdleConnTimeout, client-go 90 s): a connection with no open stream is closed after the idle timeout, not before; the next request opens a new one', async (t) => {
  const stub = await startH2(t, (stream, headers) => {
    if (headers[':path'] === '/w') openWatch(stream);
    else ok(stream, {});
  });
  const clock = new FakeClock();
  // The health check is off so that the only timer of an idle connection is its close.
  const transport = transportFor(t, stub.url, { clock, http2ReadIdleTimeoutMs: 0 });
  await transport.request({ method: 'GET', path: '/a' });
  // The stream is released when it closes (just after the answer): the idle timer starts then.
  await until(() => clock.nextTimerAt() === clock.now() + 90_000);
  const serverClosed = new Promise<void>((r) => stub.sessions[0]!.once('close', () => r()));
  await clock.advance(89_999);
  assert.equal(transport.http2SessionCount, 1, 'not closed before the idle timeout');
  await clock.advance(1);
  await serverClosed;
  await until(() => transport.http2SessionCount === 0);
  await transport.request({ method: 'GET', path: '/b' });
  assert.equal(stub.sessions.length, 2, 'the next request opened a new connection');
});

test('rule (IdleConnTimeout counts from the last stream): a connection carrying a watch is not closed as idle; it is once the watch ends and the timeout passes', async (t) => {
  const stub = await startH2(t, (stream, headers) => {
    if (headers[':path'] === '/w') openWatch(stream);
    else ok(stream, {});
  });
  const clock = new FakeClock();
  const transport = transportFor(t, stub.url, {
    clock,
    http2ReadIdleTimeoutMs: 0,
    http2IdleConnectionTimeoutMs: 5_000,
  });
  await transport.request({ method: 'GET', path: '/a' });
  const w = await transport.stream({ method: 'GET', path: '/w' });
  await firstChunk(w.body);
  await clock.advance(60_000);
  assert.equal(transport.http2SessionCount, 1, 'a watch keeps its connection');
  assert.equal(w.body.destroyed, false);
  // A request during the watch does not start the idle timer when it ends.
  await transport.request({ method: 'GET', path: '/b' });
  assert.equal(clock.pendingTimers(), 0);
  const serverClosed = new Promise<void>((r) => stub.sessions[0]!.once('close', () => r()));
  w.close();
  await until(() => clock.pendingTimers() === 1);
  await clock.advance(5_000);
  await serverClosed;
  await until(() => transport.http2SessionCount === 0);
  assert.equal(stub.sessions.length, 1);
});

test('an idle connection timeout of 0 keeps idle connections until the transport is closed', async (t) => {
  const stub = await startH2(t, (stream) => ok(stream, {}));
  const clock = new FakeClock();
  const transport = transportFor(t, stub.url, {
    clock,
    http2ReadIdleTimeoutMs: 0,
    http2IdleConnectionTimeoutMs: 0,
  });
  await transport.request({ method: 'GET', path: '/a' });
  await until(() => stub.streams[0]!.closed);
  assert.equal(clock.pendingTimers(), 0);
  await transport.request({ method: 'GET', path: '/b' });
  assert.equal(stub.sessions.length, 1);
  assert.equal(transport.http2SessionCount, 1);
});

test('rule (GOAWAY): streams the server accepted finish on the old connection; new requests go to a new one', async (t) => {
  let watchStream: http2.ServerHttp2Stream | undefined;
  const stub = await startH2(t, (stream, headers) => {
    if (headers[':path'] === '/w') {
      watchStream = stream;
      openWatch(stream, 'one\n');
    } else ok(stream, { session: stub.sessions.indexOf(stream.session as never) });
  });
  const transport = transportFor(t, stub.url);
  const w = await transport.stream({ method: 'GET', path: '/w' });
  assert.equal(await firstChunk(w.body), 'one\n');
  stub.sessions[0]!.goaway(http2.constants.NGHTTP2_NO_ERROR, watchStream!.id);
  const out = await transport.request<{ session: number }>({ method: 'GET', path: '/after' });
  assert.equal(out.session, 1, 'answered on a new connection');
  // The watch the server accepted before GOAWAY still delivers and ends cleanly.
  const rest = new Promise<string>((resolve) => {
    let text = '';
    w.body.on('data', (c: Buffer) => (text += c.toString()));
    w.body.on('end', () => resolve(text));
  });
  watchStream!.end('two\n');
  assert.equal(await rest, 'two\n');
  w.close();
});

test('rule (Go transport, unprocessed requests): a POST the server refused (REFUSED_STREAM) is sent again', async (t) => {
  let refused = 0;
  const stub = await startH2(t, (stream) => {
    if (refused++ === 0) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    else ok(stream, { created: true });
  });
  const transport = transportFor(t, stub.url);
  const out = await transport.request({ method: 'POST', path: '/api/v1/pods', body: { a: 1 } });
  assert.deepEqual(out, { created: true });
  assert.deepEqual(
    stub.requests.map((r) => r.method),
    ['POST', 'POST'],
  );
});

test('rule (Go transport, RFC 9110 safe methods): a GET on a reused connection that the server drops is sent once more on a new one; a POST is not', async (t) => {
  const stub = await startH2(t, (stream, _h, session) => {
    if (stub.requests.filter((r) => r.session === stub.sessions.indexOf(session)).length > 1) {
      session.destroy();
      return;
    }
    ok(stream, {});
  });
  const transport = transportFor(t, stub.url);
  await transport.request({ method: 'GET', path: '/a' });
  await transport.request({ method: 'GET', path: '/b' });
  assert.deepEqual(
    stub.requests.map((r) => `${r.path}@${r.session}`),
    ['/a@0', '/b@0', '/b@1'],
  );
  const err = await transport
    .request({ method: 'POST', path: '/c', body: {} })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ConnectionError, String(err));
  assert.equal(stub.requests.filter((r) => r.method === 'POST').length, 1);
});

test('gzip, Retry-After and rest-client metrics behave over h2 as over HTTP/1.1', async (t) => {
  let calls = 0;
  const stub = await startH2(t, (stream) => {
    if (calls++ === 0) {
      stream.respond({ ':status': 429, 'retry-after': '2', 'content-type': 'application/json' });
      stream.end('{}');
      return;
    }
    stream.respond({ ':status': 200, 'content-encoding': 'gzip' });
    stream.end(gzipSync(JSON.stringify({ zipped: true })));
  });
  const clock = new FakeClock();
  const codes: string[] = [];
  const transport = transportFor(t, stub.url, {
    clock,
    metricsProvider: {
      incrementRequestResult: (code) => codes.push(code),
      observeRequestLatency: () => undefined,
    },
  });
  const pending = transport.request({ method: 'GET', path: '/g' });
  await until(() => clock.pendingTimers() > 1 || codes.length > 0);
  await until(() => codes.length === 1);
  await clock.advance(2_000);
  assert.deepEqual(await pending, { zipped: true });
  assert.deepEqual(codes, ['429', '200']);
  assert.equal(stub.requests.length, 2);
});

test('over h2 a request without an answer times out and an aborted watch resets only its stream', async (t) => {
  const stub = await startH2(t, (stream, headers) => {
    if (headers[':path'] === '/w') openWatch(stream);
    else if (headers[':path'] === '/ok') ok(stream, {});
    // '/hang': never answered
  });
  const clock = new FakeClock();
  const transport = transportFor(t, stub.url, { clock, timeoutMs: 1000 });
  const ac = new AbortController();
  const w = await transport.stream({ method: 'GET', path: '/w', signal: ac.signal });
  const hang = transport.request({ method: 'GET', path: '/hang' }).catch((e: unknown) => e);
  await until(() => stub.requests.length === 2);
  await clock.advance(1000);
  assert.ok((await hang) instanceof RequestTimeoutError);
  const reason = new Error('stop');
  const failed = new Promise<unknown>((r) => w.body.on('error', r));
  ac.abort(reason);
  assert.equal(await failed, reason);
  await transport.request({ method: 'GET', path: '/ok' });
  assert.equal(stub.sessions.length, 1, 'the connection outlived the reset streams');
});

test('over h2 a 401 applies the kubeconfig credentials again and retries once, as over HTTP/1.1', async (t) => {
  let calls = 0;
  const stub = await startH2(t, (stream) => {
    if (calls++ === 0) {
      stream.respond({ ':status': 401, 'content-type': 'application/json' });
      stream.end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":401}');
    } else ok(stream, { ok: true });
  });
  const kc = kubeConfig(stub.url);
  let applied = 0;
  const apply = kc.applyToHTTPSOptions.bind(kc);
  kc.applyToHTTPSOptions = async (o) => {
    applied++;
    await apply(o);
  };
  const transport = new Transport(kc);
  t.after(() => transport.close());
  assert.deepEqual(await transport.request({ method: 'GET', path: '/x' }), { ok: true });
  assert.equal(applied, 2, 'credentials applied again after the 401');
  assert.equal(stub.requests.length, 2);
  assert.equal(stub.sessions.length, 1, 'the retry reuses the connection');
});
