// The guard every server of the kit runs on (src/util/http_server.ts), checked against Go's
// net/http rule "the server guards the handler": a request-target that does not parse is
// answered 400 before any handler runs, a handler that throws or rejects is answered 500
// and logged once, nothing escapes as an uncaught exception or unhandled rejection, and the
// server answers the next request. Every phase is bounded: Node's own timers (TLS
// handshake, headers, whole request, keep-alive) are tested with small values on loopback,
// awaiting the close; the kit's own HTTP/2 session and stream timers on the fake clock.
import assert from 'node:assert/strict';
import { constants as http2Constants, connect as h2connect } from 'node:http2';
import type { ClientHttp2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { FakeClock } from '../../src/util/clock.js';
import { GuardedHttpServer, InvalidServerLimitsError } from '../../src/util/http_server.js';
import type {
  GuardedHandler,
  GuardedHttpServerOptions,
  HttpServerLimits,
} from '../../src/util/http_server.js';
import { readRequestBody } from '../../src/util/request_body.js';
import { generateCertificateAuthority } from '../../src/webhook/index.js';
import { recordingLogger } from '../manager/support.js';

const pair = generateCertificateAuthority().issue({
  dnsNames: ['localhost'],
  ipAddresses: ['127.0.0.1'],
});
const tls = { cert: pair.cert, key: pair.key };

/** Uncaught exceptions and unhandled rejections seen while a test ran (must stay empty). */
const escaped: unknown[] = [];
const onEscape = (err: unknown): void => void escaped.push(err);
before(() => {
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
after(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});
afterEach(() => {
  assert.deepEqual(escaped, [], 'nothing escapes the guard');
});

/** The handler of most tests: echoes the parsed path, or misbehaves on request. */
const echo: GuardedHandler = async (req, res, target) => {
  switch (target.path) {
    case '/throw':
      throw new TypeError('sync bug');
    case '/reject':
      await Promise.resolve();
      throw new RangeError('async bug');
    case '/half':
      res.writeHead(200, { 'content-type': 'text/plain' });
      (res as { write(b: string): boolean }).write('half an answer');
      await new Promise((r) => setImmediate(r));
      throw new Error('bug after the headers');
    case '/twice':
      res.end('once');
      res.end('twice');
      (res as { write(b: string): void }).write('after the end');
      return;
    case '/body': {
      const body = await readRequestBody(req, res, 1000);
      if (body.tooLarge) {
        res.writeHead(413, { 'content-type': 'text/plain' });
        res.end(`too large: ${body.declaredLength ?? `${body.bytesRead} read`}`);
        return;
      }
      res.end(`read ${body.body.length}`);
      return;
    }
    default:
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`path=${target.path} query=${target.rawQuery}`);
  }
};

interface Running {
  server: GuardedHttpServer;
  port: number;
  lines: string[];
  clock: FakeClock;
  stop(): Promise<void>;
}

async function start(
  options: {
    tls?: boolean;
    http2?: boolean;
    limits?: HttpServerLimits;
    handler?: GuardedHandler;
  } = {},
): Promise<Running> {
  const { logger, lines } = recordingLogger();
  const clock = new FakeClock();
  const common = {
    name: 'test server',
    logger,
    clock,
    handler: options.handler ?? echo,
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const opts: GuardedHttpServerOptions =
    options.http2 === true
      ? { ...common, tls, http2: true }
      : options.tls === true
        ? { ...common, tls }
        : { ...common };
  const server = new GuardedHttpServer(opts);
  const { port } = await server.listen(0, '127.0.0.1');
  return { server, port, lines, clock, stop: () => server.close() };
}

interface RawAnswer {
  text: string;
  status: number;
  closed: boolean;
}

/**
 * Send raw bytes on a fresh connection (plain or TLS/HTTP/1.1) and collect everything until
 * the server closes it (or, with `untilAnswer`, until a whole answer arrived).
 */
function raw(
  port: number,
  bytes: string | Buffer,
  options: { tls?: boolean; end?: boolean; untilAnswer?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const onConnect = (): void => {
      if (options.end === false) socket.write(bytes);
      else socket.end(bytes);
    };
    const socket: Socket = options.tls
      ? tlsConnect(
          { host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] },
          onConnect,
        )
      : netConnect(port, '127.0.0.1', onConnect);
    let text = '';
    const done = (closed: boolean): void => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ text, status, closed });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (options.untilAnswer && /\r\n\r\n/.test(text) && /\n$|[^\n]$/.test(text)) {
        const length = /content-length: (\d+)/i.exec(text);
        const body = text.slice(text.indexOf('\r\n\r\n') + 4);
        if (length !== null && Buffer.byteLength(body, 'latin1') >= Number(length[1])) {
          socket.destroy();
          done(false);
        }
      }
    });
    socket.on('close', () => done(true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
  });
}

