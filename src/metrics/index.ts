/**
 * Metrics: the Prometheus adapter (on prom-client, an optional peer dependency) and the
 * reflector metrics hooks. Public at `kube-controller-kit/metrics`.
 *
 * @module
 */
export { PrometheusMetricsProvider, workqueueDurationBuckets } from './prometheus.js';
export type { PrometheusMetricsProviderOptions } from './prometheus.js';
export { PrometheusControllerMetricsProvider } from './controller_runtime.js';
export type { PrometheusControllerMetricsProviderOptions } from './controller_runtime.js';
export type { ControllerMetricsProvider, ReconcileResultLabel } from '../controller/metrics.js';
export { noopReflectorMetricsProvider, reflectorMetricNames } from './reflector_metrics.js';
export type { ReflectorMetricsProvider } from './reflector_metrics.js';
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';
export { PrometheusEventMetricsProvider } from './event_metrics.js';
export type { PrometheusEventMetricsProviderOptions } from './event_metrics.js';
