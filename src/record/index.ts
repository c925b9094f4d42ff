/**
 * The event recorder (client-go `tools/record` and `tools/events`): Events about objects that
 * `kubectl describe` and `kubectl get events` show, written in the background through a
 * bounded queue, with client-go's correlator (aggregation, count/lastTimestamp patches,
 * per-object spam filter).
 *
 * ```ts
 * const broadcaster = new EventBroadcaster(kc);
 * const recorder = broadcaster.newRecorder({ component: 'application-controller' });
 * recorder.eventf(app, 'Normal', 'Scaled', 'scaled %s to %d replicas', app.metadata?.name, 3);
 * await broadcaster.close(AbortSignal.timeout(5000)); // on shutdown
 * ```
 *
 * @module
 */
export { EventBroadcaster, SERIES_FINISH_MS, SERIES_REFRESH_MS } from './event_broadcaster.js';
export type { EventApi, EventBroadcasterOptions } from './event_broadcaster.js';
export type { EventRecorder, EventSpec, RecorderOptions } from './recorder.js';
export {
  COMBINED_PREFIX,
  correlatorDefaults,
  EventAggregator,
  EventCorrelator,
  EventLogger,
  EventSpamFilter,
  TokenBucket,
} from './events_cache.js';
export type {
  AggregateResult,
  CorrelateResult,
  CorrelatorOptions,
  ObserveResult,
} from './events_cache.js';
export {
  eventMetricNames,
  getDefaultEventMetricsProvider,
  setDefaultEventMetricsProvider,
} from './metrics.js';
export type { EventMetricsProvider } from './metrics.js';
export { EventNamer } from './time.js';
export { coreEventsResource, eventsV1Resource } from './types.js';
export type {
  CoreEvent,
  EventSeries,
  EventSource,
  EventType,
  EventsV1Event,
  ObjectReference,
} from './types.js';
export { getReference, InvalidObjectReferenceError } from './reference.js';
export type { EventSubject } from './reference.js';