const get = (target: string): string =>
  `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;

/** One HTTP/2 request; resolves with the status and body, or status 0 when the stream was reset. */
function h2request(
  session: ClientHttp2Session,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve) => {
    const stream = session.request(
      { ':method': 'GET', ...headers },
      { endStream: body === undefined },
    );
    let status = 0;
    let text = '';
    let got: IncomingHttpHeaders = {};
    stream.on('response', (h) => {
      got = h;
      status = Number(h[':status']);
    });
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (text += c));
    stream.on('error', () => undefined);
    stream.on('close', () => resolve({ status, body: text, headers: got }));
    if (body !== undefined) stream.end(body);
  });
}

function h2session(port: number): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = h2connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

function closeSession(session: ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => {
    if (session.destroyed) resolve();
    else {
      session.once('close', () => resolve());
      session.close();
    }
  });
}

describe('the guard, over HTTP/1.1', () => {
  let s: Running;
  before(async () => {
    s = await start();
  });
  after(async () => {
    await s.stop();
  });

  test("issue #34's targets (//, //x:99999/validate, //@, ///) reach the handler as paths, as Go parses them", async () => {
    for (const target of ['//', '//x:99999/validate', '//@', '///']) {
      const answer = await raw(s.port, get(target));
      assert.equal(answer.status, 200, target);
      assert.match(answer.text, new RegExp(`path=${target.replace(/[/]/g, '\\/')} `));
    }
    const absolute = await raw(s.port, get('https://x:99999/v?a=1'));
    assert.match(absolute.text, /path=\/v query=a=1/);
  });

  test('a request-target that does not parse is answered 400 with Connection: close before any handler runs', async () => {
    // (What llhttp refuses itself, a space or a byte over 0x7e, never reaches the guard.)
    for (const target of ['/%zz', '*', '/a%2', 'http://[::1/x', 'http://h%zz/', 'https://x:9a/v']) {
      const answer = await raw(s.port, get(target));
      assert.equal(answer.status, 400, target);
      assert.match(answer.text, /\r\nconnection: close\r\n/i);
      assert.match(answer.text, /\r\n\r\n400 Bad Request\n$/);
      assert.ok(answer.closed);
    }
    // Logged once each, at debug, without a stack.
    const logged = s.lines.filter((l) => l.startsWith('debug test server: 400 for GET'));
    assert.equal(logged.length, 6);
    assert.ok(logged.every((l) => !l.includes('\n')));
    assert.equal((await raw(s.port, get('/next'))).status, 200, 'the next request is answered');
  });

  test('a handler that throws synchronously, or rejects, is answered 500 and logged once at error', async () => {
    for (const path of ['/throw', '/reject']) {
      const before = s.lines.length;
      const answer = await raw(s.port, get(path));
      assert.equal(answer.status, 500);
      assert.match(answer.text, /\r\n\r\nInternal Server Error\n$/);
      // Said once: the error in its error field, not repeated in the message (log_calls).
      const logged = s.lines.slice(before).filter((l) => l.startsWith('error '));
      assert.deepEqual(logged, [`error test server: the handler of GET "${path}" failed`]);
    }
    assert.equal((await raw(s.port, get('/next'))).status, 200);
  });

  test('a handler that fails after its headers went out has its connection reset; one that writes after the end crashes nothing', async () => {
    const half = await raw(s.port, get('/half'));
    assert.equal(half.status, 200);
    assert.ok(half.closed);
    assert.doesNotMatch(half.text, /\r\n0\r\n\r\n$/, 'no chunked terminator: the answer is cut');
    const twice = await raw(s.port, get('/twice'));
    assert.equal(twice.status, 200);
    await new Promise((r) => setImmediate(r));
    assert.equal((await raw(s.port, get('/next'))).status, 200);
  });

  test("what Node's parser refuses (bad request line, no Host, NUL in a header) is 400 and closed", async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/1.1\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n',
      '\u0016\u0003\u0001\u0000\u00a5\u0001',
    ]) {
      const answer = await raw(s.port, bytes);
      assert.ok(answer.closed);
      assert.ok(answer.status === 400 || answer.text === '', JSON.stringify(answer.text));
    }
  });
  test('bytes that do not parse after a whole request: its answer first, then 400 and closed (Go reads the next request only once the handler returned; Node wrote the 400 in its place)', async () => {
    const answer = await raw(
      s.port,
      'POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGARBAGE\r\n\r\n',
    );
    assert.ok(answer.closed);
    assert.equal(answer.status, 200, JSON.stringify(answer.text));
    assert.match(answer.text, /read 3/);
    assert.match(
      answer.text,
      /read 3[\s\S]*HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/,
    );
  });
});

describe('the guard, over HTTP/2 and TLS', () => {
  let s: Running;
  let session: ClientHttp2Session;
  before(async () => {
    s = await start({ http2: true });
    session = await h2session(s.port);
  });
  after(async () => {
    await closeSession(session);
    await s.stop();
  });

  test("issue #34's targets reach the handler as paths; one that does not parse is 400 (no Connection header on HTTP/2)", async () => {
    for (const target of ['//', '//x:99999/validate', '//@', '///']) {
      const answer = await h2request(session, { ':path': target });
      assert.equal(answer.status, 200);
      assert.equal(answer.body, `path=${target} query=`);
    }
    const bad = await h2request(session, { ':path': '/%zz' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body, '400 Bad Request\n');
    assert.equal(bad.headers.connection, undefined);
  });

  test('a handler that throws or rejects is 500, one that fails mid-answer has its stream reset; the session lives on', async () => {
    assert.equal((await h2request(session, { ':path': '/throw' })).status, 500);
    assert.equal((await h2request(session, { ':path': '/reject' })).status, 500);
    const half = await h2request(session, { ':path': '/half' });
    assert.equal(half.body, 'half an answer');
    assert.equal((await h2request(session, { ':path': '/twice' })).body, 'once');
    assert.equal((await h2request(session, { ':path': '/ok' })).status, 200);
    assert.equal(s.lines.filter((l) => l.startsWith('error ')).length, 3);
  });

  test("the server announces Go's limit of 250 concurrent streams", () => {
    assert.equal(session.remoteSettings.maxConcurrentStreams, 250);
  });
});

describe('limits on Node timers (small values on loopback)', () => {
  const limits = {
    tlsHandshakeTimeoutMs: 150,
    readHeaderTimeoutMs: 150,
    readTimeoutMs: 300,
    idleTimeoutMs: 150,
    maxHeaderBytes: 1024,
  };
  let s: Running;
  before(async () => {
    s = await start({ tls: true, limits });
  });
  after(async () => {
    await s.stop();
  });

  test('a client that never sends a ClientHello is closed after tlsHandshakeTimeoutMs', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const socket = netConnect(s.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(true));
    });
    assert.ok(closed);
    assert.ok(s.lines.some((l) => /TLS handshake failed: .*TLS handshake timeout/.test(l)));
  });

  test('a client that completes the handshake and goes idle is answered 408 and closed (readHeaderTimeoutMs)', async () => {
    const answer = await raw(s.port, '', { tls: true, end: false });
    assert.equal(answer.status, 408);
    assert.ok(answer.closed);
  });

  test('headers trickled a line at a time are cut at readHeaderTimeoutMs with 408', async () => {
    const answer = await new Promise<RawAnswer>((resolve) => {
      const socket = tlsConnect(
        { host: '127.0.0.1', port: s.port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] },
        () => {
          socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
          const drip = setInterval(() => socket.write('X-Drip: 1\r\n'), 20);
          socket.once('close', () => clearInterval(drip));
        },
      );
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => (text += c));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ text, status: Number(text.slice(9, 12)), closed: true }));
    });
    assert.equal(answer.status, 408);
  });

  test('a body trickled a byte at a time is cut at readTimeoutMs (the connection closes)', async () => {
    let handlerSawError = '';
    const t = await start({
      tls: true,
      limits,
      handler: async (req, res) => {
        try {
          await readRequestBody(req, res, 1_000_000);
          res.end('read');
        } catch (err) {
          handlerSawError = (err as Error).message;
        }
      },
    });
    try {
      const answer = await new Promise<RawAnswer>((resolve) => {
        const socket = tlsConnect(
          {
            host: '127.0.0.1',
            port: t.port,
            rejectUnauthorized: false,
            ALPNProtocols: ['http/1.1'],
          },
          () => {
            socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
            const drip = setInterval(() => socket.write('a'), 20);
            socket.once('close', () => clearInterval(drip));
          },
        );
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (c: string) => (text += c));
        socket.on('error', () => undefined);
        socket.on('close', () =>
          resolve({ text, status: Number(text.slice(9, 12)), closed: true }),
        );
      });
      assert.ok(answer.closed);
      assert.ok(answer.status === 408 || answer.text === '');
      assert.match(handlerSawError, /went away|failed/);
    } finally {
      await t.stop();
    }
  });

  test('an idle keep-alive connection is closed after idleTimeoutMs', async () => {
    const answer = await raw(s.port, 'GET /x HTTP/1.1\r\nHost: x\r\n\r\n', {
      tls: true,
      end: false,
    });
    assert.equal(answer.status, 200);
    assert.match(
      answer.text,
      /keep-alive: timeout=0/i,
      'Node advertises the idle timeout in seconds',
    );
    assert.ok(answer.closed);
  });

  test('headers over maxHeaderBytes are answered 431', async () => {
    const answer = await raw(
      s.port,
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(2000)}\r\n\r\n`,
      { tls: true },
    );
    assert.equal(answer.status, 431);
  });

  test('limits that make no sense are refused at construction', () => {
    const { logger } = recordingLogger();
    const make = (l: HttpServerLimits): unknown =>
      new GuardedHttpServer({ name: 'x', logger, handler: echo, limits: l });
    assert.throws(() => make({ readHeaderTimeoutMs: -1 }), InvalidServerLimitsError);
    assert.throws(() => make({ readTimeoutMs: 1.5 }), InvalidServerLimitsError);
    assert.throws(() => make({ readTimeoutMs: 10, readHeaderTimeoutMs: 20 }), /must not be below/);
    assert.throws(() => make({ tlsHandshakeTimeoutMs: 0 }), InvalidServerLimitsError);
    assert.throws(() => make({ maxHeaderBytes: 0 }), InvalidServerLimitsError);
  });
});

