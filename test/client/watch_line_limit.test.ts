// The watch decoder's line limit (issue #34 item 2) and its framing rules: a line longer
// than maxWatchEventBytes ends the watch with a WatchEventTooLargeError that names the limit
// and what was read, the decoder never holds more than the limit of an unfinished line, and
// a reflector relists after it (client-go: apimachinery's streaming decoder refuses a frame
// past 16 MiB with ErrObjectTooLarge, the StreamWatcher turns it into an ERROR event, and
// the reflector lists again). Also: partial UTF-8 across chunks, a line split at every byte
// offset, ERROR events interleaved with others, over HTTP/1.1 (gzipped too) and HTTP/2.
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { constants, createGzip } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { generateTestCertificates } from '@kube-controller-kit/testing';
import type { TestCertificates } from '@kube-controller-kit/testing';
import { Indexer } from '../../src/cache/indexer.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { Reflector } from '../../src/cache/reflector.js';
import { podsResource } from '../../src/client/builtins.js';
import { WatchDecodeError, WatchEventTooLargeError } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import type { TransportOptions } from '../../src/client/transport.js';
import type { WatchEvent } from '../../src/client/types.js';
import { decodeWatchStream, defaultMaxWatchEventBytes } from '../../src/client/watch_decoder.js';
import { noopLogger } from '../../src/util/logger.js';
import { TOKEN, json, kubeConfigFor, startStub, until } from './stub.js';

interface Pod {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  note?: string;
}

const ev = (type: string, name: string, rv: string, note?: string): string =>
  JSON.stringify({
    type,
    object: {
      metadata: { name, namespace: 'ns', resourceVersion: rv },
      ...(note === undefined ? {} : { note }),
    },
  }) + '\n';

const errorLine = (code: number, reason: string): string =>
  JSON.stringify({
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: reason },
  }) + '\n';

/** A body that produces `total` bytes of `fill` in chunks of `chunk`, counting what was pulled. */
function endlessBody(
  total: number,
  chunk: number,
  prefix = Buffer.alloc(0),
): Readable & { pulled: number } {
  let sent = 0;
  const piece = Buffer.alloc(chunk, 'x');
  const body = new Readable({
    read() {
      if (sent === 0 && prefix.length > 0) {
        sent += prefix.length;
        body.pulled += prefix.length;
        this.push(prefix);
        return;
      }
      if (sent >= total) {
        this.push(null);
        return;
      }
      const n = Math.min(chunk, total - sent);
      sent += n;
      body.pulled += n;
      this.push(n === chunk ? piece : piece.subarray(0, n));
    },
  }) as Readable & { pulled: number };
  body.pulled = 0;
  return body;
}

/** A body that hands out exactly these chunks. */
function chunked(chunks: readonly Buffer[]): Readable {
  let i = 0;
  return new Readable({
    read() {
      this.push(i < chunks.length ? chunks[i++] : null);
    },
  });
}

interface Decoded {
  events: WatchEvent<Pod>[];
  error: unknown;
  closed: boolean;
}

async function decodeAll(body: Readable, maxEventBytes?: number): Promise<Decoded> {
  let closed = false;
  const it = decodeWatchStream<Pod>(
    body,
    () => {
      closed = true;
      body.destroy();
    },
    'GET /api/v1/pods?watch=true',
    undefined,
    undefined,
    maxEventBytes === undefined ? {} : { maxEventBytes },
  );
  const events: WatchEvent<Pod>[] = [];
  try {
    for await (const e of it) events.push(e);
    return { events, error: undefined, closed };
  } catch (error) {
    return { events, error, closed };
  }
}

