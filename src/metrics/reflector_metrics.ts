/**
 * Metrics hooks for reflectors and informers. Type-only and free of prom-client, so the
 * cache module can accept a provider without depending on Prometheus.
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `reflector_lists_total{name}` | counter | full lists started |
 * | `reflector_watches_total{name}` | counter | watches started |
 * | `reflector_watch_events_total{name}` | counter | watch events received |
 * | `reflector_last_resource_version_timestamp_seconds{name}` | gauge | Unix time (s) when the resourceVersion last advanced; the age is `time() - value` in PromQL |
 *
 * @module
 */
import type { CounterMetric, SettableGaugeMetric } from '../workqueue/metrics.js';

/** Creates the metrics of one named reflector (`name` is usually the resource, e.g. `v1/pods`). */
export interface ReflectorMetricsProvider {
  /** `reflector_lists_total{name}`. */
  newListsMetric(name: string): CounterMetric;
  /** `reflector_watches_total{name}`. */
  newWatchesMetric(name: string): CounterMetric;
  /** `reflector_watch_events_total{name}`. */
  newWatchEventsMetric(name: string): CounterMetric;
  /** `reflector_last_resource_version_timestamp_seconds{name}`: set to the Unix time in seconds. */
  newLastResourceVersionTimestampMetric(name: string): SettableGaugeMetric;
}

/** client-go-style names of the reflector metrics. */
export const reflectorMetricNames = {
  /** Counter of lists. */
  lists: 'reflector_lists_total',
  /** Counter of watches. */
  watches: 'reflector_watches_total',
  /** Counter of watch events. */
  watchEvents: 'reflector_watch_events_total',
  /** Gauge: when the resourceVersion last advanced. */
  lastResourceVersionTimestamp: 'reflector_last_resource_version_timestamp_seconds',
} as const;

const noop = { inc: (): void => {}, set: (_v: number): void => {} };

/** A provider that records nothing; the default for reflectors. */
export const noopReflectorMetricsProvider: ReflectorMetricsProvider = {
  newListsMetric: () => noop,
  newWatchesMetric: () => noop,
  newWatchEventsMetric: () => noop,
  newLastResourceVersionTimestampMetric: () => noop,
};
