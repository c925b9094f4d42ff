/**
 * The event recorder's metrics on prom-client (see `src/record/metrics.ts` for the hook).
 *
 * @module
 */
import { Counter, register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type { EventMetricsProvider } from '../record/metrics.js';
import { eventMetricNames } from '../record/metrics.js';
import type { CounterMetric } from '../util/metrics.js';

/** Options of {@link PrometheusEventMetricsProvider}. */
export interface PrometheusEventMetricsProviderOptions {
  /** The registry to register the metrics in (default: prom-client's global registry). */
  registry?: Registry;
}

/**
 * Registers `event_recorder_dropped_events_total{name}` in a prom-client registry and hands
 * event broadcasters their series.
 *
 * @example
 * ```ts
 * const broadcaster = new EventBroadcaster(kc, {
 *   metricsProvider: new PrometheusEventMetricsProvider({ registry }),
 * });
 * ```
 */
export class PrometheusEventMetricsProvider implements EventMetricsProvider {
  readonly #dropped: Counter<'name'>;

  /** Create the metric and register it. */
  constructor(options: PrometheusEventMetricsProviderOptions = {}) {
    this.#dropped = new Counter({
      name: eventMetricNames.droppedEvents,
      help: 'Events dropped by the event recorder before they were written (queue full or closed)',
      labelNames: ['name'] as const,
      registers: [options.registry ?? globalRegistry],
    });
  }

  /** The `event_recorder_dropped_events_total` series of broadcaster `name`. */
  newDroppedEventsMetric(name: string): CounterMetric {
    return this.#dropped.labels({ name });
  }
}
