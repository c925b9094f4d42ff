// Behaviours of the test API server that the conformance suite (test/conformance) found to
// differ from a real kube-apiserver, pinned here (timing with a fake clock).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { raw, RawWatch, until } from './helpers.js';

describe('test API server: kube-apiserver behaviours found by the conformance suite', () => {
  let server: TestApiServer;
  const clock = new FakeClock();
  let n = 0;

  before(async () => {
    server = await startTestApiServer({ clock, bookmarkIntervalMs: 60_000 });
  });
  after(() => server.close());

  const watchPath = (query: string): string =>
    `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${server.resourceVersion}&${query}`;
  /** A change no watch of namespace `default` selects: news for its bookmarks. */
  const news = (): void => {
    server.create('configmaps', { metadata: { name: `news-${++n}`, namespace: 'kube-system' } });
  };

  describe('bookmarks', () => {
    it('a watch with allowWatchBookmarks and timeoutSeconds gets a BOOKMARK 2 s before the timeout ends it (kube-apiserver: min(next interval, deadline - 2 s))', async () => {
      const w = new RawWatch(server.url, watchPath('allowWatchBookmarks=true&timeoutSeconds=5'));
      await server.waitForWatch('configmaps');
      news();
      await clock.advance(3000);
      await until(() => w.events.length === 1, 'a bookmark at deadline - 2 s');
      const [b] = w.events;
      assert.equal(b?.type, 'BOOKMARK');
      assert.deepEqual(b?.object, {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { resourceVersion: String(server.resourceVersion) },
      });
      await clock.advance(2000);
      assert.equal(await w.ended, 'end');
      assert.deepEqual(
        w.events.map((e) => e.type),
        ['BOOKMARK'],
        'exactly one bookmark: none again once the pre-timeout moment has passed',
      );
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('the interval still applies when it comes before deadline - 2 s, and a timeout under 2 s gets no bookmark', async () => {
      const long = new RawWatch(
        server.url,
        watchPath('allowWatchBookmarks=true&timeoutSeconds=100'),
      );
      const short = new RawWatch(
        server.url,
        watchPath('allowWatchBookmarks=true&timeoutSeconds=1'),
      );
      await server.waitForWatch('configmaps', 2);
      news();
      await clock.advance(1000);
      assert.equal(await short.ended, 'end');
      assert.deepEqual(short.events, [], 'no bookmark for a watch shorter than 2 s');
      await clock.advance(59_000); // 60 s: the interval
      news();
      await clock.advance(38_000); // 98 s: deadline - 2 s
      await clock.advance(2000); // 100 s: the timeout
      assert.equal(await long.ended, 'end');
      assert.deepEqual(
        long.events.map((e) => e.type),
        ['BOOKMARK', 'BOOKMARK'],
      );
      await until(() => server.watchCount() === 0, 'the watches to close');
    });

    it('bookmarks wait until the resource changes after the watch went live: none for a quiet watch, nor for one that only replayed history (kube-apiserver watch cache)', async () => {
      const from = server.resourceVersion;
      server.create('configmaps', { metadata: { name: `replayed-${++n}`, namespace: 'default' } });
      const replayed = new RawWatch(
        server.url,
        `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}&allowWatchBookmarks=true&timeoutSeconds=100`,
      );
      const quiet = new RawWatch(
        server.url,
        watchPath('allowWatchBookmarks=true&timeoutSeconds=100'),
      );
      await server.waitForWatch('configmaps', 2);
      await replayed.waitFor(1);
      await clock.advance(100_000);
      assert.equal(await replayed.ended, 'end');
      assert.equal(await quiet.ended, 'end');
      assert.deepEqual(
        replayed.events.map((e) => e.type),
        ['ADDED'],
      );
      assert.deepEqual(quiet.events, []);
    });

    it('a live change the watch received counts as a change: the bookmark repeats its version', async () => {
      const w = new RawWatch(server.url, watchPath('allowWatchBookmarks=true&timeoutSeconds=10'));
      await server.waitForWatch('configmaps');
      server.create('configmaps', { metadata: { name: `live-${++n}`, namespace: 'default' } });
      await w.waitFor(1);
      await clock.advance(10_000);
      assert.equal(await w.ended, 'end');
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object['metadata']?.['resourceVersion']]),
        [
          ['ADDED', String(server.resourceVersion)],
          ['BOOKMARK', String(server.resourceVersion)],
        ],
      );
    });

    it('a watch without allowWatchBookmarks gets no bookmark before its timeout', async () => {
      const w = new RawWatch(server.url, watchPath('timeoutSeconds=5'));
      await server.waitForWatch('configmaps');
      news();
      await clock.advance(5000);
      assert.equal(await w.ended, 'end');
      assert.deepEqual(w.events, []);
    });
  });

  it('a delete with a stale precondition is 409 Conflict naming the Kind, as kube-apiserver (rest.BeforeDelete) does', async () => {
    server.create('configmaps', { metadata: { name: 'pre', namespace: 'default' } });
    const path = '/api/v1/namespaces/default/configmaps/pre';
    // Node sends a DELETE body unframed unless told its length.
    const del = (body: unknown) => {
      const text = JSON.stringify(body);
      return raw(server.url, 'DELETE', path, text, {
        'Content-Length': String(Buffer.byteLength(text)),
      });
    };
    const stale = await del({ preconditions: { resourceVersion: '1' } });
    assert.equal(stale.code, 409);
    assert.equal(stale.json['reason'], 'Conflict');
    assert.deepEqual(stale.json['details'], { name: 'pre', kind: 'ConfigMap' });
    const rv = server.get('configmaps', 'pre', 'default')?.metadata?.resourceVersion ?? '';
    assert.equal(
      stale.json['message'],
      `Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${rv}). The object might have been modified`,
    );
    const uid = await del({ preconditions: { uid: 'nope' } });
    assert.equal(uid.code, 409);
    assert.match(
      String(uid.json['message']),
      /^Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition \(nope\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/,
    );
  });
});
