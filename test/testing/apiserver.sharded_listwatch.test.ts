// Server-side sharded list and watch (KEP-5866, Kubernetes 1.36 alpha, gate
// ShardedListAndWatch) in the test API server: off by default (the parameter is ignored),
// on by option; FNV-1a 64 of object.metadata.uid / namespace in [start, end); `||`;
// shardInfo echoed on a filtered list; 422 for a malformed selector; watches and
// deletecollection filtered the same way.
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fnv1a64 } from '../../src/apimachinery/shard_selector.js';
import {
  parseFeatureGates,
  runTestApiServerCli,
  startTestApiServer,
} from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { raw, RawWatch, until } from './helpers.js';

const LOW = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
const HIGH = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
const q = (s: string): string => encodeURIComponent(s);
const names = (body: any): string[] =>
  (body.items as any[]).map((i) => i.metadata.name as string).sort();
const inLow = (uid: string): boolean => fnv1a64(uid) < 1n << 63n;

async function seed(server: TestApiServer, ns: string, n: number): Promise<void> {
  await raw(server.url, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
  for (let i = 0; i < n; i++) {
    const r = await raw(
      server.url,
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      JSON.stringify({ metadata: { name: `cm-${i}` } }),
    );
    assert.equal(r.code, 201);
  }
}

describe('test API server: sharded list and watch (ShardedListAndWatch)', () => {
  describe('gate on', () => {
    let server: TestApiServer;
    before(async () => {
      server = await startTestApiServer({ featureGates: { ShardedListAndWatch: true } });
      await seed(server, 'sh', 24);
    });
    after(() => server.close());

    it('a list returns exactly the objects whose FNV-1a-64(uid) is in [start, end), and echoes the selector in metadata.shardInfo', async () => {
      const all = await raw(server.url, 'GET', '/api/v1/namespaces/sh/configmaps');
      const low = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=${q(LOW)}`,
      );
      const high = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=${q(HIGH)}`,
      );
      assert.equal(low.code, 200);
      const expectLow = (all.json.items as any[])
        .filter((i) => inLow(i.metadata.uid))
        .map((i) => i.metadata.name as string)
        .sort();
      assert.deepEqual(names(low.json), expectLow);
      assert.equal(
        names(low.json).length + names(high.json).length,
        24,
        'the halves partition the set',
      );
      assert.ok(expectLow.length > 0 && expectLow.length < 24, 'both halves hold objects');
      assert.deepEqual((low.json.metadata as any).shardInfo, { selector: LOW });
      assert.equal(
        (all.json.metadata as any).shardInfo,
        undefined,
        'no shardInfo without a selector',
      );
    });

    it('rule (kube-apiserver 1.36, KEP-5866): the echoed selector is normalised, ", " between the arguments', async () => {
      const compact = "shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')";
      const r = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=${q(compact)}`,
      );
      assert.equal(r.code, 200);
      assert.deepEqual((r.json.metadata as any).shardInfo, { selector: LOW });
    });

    it('rule (etcd3 store: remainingItemCount when the predicate has no label or field selector): a limited sharded list counts the keys left', async () => {
      const r = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?limit=2&shardSelector=${q(LOW)}`,
      );
      assert.equal(r.code, 200);
      const meta = r.json.metadata as any;
      assert.notEqual(meta.continue, undefined);
      assert.equal(typeof meta.remainingItemCount, 'number');
      assert.ok(meta.remainingItemCount > 0);
      const labelled = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?limit=2&labelSelector=x!%3Dy&shardSelector=${q(LOW)}`,
      );
      assert.equal((labelled.json.metadata as any).remainingItemCount, undefined);
    });

    it('rule (kube-apiserver 1.36, KEP-5866): a custom resource list is filtered but carries no metadata.shardInfo', async () => {
      server.create('customresourcedefinitions.apiextensions.k8s.io', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          ],
        },
      });
      for (let i = 0; i < 12; i++) {
        server.create('widgets.example.com', {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: `w-${i}`, namespace: 'sh' },
        });
      }
      const path = '/apis/example.com/v1/namespaces/sh/widgets';
      const all = await raw(server.url, 'GET', path);
      const low = await raw(server.url, 'GET', `${path}?shardSelector=${q(LOW)}`);
      assert.equal(low.code, 200);
      const expected = (all.json.items as any[])
        .filter((i) => inLow(i.metadata.uid))
        .map((i) => i.metadata.name as string)
        .sort();
      assert.deepEqual(names(low.json), expected);
      assert.ok(expected.length < 12, 'filtered');
      assert.equal((low.json.metadata as any).shardInfo, undefined);
    });

    it('ranges joined with || select their union; the whole space is everything', async () => {
      const both = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=${q(`${LOW} || ${HIGH}`)}`,
      );
      assert.equal(names(both.json).length, 24);
    });

    it('object.metadata.namespace shards by namespace: one namespace falls wholly in one half', async () => {
      const sel = "shardRange(object.metadata.namespace, '0x0', '0x8000000000000000')";
      const r = await raw(server.url, 'GET', `/api/v1/configmaps?shardSelector=${q(sel)}`);
      const expected = fnv1a64('sh') < 1n << 63n;
      const inSh = (r.json.items as any[]).filter((i) => i.metadata.namespace === 'sh').length;
      assert.equal(inSh, expected ? 24 : 0);
    });

    it('pages of a sharded list hold only selected objects and the continue token walks them all', async () => {
      const seen: string[] = [];
      let cont = '';
      for (let i = 0; i < 30; i++) {
        const r = await raw(
          server.url,
          'GET',
          `/api/v1/namespaces/sh/configmaps?limit=3&shardSelector=${q(LOW)}${cont ? `&continue=${q(cont)}` : ''}`,
        );
        seen.push(...names(r.json));
        cont = ((r.json.metadata as any).continue as string | undefined) ?? '';
        if (cont === '') break;
      }
      const low = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=${q(LOW)}`,
      );
      assert.deepEqual(seen.sort(), names(low.json));
    });

    it('a malformed selector is 422 Invalid naming shardSelector', async () => {
      for (const bad of [
        "shardRange(metadata.uid, '0x0', '0x8000000000000000')",
        "shardRange(object.metadata.uid, 0, '0x8000000000000000')",
        "shardRange(object.metadata.uid, '0x8000000000000000', '0x0')",
        "shardRange(object.metadata.uid, '0x0', '0x10000000000000001')",
        `${LOW} && ${HIGH}`,
      ]) {
        const r = await raw(
          server.url,
          'GET',
          `/api/v1/namespaces/sh/configmaps?shardSelector=${q(bad)}`,
        );
        assert.equal(r.code, 422, bad);
        assert.equal(r.json.reason, 'Invalid');
        assert.match(
          String(r.json.message),
          /^ListOptions\.meta\.k8s\.io "" is invalid: shardSelector: Invalid value: /,
        );
        const w = await raw(
          server.url,
          'GET',
          `/api/v1/namespaces/sh/configmaps?watch=true&shardSelector=${q(bad)}`,
        );
        assert.equal(w.code, 422, `watch: ${bad}`);
      }
    });

    it('a watch sends only events of objects in its range', async () => {
      const list = await raw(server.url, 'GET', '/api/v1/namespaces/sh/configmaps');
      const rv = (list.json.metadata as any).resourceVersion as string;
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/sh/configmaps?watch=true&resourceVersion=${rv}&shardSelector=${q(LOW)}`,
      );
      const created: { name: string; uid: string }[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await raw(
          server.url,
          'POST',
          '/api/v1/namespaces/sh/configmaps',
          JSON.stringify({ metadata: { name: `w-${i}` } }),
        );
        created.push({ name: `w-${i}`, uid: (r.json.metadata as any).uid as string });
      }
      const expected = created.filter((c) => inLow(c.uid)).map((c) => c.name);
      const evs = await w.waitFor(expected.length);
      await until(() => server.resourceVersion > 0);
      assert.deepEqual(
        evs.map((e) => e.object.metadata.name),
        expected,
      );
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('a streaming list (sendInitialEvents) sends only the initial objects in range, then its end bookmark', async () => {
      const all = await raw(server.url, 'GET', '/api/v1/namespaces/sh/configmaps');
      const expected = (all.json.items as any[])
        .filter((i) => inLow(i.metadata.uid))
        .map((i) => i.metadata.name as string)
        .sort();
      const w = new RawWatch(
        server.url,
        `/api/v1/namespaces/sh/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&shardSelector=${q(LOW)}`,
      );
      const evs = await w.waitFor(expected.length + 1);
      const added = evs.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
      assert.deepEqual(added.sort(), expected);
      const last = evs[evs.length - 1];
      assert.equal(last?.type, 'BOOKMARK');
      assert.equal(last?.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
      await w.close();
      await until(() => server.watchCount() === 0, 'the watch to close');
    });

    it('deletecollection with a shard selector deletes only that shard', async () => {
      await seed(server, 'dc', 10);
      const before = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/dc/configmaps?shardSelector=${q(HIGH)}`,
      );
      const d = await raw(
        server.url,
        'DELETE',
        `/api/v1/namespaces/dc/configmaps?shardSelector=${q(LOW)}`,
      );
      assert.equal(d.code, 200);
      const left = await raw(server.url, 'GET', '/api/v1/namespaces/dc/configmaps');
      assert.deepEqual(names(left.json), names(before.json));
    });
  });

  describe('gate off (default)', () => {
    let server: TestApiServer;
    before(async () => {
      server = await startTestApiServer();
      await seed(server, 'sh', 6);
    });
    after(() => server.close());

    it('the parameter is ignored: everything comes back, without shardInfo, even when malformed', async () => {
      const r = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=${q(LOW)}`,
      );
      assert.equal(names(r.json).length, 6);
      assert.equal((r.json.metadata as any).shardInfo, undefined);
      const bad = await raw(
        server.url,
        'GET',
        `/api/v1/namespaces/sh/configmaps?shardSelector=nonsense`,
      );
      assert.equal(bad.code, 200);
    });
  });

  describe('--feature-gates', () => {
    it("parses kube-apiserver's Key=bool list and rejects unknown gates and non-booleans in its words", () => {
      assert.deepEqual(parseFeatureGates('ShardedListAndWatch=true'), {
        ShardedListAndWatch: true,
      });
      assert.deepEqual(parseFeatureGates('ShardedListAndWatch=false'), {
        ShardedListAndWatch: false,
      });
      assert.throws(() => parseFeatureGates('Nope=true'), /unrecognized feature gate: Nope/);
      assert.throws(
        () => parseFeatureGates('ShardedListAndWatch=yes'),
        /invalid value of ShardedListAndWatch=yes, err: strconv.ParseBool: parsing "yes": invalid syntax/,
      );
      assert.throws(() => parseFeatureGates('ShardedListAndWatch'), /missing bool value/);
    });

    it('the CLI takes --feature-gates and exits 2 with the message for a bad value', async () => {
      const errs: string[] = [];
      const code = await runTestApiServerCli(['--feature-gates=Nope=true'], {
        out: () => undefined,
        err: (l) => errs.push(l),
      });
      assert.equal(code, 2);
      assert.match(errs.join('\n'), /--feature-gates: unrecognized feature gate: Nope/);
    });
  });
});
