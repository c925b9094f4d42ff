/**
 * The prom-client instruments of the REST client and leader election metrics, under
 * client-go's names; {@link PrometheusMetricsProvider} owns one and delegates to it.
 *
 * @module
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { RestClientMetricsProvider } from '../client/metrics.js';
import { restClientDurationBuckets, restClientMetricNames } from '../client/metrics.js';
import type { LeaderElectionMetricsProvider } from '../leaderelection/metrics.js';
import { leaderElectionMetricNames } from '../leaderelection/metrics.js';

/**
 * `rest_client_*` and `leader_election_*` series in one registry.
 * @internal
 */
export class PrometheusClientMetrics
  implements RestClientMetricsProvider, LeaderElectionMetricsProvider
{
  readonly #requests: Counter<'code' | 'method' | 'host'>;
  readonly #duration: Histogram<'verb' | 'host'>;
  readonly #master: Gauge<'name'>;
  readonly #slowpath: Counter<'name'>;

  /** Creates the metrics in `registers`. */
  constructor(registers: Registry[]) {
    this.#requests = new Counter({
      name: restClientMetricNames.requests,
      help: 'HTTP requests sent to the API server, by answer code (or <error>), method and host.',
      labelNames: ['code', 'method', 'host'] as const,
      registers,
    });
    this.#duration = new Histogram({
      name: restClientMetricNames.requestDuration,
      help: 'Seconds from the start of a request until its answer was read, retries included, by verb and host.',
      labelNames: ['verb', 'host'] as const,
      buckets: [...restClientDurationBuckets],
      registers,
    });
    this.#master = new Gauge({
      name: leaderElectionMetricNames.masterStatus,
      help: '1 while this process holds the named leader election lease, 0 while it is a candidate.',
      labelNames: ['name'] as const,
      registers,
    });
    this.#slowpath = new Counter({
      name: leaderElectionMetricNames.slowpath,
      help: 'Lease renewals that had to read the Lease again (the slow path), by lease name.',
      labelNames: ['name'] as const,
      registers,
    });
  }

  /** {@inheritDoc RestClientMetricsProvider.incrementRequestResult} */
  incrementRequestResult(code: string, method: string, host: string): void {
    this.#requests.inc({ code, method, host });
  }
  /** {@inheritDoc RestClientMetricsProvider.observeRequestLatency} */
  observeRequestLatency(verb: string, host: string, seconds: number): void {
    this.#duration.observe({ verb, host }, seconds);
  }
  /** {@inheritDoc LeaderElectionMetricsProvider.leaderOn} */
  leaderOn(name: string): void {
    this.#master.set({ name }, 1);
  }
  /** {@inheritDoc LeaderElectionMetricsProvider.leaderOff} */
  leaderOff(name: string): void {
    this.#master.set({ name }, 0);
  }
  /** {@inheritDoc LeaderElectionMetricsProvider.slowpathExercised} */
  slowpathExercised(name: string): void {
    this.#slowpath.inc({ name });
  }
}
