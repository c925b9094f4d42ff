// Sharding with every replica in a process of its own (as in a Deployment): scale out,
// SIGKILL a replica, scale in with SIGTERM, new objects during each step. The invariants of
// sharding.test.ts are checked on the reconcile lines the processes print.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { assertNoOverlap, Ring, timing, waitSettled } from './harness.js';
import type { Interval } from './harness.js';
import { ChildReplica } from './processes.js';
import { eventually } from '../support/eventually.js';

describe('sharding across processes', { timeout: 120_000 }, () => {
  let server: TestApiServer;
  let ring: Ring;
  const intervals: Interval[] = [];
  const children = new Map<string, ChildReplica>();
  before(async () => {
    server = await startTestApiServer();
    ring = new Ring(server);
    ring.startSharder();
  });
  after(async () => {
    await Promise.all([...children.values()].map((c) => c.kill()));
    await ring.close();
    await server.close();
  });

  const spawnReplica = (name: string): ChildReplica => {
    const c = new ChildReplica(name, server.kubeConfig().exportConfig(), intervals);
    children.set(name, c);
    return c;
  };
  /** Waits until the sharder's ring holds exactly the running replicas. */
  const joined = (): Promise<void> =>
    eventually(
      `the ring holds ${[...children.keys()].join(', ')}`,
      () => ring.sharder.ring.shards.join(',') === [...children.keys()].sort().join(','),
      30_000,
      20,
    );
  const settled = (timeoutMs?: number): Promise<Map<string, string | undefined>> =>
    waitSettled(
      ring.objects,
      ring.sharder.labels,
      () => new Set(children.keys()),
      intervals,
      timeoutMs,
    );

  test('three replicas share the objects; SIGKILL moves a dead replica’s objects after its lease expires; SIGTERM moves them at once', async () => {
    spawnReplica('r0');
    spawnReplica('r1');
    spawnReplica('r2');
    await ring.createObjects('obj', 90);
    await joined();
    const three = await settled(30_000);
    assert.equal(new Set(three.values()).size, 3);

    // A crash: the lease is not released; the objects move once it expired.
    const killed = children.get('r1');
    assert.ok(killed);
    const killedAt = Date.now();
    await killed.kill();
    children.delete('r1');
    await ring.createObjects('burst-a', 15);
    const two = await settled(timing.leaseDurationMs + 15_000);
    const afterKill = Date.now() - killedAt;
    assert.ok(
      afterKill >= timing.leaseDurationMs - 500,
      `moved after ${afterKill} ms: before the lease expired`,
    );
    for (const [k, s] of three)
      if (s !== 'r1') assert.equal(two.get(k), s, `${k} stays on ${String(s)}`);

    // Scale out again, then a clean stop: the lease is released and its objects move at once.
    spawnReplica('r3');
    await ring.createObjects('burst-b', 15);
    await joined();
    await settled(30_000);
    const stopping = children.get('r0');
    assert.ok(stopping);
    const report = await stopping.terminate();
    children.delete('r0');
    assert.equal(report?.outcome, 'cancelled');
    await settled(timing.leaseDurationMs + 15_000);

    assertNoOverlap(intervals);
    const shards = new Set(intervals.map((i) => i.shard));
    assert.deepEqual([...shards].sort(), ['r0', 'r1', 'r2', 'r3']);
  });
});
