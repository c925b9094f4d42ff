// Events on moves, through the in-memory server: the sharder's recorder writes a Normal
// Event on each object it labels. Rules checked, from the Events listed on the server:
// every object got `ShardAssigned` naming its first shard; each object that moved to a
// joining shard got `ShardDrainRequested` naming the old and new shard, then `ShardMoved`
// from the old to the new one after the drain; each object of a shard that left got
// `ShardMoved` from the released shard; every Event's involvedObject is the object itself
// (apiVersion v1, kind ConfigMap, its namespace, name and uid), with the ring in its message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceClient } from '../../src/client/resource_client.js';
import { coreEventsResource, EventBroadcaster } from '../../src/record/index.js';
import type { CoreEvent } from '../../src/record/index.js';
import { ShardEventReason } from '../../src/sharding/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';
import { NAMESPACE, RING, Ring } from './harness.js';

describe('sharder events on the in-memory server', { timeout: 120_000 }, () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('assignments, drain requests and moves are recorded as Events on the moved objects', async () => {
    const broadcaster = new EventBroadcaster(server.kubeConfig(), { logger: noopLogger });
    const recorder = broadcaster.newRecorder({ component: 'widgets-sharder' });
    const ring = new Ring(server, { recorder });
    const count = 20;
    let onB: string[] = [];
    try {
      ring.startSharder();
      ring.add('a');
      await ring.createObjects('ev', count);
      await ring.settled();
      const b = ring.add('b');
      await eventually('b holds its Lease and works', () => b.working);
      const two = await ring.settled();
      onB = [...two].filter(([, s]) => s === 'b').map(([k]) => k.slice(NAMESPACE.length + 1));
      assert.ok(onB.length > 0 && onB.length < count, `b took ${onB.length} of ${count}`);
      assert.equal(await ring.remove('b'), 'cancelled');
      await ring.settled();
    } finally {
      await ring.close();
    }
    await broadcaster.close(AbortSignal.timeout(10_000));

    const objects = new Map(
      (await ring.objects.list()).items.map((o) => [o.metadata?.name ?? '', o]),
    );
    const events = new ResourceClient<CoreEvent>(server.kubeConfig(), coreEventsResource, {
      namespace: NAMESPACE,
    });
    const all = (await events.list()).items;
    const about = (name: string, reason: string): CoreEvent[] =>
      all.filter((e) => e.involvedObject.name === name && e.reason === reason);

    for (const e of all) {
      assert.equal(e.type, 'Normal');
      assert.equal(e.source?.component, 'widgets-sharder');
      const o = objects.get(e.involvedObject.name ?? '');
      assert.ok(o, `event about an unknown object ${String(e.involvedObject.name)}`);
      assert.equal(e.involvedObject.apiVersion, 'v1');
      assert.equal(e.involvedObject.kind, 'ConfigMap');
      assert.equal(e.involvedObject.namespace, NAMESPACE);
      assert.equal(e.involvedObject.uid, o.metadata?.uid);
      assert.match(e.message ?? '', new RegExp(`ring "${RING}"`));
    }
    for (const name of objects.keys()) {
      const assigned = about(name, ShardEventReason.assigned);
      assert.equal(assigned.length, 1, `${name}: one ShardAssigned`);
      assert.match(assigned[0]?.message ?? '', /assigned to shard "a"/);
    }
    for (const name of onB) {
      const drain = about(name, ShardEventReason.drainRequested);
      assert.equal(drain.length, 1, `${name}: one ShardDrainRequested`);
      assert.match(drain[0]?.message ?? '', /asked shard "a" .* for shard "b"/);
      const moved = about(name, ShardEventReason.moved).map((e) => e.message ?? '');
      assert.equal(moved.length, 2, `${name}: moved a→b, then b→a: ${moved.join(' | ')}`);
      assert.ok(moved.some((m) => /from shard "a" to shard "b" .*after "a" released it/.test(m)));
      assert.ok(moved.some((m) => /from shard "b", which is no longer live, to shard "a"/.test(m)));
    }
    const stayed = [...objects.keys()].filter((n) => !onB.includes(n));
    for (const name of stayed) {
      assert.deepEqual(about(name, ShardEventReason.drainRequested), [], name);
      assert.deepEqual(about(name, ShardEventReason.moved), [], name);
    }
  });
});
