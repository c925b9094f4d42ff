// Warm replicas (controller-runtime EnableWarmup, designs/warmreplicas.md): a replica that
// has not won the Lease has its informers synced and its controller's queue filled, but
// runs no reconcile; on failover its first reconcile follows the lease transition without
// a new list. The kit's Manager is warm by construction: the caches group runs on every
// replica, and a Controller registers its handlers when it is built.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configMapsResource } from '../../src/client/builtins.js';
import { Controller } from '../../src/controller/index.js';
import { Manager } from '../../src/manager/index.js';
import type { ManagerOptions } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

const N = 200;

describe('warm replicas', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
    for (let i = 0; i < N; i++) {
      server.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: 'default' },
        data: { i: String(i) },
      });
    }
  });
  after(async () => {
    await server.close();
  });

  function replica(identity: string): {
    manager: Manager;
    controller: Controller;
    reconciles: { key: string; at: number }[];
  } {
    const options: ManagerOptions = {
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
      leaderElection: {
        id: 'warm',
        namespace: 'default',
        identity,
        leaseDurationMs: 1000,
        renewDeadlineMs: 600,
        retryPeriodMs: 50,
        releaseOnCancel: false, // the leader dies: its lease must expire
      },
    };
    const manager = new Manager(options);
    const reconciles: { key: string; at: number }[] = [];
    const controller = new Controller({
      name: `cms-${identity}`,
      logger: noopLogger,
      reconcile: (key) => void reconciles.push({ key, at: Date.now() }),
    }).for(manager.informer(configMapsResource));
    manager.add(controller);
    return { manager, controller, reconciles };
  }

  test('a standby has synced informers and a full queue but reconciles nothing; after the leader dies its first reconcile follows the lease transition, with no new list', async () => {
    const a = replica('a');
    const stopA = new AbortController();
    const runningA = a.manager.start(stopA.signal);
    await a.manager.elected();
    await eventually('the leader reconciled everything', () => a.reconciles.length >= N);

    const b = replica('b');
    const stopB = new AbortController();
    const runningB = b.manager.start(stopB.signal);
    const informerB = b.manager.cache.forResource(configMapsResource);
    await eventually('the standby’s informer synced', () => informerB.hasSynced());
    await eventually('the standby’s queue filled', () => b.controller.queue.len() === N);
    assert.equal(b.reconciles.length, 0, 'no reconcile without the lease');

    server.clearRequests();
    const died = Date.now();
    stopA.abort();
    await runningA.catch(() => {});
    let electedAt = 0;
    void b.manager.elected().then(() => (electedAt = Date.now()));
    await eventually(
      'the standby took over and reconciled',
      () => b.reconciles.length >= N,
      10_000,
    );
    assert.ok(electedAt > 0 && b.reconciles[0]!.at >= electedAt, 'first reconcile after the lease');
    assert.ok(electedAt >= died, 'the lease moved after the leader died');
    const lists = server.requests.filter(
      (r) => r.method === 'GET' && r.url.includes('/configmaps') && !r.url.includes('watch'),
    );
    assert.deepEqual(lists, [], 'the warm standby did not list again');
    stopB.abort();
    await runningB;
  });
});
