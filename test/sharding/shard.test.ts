// The shard side of the drain handshake and the sharder's admission patch, without a server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configMapsResource } from '../../src/client/builtins.js';
import type { ResourceClient } from '../../src/client/resource_client.js';
import type { KubeObject } from '../../src/client/types.js';
import { Shard, Sharder, ShardingNameError, ringLabels } from '../../src/sharding/index.js';
import { assertNoOverlap } from './harness.js';
import type { Interval } from './harness.js';

const labels = ringLabels('widgets');
const kubeConfigLike = { getCurrentCluster: () => null } as never;

function shard(name = 'me'): Shard {
  return new Shard({ ring: 'widgets', name, namespace: 'default', source: kubeConfigLike });
}

interface Patch {
  namespace: string | undefined;
  name: string;
  body: unknown;
}

/** A client that records merge patches; `namespace()` scopes the next patch. */
function recordingClient(patches: Patch[]): ResourceClient<KubeObject> {
  const make = (ns: string | undefined): unknown => ({
    namespace: (n: string) => make(n),
    patch: (name: string, body: unknown) => {
      patches.push({ namespace: ns, name, body });
      return Promise.resolve({});
    },
  });
  return make(undefined) as ResourceClient<KubeObject>;
}

function obj(rv: string, extra: Record<string, string> = {}): KubeObject {
  return {
    metadata: {
      name: 'w',
      namespace: 'ns',
      resourceVersion: rv,
      labels: { [labels.shard]: 'me', ...extra },
    },
  };
}

describe('Shard.reconciler: the drain handshake', () => {
  test('an object of this shard without the drain label is reconciled', async () => {
    const calls: string[] = [];
    const r = shard().reconciler({
      store: { getByKey: () => obj('1') },
      client: recordingClient([]),
      reconcile: (key) => void calls.push(key),
    });
    await r('ns/w', new AbortController().signal);
    assert.deepEqual(calls, ['ns/w']);
  });

  test('a drained object is released with a resourceVersion precondition and not reconciled', async () => {
    const calls: string[] = [];
    const patches: Patch[] = [];
    let current: KubeObject | undefined = obj('7', { [labels.drain]: 'true' });
    const r = shard().reconciler({
      store: { getByKey: () => current },
      client: recordingClient(patches),
      reconcile: (key) => void calls.push(key),
    });
    const signal = new AbortController().signal;
    await r('ns/w', signal);
    assert.deepEqual(calls, []);
    assert.deepEqual(patches, [
      {
        namespace: 'ns',
        name: 'w',
        body: {
          metadata: {
            resourceVersion: '7',
            labels: { [labels.shard]: null, [labels.drain]: null },
          },
        },
      },
    ]);
    // The same cached copy again (its removal has not arrived): nothing, not even a second patch.
    await r('ns/w', signal);
    assert.equal(patches.length, 1);
    assert.deepEqual(calls, []);
    // It leaves the cache: a move, not a deletion.
    current = undefined;
    await r('ns/w', signal);
    assert.deepEqual(calls, []);
    // It comes back later with a new resourceVersion: reconciled again.
    current = obj('9');
    await r('ns/w', signal);
    assert.deepEqual(calls, ['ns/w']);
  });

  test('an object that leaves the cache without a release was deleted: the reconcile runs to clean up', async () => {
    const calls: string[] = [];
    const r = shard().reconciler({
      store: { getByKey: () => undefined },
      client: recordingClient([]),
      reconcile: (key) => void calls.push(key),
    });
    await r('ns/gone', new AbortController().signal);
    assert.deepEqual(calls, ['ns/gone']);
  });

  test("a stale copy labelled with another shard is not this shard's to reconcile", async () => {
    const calls: string[] = [];
    const other = obj('3');
    other.metadata = { ...other.metadata, labels: { [labels.shard]: 'someone-else' } };
    const r = shard().reconciler({
      store: { getByKey: () => other },
      client: recordingClient([]),
      reconcile: (key) => void calls.push(key),
    });
    await r('ns/w', new AbortController().signal);
    assert.deepEqual(calls, []);
  });

  test('a shard and ring whose names cannot name a Lease or a label are refused', () => {
    assert.throws(() => shard('Bad_Name'), ShardingNameError);
    assert.throws(() => shard(''), ShardingNameError);
    assert.equal(shard('pod-0').labelSelector, `${labels.shard}=pod-0`);
    assert.equal(shard('pod-0').leaseName, 'widgets-pod-0');
  });
});

describe('Sharder.admit: the admission webhook patch', () => {
  test('an unassigned object of a sharded resource gets the shard label; others get nothing', () => {
    const sharder = new Sharder({
      ring: 'widgets',
      leaseNamespace: 'default',
      resources: [{ resource: configMapsResource }],
      source: kubeConfigLike,
    });
    const request = {
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      operation: 'CREATE',
      namespace: 'ns',
      object: { metadata: { name: 'w', namespace: 'ns' } },
    };
    // An empty ring assigns nothing.
    assert.deepEqual(sharder.admit(request), []);
    // Other resources and operations are left alone.
    assert.deepEqual(
      sharder.admit({ ...request, resource: { group: '', version: 'v1', resource: 'secrets' } }),
      [],
    );
    assert.deepEqual(sharder.admit({ ...request, operation: 'DELETE' }), []);
  });
});

describe('assertNoOverlap (the checker the integration tests rely on)', () => {
  test('fails on two shards reconciling one key at overlapping times', () => {
    const intervals: Interval[] = [
      { shard: 'a', key: 'k', start: 0, end: 10 },
      { shard: 'b', key: 'k', start: 10, end: 12 },
      { shard: 'a', key: 'other', start: 1, end: 11 },
    ];
    assertNoOverlap(intervals);
    intervals.push({ shard: 'c', key: 'k', start: 5, end: 6 });
    assert.throws(() => assertNoOverlap(intervals), /k reconciled by a .* and c .* at once/);
  });
});
