// Retry-After as client-go's REST client honours it: a 429 or 5xx answer carrying the header
// is retried after that many seconds for every verb and for watch starts, at most maxRetries
// times, through the clock and the AbortSignal. Against the in-memory server's faults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { configMaps } from '../../src/client/builtins.js';
import { ApiError, isNotFound, isTooManyRequests } from '../../src/client/errors.js';
import { Transport } from '../../src/client/transport.js';
import type { TransportOptions } from '../../src/client/transport.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { RequestVerb, TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { eventually } from '../support/eventually.js';

async function setup(t: TestContext, options: TransportOptions = {}) {
  const server = await startTestApiServer();
  const clock = new FakeClock();
  // No request timeout: the only timers on the fake clock are the Retry-After sleeps.
  const transport = new Transport(server.kubeConfig(), { clock, timeoutMs: 0, ...options });
  t.after(async () => {
    transport.close();
    await server.close();
  });
  const client = configMaps(transport).namespace('default');
  return { server, clock, transport, client };
}

function answered(server: TestApiServer, verb: RequestVerb): number[] {
  return server.requests.filter((r) => r.verb === verb).map((r) => r.code);
}

/** Waits (over the real socket) until the call sleeps on the clock, and checks for how long. */
async function sleepingFor(clock: FakeClock, ms: number): Promise<void> {
  await eventually('a Retry-After sleep on the clock', () => clock.pendingTimers() === 1);
  assert.equal(clock.nextTimerAt()! - clock.now(), ms);
}

const writes: [RequestVerb, (c: ReturnType<typeof configMaps>) => Promise<unknown>][] = [
  ['create', (c) => c.create({ metadata: { name: 'new' }, data: { v: '1' } })],
  ['update', (c) => c.update({ metadata: { name: 'old' }, data: { v: '2' } })],
  ['patch', (c) => c.patch('old', { data: { v: '3' } })],
  ['delete', (c) => c.delete('old')],
];

for (const [verb, call] of writes) {
  test(`a ${verb} answered 429 with Retry-After is sent again after that many seconds of the clock, and takes effect once`, async (t) => {
    const { server, clock, client } = await setup(t);
    await client.create({ metadata: { name: 'old' }, data: { v: '0' } });
    server.clearRequests();
    server.faults.failNext(1, { verb, resource: 'configmaps', code: 429, retryAfterSeconds: 2 });
    let settled = false;
    const pending = call(client).finally(() => (settled = true));
    await sleepingFor(clock, 2000);
    await clock.advance(1999);
    assert.equal(settled, false, 'not before Retry-After elapsed');
    assert.deepEqual(answered(server, verb), [429]);
    await clock.advance(1);
    await pending;
    assert.deepEqual(answered(server, verb), [429, verb === 'create' ? 201 : 200]);
    const after = await client.list();
    const byName = new Map(after.items.map((o) => [o.metadata?.name, o.data?.v]));
    if (verb === 'create') assert.equal(byName.get('new'), '1');
    if (verb === 'update') assert.equal(byName.get('old'), '2');
    if (verb === 'patch') assert.equal(byName.get('old'), '3');
    if (verb === 'delete') assert.equal(byName.has('old'), false);
  });
}

test('a watch start answered 503 with Retry-After is retried after that many seconds, then streams events', async (t) => {
  const { server, clock, client } = await setup(t);
  server.faults.failNext(2, {
    verb: 'watch',
    resource: 'configmaps',
    code: 503,
    retryAfterSeconds: 1,
  });
  const ac = new AbortController();
  t.after(() => ac.abort());
  const opening = client.watch({}, { signal: ac.signal });
  await sleepingFor(clock, 1000);
  await clock.advance(1000);
  await sleepingFor(clock, 1000);
  await clock.advance(1000);
  const events = await opening;
  assert.deepEqual(answered(server, 'watch'), [503, 503, 0]);
  await client.create({ metadata: { name: 'seen' } });
  for await (const e of events) {
    assert.equal(e.type, 'ADDED');
    assert.equal((e.object as { metadata?: { name?: string } }).metadata?.name, 'seen');
    break;
  }
});

test('Retry-After retries are bounded: after maxRetries the last 429 is thrown and the write never happened', async (t) => {
  const { server, clock, client } = await setup(t, { maxRetries: 3 });
  server.faults.failNext(100, {
    verb: 'create',
    resource: 'configmaps',
    code: 429,
    retryAfterSeconds: 1,
  });
  const pending = client.create({ metadata: { name: 'x' } }).catch((e: unknown) => e);
  for (let i = 0; i < 3; i++) {
    await sleepingFor(clock, 1000);
    await clock.advance(1000);
  }
  const err = await pending;
  assert.ok(isTooManyRequests(err), String(err));
  assert.equal(err.retryAfterSeconds, 1);
  assert.deepEqual(answered(server, 'create'), [429, 429, 429, 429]);
  assert.ok(isNotFound(await client.get('x').catch((e: unknown) => e)));
});

test("the default bound is client-go's: 10 retries, 11 attempts", async (t) => {
  const { server, clock, client } = await setup(t);
  server.faults.failNext(100, { verb: 'delete', code: 429, retryAfterSeconds: 1 });
  const pending = client.delete('x').catch((e: unknown) => e);
  for (let i = 0; i < 10; i++) {
    await sleepingFor(clock, 1000);
    await clock.advance(1000);
  }
  assert.ok(isTooManyRequests(await pending));
  assert.equal(answered(server, 'delete').length, 11);
  assert.equal(clock.pendingTimers(), 0);
});

test('aborting a write during its Retry-After sleep rejects with the abort reason, leaves no timer and sends nothing more', async (t) => {
  const { server, clock, client } = await setup(t);
  server.faults.failNext(1, { verb: 'patch', code: 503, retryAfterSeconds: 30 });
  await client.create({ metadata: { name: 'p' } });
  const ac = new AbortController();
  const pending = client
    .patch('p', { data: { v: '1' } }, { signal: ac.signal })
    .catch((e: unknown) => e);
  await sleepingFor(clock, 30_000);
  const reason = new Error('shutting down');
  ac.abort(reason);
  assert.equal(await pending, reason);
  assert.equal(clock.pendingTimers(), 0);
  assert.deepEqual(answered(server, 'patch'), [503]);
});

test('a 5xx without Retry-After, and a 4xx other than 429, is not retried', async (t) => {
  const { server, client } = await setup(t);
  server.faults.failNext(1, { verb: 'create', code: 500 });
  const err = await client.create({ metadata: { name: 'a' } }).catch((e: unknown) => e);
  assert.ok(err instanceof ApiError && err.code === 500, String(err));
  server.faults.failNext(1, { verb: 'update', code: 409 });
  const conflict = await client.update({ metadata: { name: 'a' } }).catch((e: unknown) => e);
  assert.ok(conflict instanceof ApiError && conflict.code === 409, String(conflict));
  assert.deepEqual(answered(server, 'create'), [500]);
  assert.deepEqual(answered(server, 'update'), [409]);
});

test('retry: false on a request opts out of Retry-After retries', async (t) => {
  const { server, transport } = await setup(t);
  server.faults.failNext(1, { verb: 'create', code: 429, retryAfterSeconds: 1 });
  const err = await transport
    .request({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { metadata: { name: 'a' } },
      retry: false,
    })
    .catch((e: unknown) => e);
  assert.ok(isTooManyRequests(err));
  assert.deepEqual(answered(server, 'create'), [429]);
});
