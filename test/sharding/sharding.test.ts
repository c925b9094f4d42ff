// Sharding against the in-memory API server, in real time with short Leases (2 s lease,
// 1.4 s renew deadline, 0.3 s retry): replicas join and leave a ring while objects are
// created, and every reconcile is recorded to check the invariants:
// - no object is ever reconciled by two shards at overlapping times;
// - after quiescence every object is labelled with a live shard and was last reconciled by it;
// - scaling out from N to N+1 shards moves close to 1/(N+1) of the objects, not all;
// - a dead shard's objects are reassigned within its lease duration plus the sharder's reaction;
// - a shard cut off from the server (every connection, through its own proxy) stops working
//   at its renew deadline, sees nothing created meanwhile, and after healing rejoins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { performance } from 'node:perf_hooks';
import { eventually } from '../support/eventually.js';
import { NAMESPACE, Ring, timing } from './harness.js';

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

describe('sharding on the in-memory server', { timeout: 120_000 }, () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('scale out 1→2→4 and in again under a burst of new objects: no overlapping reconciles, consistent moves', async () => {
    const ring = new Ring(server);
    try {
      ring.startSharder();
      ring.add('a');
      await ring.createObjects('first', 120);
      const one = await ring.settled();
      assert.equal(new Set(one.values()).size, 1, 'one shard owns everything');

      ring.add('b');
      await ring.createObjects('second', 40);
      const two = await ring.settled();
      const share12 = movedShare(one, two);
      assert.ok(share12 > 0.25 && share12 < 0.75, `1→2 moved ${share12.toFixed(2)} (ideal 0.50)`);

      ring.add('c');
      ring.add('d');
      await ring.createObjects('third', 40);
      const four = await ring.settled();
      assert.equal(new Set(four.values()).size, 4, 'four shards own objects');
      // The admission webhook path agrees with the watch-and-label path.
      for (const name of ['first-0', 'first-1', 'third-7']) {
        const patch = ring.sharder.admit({
          resource: { group: '', version: 'v1', resource: 'configmaps' },
          operation: 'CREATE',
          namespace: 'default',
          object: { metadata: { name, namespace: 'default', labels: { app: 'x' } } },
        });
        assert.deepEqual(patch, [
          {
            op: 'add',
            path: `/metadata/labels/${ring.sharder.labels.shard.replace('/', '~1')}`,
            value: four.get(`default/${name}`),
          },
        ]);
      }
      const share24 = movedShare(two, four);
      assert.ok(share24 > 0.3 && share24 < 0.7, `2→4 moved ${share24.toFixed(2)} (ideal 0.50)`);
      for (const [k, s] of two) {
        // consistent hashing: what moved went to a new shard
        const now = four.get(k);
        if (now !== s)
          assert.ok(now === 'c' || now === 'd', `${k} moved ${String(s)}→${String(now)}`);
      }

      assert.equal(await ring.remove('b'), 'cancelled');
      await ring.createObjects('fourth', 20);
      const three = await ring.settled();
      for (const [k, s] of four) {
        if (s !== 'b')
          assert.equal(three.get(k), s, `${k} should stay on ${String(s)} when b leaves`);
      }
      ring.assertNoOverlap();
    } finally {
      await ring.close();
    }
  });

  test('a shard cut off from the server (Lease, watches and writes) stops at its renew deadline, its objects move within the lease duration, and it rejoins after healing', async () => {
    const ring = new Ring(server);
    try {
      ring.startSharder();
      ring.add('p');
      ring.add('q');
      await ring.createObjects('part', 80);
      const before = await ring.settled();
      const owned = [...before].filter(([, s]) => s === 'p').map(([k]) => k);
      assert.ok(owned.length > 0);

      const cut = performance.now();
      const lost = ring.partition('p');
      // A burst during the partition: the sharder gives some of it to p while p's Lease
      // has not yet expired, but p, cut off, never sees it.
      await ring.createObjects('during', 20);
      assert.equal(await lost, 'lease-lost');
      const after = await ring.settled(timing.leaseDurationMs + 8_000);
      const elapsed = performance.now() - cut;
      for (const k of owned) assert.equal(after.get(k), 'q');
      // Lease duration plus the time to notice, relabel and reconcile, on a busy machine.
      assert.ok(elapsed < timing.leaseDurationMs + 5_000, `reassigned after ${elapsed} ms`);
      const byP = ring.intervals.filter((i) => i.shard === 'p');
      assert.deepEqual(
        byP.filter((i) => i.key.startsWith(`${NAMESPACE}/during-`)).map((i) => i.key),
        [],
        'p saw no object created while it was cut off',
      );
      for (const i of byP) {
        assert.ok(
          i.start < cut + timing.renewDeadlineMs,
          `p reconciled ${i.key} at +${(i.start - cut).toFixed(0)} ms, after its renew deadline`,
        );
      }

      // Healed, p rejoins (a restarted process) and takes its share back, drained from q.
      const p = ring.rejoin('p');
      await eventually('p holds its Lease again and works', () => p.working);
      const healed = await ring.settled();
      assert.deepEqual([...new Set(healed.values())].sort(), ['p', 'q']);
      ring.assertNoOverlap();
    } finally {
      await ring.close();
    }
  });
});
