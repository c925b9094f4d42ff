/**
 * The Prometheus adapter of the per-cluster series of multicluster controllers
 * (`multicluster_*`, see `multiClusterMetricNames`) on prom-client. A disengaged cluster's
 * series are removed from the registry.
 *
 * @module
 */
import { Counter, Gauge, Histogram, register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ReconcileResultLabel } from '../controller/metrics.js';
import { reconcileResultLabels, reconcileTimeBuckets } from '../controller/metrics.js';
import type { MultiClusterMetricsProvider } from '../multicluster/metrics.js';
import { multiClusterMetricNames } from '../multicluster/metrics.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';
import { workqueueDurationBuckets } from './prometheus.js';

/** Options of {@link PrometheusMultiClusterMetricsProvider}. */
export interface PrometheusMultiClusterMetricsProviderOptions {
  /** The registry to register the metrics in (default: prom-client's global registry). */
  registry?: Registry;
}

type Labels = 'controller' | 'cluster';

/**
 * Registers the `multicluster_*` series in a prom-client registry: per controller and
 * cluster, created at zero when the cluster is engaged, removed when it is disengaged.
 *
 * @example
 * ```ts
 * import { PrometheusMultiClusterMetricsProvider } from 'kube-controller-kit/metrics';
 * setDefaultMultiClusterMetricsProvider(new PrometheusMultiClusterMetricsProvider());
 * ```
 */
export class PrometheusMultiClusterMetricsProvider implements MultiClusterMetricsProvider {
  readonly #total: Counter<Labels | 'result'>;
  readonly #time: Histogram<Labels>;
  readonly #depth: Gauge<Labels>;
  readonly #adds: Counter<Labels>;
  readonly #latency: Histogram<Labels>;
  readonly #synced: Gauge<Labels>;
  readonly #engaged: Gauge<'controller'>;

  /** Create the metrics and register them in the registry. */
  constructor(options: PrometheusMultiClusterMetricsProviderOptions = {}) {
    const registers = [options.registry ?? globalRegistry];
    const n = multiClusterMetricNames;
    const labelNames = ['controller', 'cluster'] as const;
    this.#total = new Counter({
      name: n.reconcileTotal,
      help: 'Total number of reconciliations per controller and cluster',
      labelNames: ['controller', 'cluster', 'result'] as const,
      registers,
    });
    this.#time = new Histogram({
      name: n.reconcileTime,
      help: 'Length of time per reconciliation per controller and cluster',
      labelNames,
      buckets: [...reconcileTimeBuckets],
      registers,
    });
    this.#depth = new Gauge({
      name: n.queueDepth,
      help: 'Requests of the cluster waiting in the controller’s work queue',
      labelNames,
      registers,
    });
    this.#adds = new Counter({
      name: n.queueAdds,
      help: 'Requests of the cluster added to the controller’s work queue',
      labelNames,
      registers,
    });
    this.#latency = new Histogram({
      name: n.queueDuration,
      help: 'How long a request of the cluster waits in the work queue before a worker takes it',
      labelNames,
      buckets: [...workqueueDurationBuckets],
      registers,
    });
    this.#synced = new Gauge({
      name: n.clusterSynced,
      help: 'Whether the controller’s watches of the cluster have synced (1) or not yet (0)',
      labelNames,
      registers,
    });
    this.#engaged = new Gauge({
      name: n.engagedClusters,
      help: 'Clusters engaged per controller',
      labelNames: ['controller'] as const,
      registers,
    });
  }

  /** {@inheritDoc MultiClusterMetricsProvider.newClusterReconcileTotalMetric} */
  newClusterReconcileTotalMetric(
    controller: string,
    cluster: string,
    result: ReconcileResultLabel,
  ): CounterMetric {
    const child = this.#total.labels({ controller, cluster, result });
    child.inc(0);
    return child;
  }
  /** {@inheritDoc MultiClusterMetricsProvider.newClusterReconcileTimeMetric} */
  newClusterReconcileTimeMetric(controller: string, cluster: string): HistogramMetric {
    return this.#time.labels({ controller, cluster });
  }
  /** {@inheritDoc MultiClusterMetricsProvider.newClusterQueueDepthMetric} */
  newClusterQueueDepthMetric(controller: string, cluster: string): GaugeMetric {
    const child = this.#depth.labels({ controller, cluster });
    child.set(0);
    return child;
  }
  /** {@inheritDoc MultiClusterMetricsProvider.newClusterQueueAddsMetric} */
  newClusterQueueAddsMetric(controller: string, cluster: string): CounterMetric {
    const child = this.#adds.labels({ controller, cluster });
    child.inc(0);
    return child;
  }
  /** {@inheritDoc MultiClusterMetricsProvider.newClusterQueueLatencyMetric} */
  newClusterQueueLatencyMetric(controller: string, cluster: string): HistogramMetric {
    return this.#latency.labels({ controller, cluster });
  }
  /** {@inheritDoc MultiClusterMetricsProvider.newClusterSyncedMetric} */
  newClusterSyncedMetric(controller: string, cluster: string): SettableGaugeMetric {
    return this.#synced.labels({ controller, cluster });
  }
  /** {@inheritDoc MultiClusterMetricsProvider.newEngagedClustersMetric} */
  newEngagedClustersMetric(controller: string): SettableGaugeMetric {
    const child = this.#engaged.labels({ controller });
    child.set(0);
    return child;
  }
  /** {@inheritDoc MultiClusterMetricsProvider.removeClusterSeries} */
  removeClusterSeries(controller: string, cluster: string): void {
    for (const result of reconcileResultLabels) this.#total.remove({ controller, cluster, result });
    for (const m of [this.#time, this.#depth, this.#adds, this.#latency, this.#synced]) {
      m.remove({ controller, cluster });
    }
  }
}
