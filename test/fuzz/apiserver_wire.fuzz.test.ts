// Fuzzing the in-memory API server below the HTTP client: raw bytes on a TCP socket, so
// that the request-target, the request line, the headers and the body framing can be
// anything a hostile or broken client sends (Node's http client would refuse most of it).
// Rules (Go net/http, which kube-apiserver serves with, answers every request it can read
// and closes what it cannot; the test server also words every failure as a Status):
//
// - a complete request gets an answer before the connection closes, never silence or a
//   hang; a request left incomplete may wait, but nothing breaks;
// - every answer has a status line, and every failure a `Status` body whose `code` is the
//   HTTP code (a 2xx JSON body parses);
// - nothing reaches the server's unexpected-exception path (no error is logged), no watch
//   is left open once its client hung up, and the server serves normally afterwards.
//
// Fixed-time seeded runs; FUZZ_SEED replays, FUZZ_RUNS runs longer (test/support/fuzz_budget.ts).
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import type { LogFields, Logger } from '../../src/util/logger.js';
import { fuzz } from '../support/fuzz_budget.js';

const MAX_BODY = 16 * 1024;
/** How long a complete request may wait for its answer (real time: sockets). */
const ANSWER_WITHIN_MS = 5000;
/** How long an incomplete request is left open before the client hangs up. */
const INCOMPLETE_WAIT_MS = 30;

/** One raw exchange: the bytes (as latin1 text), and whether they make a complete request. */
interface Wire {
  /** The bytes sent, one character per byte (latin1), so a counterexample reads as text. */
  text: string;
  /** The bytes hold at least one whole request: an answer is due. */
  complete: boolean;
  /** The request's method, for HEAD (no body in the answer). */
  method: string;
}

interface ParsedResponse {
  code: number;
  headers: Record<string, string>;
  /** undefined for a streaming 2xx (a watch) the client stopped reading. */
  body: Buffer | undefined;
}

/** A logger that keeps the server's error lines (an unexpected exception logs one). */
function errorRecorder(): Logger & { errors: string[]; debugs: string[] } {
  const errors: string[] = [];
  const debugs: string[] = [];
  const ignore = (): void => {};
  return {
    errors,
    debugs,
    debug: (message: string) => void debugs.push(message),
    info: ignore,
    warn: ignore,
    error: (message: string, fields?: LogFields) => {
      errors.push(`${message} ${JSON.stringify(fields ?? {})}`);
    },
  };
}

/**
 * Parses the first final response (1xx interim answers skipped) in `data`, or undefined
 * when more bytes are needed. At the connection's close (`closed`), a body without
 * framing ends there.
 */
function parseResponse(
  data: Buffer,
  head: boolean,
  closed: boolean,
): { response: ParsedResponse } | undefined {
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end === -1) return undefined;
    const lines = data.toString('latin1', at, end).split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    assert.ok(status, `not a status line: ${JSON.stringify(lines[0])}`);
    const code = Number(status[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      assert.ok(colon > 0, `not a header line: ${JSON.stringify(line)}`);
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = end + 4;
    if (code >= 100 && code < 200) {
      at = bodyStart;
      continue;
    }
    if (head || code === 204 || code === 304)
      return { response: { code, headers, body: undefined } };
    const length = headers['content-length'];
    if (length !== undefined) {
      const n = Number(length);
      if (data.length - bodyStart < n) return undefined;
      return { response: { code, headers, body: data.subarray(bodyStart, bodyStart + n) } };
    }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      // A 2xx stream (a watch) is answered once its headers are in.
      if (code >= 200 && code < 300) return { response: { code, headers, body: undefined } };
      const parts: Buffer[] = [];
      let p = bodyStart;
      for (;;) {
        const nl = data.indexOf('\r\n', p);
        if (nl === -1) return undefined;
        const size = parseInt(data.toString('latin1', p, nl).split(';')[0]!, 16);
        assert.ok(Number.isInteger(size), 'a chunk size');
        if (size === 0) return { response: { code, headers, body: Buffer.concat(parts) } };
        if (data.length < nl + 2 + size + 2) return undefined;
        parts.push(data.subarray(nl + 2, nl + 2 + size));
        p = nl + 2 + size + 2;
      }
    }
    if (code >= 200 && code < 300) return { response: { code, headers, body: undefined } };
    return closed ? { response: { code, headers, body: data.subarray(bodyStart) } } : undefined;
  }
}

