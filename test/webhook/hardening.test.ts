// Issue #34 against the webhook server, each reproduction over HTTP/1.1 and HTTP/2:
// - `curl --path-as-is -X POST https://…//` (and `//x:99999/validate`, `//@`, `///`) killed
//   the process (`new URL` outside the handler's try, the handler started with `void`): now
//   Go's rule, the target is a path (404 here), the process stays up, the next review is
//   answered;
// - a body over 7 MiB was read to its end: now reading stops at the limit, the review is
//   answered with code 413 at once (controller-runtime's limited reader) and the connection
//   closed; a Content-Length over the limit is refused before reading anything;
// - a 100,000-deep body answered 500 "panic: Maximum call stack size exceeded": now it is
//   a body that cannot be decoded, 400, as controller-runtime answers one;
// - fields of the wrong JSON type are a decode error (400), as Go's decoder makes them.
import assert from 'node:assert/strict';
import { connect as h2connect } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { after, afterEach, before, describe, test } from 'node:test';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { allowed, denied } from '../../src/webhook/index.js';
import type { ConvertibleKind, WebhookServer } from '../../src/webhook/index.js';
import type { Harness } from './support.js';
import { post, review, startServer } from './support.js';

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
  assert.deepEqual(
    escaped,
    [],
    'no uncaught exception or unhandled rejection: the process stays up',
  );
});

const identity: ConvertibleKind = {
  group: 'apps.example.com',
  kind: 'Application',
  hub: 'v1',
  spokes: { v2: { toHub: (o) => o, fromHub: (o) => o } },
};

function setup(server: WebhookServer): void {
  server.registerAdmission({
    type: 'validating',
    name: 'v.example.com',
    path: '/validate',
    rules: [],
    handler: (request) => (request.name === 'bad' ? denied('bad name') : allowed()),
  });
  server.registerConversion(identity);
}

const goodReview = review({ operation: 'CREATE', object: { metadata: { name: 'ok' } } });

interface Answer {
  status: number;
  text: string;
  closed: boolean;
}

