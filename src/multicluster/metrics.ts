/**
 * Per-cluster metrics of multicluster controllers.
 *
 * A multicluster controller reports twice. Its `controller_runtime_*` and `workqueue_*`
 * series (controller-runtime's and client-go's names, labelled by controller or queue name)
 * count every cluster together, so the dashboards and alerts written for single-cluster
 * controllers read the same. Beside them, the series below carry a `cluster` label:
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `multicluster_reconcile_total{controller,cluster,result}` | counter | reconciles by result (`success`, `error`, `requeue`, `requeue_after`) |
 * | `multicluster_reconcile_time_seconds{controller,cluster}` | histogram | time per reconcile |
 * | `multicluster_workqueue_depth{controller,cluster}` | gauge | requests of the cluster waiting in the queue |
 * | `multicluster_workqueue_adds_total{controller,cluster}` | counter | requests added (not duplicates) |
 * | `multicluster_workqueue_queue_duration_seconds{controller,cluster}` | histogram | time from add to a worker: what fairness keeps short |
 * | `multicluster_engaged_clusters{controller}` | gauge | clusters engaged |
 * | `multicluster_cluster_synced{controller,cluster}` | gauge | 1 once the controller's watches of the cluster synced, 0 while they sync |
 *
 * Why new names rather than a `cluster` label on the existing ones: a metric name has one
 * label set in a registry, so adding `cluster` to `controller_runtime_reconcile_total` would
 * clash with the single-cluster controllers of the same process and change every query
 * written for it. A disengaged cluster's series are removed (`removeClusterSeries`), so the
 * number of series follows the fleet instead of growing with every cluster ever seen.
 *
 * Types only, free of prom-client: the Prometheus adapter is
 * `PrometheusMultiClusterMetricsProvider` in `kube-controller-kit/metrics`.
 *
 * @module
 */
import type { ReconcileResultLabel } from '../controller/metrics.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';

/** The names of the per-cluster series, for providers and dashboards. */
export const multiClusterMetricNames = {
  /** Counter of reconciles by cluster and result. */
  reconcileTotal: 'multicluster_reconcile_total',
  /** Histogram of reconcile durations by cluster. */
  reconcileTime: 'multicluster_reconcile_time_seconds',
  /** Gauge of queued requests by cluster. */
  queueDepth: 'multicluster_workqueue_depth',
  /** Counter of queued requests by cluster. */
  queueAdds: 'multicluster_workqueue_adds_total',
  /** Histogram of time in the queue by cluster. */
  queueDuration: 'multicluster_workqueue_queue_duration_seconds',
  /** Gauge of engaged clusters by controller. */
  engagedClusters: 'multicluster_engaged_clusters',
  /** Gauge: the controller's watches of the cluster synced (1) or not yet (0). */
  clusterSynced: 'multicluster_cluster_synced',
} as const;

/**
 * Creates the per-cluster series of multicluster controllers. Methods are called when a
 * cluster is engaged (its series, created at zero) and when it is disengaged
 * (`removeClusterSeries`). Implementations return the same series for the same labels.
 */
export interface MultiClusterMetricsProvider {
  /** `multicluster_reconcile_total{controller,cluster,result}`. */
  newClusterReconcileTotalMetric(
    controller: string,
    cluster: string,
    result: ReconcileResultLabel,
  ): CounterMetric;
  /** `multicluster_reconcile_time_seconds{controller,cluster}`, in seconds. */
  newClusterReconcileTimeMetric(controller: string, cluster: string): HistogramMetric;
  /** `multicluster_workqueue_depth{controller,cluster}`. */
  newClusterQueueDepthMetric(controller: string, cluster: string): GaugeMetric;
  /** `multicluster_workqueue_adds_total{controller,cluster}`. */
  newClusterQueueAddsMetric(controller: string, cluster: string): CounterMetric;
  /** `multicluster_workqueue_queue_duration_seconds{controller,cluster}`, in seconds. */
  newClusterQueueLatencyMetric(controller: string, cluster: string): HistogramMetric;
  /** `multicluster_cluster_synced{controller,cluster}`. */
  newClusterSyncedMetric(controller: string, cluster: string): SettableGaugeMetric;
  /** `multicluster_engaged_clusters{controller}`. */
  newEngagedClustersMetric(controller: string): SettableGaugeMetric;
  /** Remove every series of `cluster` for `controller` (the cluster was disengaged). */
  removeClusterSeries(controller: string, cluster: string): void;
}

let defaultProvider: MultiClusterMetricsProvider | undefined;

/**
 * Set the provider used by multicluster controllers created afterwards without a
 * `multiClusterMetricsProvider` option. Pass `undefined` to turn it off again.
 */
export function setDefaultMultiClusterMetricsProvider(
  provider: MultiClusterMetricsProvider | undefined,
): void {
  defaultProvider = provider;
}

/** The provider set with {@link setDefaultMultiClusterMetricsProvider}, if any. */
export function getDefaultMultiClusterMetricsProvider(): MultiClusterMetricsProvider | undefined {
  return defaultProvider;
}
