// One operator over many clusters, against in-memory API servers (one hub, members):
// multicluster-runtime's rules — a cluster that appears is engaged (its cache starts, the
// controllers' watches begin) and one that goes away is disengaged (its caches, watches,
// requests and sockets stop); requests carry their cluster; a reconcile gets its cluster's
// handle (client, cache, event recorder); one work queue, fair across clusters; leader
// election unchanged (every cluster under the one leader).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { configMapsResource } from '../../src/client/builtins.js';
import { Manager } from '../../src/manager/index.js';
import type { ManagerOptions } from '../../src/manager/index.js';
import {
  ClusterNotFoundError,
  LOCAL_CLUSTER,
  MultiClusterController,
  MultiClusterManager,
  StaticClusterProvider,
} from '../../src/multicluster/index.js';
import type {
  ClusterRequest,
  MultiClusterMetricsProvider,
  MultiClusterReconciler,
} from '../../src/multicluster/index.js';
import { eventually } from '../support/eventually.js';
import { recordingLogger } from './support.js';

const str = (r: ClusterRequest) => `${r.cluster}|${r.namespace}/${r.name}`;

function sockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
}

function hubManager(hub: TestApiServer, extra: Partial<ManagerOptions> = {}): Manager {
  return new Manager({
    kubeConfig: hub.kubeConfig(),
    healthProbeBindAddress: '0',
    metricsBindAddress: '0',
    gracefulShutdownTimeoutMs: 5000,
    logger: recordingLogger().logger,
    ...extra,
  });
}

