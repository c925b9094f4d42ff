/**
 * Metrics of the event recorder, through a pluggable provider (the pattern of the work queue
 * metrics): nothing is recorded unless a provider is given or set as the default.
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `event_recorder_dropped_events_total{name}` | counter | events dropped because the queue was full or the broadcaster closed |
 *
 * @module
 */
import type { CounterMetric } from '../util/metrics.js';

/** Creates the metrics of one named event broadcaster. */
export interface EventMetricsProvider {
  /** `event_recorder_dropped_events_total{name}`. */
  newDroppedEventsMetric(name: string): CounterMetric;
}

/** The metric names, for providers and dashboards. */
export const eventMetricNames = {
  /** Counter of events dropped before they were written. */
  droppedEvents: 'event_recorder_dropped_events_total',
} as const;

let defaultProvider: EventMetricsProvider | undefined;

/** Set the provider for broadcasters created afterwards without one (`undefined` turns it off). */
export function setDefaultEventMetricsProvider(provider: EventMetricsProvider | undefined): void {
  defaultProvider = provider;
}

/** The provider set with {@link setDefaultEventMetricsProvider}, if any. */
export function getDefaultEventMetricsProvider(): EventMetricsProvider | undefined {
  return defaultProvider;
}
