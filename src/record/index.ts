/**
 * Events (client-go's `tools/record` and `tools/events`): an {@link EventBroadcaster} and
 * its {@link EventRecorder}s write the Events about your objects that `kubectl describe`
 * and `kubectl get events` show, in the background through a bounded queue, with
 * client-go's correlator (aggregation, count patches, a per-object spam filter), to
 * `core/v1` or `events.k8s.io/v1`.
 *
 * Imported from `kube-controller-kit`. Guide: [events](../../docs/events.md).
 *
 * ```ts
 * import { EventBroadcaster, Transport, configMaps } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const transport = new Transport(server.kubeConfig());
 * const settings = await configMaps(transport)
 *   .namespace('default')
 *   .create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
 *
 * const broadcaster = new EventBroadcaster(transport); // one per process
 * const recorder = broadcaster.newRecorder({ component: 'settings-controller' });
 * recorder.eventf(settings, 'Normal', 'Configured', 'mode set to %s', 'fast');
 * await broadcaster.close(AbortSignal.timeout(5_000)); // writes what is queued, then stops
 *
 * for (const e of server.list<{ reason?: string; message?: string }>('events', 'default')) {
 *   console.log(e.reason, e.message); // Configured mode set to fast
 * }
 * transport.close();
 * await server.close();
 * ```
 *
 * @module record
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