describe("HTTP/2 limits on the kit's clock", () => {
  const limits = { readHeaderTimeoutMs: 1000, readTimeoutMs: 5000, idleTimeoutMs: 3000 };

  async function openSession(s: Running): Promise<ClientHttp2Session> {
    const opened = new Promise<void>((resolve) => s.server.server.once('session', () => resolve()));
    const session = await h2session(s.port);
    await opened;
    return session;
  }

  test('a session that opens no stream within readHeaderTimeoutMs is closed', async () => {
    const s = await start({ http2: true, limits });
    try {
      const session = await openSession(s);
      const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
      await s.clock.advance(999);
      assert.equal(session.closed || session.destroyed, false);
      await s.clock.advance(1);
      await closed;
      assert.ok(s.lines.some((l) => /opened no stream within 1000 ms/.test(l)));
    } finally {
      await s.stop();
    }
  });

  test('a session with no stream open is closed after idleTimeoutMs; an open stream holds it', async () => {
    const s = await start({
      http2: true,
      limits,
      handler: async (req, res, target) => {
        if (target.path === '/slow') await new Promise((r) => setTimeout(r, 50));
        res.end('ok');
      },
    });
    try {
      const session = await openSession(s);
      const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
      const slow = h2request(session, { ':path': '/slow' });
      await new Promise((r) => setImmediate(r));
      await s.clock.advance(10_000); // a stream is open: no idle clock runs
      assert.equal((await slow).status, 200);
      await s.clock.advance(2999);
      assert.equal(session.closed || session.destroyed, false);
      await s.clock.advance(1);
      await closed;
    } finally {
      await s.stop();
    }
  });

  test('a stream that never sends the rest of its body is answered 408 at readTimeoutMs', async () => {
    let reading = (): void => undefined;
    const started = new Promise<void>((resolve) => (reading = resolve));
    const s = await start({
      http2: true,
      limits,
      handler: async (req, res) => {
        reading();
        try {
          await readRequestBody(req, res, 1_000_000);
          res.end('read');
        } catch {
          // the stream was closed under the reader
        }
      },
    });
    try {
      const session = await openSession(s);
      const stream = session.request({ ':method': 'POST', ':path': '/' }, { endStream: false });
      stream.write('part of a body');
      let status = 0;
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('error', () => undefined);
      stream.resume();
      const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
      await started;
      await s.clock.advance(5000);
      await closed;
      assert.equal(status, 408);
      await closeSession(session);
    } finally {
      await s.stop();
    }
  });
});