describe('watch line limit (client-go ErrObjectTooLarge: a frame past the limit is refused)', () => {
  test('2× the default limit without a newline: WatchEventTooLargeError naming 16 MiB and what was read; the decoder stopped reading one chunk past the limit', async () => {
    const chunk = 64 * 1024;
    const body = endlessBody(2 * defaultMaxWatchEventBytes, chunk);
    const out = await decodeAll(body);
    assert.ok(out.error instanceof WatchEventTooLargeError, String(out.error));
    assert.ok(out.error instanceof WatchDecodeError, 'a WatchDecodeError to those who catch that');
    assert.equal(out.error.limit, 16 * 1024 * 1024);
    assert.ok(out.error.bytesRead > out.error.limit);
    assert.ok(
      out.error.bytesRead <= out.error.limit + chunk,
      `stopped at the first chunk past the limit, read ${out.error.bytesRead}`,
    );
    assert.match(out.error.message, /longer than the limit of 16777216 bytes per event/);
    assert.match(out.error.message, new RegExp(`${out.error.bytesRead} bytes read`));
    assert.equal(out.error.line, 1);
    assert.equal(out.error.byteOffset, 0);
    assert.ok(out.error.excerpt.length <= 121, 'the excerpt is short');
    // Bounded: the decoder pulled the limit and at most the stream's own read-ahead more
    // (it cannot hold more than it pulled), and it closed the connection.
    assert.ok(
      body.pulled <= defaultMaxWatchEventBytes + 3 * chunk,
      `pulled ${body.pulled} of ${2 * defaultMaxWatchEventBytes}`,
    );
    assert.ok(out.closed, 'the connection is closed');
    assert.ok(body.destroyed);
  });

  test('the unfinished line held never exceeds the limit: 2× a small limit in 100-byte chunks stops at limit + one chunk', async () => {
    const limit = 4096;
    const body = endlessBody(2 * limit, 100, Buffer.from(ev('ADDED', 'a', '1')));
    const out = await decodeAll(body, limit);
    assert.equal(out.events.length, 1, 'the events before the long line are delivered first');
    assert.ok(out.error instanceof WatchEventTooLargeError);
    assert.equal(out.error.limit, limit);
    assert.equal(out.error.line, 2);
    assert.equal(out.error.byteOffset, Buffer.byteLength(ev('ADDED', 'a', '1')));
    assert.ok(out.error.bytesRead > limit && out.error.bytesRead <= limit + 100);
    assert.ok(body.pulled - out.error.byteOffset <= limit + 100 * 3);
  });

  test('a line of exactly the limit is accepted; one byte more is refused, in one chunk or in many', async () => {
    const line = ev('ADDED', 'a', '1', 'é'.repeat(40)).trimEnd();
    const limit = Buffer.byteLength(line);
    for (const cut of [[line + '\n'], [...(line + '\n')].map((c) => c)]) {
      const bytes = cut.map((s) => Buffer.from(s));
      const ok = await decodeAll(chunked(bytes), limit);
      assert.equal(ok.error, undefined, 'exactly the limit');
      assert.equal(ok.events.length, 1);
      const over = await decodeAll(chunked(bytes), limit - 1);
      assert.ok(over.error instanceof WatchEventTooLargeError, 'one byte past the limit');
      assert.equal(over.error.line, 1);
      assert.equal(over.error.bytesRead, limit);
    }
  });

  test('the same over-long line fails at the same line and offset whether it arrives whole or byte by byte', async () => {
    const text =
      ev('ADDED', 'a', '1') + ev('MODIFIED', 'a', '2', 'z'.repeat(300)) + ev('ADDED', 'b', '3');
    const bytes = Buffer.from(text);
    const whole = await decodeAll(chunked([bytes]), 200);
    const bytewise = await decodeAll(chunked([...bytes].map((b) => Buffer.from([b]))), 200);
    for (const out of [whole, bytewise]) {
      assert.equal(out.events.length, 1);
      assert.ok(out.error instanceof WatchEventTooLargeError);
      assert.equal(out.error.line, 2);
      assert.equal(out.error.byteOffset, Buffer.byteLength(ev('ADDED', 'a', '1')));
    }
  });

  test('maxEventBytes must be a positive integer (a typed RangeError at construction)', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => new Transport(kubeConfigFor('http://127.0.0.1:1'), { maxWatchEventBytes: bad }),
        RangeError,
      );
      assert.throws(
        () =>
          decodeWatchStream(chunked([]), () => undefined, 'x', undefined, undefined, {
            maxEventBytes: bad,
          }),
        RangeError,
      );
    }
    const transport = new Transport(kubeConfigFor('http://127.0.0.1:1'));
    assert.equal(transport.maxWatchEventBytes, defaultMaxWatchEventBytes);
    transport.close();
  });
});

