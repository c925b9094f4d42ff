// The per-cluster series of multicluster controllers on prom-client: created at zero when a
// cluster is engaged, counted by cluster, and removed from the registry when the cluster is
// disengaged (the series follow the fleet), while the controller-runtime series keep
// counting every cluster together under their own names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { configMapsResource } from '../../src/client/builtins.js';
import { Manager } from '../../src/manager/index.js';
import {
  PrometheusControllerMetricsProvider,
  PrometheusMultiClusterMetricsProvider,
} from '../../src/metrics/index.js';
import {
  MultiClusterController,
  MultiClusterManager,
  StaticClusterProvider,
} from '../../src/multicluster/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

function sample(text: string, line: string): number | undefined {
  for (const l of text.split('\n')) {
    if (l.startsWith(line + ' ')) return Number(l.slice(line.length + 1));
  }
  return undefined;
}

describe('multicluster_* metrics (prom-client)', () => {
  let hub: TestApiServer;
  let a: TestApiServer;
  let b: TestApiServer;
  before(async () => {
    [hub, a, b] = await Promise.all([
      startTestApiServer(),
      startTestApiServer(),
      startTestApiServer(),
    ]);
  });
  after(async () => {
    await Promise.all([hub.close(), a.close(), b.close()]);
  });

  test('reconciles and queue series by cluster; a disengaged cluster’s series leave the registry', async () => {
    for (const s of [a, b]) {
      s.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x', namespace: 'default' },
      });
    }
    const registry = new Registry();
    const controller = new MultiClusterController({
      name: 'scraped',
      reconcile: () => {},
      multiClusterMetricsProvider: new PrometheusMultiClusterMetricsProvider({ registry }),
      controllerMetricsProvider: new PrometheusControllerMetricsProvider({ registry }),
      logger: noopLogger,
    }).for(configMapsResource, { filter: (o) => o.metadata?.name === 'x' });
    const provider = new StaticClusterProvider({
      clusters: { 'member-a': a.kubeConfig(), 'member-b': b.kubeConfig() },
      logger: noopLogger,
    });
    const manager = new Manager({
      kubeConfig: hub.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    const fleet = new MultiClusterManager(manager, provider);
    fleet.add(controller);
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      const scrape = () => registry.metrics();
      await eventually('both reconciled', async () => {
        const text = await scrape();
        return (
          sample(
            text,
            'multicluster_reconcile_total{controller="scraped",cluster="member-a",result="success"}',
          ) === 1 &&
          sample(
            text,
            'multicluster_reconcile_total{controller="scraped",cluster="member-b",result="success"}',
          ) === 1
        );
      });
      let text = await scrape();
      assert.equal(
        sample(text, 'controller_runtime_reconcile_total{controller="scraped",result="success"}'),
        2,
        'the controller-runtime series counts both',
      );
      assert.equal(sample(text, 'multicluster_engaged_clusters{controller="scraped"}'), 2);
      assert.equal(
        sample(text, 'multicluster_cluster_synced{controller="scraped",cluster="member-b"}'),
        1,
      );
      assert.equal(
        sample(text, 'multicluster_workqueue_adds_total{controller="scraped",cluster="member-b"}'),
        1,
      );
      assert.equal(
        sample(
          text,
          'multicluster_workqueue_queue_duration_seconds_count{controller="scraped",cluster="member-b"}',
        ),
        1,
      );
      assert.equal(
        sample(
          text,
          'multicluster_reconcile_time_seconds_count{controller="scraped",cluster="member-a"}',
        ),
        1,
      );
      await provider.remove('member-b');
      text = await scrape();
      assert.doesNotMatch(text, /cluster="member-b"/, 'every series of member-b is gone');
      assert.match(text, /cluster="member-a"/);
      assert.equal(sample(text, 'multicluster_engaged_clusters{controller="scraped"}'), 1);
    } finally {
      stop.abort();
      await running;
    }
  });
});
