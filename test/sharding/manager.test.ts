// Sharding on the Manager: each replica's Manager runs the sharder as a leader-only
// runnable (one sharder per ring) and its shard as a runnable that every replica runs; the
// shard's informer comes from the Manager's cache with the shard's label selector.
// Rules: only the leader runs the sharder; every replica reconciles its own share; when
// the leader stops, the other replica takes over the sharder and the stopped shard's
// objects; no object is reconciled by two replicas at overlapping times.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Controller } from '../../src/controller/controller.js';
import { Manager } from '../../src/manager/index.js';
import { Shard, Sharder } from '../../src/sharding/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';
import { assertNoOverlap, NAMESPACE, RING, timing, waitSettled } from './harness.js';
import type { Interval } from './harness.js';

describe('sharding on the Manager', { timeout: 120_000 }, () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('the leader runs the sharder, every replica its shard; stopping the leader hands both over', async () => {
    const intervals: Interval[] = [];
    const sharderRuns: string[] = [];
    const replica = (name: string) => {
      const manager = new Manager({
        kubeConfig: server.kubeConfig(),
        healthProbeBindAddress: '0',
        metricsBindAddress: '0',
        logger: noopLogger,
        gracefulShutdownTimeoutMs: 5_000,
        leaderElection: { id: `${RING}-sharder`, namespace: NAMESPACE, identity: name, ...timing },
      });
      const sharder = new Sharder({
        ring: RING,
        leaseNamespace: NAMESPACE,
        namespace: NAMESPACE,
        resources: [{ resource: configMapsResource }],
        source: server.kubeConfig(),
        logger: noopLogger,
      });
      manager.add({
        name: sharder.name,
        start: (signal) => {
          sharderRuns.push(name);
          return sharder.start(signal);
        },
      });
      const shard = new Shard({
        ring: RING,
        name,
        namespace: NAMESPACE,
        source: server.kubeConfig(),
        logger: noopLogger,
        ...timing,
      });
      const informer = manager.cache.forResource(configMapsResource, {
        namespace: NAMESPACE,
        labelSelector: shard.labelSelector,
      });
      const controller = new Controller({
        name: `shard-${name}`,
        logger: noopLogger,
        reconcile: shard.reconciler({
          store: informer.getIndexer(),
          client: new ResourceClient(server.kubeConfig(), configMapsResource),
          reconcile: async (key) => {
            const start = performance.now();
            await new Promise((r) => setTimeout(r, 2));
            intervals.push({ shard: name, key, start, end: performance.now() });
          },
        }),
      }).for(informer);
      manager.add(shard.runnable((signal) => controller.run(signal, { shutdown: 'abort' })));
      const stop = new AbortController();
      const done = manager.start(stop.signal);
      return { name, manager, sharder, stop, done };
    };

    const a = replica('m-a');
    await a.manager.elected();
    const b = replica('m-b');
    const objects = new ResourceClient(server.kubeConfig(), configMapsResource, {
      namespace: NAMESPACE,
    });
    for (let i = 0; i < 40; i++) {
      await objects.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `mgr-${i}`, namespace: NAMESPACE },
      });
    }
    const live = new Set(['m-a', 'm-b']);
    const two = await waitSettled(
      objects,
      a.sharder.labels,
      () => live,
      intervals,
      20_000,
      () => a.sharder.ring.shards,
    );
    assert.equal(new Set(two.values()).size, 2, 'both replicas own objects');
    assert.deepEqual(sharderRuns, ['m-a'], 'only the leader runs the sharder');

    a.stop.abort();
    await a.done;
    live.delete('m-a');
    await eventually('b leads and runs the sharder', () => sharderRuns.includes('m-b'), 20_000);
    const one = await waitSettled(
      objects,
      b.sharder.labels,
      () => live,
      intervals,
      20_000,
      () => b.sharder.ring.shards,
    );
    assert.deepEqual([...new Set(one.values())], ['m-b']);
    b.stop.abort();
    await b.done;
    assertNoOverlap(intervals);
  });
});