describe('answers before any handler, and shutdown (found by test/fuzz/servers.fuzz.test.ts)', () => {
  const limits = { readHeaderTimeoutMs: 1000, readTimeoutMs: 5000, idleTimeoutMs: 3000 };

  test('HTTP/2: an Expect other than 100-continue is 417 and the stream is reset, not held open by a client that owes its body', async () => {
    const s = await start({ http2: true, limits });
    try {
      const opened = new Promise<void>((resolve) =>
        s.server.server.once('session', () => resolve()),
      );
      const session = await h2session(s.port);
      await opened;
      const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
      for (const method of ['POST', 'HEAD']) {
        const stream = session.request(
          { ':method': method, ':path': '/', expect: 'something-else' },
          { endStream: false },
        );
        stream.on('error', () => undefined);
        // More than the stream's flow-control window: the client can never finish it.
        stream.end('x'.repeat(200_000));
        const status = await new Promise<number>((resolve) =>
          stream.once('response', (h) => resolve(Number(h[':status']))),
        );
        assert.equal(status, 417);
        stream.close(http2Constants.NGHTTP2_CANCEL);
      }
      assert.ok(s.lines.some((l) => l === 'debug test server: 417 for POST "/"'));
      // The POST stream was reset at once; the HEAD one (whose answer never `finish`es in
      // Node) at readTimeoutMs. Then the session idles and closes: nothing holds it.
      await s.clock.advance(5000);
      await s.clock.advance(3000);
      await closed;
    } finally {
      await s.stop();
    }
  });

  test('HTTP/1.1: an Expect other than 100-continue is 417 with Connection: close, before any handler', async () => {
    const s = await start();
    try {
      const answer = await raw(
        s.port,
        'POST /x HTTP/1.1\r\nHost: x\r\nExpect: nope\r\nContent-Length: 5\r\n\r\n',
        { end: false },
      );
      assert.equal(answer.status, 417);
      assert.match(answer.text, /\r\nconnection: close\r\n/i);
      assert.ok(answer.closed);
    } finally {
      await s.stop();
    }
  });

  test("HTTP/2: CONNECT is 405 and its stream is reset (Node's default left it open)", async () => {
    const s = await start({ http2: true });
    try {
      const session = await h2session(s.port);
      const serverSide = new Promise<void>((resolve) =>
        s.server.server.once('stream', (stream: ServerHttp2Stream) =>
          stream.once('close', () => resolve()),
        ),
      );
      const stream = session.request(
        { ':method': 'CONNECT', ':authority': 'example.com:443' },
        { endStream: false },
      );
      stream.on('error', () => undefined);
      const status = await new Promise<number>((resolve) =>
        stream.once('response', (h) => resolve(Number(h[':status']))),
      );
      assert.equal(status, 405);
      await serverSide; // the server's side closes though the client never ended its own
      // The client's own cleanup: Node 24's session.close() waits on the cancelled stream
      // longer than Node 20's, so end the session outright (what is checked is the server).
      stream.close(http2Constants.NGHTTP2_CANCEL);
      session.destroy();
    } finally {
      await s.stop();
    }
  });

  test("stopping: a keep-alive connection whose request is in flight closes once answered (Go's Shutdown), not at the end of the grace", async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered = (): void => undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const s = await start({
      handler: async (_req, res) => {
        entered();
        await held;
        res.end('late answer');
      },
    });
    const answer = raw(s.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { end: false });
    await inHandler;
    // A grace of a minute on the fake clock, which nobody advances: close() must not need it.
    const stopped = s.server.close(60_000);
    release();
    const got = await answer;
    assert.equal(got.status, 200);
    assert.match(got.text, /late answer$/);
    assert.ok(got.closed);
    await stopped;
  });
});