function cm(name: string, namespace = 'default', data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

describe('multicluster: engage, reconcile, disengage', () => {
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

  test('requests carry their cluster, and a reconcile gets that cluster’s handle: its cache-backed client and its Event recorder', async () => {
    a.create('configmaps', cm('in-a', 'default', { from: 'a' }));
    b.create('configmaps', cm('in-b', 'default', { from: 'b' }));
    const seen: string[] = [];
    const reconcile: MultiClusterReconciler = async (request, { cluster }) => {
      assert.equal(cluster.name, request.cluster, 'the handle is the request’s cluster');
      const obj = await cluster.client(configMapsResource).get(request.name, {
        namespace: request.namespace,
      });
      seen.push(`${str(request)}=${obj.data?.from}`);
      cluster
        .eventRecorderFor('mc-test')
        .event(obj, 'Normal', 'Seen', `seen in ${request.cluster}`);
    };
    const controller = new MultiClusterController({ name: 'seen', reconcile }).for(
      configMapsResource,
      {
        filter: (obj) => obj.metadata?.name?.startsWith('in-') === true,
      },
    );
    const provider = new StaticClusterProvider({
      clusters: { 'member-a': a.kubeConfig(), 'member-b': b.kubeConfig() },
    });
    const fleet = new MultiClusterManager(hubManager(hub), provider);
    fleet.add(controller);
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      await eventually('both reconciled', () => seen.length === 2);
      assert.deepEqual(seen.sort(), ['member-a|default/in-a=a', 'member-b|default/in-b=b']);
      assert.deepEqual(controller.engagedClusters(), ['member-a', 'member-b']);
      assert.deepEqual(fleet.clusterNames(), ['member-a', 'member-b']);
      await eventually('the Event written in member-a, not in the hub', () =>
        a.list<{ reason?: string }>('events', 'default').some((e) => e.reason === 'Seen'),
      );
      assert.equal(
        hub.list<{ reason?: string }>('events', 'default').filter((e) => e.reason === 'Seen')
          .length,
        0,
      );
      // A change in one member is a request of that member only.
      seen.length = 0;
      const current = a.get<ReturnType<typeof cm>>('configmaps', 'in-a', 'default')!;
      a.update('configmaps', { ...current, data: { from: 'a2' } });
      await eventually('the change reconciled', () => seen.length === 1);
      assert.deepEqual(seen, ['member-a|default/in-a=a2']);
    } finally {
      stop.abort();
      await running;
      a.delete('configmaps', 'in-a', 'default');
      b.delete('configmaps', 'in-b', 'default');
    }
  });

  test('a cluster removed while running is disengaged: its watches close, its sockets close, its queued requests go, its reconcile in flight is aborted and not retried', async () => {
    const log = recordingLogger();
    let blockedSignal: AbortSignal | undefined;
    let reconcilesOfB = 0;
    const reconcile: MultiClusterReconciler = async (request, { signal }) => {
      if (request.cluster !== 'member-b') return;
      reconcilesOfB++;
      if (request.name === 'block') {
        blockedSignal = signal;
        await new Promise<void>((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
        );
      }
    };
    const controller = new MultiClusterController({
      name: 'removal',
      reconcile,
      workers: 2,
      logger: log.logger,
    }).for(configMapsResource);
    const provider = new StaticClusterProvider({ clusters: { 'member-a': a.kubeConfig() } });
    const fleet = new MultiClusterManager(hubManager(hub), provider);
    fleet.add(controller);
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      await eventually('member-a engaged and synced', () =>
        controller.clusterStatus().some((s) => s.cluster === 'member-a' && s.synced),
      );
      await eventually('member-a watching', () => a.watchCount('configmaps') === 1);
      const baseline = sockets();
      assert.equal(b.watchCount('configmaps'), 0);
      b.create('configmaps', cm('block'));
      for (let i = 0; i < 20; i++) b.create('configmaps', cm(`queued-${i}`));
      await provider.add('member-b', b.kubeConfig());
      await eventually('the blocking reconcile runs', () => blockedSignal !== undefined);
      assert.equal(b.watchCount('configmaps'), 1, 'the watch began on engage');
      assert.ok(sockets() > baseline, 'member-b has sockets open');
      await provider.remove('member-b');
      assert.equal(blockedSignal!.aborted, true, 'the reconcile in flight was aborted');
      assert.ok(blockedSignal!.reason instanceof ClusterNotFoundError);
      assert.deepEqual(controller.engagedClusters(), ['member-a']);
      assert.deepEqual(controller.queue.clusters(), ['', 'member-a']);
      assert.equal(controller.queue.clusterLen('member-b'), 0);
      await eventually('member-b’s watch closed', () => b.watchCount() === 0);
      await eventually('member-b’s sockets closed', () => sockets() === baseline);
      const after = reconcilesOfB;
      // A requeue or an event of the gone cluster is dropped, never reconciled.
      controller.enqueue({ cluster: 'member-b', namespace: 'default', name: 'queued-0' });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(reconcilesOfB, after);
      assert.equal(controller.queue.len(), 0);
      assert.deepEqual(
        log.lines.filter((l) => l.startsWith('error')),
        [],
        'the aborted reconcile of the gone cluster is not an error',
      );
      // Engaged again: a new lane, a new watch.
      await provider.add('member-b', b.kubeConfig());
      await eventually('member-b watched again', () => b.watchCount('configmaps') === 1);
    } finally {
      stop.abort();
      await running;
      for (const o of b.list<{ metadata: { name: string } }>('configmaps', 'default')) {
        b.delete('configmaps', o.metadata.name, 'default');
      }
    }
    assert.equal(b.watchCount(), 0, 'nothing of member-b left running after shutdown');
    assert.equal(a.watchCount(), 0);
  });

  test('one busy cluster does not starve another: once a quiet cluster engaged later has synced, its request is served within one turn', async () => {
    for (let i = 0; i < 300; i++) a.create('configmaps', cm(`busy-${i}`));
    const order: string[] = [];
    let quietReadyAt: number | undefined;
    const reconcile: MultiClusterReconciler = async (request) => {
      quietReadyAt ??= controller.clusterStatus().some((s) => s.cluster === 'quiet' && s.synced)
        ? order.length
        : undefined;
      order.push(str(request));
      await new Promise((r) => setTimeout(r, 1));
    };
    const controller: MultiClusterController = new MultiClusterController({
      name: 'fair',
      reconcile,
      workers: 1,
    }).for(configMapsResource);
    const provider = new StaticClusterProvider({ clusters: { busy: a.kubeConfig() } });
    const fleet = new MultiClusterManager(hubManager(hub), provider);
    fleet.add(controller);
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      await eventually('the busy cluster is being worked', () => order.length >= 20);
      b.create('configmaps', cm('quiet'));
      await provider.add('quiet', b.kubeConfig());
      await eventually('the quiet request reconciled', () => order.includes('quiet|default/quiet'));
      assert.ok(quietReadyAt !== undefined);
      const busyLeft =
        300 - order.slice(0, quietReadyAt).filter((r) => r.startsWith('busy|')).length;
      assert.ok(busyLeft > 50, `the busy cluster still had ${busyLeft} requests queued`);
      const waited = order.indexOf('quiet|default/quiet') - quietReadyAt;
      assert.ok(
        waited <= 1,
        `the quiet request waited ${waited} reconciles after its cluster synced, not the ${busyLeft} queued before it`,
      );
    } finally {
      stop.abort();
      await running;
      for (let i = 0; i < 300; i++) a.delete('configmaps', `busy-${i}`, 'default');
      b.delete('configmaps', 'quiet', 'default');
    }
  });

  test('per-cluster metrics: reconciles and queue series by cluster, removed when the cluster is disengaged', async () => {
    const series = new Map<string, number>();
    const bump = (k: string, by = 1) => series.set(k, (series.get(k) ?? 0) + by);
    const removed: string[] = [];
    const metric = (k: string) => ({
      inc: () => bump(k),
      dec: () => bump(k, -1),
      set: (v: number) => series.set(k, v),
      observe: () => bump(`${k}#count`),
    });
    const provider: MultiClusterMetricsProvider = {
      newClusterReconcileTotalMetric: (c, cl, r) => metric(`reconcile_total{${cl},${r}}`),
      newClusterReconcileTimeMetric: (c, cl) => metric(`reconcile_time{${cl}}`),
      newClusterQueueDepthMetric: (c, cl) => metric(`depth{${cl}}`),
      newClusterQueueAddsMetric: (c, cl) => metric(`adds{${cl}}`),
      newClusterQueueLatencyMetric: (c, cl) => metric(`queue_duration{${cl}}`),
      newClusterSyncedMetric: (c, cl) => metric(`synced{${cl}}`),
      newEngagedClustersMetric: () => metric('engaged'),
      removeClusterSeries: (c, cl) => void removed.push(`${c}/${cl}`),
    };
    a.create('configmaps', cm('m1'));
    b.create('configmaps', cm('m2'));
    let failOnce = true;
    const controller = new MultiClusterController({
      name: 'metered',
      multiClusterMetricsProvider: provider,
      logger: recordingLogger().logger,
      reconcile: (request) => {
        if (request.cluster === 'member-b' && failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
      },
    }).for(configMapsResource, { filter: (o) => /^m\d$/.test(o.metadata?.name ?? '') });
    const clusters = new StaticClusterProvider({
      clusters: { 'member-a': a.kubeConfig(), 'member-b': b.kubeConfig() },
    });
    const fleet = new MultiClusterManager(hubManager(hub), clusters);
    fleet.add(controller);
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      await eventually(
        'member-b retried after its error',
        () => (series.get('reconcile_total{member-b,success}') ?? 0) === 1,
      );
      await eventually(
        'member-a reconciled',
        () => (series.get('reconcile_total{member-a,success}') ?? 0) === 1,
      );
      assert.equal(series.get('reconcile_total{member-b,error}'), 1);
      assert.equal(series.get('reconcile_total{member-a,error}') ?? 0, 0);
      assert.equal(series.get('adds{member-a}'), 1);
      assert.equal(series.get('synced{member-a}'), 1);
      assert.equal(series.get('engaged'), 2, 'the local cluster is not counted');
      await clusters.remove('member-b');
      assert.deepEqual(removed, ['metered/member-b']);
      assert.equal(series.get('engaged'), 1);
    } finally {
      stop.abort();
      await running;
      a.delete('configmaps', 'm1', 'default');
      b.delete('configmaps', 'm2', 'default');
    }
  });

  test('watches on the local (hub) cluster map to requests of any cluster; requests of the local cluster reconcile on the hub', async () => {
    const handled: string[] = [];
    const controller: MultiClusterController = new MultiClusterController({
      name: 'hub-to-members',
      reconcile: (request, { cluster }) => {
        assert.equal(cluster.name, request.cluster);
        handled.push(str(request));
      },
    }).watches(
      configMapsResource,
      (obj) => [
        ...controller.engagedClusters().map((c) => ({
          cluster: c,
          namespace: obj.metadata?.namespace ?? '',
          name: obj.metadata?.name ?? '',
        })),
        {
          cluster: LOCAL_CLUSTER,
          namespace: obj.metadata?.namespace ?? '',
          name: obj.metadata?.name ?? '',
        },
      ],
      {
        engageWithLocalCluster: true,
        engageWithProviderClusters: false,
        filter: (o) => o.metadata?.name === 'source',
      },
    );
    const provider = new StaticClusterProvider({
      clusters: { 'member-a': a.kubeConfig(), 'member-b': b.kubeConfig() },
    });
    const fleet = new MultiClusterManager(hubManager(hub), provider);
    fleet.add(controller);
    const stop = new AbortController();
    const running = fleet.start(stop.signal);
    try {
      await eventually('members engaged', () => controller.engagedClusters().length === 2);
      hub.create('configmaps', cm('source'));
      await eventually('three requests', () => handled.length === 3);
      assert.deepEqual(handled.sort(), [
        'member-a|default/source',
        'member-b|default/source',
        '|default/source',
      ]);
      assert.equal(a.watchCount('configmaps'), 0, 'the watch is on the hub only');
      assert.equal(fleet.getCluster(LOCAL_CLUSTER), fleet.localCluster);
      assert.throws(() => fleet.getCluster('nope'), ClusterNotFoundError);
    } finally {
      stop.abort();
      await running;
      hub.delete('configmaps', 'source', 'default');
    }
  });

  for (const shape of [
    { clusters: 12, objects: 1, what: 'a fleet of twelve clusters, one reconcile each in flight' },
    { clusters: 1, objects: 12, what: 'twelve reconciles in flight in one cluster' },
  ]) {
    test(`${shape.what}, as many workers: no MaxListenersExceededWarning (the listeners on the run's, the workers' and a cluster's signal are no leak)`, async () => {
      const workers = shape.clusters * shape.objects;
      const warnings: string[] = [];
      const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      const names = Array.from({ length: shape.objects }, (_, i) => `wide-${i}`);
      for (const n of names) a.create('configmaps', cm(n));
      let inFlight = 0;
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const reconciled = new Set<string>();
      const controller = new MultiClusterController({
        name: 'wide',
        workers,
        logger: recordingLogger().logger,
        reconcile: async (request, { signal }) => {
          void signal; // the reconcile's signal listens on the worker's and the cluster's
          inFlight++;
          if (inFlight === workers) release();
          await released; // every worker holds a reconcile at once
          reconciled.add(str(request));
        },
      }).for(configMapsResource, {
        filter: (obj) => obj.metadata?.name?.startsWith('wide-') === true,
      });
      // Each member its own cluster (own transport, cache and lane), all on one server.
      const provider = new StaticClusterProvider({
        clusters: Object.fromEntries(
          Array.from({ length: shape.clusters }, (_, i) => [`member-${i}`, a.kubeConfig()]),
        ),
        logger: recordingLogger().logger,
      });
      const fleet = new MultiClusterManager(hubManager(hub), provider);
      fleet.add(controller);
      const stop = new AbortController();
      const running = fleet.start(stop.signal);
      try {
        await eventually(
          'every request reconciled, all at once',
          () => reconciled.size === workers,
        );
        assert.equal(controller.engagedClusters().length, shape.clusters);
      } finally {
        stop.abort();
        await running;
        for (const n of names) a.delete('configmaps', n, 'default');
        // A warning is emitted on a later tick than the listener that trips it.
        await new Promise((r) => setImmediate(r));
        process.off('warning', onWarning);
      }
      assert.deepEqual(
        warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
        [],
      );
    });
  }
});