describe('watch framing: chunk boundaries, partial UTF-8, interleaved ERROR events', () => {
  // Multi-byte characters (2, 3, 4 bytes) and ERROR events between ordinary ones.
  const lines = [
    ev('ADDED', 'a', '1', 'héllo'),
    errorLine(500, 'InternalError'),
    ev('MODIFIED', 'a', '2', '日本語 ✓'),
    ev('BOOKMARK', '', '3'),
    errorLine(410, 'Expired'),
    ev('DELETED', 'a', '4', '🙂🚀'),
  ];
  const bytes = Buffer.from(lines.join(''));
  const expected = lines.map((l) => JSON.parse(l) as WatchEvent<Pod>);

  test('a stream split into two chunks at every byte offset decodes to the same events, ERROR events in place', async () => {
    for (let i = 0; i <= bytes.length; i++) {
      const out = await decodeAll(chunked([bytes.subarray(0, i), bytes.subarray(i)]));
      assert.equal(out.error, undefined, `cut at ${i}`);
      assert.deepEqual(out.events, expected, `cut at ${i}`);
    }
  });

  test('a stream split into three chunks around every multi-byte character decodes the same', async () => {
    // Every offset that falls inside a character: a continuation byte (10xxxxxx).
    const inside = [...bytes.keys()].filter((i) => (bytes[i]! & 0xc0) === 0x80);
    assert.ok(inside.length > 10);
    for (const i of inside) {
      const out = await decodeAll(
        chunked([bytes.subarray(0, i), bytes.subarray(i, i + 1), bytes.subarray(i + 1)]),
      );
      assert.deepEqual(out.events, expected, `cut inside a character at ${i}`);
    }
  });

  test('one byte per chunk decodes the same', async () => {
    const out = await decodeAll(chunked([...bytes].map((b) => Buffer.from([b]))));
    assert.deepEqual(out.events, expected);
  });
});

/** An HTTP/1.1 watch stub whose watch responses the test writes. */
async function watchStub(t: TestContext, options: TransportOptions) {
  const open: http.ServerResponse[] = [];
  const closed: boolean[] = [];
  let gzip = false;
  const gz: ReturnType<typeof createGzip>[] = [];
  const stub = await startStub((_req, res) => {
    const i = open.length;
    open.push(res);
    closed.push(false);
    res.on('close', () => (closed[i] = true));
    if (gzip) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.flushHeaders();
      const z = createGzip();
      z.pipe(res);
      gz.push(z);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
  });
  const transport = new Transport(kubeConfigFor(stub.url), options);
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  const client = new ResourceClient(transport, podsResource).namespace('ns');
  return {
    open,
    closed,
    gz,
    gzipNext: () => (gzip = true),
    client: client as unknown as ResourceClient<Pod>,
  };
}

async function drain(events: AsyncIterable<WatchEvent<Pod>>): Promise<Decoded> {
  const got: WatchEvent<Pod>[] = [];
  try {
    for await (const e of events) got.push(e);
    return { events: got, error: undefined, closed: false };
  } catch (error) {
    return { events: got, error, closed: false };
  }
}

describe('the limit over the transport (maxWatchEventBytes)', () => {
  test('HTTP/1.1: a server that sends a line without end gets the watch closed at the limit', async (t) => {
    const { open, closed, client } = await watchStub(t, { maxWatchEventBytes: 8192 });
    const events = await client.watch({});
    const res = open[0]!;
    res.write(ev('ADDED', 'a', '1'));
    const reading = drain(events);
    // Keep sending 1 KiB pieces until the client hangs up (bounded: 64 pieces at most).
    for (let i = 0; i < 64 && !closed[0]; i++) {
      res.write('y'.repeat(1024));
      await new Promise<void>((r) => setImmediate(r));
    }
    const out = await reading;
    assert.equal(out.events.length, 1);
    assert.ok(out.error instanceof WatchEventTooLargeError, String(out.error));
    assert.equal(out.error.limit, 8192);
    assert.match(
      out.error.message,
      /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/ns\/pods\?watch=true: /,
    );
    assert.ok(!out.error.message.includes(TOKEN));
    await until(() => closed[0] === true);
  });

  test('HTTP/1.1 gzip: the limit counts decompressed bytes (a small compressed body cannot inflate past it)', async (t) => {
    const stub = await watchStub(t, { maxWatchEventBytes: 64 * 1024 });
    stub.gzipNext();
    const events = await stub.client.watch({});
    const z = stub.gz[0]!;
    const reading = drain(events);
    // 1 MiB of one byte compresses to about 1 KiB.
    z.write(Buffer.alloc(1024 * 1024, 'z'));
    z.flush(constants.Z_SYNC_FLUSH);
    const out = await reading;
    assert.ok(out.error instanceof WatchEventTooLargeError, String(out.error));
    assert.equal(out.error.limit, 64 * 1024);
    assert.ok(out.error.bytesRead <= 64 * 1024 + 64 * 1024, `read ${out.error.bytesRead}`);
    await until(() => stub.closed[0] === true);
  });
});

