import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { constants, createGzip } from 'node:zlib';
import { ApiError, WatchDecodeError, isGone } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { podsResource } from '../../src/client/builtins.js';
import { Transport } from '../../src/client/transport.js';
import type { WatchEvent } from '../../src/client/types.js';
import { TOKEN, json, kubeConfigFor, startStub, status, until } from './stub.js';

interface Pod {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  note?: string;
}

/** A watch stub: the test writes to the open response itself. */
async function watchStub(
  t: TestContext,
  onRequest?: (req: http.IncomingMessage, res: http.ServerResponse) => void,
) {
  const open: http.ServerResponse[] = [];
  const closed: boolean[] = [];
  const stub = await startStub((req, res) => {
    if (onRequest) return onRequest(req, res);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const i = open.length;
    open.push(res);
    closed.push(false);
    res.on('close', () => {
      closed[i] = true;
    });
  });
  const transport = new Transport(kubeConfigFor(stub.url));
  t.after(async () => {
    transport.close();
    await stub.close();
  });
  const client = new ResourceClient(transport, podsResource).namespace('ns');
  return { stub, open, closed, client: client as unknown as ResourceClient<Pod> };
}

function ev(type: string, name: string, rv: string): string {
  return (
    JSON.stringify({ type, object: { metadata: { name, namespace: 'ns', resourceVersion: rv } } }) +
    '\n'
  );
}

test('watch resolves when the headers arrive, before any event', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({ resourceVersion: '5' });
  assert.equal(open.length, 1);
  const it = events[Symbol.asyncIterator]();
  open[0]!.end();
  assert.equal((await it.next()).done, true);
});

test('watch sends watch=true with resourceVersion, bookmarks and timeoutSeconds', async (t) => {
  const { stub, open, client } = await watchStub(t);
  const events = await client.watch({
    resourceVersion: '7',
    allowWatchBookmarks: true,
    timeoutSeconds: 300,
    labelSelector: 'a=b',
  });
  const url = new URL(stub.requests[0]!.url!, 'http://x');
  assert.equal(url.pathname, '/api/v1/namespaces/ns/pods');
  assert.equal(url.searchParams.get('watch'), 'true');
  assert.equal(url.searchParams.get('resourceVersion'), '7');
  assert.equal(url.searchParams.get('allowWatchBookmarks'), 'true');
  assert.equal(url.searchParams.get('timeoutSeconds'), '300');
  assert.equal(url.searchParams.get('labelSelector'), 'a=b');
  open[0]!.end();
  for await (const _ of events) assert.fail('no events expected');
});

test('events are yielded as they stream, before the body ends', async (t) => {
  const { open, closed, client } = await watchStub(t);
  const events = await client.watch({});
  const it = events[Symbol.asyncIterator]();
  open[0]!.write(ev('ADDED', 'a', '1'));
  const first = await it.next();
  assert.equal(first.done, false);
  assert.equal((first.value as WatchEvent<Pod> & { type: 'ADDED' }).object.metadata?.name, 'a');
  assert.equal(closed[0], false);
  open[0]!.write(ev('MODIFIED', 'a', '2'));
  const second = await it.next();
  assert.equal((second.value as WatchEvent<Pod>).type, 'MODIFIED');
  open[0]!.end();
  assert.equal((await it.next()).done, true);
});

test('a line split across chunks, even inside a multi-byte character, is joined', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({});
  const line = Buffer.from(
    JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x' }, note: 'héllo ✓ wörld' } }) +
      '\n',
  );
  const cut = line.indexOf(Buffer.from('✓')) + 1; // inside the 3-byte character
  const res = open[0]!;
  const collected: WatchEvent<Pod>[] = [];
  const reading = (async () => {
    for await (const e of events) collected.push(e);
  })();
  res.write(line.subarray(0, 5));
  await new Promise<void>((r) => setImmediate(r));
  res.write(line.subarray(5, cut));
  await new Promise<void>((r) => setImmediate(r));
  res.write(Buffer.concat([line.subarray(cut), Buffer.from(ev('DELETED', 'x', '3'))]));
  res.end();
  await reading;
  assert.equal(collected.length, 2);
  assert.equal((collected[0]!.object as Pod).note, 'héllo ✓ wörld');
  assert.equal(collected[1]!.type, 'DELETED');
});

test('a last line without a newline is still decoded at the end of the stream', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({});
  open[0]!.end(ev('ADDED', 'a', '1').trimEnd());
  const got: WatchEvent<Pod>[] = [];
  for await (const e of events) got.push(e);
  assert.equal(got.length, 1);
});

