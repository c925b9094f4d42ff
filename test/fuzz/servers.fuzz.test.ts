// Fuzzing the servers the kit runs (issue #34): the webhook server over HTTP/1.1 (raw bytes
// on TLS) and HTTP/2, the probe server, and the secured metrics filter, each driven by
// fast-check for a fixed time. Inputs: request-targets (the issue's `//` family,
// absolute-form, broken escapes, random text), methods, headers (CR/LF and NUL inside,
// duplicate and invalid Content-Length, Transfer-Encoding variants, Expect), body framing
// (chunked, malformed chunks, Content-Length shorter or longer than the body, truncation),
// JSON shapes (100,000-deep nesting, huge strings) and AdmissionReview / ConversionReview
// fields of every wrong type (missing uid, unknown apiVersion, objects that are not
// objects), and TLS garbage.
//
// Invariant (Go net/http's "the server guards the handler"): every input gets an HTTP
// answer or a closed connection, never a hang; no uncaught exception or unhandled
// rejection; no 500 from the kit (the handlers here are correct, so a 500 is a kit bug) and
// no error-level log for a client's garbage; the server still answers a good request after
// every input; when the file ends nothing is left open (test/support/setup.ts) and no timer
// of the kit's clock is left but the cert watcher's.
//
// Each surface runs on the fuzz budget (test/support/fuzz_budget.ts): 3 s from a random
// seed, printed with the number of inputs; FUZZ_TIME_MS for longer, FUZZ_RUNS=N for N
// inputs with no time limit (with --test-timeout=0), FUZZ_SEED=S to replay.
// docs/reliability.md says how.
import assert from 'node:assert/strict';
import { constants as http2Constants, connect as h2connect } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { Agent } from 'node:https';
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import fc from 'fast-check';
import { Transport } from '../../src/client/transport.js';
import { HealthCheckSet } from '../../src/manager/healthz.js';
import { withAuthenticationAndAuthorization } from '../../src/manager/metrics_auth.js';
import { metricsHandler } from '../../src/manager/metrics_server.js';
import { healthProbeHandler } from '../../src/manager/probe_server.js';
import { HttpServer, parseBindAddress } from '../../src/manager/servers.js';
import { FakeClock } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { noopLogger } from '../../src/util/logger.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import type { WebhookServer } from '../../src/webhook/index.js';
import { json, kubeConfigFor, startStub, status } from '../client/stub.js';
import type { Stub } from '../client/stub.js';
import type { Harness } from '../webhook/support.js';
import { post, review, startServer } from '../webhook/support.js';
import type { FuzzBudget } from '../support/fuzz_budget.js';
import { fuzz } from '../support/fuzz_budget.js';

/** An input that gets neither an answer nor a close within this is a hang: a failure. */
const DEADLINE_MS = 10_000;

/** A surface's budget (test/support/fuzz_budget.ts): 3 s, or FUZZ_TIME_MS, or FUZZ_RUNS inputs. */
function budget<T>(examples: T[] = []): FuzzBudget<T> {
  return { timeMs: 3000, examples };
}

// ---------------------------------------------------------------- the process stays up

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
  assert.deepEqual(escaped, [], 'no uncaught exception or unhandled rejection');
});

/** A logger that keeps error lines: a client's garbage must never log at error. */
function errorRecorder(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return {
    errors,
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (message) => void errors.push(message),
  };
}

// ---------------------------------------------------------------- raw HTTP/1.1 exchanges

/**
 * Exchanges still running. fast-check abandons the run in progress when a surface's time
 * is up; its exchange still runs to its answer, close or deadline, and is awaited (and
 * checked) before the server is stopped.
 */
const inflight = new Set<Promise<unknown>>();

function track<T>(promise: Promise<T>): Promise<T> {
  inflight.add(promise);
  const done = (): void => void inflight.delete(promise);
  promise.then(done, done);
  return promise;
}

/**
 * Wait for every exchange abandoned by the time limit (and what its run goes on to start);
 * a hang among them fails the surface.
 */