/** Raw HTTP/1.1 over TLS: the request-target as written (curl --path-as-is). */
function rawPost(port: number, target: string, body: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = tlsConnect(
      { host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] },
      () =>
        socket.end(
          `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:9443\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        ),
    );
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ status: Number(text.slice(9, 12)), text, closed: true }));
  });
}

function h2session(port: number): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = h2connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

function h2post(
  session: ClientHttp2Session,
  path: string,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/json',
    });
    let status = 0;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (text += c));
    stream.on('error', () => undefined);
    stream.on('close', () => resolve({ status, body: text }));
    stream.end(body);
  });
}

const deepArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('issue #34 reproductions against the webhook server (HTTP/1.1 and HTTP/2)', () => {
  let h: Harness;
  let session: ClientHttp2Session;
  before(async () => {
    h = await startServer(setup, { enableHTTP2: true });
    session = await h2session(h.port());
  });
  after(async () => {
    await new Promise<void>((resolve) => {
      session.once('close', () => resolve());
      session.close();
    });
    await h.stop();
  });

  test('POST // (and //x:99999/validate, //@, ///) is a path that is not served: 404, and the next review is answered', async () => {
    for (const target of ['//', '//x:99999/validate', '//@', '///']) {
      const http1 = await rawPost(h.port(), target, '{}');
      assert.equal(http1.status, 404, `HTTP/1.1 ${target}`);
      assert.match(http1.text, /404 page not found/);
      const http2 = await h2post(session, target, '{}');
      assert.equal(http2.status, 404, `HTTP/2 ${target}`);
      const next = await post(h.port(), '/validate', goodReview, { ca: h.ca.cert });
      assert.equal(next.status, 200);
      assert.equal((next.json().response as { allowed: boolean }).allowed, true);
    }
  });

  test('a target that does not parse is 400 before the webhook runs; absolute-form reaches /validate', async () => {
    assert.equal((await rawPost(h.port(), '/validate%zz', goodReview)).status, 400);
    assert.equal((await h2post(session, '/validate%zz', goodReview)).status, 400);
    const absolute = await rawPost(h.port(), 'https://x:99999/validate', goodReview);
    assert.equal(absolute.status, 200);
    assert.match(absolute.text, /"allowed":true/);
  });

  test('a 100,000-deep body is a review that cannot be decoded: code 400, not a 500 panic', async () => {
    const deepRequest = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"d","operation":"CREATE","object":{"spec":${deepArrays(100_000)}}}}`;
    for (const body of [deepArrays(100_000), deepRequest]) {
      const answer = await post(h.port(), '/validate', body, { ca: h.ca.cert });
      assert.equal(answer.status, 200);
      const response = answer.json().response as { status: { code: number; message: string } };
      assert.equal(response.status.code, 400);
      assert.match(response.status.message, /nested deeper than 1000 levels/);
      const http2 = await h2post(session, '/validate', body);
      assert.match(http2.body, /"code":400/);
    }
    const conversion = await post(
      h.port(),
      '/convert',
      `{"request":{"uid":"c","desiredAPIVersion":"apps.example.com/v1","objects":[${deepArrays(100_000)}]}}`,
      { ca: h.ca.cert },
    );
    assert.equal(conversion.status, 400);
  });

  test('fields of the wrong type are a decode error (400); a missing uid is echoed as ""', async () => {
    const cases: [unknown, RegExp][] = [
      [{ uid: 5, operation: 'CREATE' }, /request\.uid: expected string, got number/],
      [{ uid: 'u', operation: ['CREATE'] }, /request\.operation: expected string, got array/],
      [{ uid: 'u', kind: 'Pod' }, /request\.kind: expected an object, got string/],
      [{ uid: 'u', userInfo: { groups: ['a', 1] } }, /request\.userInfo\.groups\[1\]/],
      [{ uid: 'u', userInfo: { extra: { k: 'v' } } }, /request\.userInfo\.extra\.k/],
      [{ uid: 'u', dryRun: 'true' }, /request\.dryRun: expected boolean, got string/],
    ];
    for (const [request, message] of cases) {
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request,
      });
      const answer = await post(h.port(), '/validate', body, { ca: h.ca.cert });
      const response = answer.json().response as { status: { code: number; message: string } };
      assert.equal(response.status.code, 400, JSON.stringify(request));
      assert.match(response.status.message, message);
    }
    const noUid = await post(
      h.port(),
      '/validate',
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { operation: 'CREATE' },
      }),
      { ca: h.ca.cert },
    );
    assert.deepEqual(noUid.json().response, { uid: '', allowed: true, status: { code: 200 } });
    const wrongApiVersion = await post(
      h.port(),
      '/validate',
      JSON.stringify({ apiVersion: 7, kind: 'AdmissionReview', request: { uid: 'u' } }),
      { ca: h.ca.cert },
    );
    assert.match(JSON.stringify(wrongApiVersion.json()), /review\.apiVersion: expected string/);
  });

  test('a ConversionReview with fields of the wrong type is 400; an object that is not an object fails the review', async () => {
    for (const request of [
      { uid: 1, desiredAPIVersion: 'apps.example.com/v1', objects: [] },
      { uid: 'c', desiredAPIVersion: ['v1'], objects: [] },
      { uid: 'c', desiredAPIVersion: 'apps.example.com/v1', objects: 'x' },
    ]) {
      const answer = await post(h.port(), '/convert', JSON.stringify({ request }), {
        ca: h.ca.cert,
      });
      assert.equal(answer.status, 400, JSON.stringify(request));
    }
    for (const [obj, message] of [
      [5, /objects\[0\]: expected an object, got number/],
      [
        { apiVersion: 1, kind: 'Application' },
        /objects\[0\]: apiVersion must be a non-empty string/,
      ],
      [
        { apiVersion: 'apps.example.com/v2', kind: 'Application', metadata: 'x' },
        /metadata: expected an object/,
      ],
    ] as const) {
      const answer = await post(
        h.port(),
        '/convert',
        JSON.stringify({
          request: { uid: 'c', desiredAPIVersion: 'apps.example.com/v1', objects: [obj] },
        }),
        { ca: h.ca.cert },
      );
      assert.equal(answer.status, 200);
      const response = answer.json().response as {
        uid: string;
        result: { status: string; message: string };
      };
      assert.equal(response.uid, 'c');
      assert.equal(response.result.status, 'Failure');
      assert.match(response.result.message, message);
    }
  });
});