test('a malformed line throws WatchDecodeError with its line number and byte offset, and closes the socket', async (t) => {
  const { open, closed, client } = await watchStub(t);
  const events = await client.watch({});
  const good = ev('ADDED', 'a', '1');
  open[0]!.write(good + '{"type":"ADDED","object":{"metadata"\n');
  const got: WatchEvent<Pod>[] = [];
  const err = await (async () => {
    for await (const e of events) got.push(e);
  })().catch((e: unknown) => e);
  assert.equal(got.length, 1);
  assert.ok(err instanceof WatchDecodeError, String(err));
  assert.equal(err.line, 2);
  assert.equal(err.byteOffset, Buffer.byteLength(good));
  assert.match(err.message, /line 2 \(byte offset \d+\)/);
  assert.match(err.excerpt, /^\{"type":"ADDED"/);
  await until(() => closed[0] === true);
});

test('a JSON line that is not an event (no type/object) is a WatchDecodeError too', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({});
  open[0]!.write('{"kind":"Pod"}\n');
  await assert.rejects(async () => {
    for await (const _ of events) {
      /* drain */
    }
  }, WatchDecodeError);
});

test('a long malformed line is truncated in the error excerpt and never carries the token', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({});
  open[0]!.write('x'.repeat(5000) + '\n');
  const err = await (async () => {
    for await (const _ of events) {
      /* drain */
    }
  })().catch((e: unknown) => e);
  assert.ok(err instanceof WatchDecodeError);
  assert.ok(err.excerpt.length <= 121);
  assert.ok(!err.message.includes(TOKEN));
});

test('ERROR events are yielded as events', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({});
  open[0]!.end(
    JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version') }) +
      '\n',
  );
  const got: WatchEvent<Pod>[] = [];
  for await (const e of events) got.push(e);
  assert.equal(got.length, 1);
  assert.equal(got[0]!.type, 'ERROR');
  assert.equal((got[0]!.object as { code?: number }).code, 410);
});

test('breaking out of for-await closes the connection', async (t) => {
  const { open, closed, client } = await watchStub(t);
  const events = await client.watch({});
  open[0]!.write(ev('ADDED', 'a', '1'));
  for await (const _ of events) break;
  await until(() => closed[0] === true);
});

test('aborting the signal closes the connection and ends the iteration quietly', async (t) => {
  const { open, closed, client } = await watchStub(t);
  const ac = new AbortController();
  const events = await client.watch({}, { signal: ac.signal });
  open[0]!.write(ev('ADDED', 'a', '1'));
  const got: WatchEvent<Pod>[] = [];
  const reading = (async () => {
    for await (const e of events) {
      got.push(e);
      ac.abort();
    }
  })();
  await reading;
  assert.equal(got.length, 1);
  await until(() => closed[0] === true);
});

test('a watch start answered 410 rejects with an ApiError and is not retried, even with Retry-After', async (t) => {
  let calls = 0;
  const { client } = await watchStub(t, (_req, res) => {
    calls++;
    json(res, 410, status(410, 'Expired', 'too old'), { 'Retry-After': '1' });
  });
  const err = await client.watch({ resourceVersion: '1' }).catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.ok(isGone(err));
  assert.equal(calls, 1);
});

test('a gzipped watch stream is decompressed event by event as it streams', async (t) => {
  let gz: ReturnType<typeof createGzip> | undefined;
  const { client } = await watchStub(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    res.flushHeaders();
    gz = createGzip();
    gz.pipe(res);
  });
  const events = await client.watch({});
  const it = events[Symbol.asyncIterator]();
  gz!.write(ev('ADDED', 'a', '1'));
  gz!.flush(constants.Z_SYNC_FLUSH);
  const first = await it.next();
  assert.equal((first.value as WatchEvent<Pod>).type, 'ADDED');
  gz!.end(ev('DELETED', 'a', '2'));
  const second = await it.next();
  assert.equal((second.value as WatchEvent<Pod>).type, 'DELETED');
  assert.equal((await it.next()).done, true);
});

test('a connection dropped mid-stream makes the iteration throw', async (t) => {
  const { open, client } = await watchStub(t);
  const events = await client.watch({});
  open[0]!.write(ev('ADDED', 'a', '1'));
  const got: WatchEvent<Pod>[] = [];
  const err = await (async () => {
    for await (const e of events) {
      got.push(e);
      open[0]!.socket?.destroy();
    }
  })().catch((e: unknown) => e);
  assert.equal(got.length, 1);
  assert.ok(err instanceof Error);
});

test('takeBuffered hands out the events already decoded, synchronously, in order', async (t) => {
  const { open, client } = await watchStub(t);
  const events = (await client.watch({})) as AsyncIterableIterator<WatchEvent<Pod>> & {
    takeBuffered(): WatchEvent<Pod> | undefined;
  };
  assert.equal(typeof events.takeBuffered, 'function');
  assert.equal(events.takeBuffered(), undefined);
  // Three events in one chunk: next() gives the first, the other two are buffered.
  open[0]!.write(ev('ADDED', 'a', '1') + ev('MODIFIED', 'a', '2') + ev('DELETED', 'a', '3'));
  const first = await events.next();
  assert.equal((first.value as WatchEvent<Pod>).type, 'ADDED');
  assert.equal(events.takeBuffered()?.type, 'MODIFIED');
  assert.equal(events.takeBuffered()?.type, 'DELETED');
  assert.equal(events.takeBuffered(), undefined);
  open[0]!.end();
  assert.equal((await events.next()).done, true);
  assert.equal(events.takeBuffered(), undefined);
});
