/**
 * Metrics: the Prometheus adapter (on prom-client, an optional peer dependency). Public at
 * `kube-controller-kit/metrics`.
 *
 * @module
 */
export { PrometheusMetricsProvider, workqueueDurationBuckets } from './prometheus.js';
export type { PrometheusMetricsProviderOptions } from './prometheus.js';
export { PrometheusControllerMetricsProvider } from './controller_runtime.js';
export type { PrometheusControllerMetricsProviderOptions } from './controller_runtime.js';
export type { ControllerMetricsProvider, ReconcileResultLabel } from '../controller/metrics.js';
export { leaderElectionMetricNames } from '../leaderelection/metrics.js';
export {
  REQUEST_ERROR_CODE,
  getDefaultRestClientMetricsProvider,
  restClientDurationBuckets,
  restClientMetricNames,
  setDefaultRestClientMetricsProvider,
} from '../client/metrics.js';
export type { RestClientMetricsProvider } from '../client/metrics.js';
export type { LeaderElectionMetricsProvider } from '../leaderelection/metrics.js';

export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';
export { PrometheusEventMetricsProvider } from './event_metrics.js';
export type { PrometheusEventMetricsProviderOptions } from './event_metrics.js';
export { PrometheusShardingMetrics } from './sharding.js';
export type { PrometheusShardingMetricsOptions } from './sharding.js';
export { shardingMetricNames } from '../sharding/metrics.js';
export type { ShardingMetrics } from '../sharding/metrics.js';
export { PrometheusMultiClusterMetricsProvider } from './multicluster.js';
export type { PrometheusMultiClusterMetricsProviderOptions } from './multicluster.js';
export {
  getDefaultMultiClusterMetricsProvider,
  multiClusterMetricNames,
  setDefaultMultiClusterMetricsProvider,
} from '../multicluster/metrics.js';
export type { MultiClusterMetricsProvider } from '../multicluster/metrics.js';
export { PrometheusWebhookMetricsProvider } from './webhook.js';
export type { PrometheusWebhookMetricsProviderOptions } from './webhook.js';
export {
  getDefaultWebhookMetricsProvider,
  setDefaultWebhookMetricsProvider,
  webhookLatencyBuckets,
  webhookMetricNames,
} from '../webhook/metrics.js';
export type { CertWatcherMetricsProvider, WebhookMetricsProvider } from '../webhook/metrics.js';
