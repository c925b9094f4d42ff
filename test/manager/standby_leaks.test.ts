// A process must be able to exit once `manager.start()` resolved. With the Prometheus
// work-queue metrics as the default (docs/manager.md), a standby replica (leader election
// lost to another holder) constructs its controllers and never runs them; stopping it must
// leave no timer, socket or handle behind. The file-level leak check (test/support/setup.ts)
// fails this file if one survives: before the fix, each never-run controller's work queue
// kept a 500 ms gauge timer alive (client-go refreshes those gauges only while the queue
// runs; here only while a worker holds an item).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Controller } from '../../src/controller/index.js';
import { Manager } from '../../src/manager/index.js';
import { PrometheusMetricsProvider } from '../../src/metrics/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { setDefaultMetricsProvider } from '../../src/workqueue/index.js';

const LEASES = { group: 'coordination.k8s.io', resource: 'leases' };

describe('Manager standby: nothing outlives start()', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
    setDefaultMetricsProvider(new PrometheusMetricsProvider({ registry: new Registry() }));
  });
  after(async () => {
    setDefaultMetricsProvider(undefined);
    await server.close();
  });

  test('a standby replica stopped while another holds the lease leaves no timer or socket (its controllers were constructed, never run)', async () => {
    // Another replica holds the lease, renewed just now, for an hour.
    server.create(LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'standby', namespace: 'default' },
      spec: {
        holderIdentity: 'the-leader',
        leaseDurationSeconds: 3600,
        acquireTime: new Date().toISOString(),
        renewTime: new Date().toISOString(),
        leaseTransitions: 0,
      },
    });
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      logger: noopLogger,
      leaderElection: {
        id: 'standby',
        namespace: 'default',
        identity: 'standby-replica',
        retryPeriodMs: 100,
        renewDeadlineMs: 1000,
      },
    });
    const pods = manager.cache.pods();
    let reconciled = 0;
    manager.add(
      new Controller({
        name: 'standby-pods',
        reconcile: async () => void reconciled++,
      }).for(pods),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    stop.abort();
    await running;
    assert.equal(reconciled, 0, 'the standby never ran its controller');
    assert.equal(
      server.get<{ spec?: { holderIdentity?: string } }>(LEASES, 'standby', 'default')?.spec
        ?.holderIdentity,
      'the-leader',
    );
    // The leak check runs after this file: no Timeout, TCPSocketWrap or TCPServerWrap left.
  });

  test('stopping right after serving(), without leader election, leaves nothing either', async () => {
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '127.0.0.1:0',
      logger: noopLogger,
    });
    manager.add(
      new Controller({ name: 'early-stop', reconcile: async () => {} }).for(manager.cache.pods()),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    stop.abort();
    await running;
  });
});