describe('an oversized body: stop at the limit, answer at once, close (controller-runtime limited reader)', () => {
  let h: Harness;
  before(async () => {
    h = await startServer(setup, { enableHTTP2: true });
  });
  after(async () => {
    await h.stop();
  });

  /** Send headers and then body bytes for as long as the connection stays open. */
  function endlessBody(
    path: string,
    headers: string,
  ): Promise<Answer & { sentAfterAnswer: number }> {
    return new Promise((resolve) => {
      let text = '';
      let sentAfterAnswer = 0;
      const socket = tlsConnect(
        {
          host: '127.0.0.1',
          port: h.port(),
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        },
        () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}\r\n`,
          );
          const chunk = Buffer.alloc(64 * 1024, 'x');
          const pump = (): void => {
            while (!socket.destroyed && socket.write(chunk)) {
              if (text !== '') sentAfterAnswer++;
            }
            if (!socket.destroyed) socket.once('drain', pump);
          };
          pump();
        },
      );
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => (text += c));
      socket.on('error', () => undefined);
      socket.on('close', () =>
        resolve({ status: Number(text.slice(9, 12)), text, closed: true, sentAfterAnswer }),
      );
    });
  }

  test('a client that keeps sending past 7 MiB gets code 413 at once and its connection closed', async () => {
    const answer = await endlessBody('/validate', 'Content-Length: 67108864\r\n');
    // Content-Length already over the limit: refused before a byte of the body is read.
    assert.equal(answer.status, 200);
    assert.match(answer.text, /\r\nconnection: close\r\n/i);
    assert.match(
      answer.text,
      /"code":413,"message":"request entity is too large; limit is 7340032 bytes"/,
    );
    assert.ok(answer.closed, 'closed by the server while the client was still sending');
  });

  test('a chunked body that never ends is cut at the limit: 413, then the connection closes', async () => {
    const answer = await new Promise<Answer>((resolve) => {
      let text = '';
      const socket = tlsConnect(
        {
          host: '127.0.0.1',
          port: h.port(),
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        },
        () => {
          socket.write(
            'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
          );
          const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
          const pump = (): void => {
            while (!socket.destroyed && socket.write(chunk));
            if (!socket.destroyed) socket.once('drain', pump);
          };
          pump();
        },
      );
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => (text += c));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ status: Number(text.slice(9, 12)), text, closed: true }));
    });
    assert.equal(answer.status, 200);
    assert.match(answer.text, /"code":413/);
    assert.ok(answer.closed, 'closed by the server while the client was still sending');
    const next = await post(h.port(), '/validate', goodReview, { ca: h.ca.cert });
    assert.equal(next.status, 200);
  });

  test('over HTTP/2 the oversized stream is answered 413 and reset; the session serves the next review', async () => {
    const session = await h2session(h.port());
    try {
      const big = await h2post(session, '/validate', 'x'.repeat(7 * 1024 * 1024 + 1));
      assert.match(big.body, /"code":413/);
      const conversion = await h2post(session, '/convert', 'x'.repeat(7 * 1024 * 1024 + 1));
      assert.equal(conversion.status, 413);
      const next = await h2post(session, '/validate', goodReview);
      assert.match(next.body, /"allowed":true/);
    } finally {
      await new Promise<void>((resolve) => {
        session.once('close', () => resolve());
        session.close();
      });
    }
  });
});

describe('the webhook server bounds its clients (limits option)', () => {
  test("the defaults are controller-runtime's (32 s to the headers, 120 s keep-alive), and a client that never sends a ClientHello is cut at tlsHandshakeTimeoutMs", async () => {
    const defaults = await startServer(setup);
    try {
      assert.deepEqual(defaults.server.limits, {
        tlsHandshakeTimeoutMs: 32_000,
        readHeaderTimeoutMs: 32_000,
        readTimeoutMs: 60_000,
        idleTimeoutMs: 120_000,
        maxHeaderBytes: 16 * 1024,
        maxConcurrentStreams: 250,
      });
    } finally {
      await defaults.stop();
    }
    const h = await startServer(setup, { limits: { tlsHandshakeTimeoutMs: 100 } });
    try {
      await new Promise<void>((resolve) => {
        const socket = netConnect(h.port(), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
      });
      const next = await post(h.port(), '/validate', goodReview, { ca: h.ca.cert });
      assert.equal(next.status, 200);
    } finally {
      await h.stop();
    }
  });
});
