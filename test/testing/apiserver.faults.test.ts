// Fault injection of the test API server.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { raw, RawWatch, until } from './helpers.js';

describe('test API server (faults)', () => {
  let server: TestApiServer;
  let core: k8s.CoreV1Api;
  const clock = new FakeClock();
  const watchPath = (): string =>
    `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${server.resourceVersion}`;
  const open = async (path?: string): Promise<RawWatch> => {
    await until(() => server.watchCount() === 0, 'earlier watches to close');
    const w = new RawWatch(server.url, path ?? watchPath());
    await server.waitForWatch('configmaps');
    return w;
  };
  const add = (name: string): void => {
    server.create('configmaps', { metadata: { name, namespace: 'default' } });
  };

  before(async () => {
    server = await startTestApiServer({ clock });
    core = server.kubeConfig().makeApiClient(k8s.CoreV1Api);
  });
  afterEach(() => server.faults.reset());
  after(() => server.close());

  it('failNext fails exactly the next N matching requests with 429 and Retry-After', async () => {
    server.faults.failNext(2, {
      verb: 'list',
      resource: 'configmaps',
      code: 429,
      retryAfterSeconds: 3,
    });
    const get = await raw(server.url, 'GET', '/api/v1/namespaces/default/pods');
    assert.equal(get.code, 200, 'other resources are not affected');
    for (let i = 0; i < 2; i++) {
      const res = await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps');
      assert.equal(res.code, 429);
      assert.equal(res.headers['retry-after'], '3');
      assert.equal(res.json.reason, 'TooManyRequests');
      assert.equal((res.json.details as { retryAfterSeconds: number }).retryAfterSeconds, 3);
    }
    const ok = await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(ok.code, 200);
  });

  it('failNext with 500, 503 and 410 answers those Statuses', async () => {
    server.faults.failNext(1, { code: 500, verb: 'create' });
    server.faults.failNext(1, { code: 503, verb: 'get' });
    server.faults.failNext(1, { code: 410, verb: 'watch' });
    const c = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ metadata: { name: 'f500' } }),
    );
    assert.equal(c.code, 500);
    assert.equal(server.get('configmaps', 'f500'), undefined, 'a failed create stores nothing');
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps/x')).code,
      503,
    );
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps?watch=true')).code,
      410,
    );
  });

  it('a namespace filter limits which requests fail', async () => {
    server.faults.failNext(1, { namespace: 'kube-system', code: 500 });
    assert.equal((await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps')).code, 200);
    assert.equal(
      (await raw(server.url, 'GET', '/api/v1/namespaces/kube-system/configmaps')).code,
      500,
    );
  });

  it('addLatency delays matching requests by the clock', async () => {
    server.faults.addLatency(2000, { verb: 'get' });
    let done = false;
    const p = raw(server.url, 'GET', '/api/v1/namespaces/default').then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(done, false);
    await clock.advance(2000);
    assert.equal((await p).code, 200);
  });

  it('closeWatches ends open watches cleanly', async () => {
    const w = await open();
    assert.equal(server.faults.closeWatches({ resource: 'configmaps' }), 1);
    assert.equal(await w.ended, 'end');
    assert.equal(server.watchCount('configmaps'), 0);
  });

  it('closeWatchesAfter ends a watch after N more events', async () => {
    const w = await open();
    server.faults.closeWatchesAfter(2);
    add('after-1');
    add('after-2');
    add('after-3');
    assert.equal(await w.ended, 'end');
    assert.deepEqual(
      w.events.map((e) => e.object.metadata.name),
      ['after-1', 'after-2'],
    );
  });

  it('destroyWatches drops the socket without a clean end', async () => {
    const w = await open();
    server.faults.destroyWatches();
    assert.equal(await w.ended, 'error');
  });

  it('pauseWatches holds events without closing; resumeWatches delivers them in order', async () => {
    const w = await open();
    server.faults.pauseWatches();
    add('paused-1');
    add('paused-2');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(w.events.length, 0);
    server.faults.resumeWatches();
    const evs = await w.waitFor(2);
    assert.deepEqual(
      evs.map((e) => e.object.metadata.name),
      ['paused-1', 'paused-2'],
    );
    await w.close();
  });

  it('writeMalformedLine and writeTruncatedLineAndClose corrupt the stream', async () => {
    const w = await open();
    server.faults.writeMalformedLine();
    await w.waitFor(1);
    assert.equal(w.events[0]?.type, 'UNPARSEABLE');
    server.faults.writeTruncatedLineAndClose();
    await w.ended;
    assert.equal(w.remainder, '{"type":"MODIFIED","object":{"kind":"Po');
  });

  it('compact makes a resuming watch get 410', async () => {
    const rv = server.resourceVersion;
    add('compact-1');
    server.faults.compact();
    const w = new RawWatch(
      server.url,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
    );
    const [e] = await w.waitFor(1);
    assert.equal(e?.object.code, 410);
  });

  it('restart drops every connection; with forgetHistory old versions are 410 but data stays', async () => {
    const rv = server.resourceVersion;
    add('restart-1');
    const w = await open();
    server.faults.restart({ forgetHistory: true });
    assert.equal(await w.ended, 'error');
    assert.ok(server.get('configmaps', 'restart-1'));
    const w2 = new RawWatch(
      server.url,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
    );
    const [e] = await w2.waitFor(1);
    assert.equal(e?.object.code, 410);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    assert.ok(list.items.some((c) => c.metadata?.name === 'restart-1'));
  });

  it('requests records each request with its verb and code', async () => {
    server.clearRequests();
    await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps/none');
    assert.deepEqual(
      server.requests.map((r) => [r.verb, r.resource, r.name, r.code]),
      [['get', 'configmaps', 'none', 404]],
    );
  });
});