describe('the limit over HTTP/2', () => {
  let certs: TestCertificates;
  before(async () => {
    certs = await generateTestCertificates();
  });

  test('h2: a stream that sends a line without end is reset at the limit; the connection stays up for others', async (t) => {
    const server = http2.createSecureServer({ key: certs.serverKey, cert: certs.serverCert });
    const streams: http2.ServerHttp2Stream[] = [];
    const sessions: http2.ServerHttp2Session[] = [];
    server.on('session', (s) => {
      sessions.push(s);
      s.on('error', () => undefined);
    });
    server.on('stream', (stream, headers) => {
      stream.on('error', () => undefined);
      streams.push(stream);
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      if (String(headers[':path']).includes('watch=true')) stream.write(ev('ADDED', 'a', '1'));
      else
        stream.end(
          JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '5' }, items: [] }),
        );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: `https://127.0.0.1:${port}`,
          caData: Buffer.from(certs.caCert).toString('base64'),
        },
      ],
      users: [{ name: 'u', token: TOKEN }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const transport = new Transport(kc, { maxWatchEventBytes: 4096 });
    t.after(
      () =>
        new Promise<void>((r) => {
          transport.close();
          for (const s of sessions) s.destroy();
          server.close(() => r());
        }),
    );
    const client = new ResourceClient(transport, podsResource).namespace(
      'ns',
    ) as unknown as ResourceClient<Pod>;
    const events = await client.watch({});
    assert.equal(transport.protocol, 'h2');
    const reading = drain(events);
    const watch = streams[0]!;
    for (let i = 0; i < 32 && !watch.closed; i++) {
      watch.write('w'.repeat(1024));
      await new Promise<void>((r) => setImmediate(r));
    }
    const out = await reading;
    assert.equal(out.events.length, 1);
    assert.ok(out.error instanceof WatchEventTooLargeError, String(out.error));
    assert.equal(out.error.limit, 4096);
    await until(() => watch.closed);
    // Only that stream was reset: the shared connection still serves a request.
    const list = await client.list({});
    assert.equal(list.metadata.resourceVersion, '5');
    assert.equal(sessions.length, 1, 'the same connection');
  });
});

describe('the reflector after an over-long line', () => {
  test('the watch ends with WatchEventTooLargeError, reported once, and the reflector relists (client-go: decode error → relist)', async (t) => {
    const podList = (rv: string, names: string[]) => ({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: rv },
      items: names.map((name) => ({
        metadata: { name, namespace: 'ns', resourceVersion: rv },
      })),
    });
    const requests: string[] = [];
    const watches: http.ServerResponse[] = [];
    let lists = 0;
    const stub = await startStub((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const watch = url.searchParams.get('watch') === 'true';
      requests.push(`${watch ? 'watch' : 'list'} rv=${url.searchParams.get('resourceVersion')}`);
      if (!watch) {
        lists++;
        json(res, 200, lists === 1 ? podList('10', ['a']) : podList('20', ['a', 'b']));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      watches.push(res);
      if (watches.length === 1) {
        res.write(ev('ADDED', 'c', '11'));
        // A line without end: the client must cut it at the limit.
        const timer = setInterval(() => {
          if (res.destroyed || res.writableEnded) clearInterval(timer);
          else res.write('q'.repeat(512));
        }, 1);
        res.on('close', () => clearInterval(timer));
      }
    });
    const transport = new Transport(kubeConfigFor(stub.url), { maxWatchEventBytes: 2048 });
    const ac = new AbortController();
    t.after(async () => {
      ac.abort();
      transport.close();
      await stub.close();
    });
    const client = new ResourceClient(transport, podsResource).namespace('ns');
    const store = new Indexer<Pod>();
    const errors: unknown[] = [];
    const reflector = new Reflector<Pod>(
      listWatchFromClient(client as unknown as ResourceClient<Pod>),
      store,
      {
        name: 'pods',
        watchList: false,
        logger: noopLogger,
        backoff: { durationMs: 1 },
        watchErrorHandler: (err) => errors.push(err),
      },
    );
    const running = reflector.run(ac.signal);
    await until(() => lists >= 2 && watches.length >= 2, 1_000_000);
    ac.abort();
    await running;
    assert.equal(errors.length, 1, 'the decode error is reported once');
    assert.ok(errors[0] instanceof WatchEventTooLargeError, String(errors[0]));
    assert.equal(errors[0].limit, 2048);
    assert.deepEqual(requests.slice(0, 4), [
      'list rv=0',
      'watch rv=10',
      'list rv=11',
      'watch rv=20',
    ]);
    assert.deepEqual(
      store
        .list()
        .map((p) => p.metadata?.name)
        .sort(),
      ['a', 'b'],
      'the relist replaced the store: nothing stale is left',
    );
  });
});
