/**
 * The two Event APIs in their wire form, as this module writes them: core `v1` Event (what
 * `kubectl describe` lists) and `events.k8s.io/v1` Event (the newer API; on a real API server
 * both are views of the same stored events).
 *
 * @module
 */
import type { ApiResource, KubeObject, ObjectMeta } from '../client/types.js';

/** `Normal` or `Warning`: the only event types the API server accepts. */
export type EventType = 'Normal' | 'Warning';

/** An object reference (core/v1 ObjectReference), as `involvedObject` / `regarding` carry it. */
export interface ObjectReference {
  /** API version of the object. */
  apiVersion?: string;
  /** Kind of the object. */
  kind?: string;
  /** Namespace of the object; absent for cluster-scoped objects. */
  namespace?: string;
  /** Name of the object. */
  name?: string;
  /** UID of the object. */
  uid?: string;
  /** The object's resourceVersion when the event was recorded. */
  resourceVersion?: string;
  /** A field of the object the event is about, e.g. `spec.containers{web}`. */
  fieldPath?: string;
}

/** core/v1 EventSource: who reported the event. */
export interface EventSource {
  /** The component, e.g. `application-controller`. */
  component?: string;
  /** The host (node or pod) it runs on. */
  host?: string;
}

/** A core/v1 Event (`/api/v1/namespaces/{ns}/events`). */
export interface CoreEvent extends KubeObject {
  /** `v1`. */
  apiVersion?: string;
  /** `Event`. */
  kind?: string;
  /** Name `<object>.<hex nanoseconds>` and namespace (the object's, or `default`). */
  metadata?: ObjectMeta;
  /** The object the event is about. */
  involvedObject: ObjectReference;
  /** A CamelCase reason, e.g. `Created`. */
  reason?: string;
  /** Human-readable description. */
  message?: string;
  /** Who reported it (`source.component` is the SOURCE/FROM column of kubectl). */
  source?: EventSource;
  /** When it was first seen (RFC 3339, seconds). */
  firstTimestamp?: string;
  /** When it was last seen (RFC 3339, seconds). */
  lastTimestamp?: string;
  /** How many times it was seen. */
  count?: number;
  /** `Normal` or `Warning`. */
  type?: string;
  /** MicroTime of the first observation (events.k8s.io-style; unset by the core recorder). */
  eventTime?: string | null;
  /** The controller that emitted it (`reportingComponent` in the API). */
  reportingComponent?: string;
  /** The instance (pod/host) of that controller. */
  reportingInstance?: string;
}

/** events.k8s.io/v1 EventSeries: how often an isomorphic event recurred. */
export interface EventSeries {
  /** Occurrences so far (at least 2 once a series exists). */
  count: number;
  /** MicroTime of the last occurrence. */
  lastObservedTime: string;
}

/** An events.k8s.io/v1 Event. */
export interface EventsV1Event extends KubeObject {
  /** `events.k8s.io/v1`. */
  apiVersion?: string;
  /** `Event`. */
  kind?: string;
  /** Name and namespace as for the core Event. */
  metadata?: ObjectMeta;
  /** MicroTime of the first occurrence (required). */
  eventTime: string;
  /** Recurrence, once it recurred. */
  series?: EventSeries;
  /** The controller that emitted it, e.g. `example.com/application-controller` (required). */
  reportingController: string;
  /** Its instance, e.g. the pod name (required). */
  reportingInstance: string;
  /** What was done or failed, e.g. `Scale` (required). */
  action: string;
  /** Why, in CamelCase (required). */
  reason: string;
  /** The object acted on. */
  regarding?: ObjectReference;
  /** A second object involved, if any. */
  related?: ObjectReference;
  /** Human-readable description (at most 1 kB). */
  note?: string;
  /** `Normal` or `Warning`. */
  type?: string;
}

/** core/v1 events, the resource the core recorder writes. */
export const coreEventsResource: ApiResource<CoreEvent> = {
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
};

/** events.k8s.io/v1 events, the resource the events/v1 recorder writes. */
export const eventsV1Resource: ApiResource<EventsV1Event> = {
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
};
