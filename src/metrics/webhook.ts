/**
 * The Prometheus adapter of the webhook metrics: controller-runtime's
 * `controller_runtime_webhook_*` and `certwatcher_*` series on prom-client.
 *
 * @module
 */
import { Counter, Gauge, Histogram, register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type { CounterMetric, GaugeMetric, HistogramMetric } from '../util/metrics.js';
import type { CertWatcherMetricsProvider, WebhookMetricsProvider } from '../webhook/metrics.js';
import { webhookLatencyBuckets, webhookMetricNames } from '../webhook/metrics.js';

/** Options of {@link PrometheusWebhookMetricsProvider}. */
export interface PrometheusWebhookMetricsProviderOptions {
  /** The registry to register the metrics in (default: prom-client's global registry). */
  registry?: Registry;
  /** Buckets of the latency histogram in seconds (default: controller-runtime's). */
  buckets?: number[];
}

/**
 * Registers controller-runtime's webhook and cert-watcher metrics in a prom-client
 * registry. Give it to a `WebhookServer` (`metricsProvider`) or set it for every server
 * with `setDefaultWebhookMetricsProvider`.
 *
 * @example
 * ```ts
 * const registry = new Registry();
 * const server = new WebhookServer({
 *   metricsProvider: new PrometheusWebhookMetricsProvider({ registry }),
 * });
 * ```
 */
export class PrometheusWebhookMetricsProvider
  implements WebhookMetricsProvider, CertWatcherMetricsProvider
{
  readonly #total: Counter<'webhook' | 'code'>;
  readonly #latency: Histogram<'webhook'>;
  readonly #inFlight: Gauge<'webhook'>;
  readonly #panics: Counter;
  readonly #conversionPanics: Counter;
  readonly #reads: Counter;
  readonly #readErrors: Counter;

  /** Create the metrics and register them in the registry. */
  constructor(options: PrometheusWebhookMetricsProviderOptions = {}) {
    const registers = [options.registry ?? globalRegistry];
    const n = webhookMetricNames;
    this.#total = new Counter({
      name: n.requests,
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'] as const,
      registers,
    });
    this.#latency = new Histogram({
      name: n.latency,
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'] as const,
      buckets: options.buckets ?? [...webhookLatencyBuckets],
      registers,
    });
    this.#inFlight = new Gauge({
      name: n.inFlight,
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'] as const,
      registers,
    });
    this.#panics = new Counter({
      name: n.panics,
      help: 'Total number of webhook panics',
      registers,
    });
    this.#conversionPanics = new Counter({
      name: n.conversionPanics,
      help: 'Total number of conversion webhook panics',
      registers,
    });
    this.#reads = new Counter({
      name: n.readCertificate,
      help: 'Total number of certificate reads',
      registers,
    });
    this.#readErrors = new Counter({
      name: n.readCertificateErrors,
      help: 'Total number of certificate read errors',
      registers,
    });
  }

  /** {@inheritDoc WebhookMetricsProvider.newRequestsTotalMetric} */
  newRequestsTotalMetric(webhook: string, code: string): CounterMetric {
    const child = this.#total.labels({ webhook, code });
    child.inc(0);
    return child;
  }
  /** {@inheritDoc WebhookMetricsProvider.newLatencyMetric} */
  newLatencyMetric(webhook: string): HistogramMetric {
    return this.#latency.labels({ webhook });
  }
  /** {@inheritDoc WebhookMetricsProvider.newRequestsInFlightMetric} */
  newRequestsInFlightMetric(webhook: string): GaugeMetric {
    const child = this.#inFlight.labels({ webhook });
    child.set(0);
    return child;
  }
  /** {@inheritDoc WebhookMetricsProvider.newPanicsMetric} */
  newPanicsMetric(): CounterMetric {
    return this.#panics;
  }
  /** {@inheritDoc WebhookMetricsProvider.newConversionPanicsMetric} */
  newConversionPanicsMetric(): CounterMetric {
    return this.#conversionPanics;
  }
  /** {@inheritDoc CertWatcherMetricsProvider.newReadCertificateTotalMetric} */
  newReadCertificateTotalMetric(): CounterMetric {
    return this.#reads;
  }
  /** {@inheritDoc CertWatcherMetricsProvider.newReadCertificateErrorsMetric} */
  newReadCertificateErrorsMetric(): CounterMetric {
    return this.#readErrors;
  }
}
