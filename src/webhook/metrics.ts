/**
 * Webhook server metrics under controller-runtime's names.
 *
 * A {@link WebhookServer} reports to the {@link WebhookMetricsProvider} in its options, or
 * else to the one set with {@link setDefaultWebhookMetricsProvider}; the Prometheus adapter
 * (`PrometheusWebhookMetricsProvider` in `kube-controller-kit/metrics`) maps the calls to:
 *
 * | metric | kind | labels | meaning |
 * | --- | --- | --- | --- |
 * | `controller_runtime_webhook_requests_total` | counter | `webhook`, `code` | requests served, by path and HTTP status code (created at zero for `200` and `500`) |
 * | `controller_runtime_webhook_latency_seconds` | histogram | `webhook` | time to serve a request |
 * | `controller_runtime_webhook_requests_in_flight` | gauge | `webhook` | requests being served now |
 * | `controller_runtime_webhook_panics_total` | counter | | admission handlers that threw unexpectedly (answered with code 500) |
 * | `controller_runtime_conversion_webhook_panics_total` | counter | | converters that threw unexpectedly |
 * | `certwatcher_read_certificate_total` | counter | | certificate reads by the cert watcher |
 * | `certwatcher_read_certificate_errors_total` | counter | | reads that failed |
 *
 * The `webhook` label is the path (`/validate-apps-example-com-v1-application`), as in
 * controller-runtime; `code` is the HTTP status (admission denials are answered with HTTP
 * 200 and their code inside the AdmissionReview, so they count as `200`).
 *
 * @module
 */
import type { CounterMetric, GaugeMetric, HistogramMetric } from '../util/metrics.js';

/**
 * Creates the metrics of a webhook server's paths (the `webhook` label) and handlers.
 * Implementations return the same series for the same labels (prom-client's labelled
 * children do) and create counters and gauges at zero.
 */
export interface WebhookMetricsProvider {
  /** `controller_runtime_webhook_requests_total{webhook,code}` (`code`: the HTTP status). */
  newRequestsTotalMetric(webhook: string, code: string): CounterMetric;
  /** `controller_runtime_webhook_latency_seconds{webhook}`, in seconds. */
  newLatencyMetric(webhook: string): HistogramMetric;
  /** `controller_runtime_webhook_requests_in_flight{webhook}`. */
  newRequestsInFlightMetric(webhook: string): GaugeMetric;
  /** `controller_runtime_webhook_panics_total`. */
  newPanicsMetric(): CounterMetric;
  /** `controller_runtime_conversion_webhook_panics_total`. */
  newConversionPanicsMetric(): CounterMetric;
}

/** Creates the metrics of a {@link CertWatcher}. */
export interface CertWatcherMetricsProvider {
  /** `certwatcher_read_certificate_total`. */
  newReadCertificateTotalMetric(): CounterMetric;
  /** `certwatcher_read_certificate_errors_total`. */
  newReadCertificateErrorsMetric(): CounterMetric;
}

/** controller-runtime's names of the webhook metrics. */
export const webhookMetricNames = {
  /** Counter of requests by path and HTTP code. */
  requests: 'controller_runtime_webhook_requests_total',
  /** Histogram of request latency by path. */
  latency: 'controller_runtime_webhook_latency_seconds',
  /** Gauge of requests being served by path. */
  inFlight: 'controller_runtime_webhook_requests_in_flight',
  /** Counter of admission handler panics. */
  panics: 'controller_runtime_webhook_panics_total',
  /** Counter of conversion panics. */
  conversionPanics: 'controller_runtime_conversion_webhook_panics_total',
  /** Counter of certificate reads. */
  readCertificate: 'certwatcher_read_certificate_total',
  /** Counter of failed certificate reads. */
  readCertificateErrors: 'certwatcher_read_certificate_errors_total',
} as const;

/** controller-runtime's latency buckets: 10 ns × 10ⁿ for n in 0..11, in seconds. */
export const webhookLatencyBuckets: readonly number[] = Array.from(
  { length: 12 },
  (_, i) => 10e-9 * 10 ** i,
);

let defaultProvider: (WebhookMetricsProvider & CertWatcherMetricsProvider) | undefined;

/**
 * Sets the provider used by webhook servers and cert watchers created afterwards without
 * one in their options (controller-runtime registers these metrics globally). Pass
 * `undefined` to turn it off.
 */
export function setDefaultWebhookMetricsProvider(
  provider: (WebhookMetricsProvider & CertWatcherMetricsProvider) | undefined,
): void {
  defaultProvider = provider;
}

/** The provider set with {@link setDefaultWebhookMetricsProvider}, if any. */
export function getDefaultWebhookMetricsProvider():
  (WebhookMetricsProvider & CertWatcherMetricsProvider) | undefined {
  return defaultProvider;
}
