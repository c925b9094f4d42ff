/**
 * Metrics: the Prometheus adapter (on prom-client, an optional peer dependency). Public at
 * `kube-controller-kit/metrics`.
 *
 * @module
 */
export { PrometheusMetricsProvider, workqueueDurationBuckets } from './prometheus.js';
export type { PrometheusMetricsProviderOptions } from './prometheus.js';
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';
