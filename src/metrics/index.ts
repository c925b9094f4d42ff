/**
 * Metrics on Prometheus (prom-client, an optional peer dependency): a
 * {@link PrometheusMetricsProvider} that registers client-go's and controller-runtime's
 * metric names (`rest_client_*`, `workqueue_*`, `leader_election_*`,
 * `controller_runtime_*`) for the parts you hand it to.
 *
 * Imported from `kube-controller-kit/metrics` (the only area with its own import path, so
 * that prom-client is loaded only by programs that use it). Guide:
 * [metrics](../../docs/metrics.md).
 *
 * ```ts
 * import { Registry } from 'prom-client';
 * import { RateLimitingQueue } from 'kube-controller-kit';
 * import { PrometheusMetricsProvider } from 'kube-controller-kit/metrics';
 *
 * const registry = new Registry(); // or prom-client's global `register`
 * const metrics = new PrometheusMetricsProvider({ registry });
 * const queue = new RateLimitingQueue<string>({ name: 'example', metricsProvider: metrics });
 * queue.add('default/web');
 * const { item } = await queue.get();
 * if (item !== undefined) queue.done(item);
 * queue.shutDown();
 *
 * const text = await registry.metrics(); // what GET /metrics answers
 * console.log(text.split('\n').filter((l) => l.startsWith('workqueue_adds_total')));
 * // [ 'workqueue_adds_total{name="example"} 1' ]
 * ```
 *
 * @module kube-controller-kit/metrics
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