describe('readRequestBody: stop at the limit, answer at once, close', () => {
  let s: Running;
  before(async () => {
    s = await start({ tls: true });
  });
  after(async () => {
    await s.stop();
  });

  test('a Content-Length over the limit is refused before a byte of the body is read', async () => {
    const answer = await raw(
      s.port,
      'POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n',
      { tls: true, end: false },
    );
    assert.equal(answer.status, 413);
    assert.match(answer.text, /too large: 1000000000/);
    assert.match(answer.text, /\r\nconnection: close\r\n/i);
    assert.ok(answer.closed);
  });

  test('a chunked body that keeps coming is answered 413 past the limit and its connection closed while the client still sends', async () => {
    const answer = await new Promise<RawAnswer & { sentAfter: number }>((resolve) => {
      let sentAfter = 0;
      let text = '';
      const socket = tlsConnect(
        { host: '127.0.0.1', port: s.port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] },
        () => {
          socket.write('POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
          const chunk = `100\r\n${'x'.repeat(256)}\r\n`;
          const pump = (): void => {
            while (!socket.destroyed && socket.write(chunk)) if (text !== '') sentAfter++;
            if (!socket.destroyed) socket.once('drain', pump);
          };
          pump();
        },
      );
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => (text += c));
      socket.on('error', () => undefined);
      socket.on('close', () =>
        resolve({ text, status: Number(text.slice(9, 12)), closed: true, sentAfter }),
      );
    });
    assert.equal(answer.status, 413);
    assert.match(answer.text, /too large: \d+ read/);
    assert.ok(answer.closed, 'the server closed the connection; the client never stopped sending');
  });

  test('over HTTP/2, the stream of an oversized body is answered 413 and reset', async () => {
    const t = await start({ http2: true });
    try {
      const session = await h2session(t.port);
      const answer = await h2request(
        session,
        { ':method': 'POST', ':path': '/body' },
        'y'.repeat(5000),
      );
      assert.equal(answer.status, 413);
      assert.equal((await h2request(session, { ':path': '/ok' })).status, 200);
      await closeSession(session);
    } finally {
      await t.stop();
    }
  });
});