async function settled(): Promise<void> {
  for (let quiet = 0; quiet < 3;) {
    if (inflight.size === 0) {
      quiet++;
      await new Promise((r) => setImmediate(r));
      continue;
    }
    quiet = 0;
    const results = await Promise.allSettled([...inflight]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }
}

interface Exchange {
  /** Everything the server wrote, as Latin-1. */
  text: string;
  /** The status codes of every response in it. */
  statuses: number[];
}

/**
 * True when `text` holds a whole first answer (1xx answers skipped): its headers and the
 * body they announce (Content-Length, or chunked up to the last chunk; none for HEAD).
 */
function answerComplete(text: string, head: boolean): boolean {
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return false;
    const headers = rest.slice(0, end);
    const body = rest.slice(end + 4);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headers)?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      rest = body;
      continue;
    }
    if (head || status === 204 || status === 304) return true;
    const length = /\r\ncontent-length: *(\d+)/i.exec(headers);
    if (length !== null) return Buffer.byteLength(body, 'latin1') >= Number(length[1]);
    if (/\r\ntransfer-encoding: *chunked/i.test(headers)) return /(^|\r\n)0\r\n\r\n/.test(body);
    return false;
  }
}

/**
 * Write `bytes` on a fresh connection and collect what comes back until the server closes
 * it or a whole answer arrived. Half-closes at once when `halfClose`, else after 200 ms
 * without a whole answer (a request the server is still waiting the rest of). Rejects when
 * neither an answer nor a close comes within the deadline: a hang.
 */
function exchange(open: Opener, bytes: Buffer, halfClose = false): Promise<Exchange> {
  return track(
    new Promise((resolve, reject) => {
      let text = '';
      let quiet: NodeJS.Timeout | undefined;
      const head = bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
      const socket = open(() => {
        if (halfClose) socket.end(bytes);
        else {
          socket.write(bytes);
          quiet = setTimeout(() => socket.end(), 200);
        }
      });
      let done = false;
      const settle = (): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(quiet);
        const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
        resolve({ text, statuses });
      };
      const timer = setTimeout(() => {
        clearTimeout(quiet);
        socket.destroy();
        reject(
          new Error(
            `no answer and no close within ${DEADLINE_MS} ms; got ${JSON.stringify(text.slice(0, 200))}`,
          ),
        );
      }, DEADLINE_MS);
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => {
        text += c;
        if (!halfClose && answerComplete(text, head)) {
          socket.destroy();
          settle();
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', settle);
    }),
  );
}

type Opener = (connected: () => void) => Socket;

const tlsOpen =
  (port: number): Opener =>
  (connected) =>
    tlsConnect(
      { host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] },
      connected,
    );

const tcpOpen =
  (port: number): Opener =>
  (connected) =>
    netConnect(port, '127.0.0.1', connected);

// ---------------------------------------------------------------- arbitraries

const hostileSegment = fc.constantFrom(
  '',
  '.',
  '..',
  '%00',
  '%',
  '%zz',
  '%2F',
  '%E2%9C',
  '@',
  ':',
  'x:99999',
  '?',
  '#',
  ';',
  'é',
  '\u0000',
  '\u007f',
  ' ',
  '\t',
  'a'.repeat(3000),
);

/** Request-targets: the issue's, the served paths, absolute-form, and built or random ones. */
function targetArb(paths: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '//',
        '//x:99999/validate',
        '//@',
        '///',
        '*',
        '/%zz',
        'https://x:99999/validate',
        'http://[::1]/convert',
        'http://[::1/x',
        'validate',
        '',
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('', 'http://h', 'https://u@h:1', '/'),
          fc.array(fc.oneof(hostileSegment, fc.constantFrom(...paths)), { maxLength: 4 }),
          fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        )
        .map(
          ([prefix, segments, query]) =>
            `${prefix}${segments.join('/')}${query === undefined ? '' : `?${query}`}`,
        ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
}

const methodArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('POST', 'GET', 'HEAD') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'PUT',
      'DELETE',
      'OPTIONS',
      'PATCH',
      'CONNECT',
      'TRACE',
      'FOO',
      'get',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Mostly the right type, sometimes anything (a wrong type, null, an array). */
function field<T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: anyJson });
}

const hugeString = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.nat({ max: 300_000 }).map((n) => 'x'.repeat(n)) },
);