describe('in-memory API server: raw request fuzzing (request line, headers, body framing)', () => {
  let server: TestApiServer;
  const logger = errorRecorder();
  let port = 0;

  before(async () => {
    server = await startTestApiServer({ logger, maxBodyBytes: MAX_BODY });
    server.create('configmaps', { metadata: { name: 'seed', namespace: 'default' } });
    port = Number(new URL(server.url).port);
  });
  after(async () => {
    await server.close();
  });

  /**
   * Sends `wire` on a new connection and waits for the first final answer, the
   * connection's close, or (incomplete requests only) a short while; then hangs up.
   */
  function exchange(
    wire: Wire,
  ): Promise<{ response: ParsedResponse | undefined; closed: boolean; timedOut: boolean }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      let settled = false;
      const finish = (
        response: ParsedResponse | undefined,
        closed: boolean,
        timedOut: boolean,
      ): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        resolve({ response, closed, timedOut });
      };
      const tryParse = (closed: boolean): boolean => {
        try {
          const parsed = parseResponse(Buffer.concat(chunks), wire.method === 'HEAD', closed);
          if (parsed !== undefined) finish(parsed.response, closed, false);
          return parsed !== undefined;
        } catch (err) {
          settled = true;
          clearTimeout(timer);
          socket.destroy();
          reject(err instanceof Error ? err : new Error(String(err)));
          return true;
        }
      };
      const timer = setTimeout(
        () => finish(undefined, false, true),
        wire.complete ? ANSWER_WITHIN_MS : INCOMPLETE_WAIT_MS,
      );
      socket.on('data', (c: Buffer) => {
        chunks.push(c);
        tryParse(false);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (!tryParse(true)) finish(undefined, true, false);
      });
      socket.write(Buffer.from(wire.text, 'latin1'));
    });
  }

  function assertAnswer(wire: Wire, response: ParsedResponse): void {
    const what = `${JSON.stringify(wire.text.slice(0, 300))} → ${response.code}`;
    assert.ok(response.code >= 200 && response.code < 600, what);
    if (response.body === undefined) return;
    const text = response.body.toString('utf8');
    if (response.code >= 200 && response.code < 300) {
      if ((response.headers['content-type'] ?? '').startsWith('application/json'))
        assert.doesNotThrow(() => JSON.parse(text), `${what}: a 2xx JSON body that does not parse`);
      return;
    }
    let status: Record<string, unknown> | undefined;
    try {
      status = JSON.parse(text) as Record<string, unknown>;
    } catch {
      assert.fail(
        `${what}: the failure's body is not a Status: ${JSON.stringify(text.slice(0, 200))}`,
      );
    }
    assert.equal(status?.kind, 'Status', what);
    assert.equal(status.status, 'Failure', what);
    assert.equal(status.code, response.code, `${what}: Status.code differs from the HTTP code`);
    assert.equal(typeof status.message, 'string', what);
  }

  // ---- generators ------------------------------------------------------------------------

  const methodArb = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'OPTIONS',
        'TRACE',
        'CONNECT',
        'get',
        'FOO',
        'G E T',
        'X'.repeat(40),
        '',
      ),
    },
  );

  const pathArb = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        '/api',
        '/apis',
        '/version',
        '/api/v1/namespaces/default/configmaps',
        '/api/v1/namespaces/default/configmaps/seed',
        '/api/v1/namespaces/default/configmaps/fuzz',
        '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1',
        '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb&limit=2',
        '/api/v1/pods?fieldSelector=metadata.name%3Dx',
        '/apis/apps/v1/namespaces/default/deployments',
        '/api/v1/namespaces',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '*',
        '',
        '/',
        '//',
        '///',
        '/..',
        '/%',
        '/%zz',
        '/%00',
        '/a%2Fb',
        '127.0.0.1:80',
        'http://127.0.0.1/api/v1/namespaces/default/configmaps',
        'http://[x/api',
        'https://user:pw@host:99999/api',
        '//@',
        '//x:99999/validate',
        '/api?' + '&'.repeat(100),
        '/api?a=%ZZ&b=%E0%A4%A',
        '/' + 'a'.repeat(9000),
      ),
    },
    // Any bytes Node's parser may let through a path (and some it will not).
    {
      weight: 2,
      arbitrary: fc
        .uint8Array({ minLength: 1, maxLength: 24 })
        .map(
          (a) =>
            '/' +
            Buffer.from(a.map((b) => (b === 0x20 || b === 0x0d || b === 0x0a ? 0x2f : b))).toString(
              'latin1',
            ),
        ),
    },
  );

  const versionArb = fc.oneof(
    { weight: 10, arbitrary: fc.constant('HTTP/1.1') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'HTTP/1.0',
        'HTTP/2.0',
        'HTTP/0.9',
        'HTTP/1.2',
        'HTXP/1.1',
        'HTTP/1.1 extra',
        '',
      ),
    },
  );

  const contentTypeArb = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/merge-patch+json',
    'application/json-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
    'application/cbor',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    ';;;',
    '',
  );

  const headerArb: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.tuple(fc.constant('Content-Type'), contentTypeArb),
    fc.tuple(
      fc.constant('Accept'),
      fc.constantFrom(
        'application/json',
        'application/json;as=Table;g=meta.k8s.io;v=v1',
        'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
        'application/vnd.kubernetes.protobuf',
        'application/yaml',
        'text/html',
        '*/*',
        ',,;q=x',
      ),
    ),
    fc.tuple(fc.constant('Accept-Encoding'), fc.constantFrom('gzip', 'br', 'gzip;q=0', '*')),
    fc.tuple(fc.constant('Content-Encoding'), fc.constantFrom('gzip', 'deflate', 'identity')),
    fc.tuple(
      fc.constant('Authorization'),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer x.y.z',
        'Basic Zm9vOmJhcg==',
        'Basic ###',
        'Negotiate x',
      ),
    ),
    fc.tuple(
      fc.constantFrom(
        'Impersonate-User',
        'Impersonate-Group',
        'Impersonate-Uid',
        'Impersonate-Extra-scopes',
        'Impersonate-Extra-%ZZ',
        'Impersonate-Extra-constructor',
      ),
      fc.constantFrom('alice', 'system:masters', '', '\u00e9'),
    ),
    fc.tuple(fc.constant('Expect'), fc.constantFrom('100-continue', 'foo')),
    fc.tuple(
      fc.constant('Connection'),
      fc.constantFrom('close', 'keep-alive', 'Upgrade', 'upgrade, http2-settings'),
    ),
    fc.tuple(fc.constant('Upgrade'), fc.constantFrom('websocket', 'h2c', 'SPDY/3.1')),
    fc.tuple(
      fc.constant('X-Long'),
      fc.nat({ max: 20_000 }).map((n) => 'v'.repeat(n)),
    ),
    fc.tuple(
      fc.constantFrom('X-Fuzz', 'x-fuzz', 'X_Fuzz'),
      fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((v) => v.replace(/[\r\n]/g, '')),
    ),
    // Header names and lines the grammar forbids.
    fc.tuple(fc.constantFrom('Bad Name', 'Bad:Name', '', '\u00e9', 'X\u0000'), fc.constant('v')),
  );

  type Framing =
    | 'none'
    | 'length'
    | 'length-short'
    | 'length-long'
    | 'length-bad'
    | 'length-twice'
    | 'chunked'
    | 'chunked-bad'
    | 'chunked-incomplete'
    | 'chunked-and-length'
    | 'transfer-unknown';

  const bodyArb = fc.oneof(
    fc.constantFrom(
      '{"metadata":{"name":"fuzz"},"data":{"a":"b"}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz","namespace":"default"}}',
      '[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]',
      '{"metadata":{"labels":{"a":null}}}',
      'metadata:\n  name: fuzz\n',
      '{',
      '',
      '\u0000',
    ),
    fc.json({ maxDepth: 3 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.constantFrom(MAX_BODY + 1).map((n) => `{"data":{"x":"${'y'.repeat(n)}"}}`),
  );

  const wireArb: fc.Arbitrary<Wire> = fc
    .record({
      method: methodArb,
      path: pathArb,
      version: versionArb,
      host: fc.oneof(
        { weight: 8, arbitrary: fc.constant<string | undefined>('127.0.0.1') },
        {
          weight: 1,
          arbitrary: fc.constantFrom<string | undefined>(undefined, '', 'x:99999', '[::1', 'a b'),
        },
      ),
      headers: fc.array(headerArb, { maxLength: 5 }),
      framing: fc.constantFrom<Framing>(
        'none',
        'length',
        'length',
        'length',
        'length-short',
        'length-long',
        'length-bad',
        'length-twice',
        'chunked',
        'chunked',
        'chunked-bad',
        'chunked-incomplete',
        'chunked-and-length',
        'transfer-unknown',
      ),
      body: bodyArb,
      eol: fc.oneof(
        { weight: 9, arbitrary: fc.constant('\r\n') },
        { weight: 1, arbitrary: fc.constant('\n') },
      ),
      cuts: fc.array(fc.nat({ max: 200 }), { maxLength: 4 }),
    })
    .map(({ method, path, version, host, headers, framing, body, eol, cuts }) => {
      const bodyBytes = Buffer.from(body, 'utf8');
      const lines: string[] = [`${method} ${path} ${version}`.replace(/ $/, '')];
      if (host !== undefined) lines.push(`Host: ${host}`);
      for (const [k, v] of headers) lines.push(`${k}: ${v}`);
      let payload = Buffer.alloc(0);
      let complete = true;
      switch (framing) {
        case 'none':
          break;
        case 'length':
          lines.push(`Content-Length: ${bodyBytes.length}`);
          payload = bodyBytes;
          break;
        case 'length-short':
          // Fewer bytes declared than sent: the rest is read as the next request.
          lines.push(`Content-Length: ${Math.floor(bodyBytes.length / 2)}`);
          payload = bodyBytes;
          break;
        case 'length-long':
          lines.push(`Content-Length: ${bodyBytes.length + 10}`);
          payload = bodyBytes;
          complete = false;
          break;
        case 'length-bad':
          lines.push(
            `Content-Length: ${['-1', 'abc', '1e3', '0x10', '99999999999999999999', ' 2'][bodyBytes.length % 6]}`,
          );
          payload = bodyBytes;
          break;
        case 'length-twice':
          lines.push(
            `Content-Length: ${bodyBytes.length}`,
            `Content-Length: ${bodyBytes.length + 1}`,
          );
          payload = bodyBytes;
          break;
        case 'chunked':
        case 'chunked-bad':
        case 'chunked-incomplete': {
          lines.push('Transfer-Encoding: chunked');
          const points = [...new Set(cuts.map((c) => c % (bodyBytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          const parts: Buffer[] = [];
          let start = 0;
          for (const p of [...points, bodyBytes.length]) {
            if (p <= start) continue;
            const piece = bodyBytes.subarray(start, p);
            const size =
              framing === 'chunked-bad' && parts.length === 0 ? 'zz' : piece.length.toString(16);
            parts.push(
              Buffer.from(`${size}${parts.length === 1 ? ';ext=1' : ''}\r\n`),
              piece,
              Buffer.from('\r\n'),
            );
            start = p;
          }
          if (framing === 'chunked-bad' && parts.length === 0)
            parts.push(Buffer.from('-1\r\n\r\n'));
          if (framing !== 'chunked-incomplete')
            parts.push(Buffer.from('0\r\nX-Trailer: t\r\n\r\n'));
          else complete = false;
          payload = Buffer.concat(parts);
          break;
        }
        case 'chunked-and-length':
          lines.push('Transfer-Encoding: chunked', `Content-Length: ${bodyBytes.length}`);
          payload = Buffer.from('0\r\n\r\n');
          break;
        case 'transfer-unknown':
          // A body delimited by the connection's end: it never ends while we listen.
          lines.push('Transfer-Encoding: gzip');
          payload = bodyBytes;
          complete = false;
          break;
      }
      const head = lines.join(eol) + eol + eol;
      return { text: head + payload.toString('latin1'), complete, method };
    });

  // Inputs the fuzzing found, pinned: each was dropped without an answer, or answered
  // without a Status body, before the guard (src/testing/http_guard.ts).
  const found: { what: string; wire: Wire; code: number }[] = [
    {
      what: 'CONNECT (Node hands it over as a tunnel and, with no listener, drops it)',
      wire: {
        text: 'CONNECT /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
        complete: true,
        method: 'CONNECT',
      },
      code: 405,
    },
    {
      what: 'CONNECT in authority form',
      wire: {
        text: 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: x\r\n\r\n',
        complete: true,
        method: 'CONNECT',
      },
      code: 404,
    },
    {
      what: 'HTTP/1.1 without Host (Go: 400 "missing required Host header")',
      wire: { text: 'GET /api HTTP/1.1\r\n\r\n', complete: true, method: 'GET' },
      code: 400,
    },
    {
      what: 'an Expect other than 100-continue (Go: 417)',
      wire: {
        text: 'GET /api HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n',
        complete: true,
        method: 'GET',
      },
      code: 417,
    },
    {
      what: 'headers past the limit (Go: 431)',
      wire: {
        text: `GET /api HTTP/1.1\r\nHost: x\r\nX-Long: ${'v'.repeat(20_000)}\r\n\r\n`,
        complete: true,
        method: 'GET',
      },
      code: 431,
    },
    {
      what: 'a bad chunk size once the handler reads the body',
      wire: {
        text: 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
        complete: true,
        method: 'POST',
      },
      code: 400,
    },
    {
      what: 'a body longer than its Content-Length: the request is answered, then the rest',
      wire: {
        text: 'GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n\u0000',
        complete: true,
        method: 'GET',
      },
      code: 200,
    },
  ];

  // ---- properties --------------------------------------------------------------------------

  test('every complete request is answered (never silence, never a hang); every failure is a Status whose code is the HTTP code', async (t) => {
    const codes = new Map<number, number>();
    await fuzz(
      t,
      fc.asyncProperty(wireArb, async (wire) => {
        const out = await exchange(wire);
        const shown = JSON.stringify(wire.text.slice(0, 300));
        assert.ok(
          !out.timedOut || !wire.complete,
          `no answer within ${ANSWER_WITHIN_MS} ms: ${shown}`,
        );
        if (wire.complete)
          assert.ok(out.response !== undefined, `closed without an answer: ${shown}`);
        if (out.response !== undefined) {
          codes.set(out.response.code, (codes.get(out.response.code) ?? 0) + 1);
          assertAnswer(wire, out.response);
        }
      }),
      { timeMs: 6000, examples: found.map((f) => [f.wire]) },
    );
    t.diagnostic(`answers by code: ${JSON.stringify([...codes].sort((a, b) => a[0] - b[0]))}`);
  });

  test('regression: the inputs fuzzing found are answered with a Status and the right code', async () => {
    for (const { what, wire, code } of found) {
      const out = await exchange(wire);
      assert.equal(out.response?.code, code, what);
      assertAnswer(wire, out.response);
    }
  });

  test('regression: a request followed by bytes that do not parse gets its own answer, then a 400 for the rest, then the connection closes (Go reads the next request after the handler returns)', async () => {
    const all = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.write(
        'GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP\r\n\r\n',
      );
    });
    const codes = [...all.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    assert.deepEqual(codes, [200, 400], all.slice(0, 400));
    assert.match(all, /"kind":"ConfigMapList"/);
    assert.match(all, /the request could not be parsed/);
  });

  test('regression: a client that hangs up in the middle of its body is logged at debug, not as a failure of the server', async () => {
    const before = logger.debugs.length;
    const errorsBefore = logger.errors.length;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":',
    );
    await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    for (let i = 0; i < 500 && logger.debugs.length === before; i++)
      await new Promise((r) => setTimeout(r, 5));
    assert.ok(
      logger.debugs.slice(before).some((m) => m.includes('the request body could not be read')),
      logger.debugs.slice(before).join('\n'),
    );
    assert.equal(logger.errors.length, errorsBefore, logger.errors.join('\n'));
  });

  test('nothing failed inside the server, no watch outlived its client, and it still serves', async () => {
    assert.deepEqual(logger.errors, [], 'no request reached the unexpected-exception path');
    for (let i = 0; i < 200 && server.watchCount() > 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.watchCount(), 0, 'every watch ended with its connection');
    // The fuzzing may have deleted `default` (a DELETE of /api/v1/namespaces is a
    // deletecollection): write into a namespace of our own.
    const ns = '{"metadata":{"name":"after-wire-fuzz"}}';
    const nsCreated = await exchange({
      text: `POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${ns.length}\r\n\r\n${ns}`,
      complete: true,
      method: 'POST',
    });
    assert.equal(nsCreated.response?.code, 201, nsCreated.response?.body?.toString());
    const body = '{"metadata":{"name":"after-wire-fuzz"},"data":{"a":"b"}}';
    const created = await exchange({
      text: `POST /api/v1/namespaces/after-wire-fuzz/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      complete: true,
      method: 'POST',
    });
    assert.equal(created.response?.code, 201, created.response?.body?.toString());
    const read = await exchange({
      text: 'GET /api/v1/namespaces/after-wire-fuzz/configmaps/after-wire-fuzz HTTP/1.1\r\nHost: x\r\n\r\n',
      complete: true,
      method: 'GET',
    });
    assert.equal(read.response?.code, 200);
    assert.deepEqual(
      (JSON.parse(read.response.body?.toString() ?? '{}') as { data?: unknown }).data,
      { a: 'b' },
    );
  });
});