describe('multicluster: leader election unchanged', () => {
  let hub: TestApiServer;
  let member: TestApiServer;
  before(async () => {
    [hub, member] = await Promise.all([startTestApiServer(), startTestApiServer()]);
  });
  after(async () => {
    await Promise.all([hub.close(), member.close()]);
  });

  test('every cluster is engaged by the one leader; a standby engages none until it leads', async () => {
    const timing = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 };
    const replicas = ['replica-1', 'replica-2'].map((identity) => {
      const manager = hubManager(hub, {
        leaderElection: { id: 'fleet', namespace: 'default', identity, ...timing },
      });
      const controller = new MultiClusterController({ name: 'fleet', reconcile: () => {} }).for(
        configMapsResource,
      );
      const fleet = new MultiClusterManager(
        manager,
        new StaticClusterProvider({ clusters: { member: member.kubeConfig() } }),
      );
      fleet.add(controller);
      const stop = new AbortController();
      const running = fleet.start(stop.signal);
      return { identity, controller, stop, running, fleet };
    });
    try {
      await eventually('one replica engaged the member', () =>
        replicas.some((r) => r.controller.engagedClusters().length === 1),
      );
      const leader = replicas.find((r) => r.controller.engagedClusters().length === 1)!;
      const standby = replicas.find((r) => r !== leader)!;
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(standby.controller.engagedClusters(), [], 'the standby engages nothing');
      assert.deepEqual(standby.fleet.clusterNames(), []);
      await eventually(
        'the leader watches the member',
        () => member.watchCount('configmaps') === 1,
      );
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(member.watchCount('configmaps'), 1, 'one watch: the leader’s');
      leader.stop.abort();
      await leader.running;
      await eventually('the standby took over and engaged the member', () =>
        standby.controller.engagedClusters().includes('member'),
      );
      await eventually(
        'one watch again: the new leader’s',
        () => member.watchCount('configmaps') === 1,
      );
    } finally {
      for (const r of replicas) r.stop.abort();
      await Promise.all(replicas.map((r) => r.running));
    }
    assert.equal(member.watchCount(), 0);
  });
});