/** JSON nested `depth` deep, arrays or objects. */
const deepArb = fc
  .tuple(fc.constantFrom(10, 999, 1000, 1001, 5000, 100_000), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? '['.repeat(depth) + ']'.repeat(depth)
      : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

const objectArb = field(
  fc.record(
    {
      apiVersion: field(
        fc.constantFrom('apps.example.com/v1', 'apps.example.com/v2', 'other.io/v1', 'v1', ''),
      ),
      kind: field(fc.constantFrom('Application', 'Other', '')),
      metadata: field(
        fc.record(
          {
            name: field(fc.constantFrom('demo', 'bad', '')),
            namespace: field(fc.constant('default')),
            labels: field(
              fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), {
                maxKeys: 3,
              }),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
      spec: field(
        fc.record(
          { image: field(fc.string()), replicas: field(fc.integer()) },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
);

const gvkArb = field(
  fc.record({ group: field(fc.string()), version: field(fc.string()), kind: field(fc.string()) }),
);

const admissionReviewArb = fc
  .record(
    {
      apiVersion: field(
        fc.constantFrom(
          'admission.k8s.io/v1',
          'admission.k8s.io/v1beta1',
          'admission.k8s.io/v2',
          'v1',
        ),
      ),
      kind: field(fc.constantFrom('AdmissionReview', 'ConversionReview')),
      request: field(
        fc.record(
          {
            uid: field(hugeString),
            kind: gvkArb,
            resource: gvkArb,
            subResource: field(fc.string()),
            name: field(fc.constantFrom('demo', 'bad')),
            namespace: field(fc.string()),
            operation: field(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'NOPE')),
            userInfo: field(
              fc.record(
                {
                  username: field(fc.string()),
                  groups: field(fc.array(field(fc.string()), { maxLength: 3 })),
                  extra: field(fc.dictionary(fc.string(), field(fc.array(fc.string())))),
                },
                { requiredKeys: [] },
              ),
            ),
            object: objectArb,
            oldObject: objectArb,
            dryRun: field(fc.boolean()),
            options: anyJson,
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  )
  .map((r) => JSON.stringify(r));

const conversionReviewArb = fc
  .record(
    {
      apiVersion: field(
        fc.constantFrom('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1', 'x/v9'),
      ),
      kind: field(fc.constant('ConversionReview')),
      request: field(
        fc.record(
          {
            uid: field(hugeString),
            desiredAPIVersion: field(
              fc.constantFrom(
                'apps.example.com/v1',
                'apps.example.com/v2',
                'apps.example.com/v9',
                'other.io/v1',
              ),
            ),
            objects: field(fc.array(objectArb, { maxLength: 4 })),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  )
  .map((r) => JSON.stringify(r));

const bodyArb = fc.oneof(
  { weight: 4, arbitrary: admissionReviewArb },
  { weight: 3, arbitrary: conversionReviewArb },
  { weight: 1, arbitrary: deepArb },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{}', '[]', 'null', '{"request":null}') },
);

const headerArb = fc.oneof(
  fc.constantFrom(
    ['Content-Type', 'application/json'],
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Type', 'text/plain'],
    ['Content-Type', 'APPLICATION/JSON'],
    ['Content-Length', '0'],
    ['Content-Length', '-1'],
    ['Content-Length', '99999999999999999999'],
    ['Content-Length', '1e3'],
    ['Transfer-Encoding', 'gzip'],
    ['Transfer-Encoding', 'chunked, chunked'],
    ['Expect', '100-continue'],
    ['Connection', 'keep-alive'],
    ['Connection', 'upgrade'],
    ['Upgrade', 'h2c'],
    ['Authorization', 'Bearer x'],
    ['Host', ''],
    ['X-Big', 'b'.repeat(20_000)],
  ),
  fc.tuple(
    fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/),
    fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('a\r\nX-Injected: 1', 'a\u0000b', 'é')),
  ),
);

type Framing = 'length' | 'shorter' | 'longer' | 'chunked' | 'bad-chunks' | 'none';
const framingArb = fc.constantFrom<Framing>(
  'length',
  'length',
  'length',
  'shorter',
  'longer',
  'chunked',
  'bad-chunks',
  'none',
);

/** One raw HTTP/1.1 request: its bytes. */
function requestBytes(
  method: string,
  target: string,
  version: string,
  headers: [string, string][],
  body: string,
  framing: Framing,
  chunkSize: number,
): Buffer {
  const payload = Buffer.from(body);
  const lines = [`${method} ${target} ${version}`, 'Host: 127.0.0.1'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  let rest: Buffer = Buffer.alloc(0);
  switch (framing) {
    case 'length':
      lines.push(`Content-Length: ${payload.length}`);
      rest = payload;
      break;
    case 'shorter':
      lines.push(`Content-Length: ${Math.max(0, payload.length - chunkSize)}`);
      rest = payload;
      break;
    case 'longer':
      lines.push(`Content-Length: ${payload.length + chunkSize}`);
      rest = payload;
      break;
    case 'chunked':
    case 'bad-chunks': {
      lines.push('Transfer-Encoding: chunked');
      const parts: Buffer[] = [];
      for (let i = 0; i < payload.length; i += chunkSize) {
        const piece = payload.subarray(i, i + chunkSize);
        const size = framing === 'bad-chunks' && i === 0 ? 'zz' : piece.length.toString(16);
        parts.push(Buffer.from(`${size}\r\n`), piece, Buffer.from('\r\n'));
      }
      if (framing === 'chunked') parts.push(Buffer.from('0\r\n\r\n'));
      rest = Buffer.concat(parts);
      break;
    }
    case 'none':
      rest = payload;
      break;
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), rest]);
}

const rawRequestArb = (paths: string[], bodies: fc.Arbitrary<string>) =>
  fc
    .record({
      method: methodArb,
      target: targetArb(paths),
      version: fc.constantFrom(
        'HTTP/1.1',
        'HTTP/1.1',
        'HTTP/1.1',
        'HTTP/1.0',
        'HTTP/2.0',
        'HTTP/9.9',
        'HTTP/1.1 x',
      ),
      headers: fc.array(headerArb, { maxLength: 4 }) as fc.Arbitrary<[string, string][]>,
      body: bodies,
      framing: framingArb,
      chunkSize: fc.integer({ min: 1, max: 4096 }),
    })
    .map((r) =>
      requestBytes(r.method, r.target, r.version, r.headers, r.body, r.framing, r.chunkSize),
    );

/** The bytes of a request, or random bytes (mostly not HTTP at all). */
const inputArb = (paths: string[], bodies: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 9, arbitrary: rawRequestArb(paths, bodies) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
  );

// ---------------------------------------------------------------- the webhook server

const applicationTarget = {
  group: 'apps.example.com',
  version: 'v1',
  kind: 'Application',
  resource: 'applications',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Correct handlers (defensive about what they are given): any 500 is the kit's. */
function registerWebhooks(server: WebhookServer): void {
  server.registerFor<UnstructuredObject>(applicationTarget, {
    defaulter: {
      default(obj) {
        if (!isObject(obj.spec)) obj.spec = {};
        (obj.spec as Record<string, unknown>).replicas ??= 1;
      },
    },
    validator: {
      validateCreate(obj) {
        if (obj.metadata?.name === 'bad') throw new Error('the name bad is refused');
      },
      validateUpdate(_old, obj) {
        return obj.metadata?.name === 'bad' ? ['bad name'] : undefined;
      },
      validateDelete() {},
    },
  });
  server.registerConversion<UnstructuredObject>({
    group: 'apps.example.com',
    kind: 'Application',
    hub: 'v1',
    spokes: {
      v2: {
        toHub(obj) {
          const spec: Record<string, unknown> = isObject(obj.spec) ? obj.spec : {};
          return { ...obj, spec: { ...spec, image: JSON.stringify(spec.image ?? '') } };
        },
        fromHub(hub) {
          const spec: Record<string, unknown> = isObject(hub.spec) ? hub.spec : {};
          if (spec.image === 'refuse') throw new Error('cannot be expressed in v2');
          return { ...hub, spec: { ...spec, image: { name: spec.image ?? '' } } };
        },
      },
    },
  });
}

/** One HTTP/2 request of the fuzzer. */
interface H2Input {
  method: string;
  path: string;
  headers: [string, string][];
  body: string | undefined;
}

const webhookPaths = [
  '/mutate-apps-example-com-v1-application',
  '/validate-apps-example-com-v1-application',
  '/convert',
];

/** Answers of the kit that mean a kit bug: an HTTP 500, or a review with code 500. */
function assertNoKitFailure(text: string): void {
  assert.ok(!/HTTP\/1\.[01] 5\d\d /.test(text), `a 5xx answer: ${text.slice(0, 300)}`);
  assert.ok(!/"code":500/.test(text), `a review answered 500: ${text.slice(0, 300)}`);
}

describe('webhook server fuzzing', () => {
  let h: Harness;
  const logger = errorRecorder();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let session: ClientHttp2Session | undefined;

  before(async () => {
    h = await startServer(registerWebhooks, { enableHTTP2: true, logger });
  });
  after(async () => {
    await settled();
    agent.destroy();
    if (session !== undefined && !session.destroyed) {
      // Destroyed, not closed: a stream the server reset with NO_ERROR while Node's client
      // still owed body bytes never closes on the client's side.
      await new Promise<void>((resolve) => {
        session!.once('close', () => resolve());
        session!.destroy();
      });
    }
    // Every HTTP/2 session and stream timer of the kit's clock ends with its client: only
    // the cert watcher's poll remains.
    for (let i = 0; i < 50 && h.clock.pendingTimers() > 1; i++) {
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(h.clock.pendingTimers(), 1, 'only the cert watcher timer is left');
    await h.stop();
  });

  async function goodReviewAnswered(): Promise<void> {
    const answer = await track(
      post(
        h.port(),
        '/validate-apps-example-com-v1-application',
        review({ operation: 'CREATE', object: { metadata: { name: 'ok' } } }),
        { ca: h.ca.cert, agent },
      ),
    );
    assert.equal(answer.status, 200);
    assert.equal((answer.json().response as { allowed: boolean }).allowed, true);
  }

  test('raw HTTP/1.1 over TLS: every input is answered or closed, never a 500, and the next review is served', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(
        fc.oneof(
          {
            weight: 9,
            arbitrary: fc
              .tuple(inputArb(webhookPaths, bodyArb), fc.boolean())
              .map(([b, halfClose]) => ({ tls: true, b, halfClose })),
          },
          {
            weight: 1,
            arbitrary: fc
              .uint8Array({ maxLength: 300 })
              .map((a) => ({ tls: false, b: Buffer.from(a), halfClose: true })),
          },
        ),
        async ({ tls, b, halfClose }) => {
          const out = await exchange(tls ? tlsOpen(h.port()) : tcpOpen(h.port()), b, halfClose);
          if (tls) assertNoKitFailure(out.text);
          await goodReviewAnswered();
          assert.deepEqual(logger.errors, []);
        },
      ),
      budget([
        // Pinned: the issue's reproduction and its family.
        [
          {
            tls: true,
            halfClose: false,
            b: requestBytes(
              'POST',
              '//',
              'HTTP/1.1',
              [['Content-Type', 'application/json']],
              '{}',
              'length',
              1,
            ),
          },
        ],
        [
          {
            tls: true,
            halfClose: false,
            b: requestBytes('POST', '//x:99999/validate', 'HTTP/1.1', [], '{}', 'length', 1),
          },
        ],
        [
          {
            tls: true,
            halfClose: false,
            b: requestBytes(
              'POST',
              webhookPaths[1]!,
              'HTTP/1.1',
              [['Content-Type', 'application/json']],
              '['.repeat(100_000) + ']'.repeat(100_000),
              'chunked',
              4096,
            ),
          },
        ],
        // Found: a conversion the webhook cannot do (another API group) logged at error.
        [
          {
            tls: true,
            halfClose: false,
            b: requestBytes(
              'POST',
              '/convert',
              'HTTP/1.1',
              [['Content-Type', 'application/json']],
              JSON.stringify({
                request: {
                  uid: 'u',
                  desiredAPIVersion: 'other.io/v1',
                  objects: [{ apiVersion: 'apps.example.com/v2', kind: 'Application' }],
                },
              }),
              'length',
              1,
            ),
          },
        ],
        // Found: an Expect the server does not know, with a body, over HTTP/1.1.
        [
          {
            tls: true,
            halfClose: false,
            b: requestBytes('POST', '/convert', 'HTTP/1.1', [['Expect', 'x']], '{}', 'length', 1),
          },
        ],
      ]),
    );
  });

  test('HTTP/2: every stream is answered or reset, never a 500, and the next review is served', async (t) => {
    const connect = async (): Promise<ClientHttp2Session> => {
      if (session !== undefined && !session.destroyed && !session.closed) return session;
      const next = h2connect(`https://127.0.0.1:${h.port()}`, { rejectUnauthorized: false });
      next.on('error', () => undefined);
      await new Promise<void>((resolve) => {
        next.once('connect', () => resolve());
        next.once('close', () => resolve());
      });
      session = next;
      return next;
    };
    const h2Arb: fc.Arbitrary<H2Input> = fc.record({
      method: fc.oneof(
        fc.constantFrom('POST', 'GET', 'PUT', 'HEAD', 'CONNECT'),
        fc.stringMatching(/^[A-Z]{1,8}$/),
      ),
      path: targetArb(webhookPaths).filter((p) => p.length > 0),
      headers: fc.array(
        fc.tuple(
          fc.constantFrom('content-type', 'content-length', 'x-any', 'expect', 'te'),
          fc.oneof(
            fc.constantFrom('application/json', '0', '5', 'trailers', '100-continue'),
            fc.string({ maxLength: 20 }),
          ),
        ),
        { maxLength: 3 },
      ),
      body: fc.option(bodyArb, { nil: undefined }),
    });
    await fuzz(
      t,
      fc.asyncProperty(h2Arb, async (input) => {
        const s = await connect();
        const headers: Record<string, string> =
          input.method === 'CONNECT'
            ? { ':method': 'CONNECT', ':authority': 'example.com:443' }
            : { ':method': input.method, ':path': input.path };
        for (const [name, value] of input.headers) headers[name] = value;
        let stream;
        try {
          stream = s.request(headers, { endStream: input.body === undefined });
        } catch {
          return; // the client itself refuses to send it
        }
        const outcome = await track(
          new Promise<{ status: number; body: string }>((resolve, reject) => {
            let status = 0;
            let body = '';
            const timer = setTimeout(() => {
              stream.close();
              reject(
                new Error(
                  `HTTP/2 stream neither answered (${status}) nor closed within ${DEADLINE_MS} ms: ${JSON.stringify({ ...input, body: input.body?.slice(0, 300) })}`,
                ),
              );
            }, DEADLINE_MS);
            stream.on('response', (hd) => (status = Number(hd[':status'])));
            stream.setEncoding('utf8');
            stream.on('data', (c: string) => (body += c));
            stream.on('error', () => undefined);
            const done = (): void => {
              clearTimeout(timer);
              resolve({ status, body });
              // The whole answer is in. A server that answered before reading the whole
              // body resets the stream with NO_ERROR (RFC 9113 §8.1, as Go does); Node's
              // client then still waits to send the rest, so it is let go of here.
              if (!stream.closed) stream.close(http2Constants.NGHTTP2_CANCEL);
            };
            stream.on('end', done);
            stream.on('close', done);
            if (input.body !== undefined) stream.end(input.body);
          }),
        );
        assert.ok(
          outcome.status < 500,
          `HTTP/2 answered ${outcome.status}: ${outcome.body.slice(0, 200)}`,
        );
        assertNoKitFailure(outcome.body);
        await goodReviewAnswered();
        assert.deepEqual(logger.errors, []);
      }),
      budget([
        // Found: 417 for an unknown Expect left the stream (and so the server's shutdown)
        // waiting for a body the client could never finish; a HEAD answer never `finish`es.
        ...['POST', 'HEAD'].map((method): [H2Input] => [
          {
            method,
            path: webhookPaths[0]!,
            headers: [['expect', "0,3?'%"]],
            body: '['.repeat(100_000),
          },
        ]),
        [{ method: 'CONNECT', path: '/convert', headers: [], body: '{}' }] as [H2Input],
      ]),
    );
  });
});

// ---------------------------------------------------------------- probe and secured metrics

describe('probe server fuzzing', () => {
  let server: HttpServer;
  const logger = errorRecorder();
  before(async () => {
    const healthz = new HealthCheckSet('/healthz');
    const readyz = new HealthCheckSet('/readyz');
    healthz.add('ping', () => undefined);
    readyz.add('informer-sync', () => undefined);
    readyz.add('a.b-c_d', async () => undefined);
    server = await HttpServer.listen(
      'health probe',
      parseBindAddress('healthProbeBindAddress', '127.0.0.1:0')!,
      healthProbeHandler({ healthz, readyz, logger }),
      { logger },
    );
  });
  after(async () => {
    await settled();
    await server.close();
  });

  test('every input is answered or closed, never a 500 (every check passes), and /healthz is served after it', async (t) => {
    const paths = [
      '/healthz',
      '/readyz',
      '/healthz/ping',
      '/readyz/a.b-c_d',
      '/readyz/nope',
      '/healthz?verbose',
      '/readyz?exclude=informer-sync&verbose',
    ];
    await fuzz(
      t,
      fc.asyncProperty(
        inputArb(paths, fc.string({ maxLength: 100 })),
        fc.boolean(),
        async (b, halfClose) => {
          const out = await exchange(tcpOpen(server.address.port), b, halfClose);
          assertNoKitFailure(out.text);
          const good = await exchange(
            tcpOpen(server.address.port),
            Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
          );
          assert.deepEqual(good.statuses, [200]);
          assert.deepEqual(logger.errors, []);
        },
      ),
      budget(),
    );
  });
});

describe('secured metrics fuzzing', () => {
  let stub: Stub;
  let server: HttpServer;
  const logger = errorRecorder();
  before(async () => {
    // The API server: a token starting with "ok" is authenticated (and allowed when it ends
    // with "!"), "no" is refused, anything else is a 503.
    stub = await startStub((req, res, body) => {
      let spec: { token?: string; user?: string } = {};
      try {
        spec = (JSON.parse(body) as { spec?: typeof spec }).spec ?? {};
      } catch {
        // an empty spec
      }
      if (req.url?.includes('tokenreviews')) {
        const token = spec.token ?? '';
        if (token.startsWith('ok')) {
          json(res, 201, { status: { authenticated: true, user: { username: token } } });
        } else if (token.startsWith('no')) json(res, 201, { status: { authenticated: false } });
        else json(res, 503, status(503, 'ServiceUnavailable', 'down'));
      } else {
        json(res, 201, { status: { allowed: (spec.user ?? '').endsWith('!') } });
      }
    });
    const clock = new FakeClock();
    server = await HttpServer.listen(
      'metrics',
      parseBindAddress('metricsBindAddress', '127.0.0.1:0')!,
      withAuthenticationAndAuthorization(
        metricsHandler({ metrics: () => 'up 1\n', contentType: 'text/plain' }),
        {
          transport: new Transport(kubeConfigFor(stub.url), {
            clock,
            logger: noopLogger,
            maxRetries: 0,
          }),
          clock,
          logger: noopLogger,
        },
      ),
      { logger },
    );
  });
  after(async () => {
    await settled();
    await server.close();
    await stub.close();
  });

  test('every input is answered or closed; a 500 is only the filter saying the API server failed', async (t) => {
    const authArb = fc.oneof(
      fc.constantFrom(
        'Bearer ok-x!',
        'Bearer ok-y',
        'Bearer no',
        'Bearer down',
        'bearer ok-z!',
        'Bearer',
        'Bearer  ok',
        'Basic b2s6b2s=',
        '',
      ),
      fc.string({ maxLength: 40 }).map((t) => `Bearer ${t}`),
    );
    const arb = fc.record({
      halfClose: fc.boolean(),
      input: rawRequestArb(
        ['/metrics', '/metrics?x=%zz', '//metrics', '/'],
        fc.string({ maxLength: 50 }),
      ),
      auth: authArb,
    });
    await fuzz(
      t,
      fc.asyncProperty(arb, async ({ input, auth, halfClose }) => {
        // Put the Authorization header right after the request line.
        const text = input.toString('latin1');
        const eol = text.indexOf('\r\n');
        const b =
          eol === -1 || auth === ''
            ? input
            : Buffer.from(
                `${text.slice(0, eol)}\r\nAuthorization: ${auth}${text.slice(eol)}`,
                'latin1',
              );
        const out = await exchange(tcpOpen(server.address.port), b, halfClose);
        for (const m of out.text.matchAll(
          /HTTP\/1\.[01] 500 [^\r]*\r\n(?:[^\r]+\r\n)*\r\n(?:[0-9a-f]+\r\n)?([^\n]*)/g,
        )) {
          // (A HEAD answer has no body to say it.)
          if (!b.subarray(0, 5).equals(Buffer.from('HEAD '))) {
            assert.match(m[1] ?? '', /^(Authentication failed|Authorization for user .* failed)$/);
          }
        }
        const good = await exchange(
          tcpOpen(server.address.port),
          Buffer.from('GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok-good!\r\n\r\n'),
        );
        assert.deepEqual(good.statuses, [200]);
        assert.deepEqual(logger.errors, []);
      }),
      budget(),
    );
  });
});
