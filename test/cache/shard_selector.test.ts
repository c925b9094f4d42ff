// shardSelector in the kit (KEP-5866): informers from the factory and watcher() send it on
// every list and watch; when the server applies it (metadata.shardInfo on its list) the
// cache holds the range only; when the server ignores it (gate off) the kit filters on the
// client and logs that once. Also the selector helpers: the hash is 64-bit FNV-1a, bounds
// [start, end) with 2^64 allowed as the end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  fnv1a64,
  formatShardSelector,
  hashSpaceSize,
  parseShardSelector,
  shardSelectorMatcher,
  ShardSelectorParseError,
} from '../../src/apimachinery/shard_selector.js';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import { watcher } from '../../src/cache/watcher.js';
import type { WatcherEvent } from '../../src/cache/watcher.js';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { toTransport } from '../../src/client/transport.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { Logger } from '../../src/util/logger.js';
import { fastBackoff, until } from '../dynamic/helpers.js';

const LOW = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";

interface Cm {
  metadata?: { name?: string; namespace?: string; uid?: string };
}

function recordingLogger(): Logger & { infos: string[] } {
  const infos: string[] = [];
  const noop = (): void => undefined;
  return { infos, debug: noop, warn: noop, error: noop, info: (m: string) => void infos.push(m) };
}

describe('shard selector helpers', () => {
  it("fnv1a64 is Go's hash/fnv New64a over the UTF-8 bytes", () => {
    assert.equal(fnv1a64('').toString(16), 'cbf29ce484222325');
    assert.equal(fnv1a64('a').toString(16), 'af63dc4c8601ec8c');
    assert.equal(fnv1a64('foobar').toString(16), '85944171f73967e8');
  });
  it('bounds are [start, end): start inclusive, end exclusive; 0x10000000000000000 is a valid end', () => {
    const [r] = parseShardSelector(
      "shardRange(object.metadata.uid, '0xffffffffffffffff', '0x10000000000000000')",
    );
    assert.equal(r?.end, hashSpaceSize);
    const h = fnv1a64('x');
    const exact = `shardRange(object.metadata.uid, '0x${h.toString(16)}', '0x${(h + 1n).toString(16)}')`;
    assert.equal(shardSelectorMatcher(exact)({ metadata: { uid: 'x' } }), true);
    const below = `shardRange(object.metadata.uid, '0x0', '0x${h.toString(16)}')`;
    assert.equal(shardSelectorMatcher(below)({ metadata: { uid: 'x' } }), false);
  });
  it('formatShardSelector writes what parseShardSelector reads, joined with ||', () => {
    const text = formatShardSelector([
      { field: 'object.metadata.uid', start: 0n, end: 1n << 62n },
      { field: 'object.metadata.namespace', start: 1n << 63n, end: hashSpaceSize },
    ]);
    assert.equal(
      text,
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
    );
    assert.equal(parseShardSelector(text).length, 2);
  });
  it('a malformed selector is a ShardSelectorParseError naming the problem', () => {
    assert.throws(
      () => parseShardSelector("shardRange(object.metadata.name, '0x0', '0x1')"),
      (e: unknown) =>
        e instanceof ShardSelectorParseError && /unsupported field path/.test(e.message),
    );
  });
});

for (const gate of [true, false]) {
  describe(`shardSelector in informers and watcher() (server gate ${gate ? 'on' : 'off'})`, () => {
    let server: TestApiServer;
    let expected: string[];
    before(async () => {
      server = await startTestApiServer({ featureGates: { ShardedListAndWatch: gate } });
      const made: Cm[] = [];
      for (let i = 0; i < 16; i++)
        made.push(
          server.create('configmaps', { metadata: { name: `cm-${i}`, namespace: 'default' } }),
        );
      const low = shardSelectorMatcher(LOW);
      expected = made
        .filter(low)
        .map((c) => c.metadata!.name!)
        .sort();
      assert.ok(expected.length > 0 && expected.length < 16);
    });
    after(() => server.close());

    it(`an informer caches only its range${gate ? '' : ', filtering on the client and logging once'}`, async () => {
      const logger = recordingLogger();
      const f = new SharedInformerFactory(server.kubeConfig(), {
        logger,
        informerOptions: { backoff: fastBackoff },
        namespace: 'default',
        shardSelector: LOW,
      });
      const ac = new AbortController();
      const inf = f.configMaps();
      f.start(ac.signal);
      await f.waitForCacheSync(ac.signal);
      const names = (): string[] =>
        inf
          .getIndexer()
          .list()
          .map((c) => c.metadata!.name!)
          .sort();
      assert.deepEqual(names(), expected);
      // Watch events are filtered the same way.
      const more: Cm[] = [];
      for (let i = 0; i < 8; i++)
        more.push(
          server.create('configmaps', { metadata: { name: `late-${i}`, namespace: 'default' } }),
        );
      const lateExpected = more
        .filter(shardSelectorMatcher(LOW))
        .map((c) => c.metadata!.name!)
        .sort();
      await until('late events', () => names().length === expected.length + lateExpected.length);
      assert.deepEqual(names(), [...expected, ...lateExpected].sort());
      const notes = logger.infos.filter((m) => m.includes('filtering on the client'));
      assert.equal(notes.length, gate ? 0 : 1, notes.join('\n'));
      ac.abort();
      await f.shutdown();
      for (const c of more) server.delete('configmaps', c.metadata!.name!, 'default');
    });

    it('watcher() with shardSelector yields only the range', async () => {
      const client = new ResourceClient<Cm>(
        toTransport(server.kubeConfig()),
        configMapsResource,
      ).namespace('default');
      const ac = new AbortController();
      const seen: string[] = [];
      for await (const e of watcher<Cm>(client, {
        shardSelector: LOW,
        signal: ac.signal,
        logger: recordingLogger(),
      }) as AsyncIterable<WatcherEvent<Cm>>) {
        if (e.type === 'InitApply') seen.push(e.object.metadata!.name!);
        if (e.type === 'InitDone') break;
      }
      assert.deepEqual(seen.sort(), expected);
    });
  });
}
