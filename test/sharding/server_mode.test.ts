// Server-side sharding mode (KEP-5866) against the in-memory API server with the
// ShardedListAndWatch gate, in real time with short Leases: replicas are RangeShards that
// watch only their ranges with a shardSelector; no sharder, no label writes. Checked:
// - no object is ever reconciled by two replicas at overlapping times (handover: the old
//   owner stops and drains a range before the new owner claims it);
// - after quiescence every replica holds exactly its ring ranges and every object was last
//   reconciled by the replica whose ranges hold its uid's hash;
// - scaling out N→N+1 moves close to 1/(N+1) of the objects;
// - nothing but Leases is written: no patch of any object.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { Ring } from './harness.js';

function movedShare(
  before: Map<string, string | undefined>,
  after: Map<string, string | undefined>,
): number {
  let moved = 0;
  let common = 0;
  for (const [k, s] of before) {
    if (!after.has(k)) continue;
    common++;
    if (after.get(k) !== s) moved++;
  }
  return moved / common;
}

describe('server-side sharding (RangeShard) on the in-memory server', { timeout: 120_000 }, () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ featureGates: { ShardedListAndWatch: true } });
  });
  after(async () => {
    await server.close();
  });

  test('scale out 1→2→3, a clean leave and a partition: no overlapping reconciles, ranges follow the ring, no object writes', async () => {
    const ring = new Ring(server, { mode: 'server' });
    try {
      server.clearRequests();
      ring.add('a');
      await ring.createObjects('first', 60);
      const one = await ring.settled();
      assert.equal(new Set(one.values()).size, 1, 'one replica owns everything');

      ring.add('b');
      await ring.createObjects('second', 20);
      const two = await ring.settled();
      const share = movedShare(one, two);
      assert.ok(share > 0.2 && share < 0.8, `1→2 moved ${share.toFixed(2)} (ideal 0.50)`);

      ring.add('c');
      await ring.createObjects('third', 20);
      const three = await ring.settled();
      assert.equal(new Set(three.values()).size, 3);

      await ring.remove('b');
      await ring.createObjects('fourth', 10);
      await ring.settled();

      assert.equal(await ring.partition('c'), 'lease-lost');
      await ring.createObjects('fifth', 10);
      const last = await ring.settled(20_000);
      assert.deepEqual([...new Set(last.values())], ['a']);

      ring.assertNoOverlap();
      const objectWrites = server.requests.filter(
        (r) => r.resource === 'configmaps' && ['PUT', 'PATCH', 'DELETE'].includes(r.method),
      );
      assert.deepEqual(objectWrites, [], 'no label or other write to a sharded object');
    } finally {
      await ring.close();
    }
  });

  test('a join while the old owner is in a long reconcile: the new owner starts on a moved object only after the old one finished', async () => {
    const ring = new Ring(server, { mode: 'server' });
    try {
      ring.add('a');
      await ring.createObjects('slow', 30);
      await ring.settled();
      ring.reconcileMs = 300;
      // Every object changes: a is busy reconciling when b joins and takes ranges over.
      for (const o of (await ring.objects.list()).items)
        await ring.objects.update({ ...o, data: { v: '2' } } as typeof o);
      ring.add('b');
      await ring.settled(30_000);
      ring.assertNoOverlap();
      const moved = new Set(ring.intervals.filter((i) => i.shard === 'b').map((i) => i.key));
      assert.ok(moved.size > 0, 'b took some objects over');
      for (const key of moved) {
        const lastA = Math.max(
          ...ring.intervals.filter((i) => i.key === key && i.shard === 'a').map((i) => i.end),
        );
        const firstB = Math.min(
          ...ring.intervals.filter((i) => i.key === key && i.shard === 'b').map((i) => i.start),
        );
        assert.ok(firstB >= lastA, `${key}: b started at ${firstB} before a ended at ${lastA}`);
      }
    } finally {
      await ring.close();
    }
  });
});
