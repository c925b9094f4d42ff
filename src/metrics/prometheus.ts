/**
 * The Prometheus adapter: work queue, REST client and leader election metrics on
 * prom-client.
 *
 * prom-client is an optional peer dependency; only this module imports it.
 *
 * @module
 */
import { Counter, Gauge, Histogram, register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';
import { workqueueMetricNames } from '../workqueue/metrics.js';
import type { RestClientMetricsProvider } from '../client/metrics.js';
import type { LeaderElectionMetricsProvider } from '../leaderelection/metrics.js';
import { PrometheusClientMetrics } from './prometheus_client.js';

/** Options of {@link PrometheusMetricsProvider}. */
export interface PrometheusMetricsProviderOptions {
  /** The registry to register the metrics in (default: prom-client's global registry). */
  registry?: Registry;
  /**
   * Histogram buckets in seconds. Default: client-go's, 10 exponential buckets from 10 ns
   * with factor 10 (1e-8 … 10).
   */
  buckets?: number[];
}

/** client-go's workqueue histogram buckets: 10 ns × 10ⁱ for i = 0…9, in seconds. */
export const workqueueDurationBuckets: readonly number[] = Array.from({ length: 10 }, (_, i) =>
  Number((1e-8 * 10 ** i).toPrecision(1)),
);

/**
 * Registers client-go's work queue metrics in a prom-client
 * registry and hands queues their labelled series. It is also the REST client metrics
 * provider of transports (`rest_client_requests_total`, `rest_client_request_duration_seconds`;
 * pass it as `metricsProvider` in transport options, or to
 * `setDefaultRestClientMetricsProvider`) and the metrics provider of leader electors
 * (`leader_election_master_status`, `leader_election_slowpath_total`; the `metrics` config
 * field).
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { PrometheusMetricsProvider } from 'kube-controller-kit/metrics';
 * const registry = new Registry();
 * const metricsProvider = new PrometheusMetricsProvider({ registry });
 * const queue = new RateLimitingQueue<string>({ name: 'pods', metricsProvider });
 * // later: res.end(await registry.metrics())
 * ```
 */
export class PrometheusMetricsProvider
  implements MetricsProvider, RestClientMetricsProvider, LeaderElectionMetricsProvider
{
  readonly #depth: Gauge<'name' | 'priority'>;
  readonly #adds: Counter<'name'>;
  readonly #latency: Histogram<'name'>;
  readonly #workDuration: Histogram<'name'>;
  readonly #unfinished: Gauge<'name'>;
  readonly #longest: Gauge<'name'>;
  readonly #retries: Counter<'name'>;
  readonly #client: PrometheusClientMetrics;

  /** Create the metrics and register them in the registry. */
  constructor(options: PrometheusMetricsProviderOptions = {}) {
    const registers = [options.registry ?? globalRegistry];
    this.#client = new PrometheusClientMetrics(registers);
    const buckets = options.buckets ?? [...workqueueDurationBuckets];
    const labelNames = ['name'] as const;
    const gauge = (name: string, help: string): Gauge<'name'> =>
      new Gauge({ name, help, labelNames, registers });
    const counter = (name: string, help: string): Counter<'name'> =>
      new Counter({ name, help, labelNames, registers });
    const histogram = (name: string, help: string): Histogram<'name'> =>
      new Histogram({ name, help, labelNames, buckets, registers });
    const n = workqueueMetricNames;
    // controller-runtime's depth carries a `priority` label, set by priority queues only.
    this.#depth = new Gauge({
      name: n.depth,
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: ['name', 'priority'] as const,
      registers,
    });
    this.#adds = counter(n.adds, 'Total number of adds handled by workqueue');
    this.#latency = histogram(
      n.queueDuration,
      'How long in seconds an item stays in workqueue before being requested.',
    );
    this.#workDuration = histogram(
      n.workDuration,
      'How long in seconds processing an item from workqueue takes.',
    );
    this.#unfinished = gauge(
      n.unfinishedWork,
      "How many seconds of work has done that is in progress and hasn't been observed by work_duration.",
    );
    this.#longest = gauge(
      n.longestRunningProcessor,
      'How many seconds has the longest running processor for workqueue been running.',
    );
    this.#retries = counter(n.retries, 'Total number of retries handled by workqueue');
  }

  /** {@inheritDoc MetricsProvider.newDepthMetric} */
  newDepthMetric(name: string): GaugeMetric {
    return this.#depth.labels({ name });
  }
  /** {@inheritDoc MetricsProvider.newDepthWithPriorityMetric} */
  newDepthWithPriorityMetric(name: string, priority: string): GaugeMetric {
    return this.#depth.labels({ name, priority });
  }
  /** {@inheritDoc MetricsProvider.newAddsMetric} */
  newAddsMetric(name: string): CounterMetric {
    return this.#adds.labels({ name });
  }
  /** {@inheritDoc MetricsProvider.newLatencyMetric} */
  newLatencyMetric(name: string): HistogramMetric {
    return this.#latency.labels({ name });
  }
  /** {@inheritDoc MetricsProvider.newWorkDurationMetric} */
  newWorkDurationMetric(name: string): HistogramMetric {
    return this.#workDuration.labels({ name });
  }
  /** {@inheritDoc MetricsProvider.newUnfinishedWorkSecondsMetric} */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    return this.#unfinished.labels({ name });
  }
  /** {@inheritDoc MetricsProvider.newLongestRunningProcessorSecondsMetric} */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    return this.#longest.labels({ name });
  }
  /** {@inheritDoc MetricsProvider.newRetriesMetric} */
  newRetriesMetric(name: string): CounterMetric {
    return this.#retries.labels({ name });
  }

  /** {@inheritDoc RestClientMetricsProvider.incrementRequestResult} */
  incrementRequestResult(code: string, method: string, host: string): void {
    this.#client.incrementRequestResult(code, method, host);
  }
  /** {@inheritDoc RestClientMetricsProvider.observeRequestLatency} */
  observeRequestLatency(verb: string, host: string, seconds: number): void {
    this.#client.observeRequestLatency(verb, host, seconds);
  }
  /** {@inheritDoc LeaderElectionMetricsProvider.leaderOn} */
  leaderOn(name: string): void {
    this.#client.leaderOn(name);
  }
  /** {@inheritDoc LeaderElectionMetricsProvider.leaderOff} */
  leaderOff(name: string): void {
    this.#client.leaderOff(name);
  }
  /** {@inheritDoc LeaderElectionMetricsProvider.slowpathExercised} */
  slowpathExercised(name: string): void {
    this.#client.slowpathExercised(name);
  }
}
