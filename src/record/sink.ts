/**
 * The event sink (client-go `tools/record`'s `EventSink`): where a broadcaster hands each
 * recorded event. A sink is one Event API — core/v1 with the correlator
 * (`CoreEventSink`), events.k8s.io/v1 with series (`EventsV1Sink`) — and turns a
 * recorded event into zero or more writes; the broadcaster owns the queue, the retries and
 * the shutdown, and performs each write ({@link patchElseCreate}).
 *
 * @module
 */
import { isNotFound } from '../client/errors.js';
import type { ResourceClient } from '../client/resource_client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { EventSubject } from './reference.js';
import type { EventNamer } from './time.js';
import type { CoreEvent, EventType, EventsV1Event, ObjectReference } from './types.js';

/** Which Event API a broadcaster writes. */
export type EventApi = 'core/v1' | 'events.k8s.io/v1';

/** An event as a recorder took it, before a sink shapes it for its API. */
export interface RecordedEvent {
  /** The object the event is about, resolved to a reference. */
  readonly regarding: ObjectReference;
  /** A second object involved, as given (events.k8s.io only; resolved by that sink). */
  readonly related: EventSubject | undefined;
  /** `Normal` or `Warning`. */
  readonly type: EventType;
  /** CamelCase reason. */
  readonly reason: string;
  /** What was done (events.k8s.io `action`); undefined: the reason. */
  readonly action: string | undefined;
  /** The message. */
  readonly message: string;
  /** Annotations of the Event object. */
  readonly annotations: Record<string, string> | undefined;
  /** The reporting component. */
  readonly component: string;
  /** The reporting instance, when the recorder was given one. */
  readonly host: string | undefined;
  /** When it was recorded (ms since the epoch, on the broadcaster's clock). */
  readonly time: number;
  /** The Event's name (`<object>.<hex nanoseconds>`). */
  readonly name: string;
  /** The Event's namespace (the object's, or `default`). */
  readonly namespace: string;
}

/** An Event object of either API. */
export type AnyEvent = CoreEvent | EventsV1Event;

/**
 * One write of an Event: a patch when `patch` is set, else (or when the patch finds no Event)
 * a create of `event`.
 */
export interface EventWrite<E extends AnyEvent> {
  /** The client of the Event's API, in its namespace. */
  readonly client: ResourceClient<E>;
  /** The Event to create (without resourceVersion). */
  readonly event: E;
  /** The patch of an Event that exists, and its type. */
  readonly patch?: { readonly body: Record<string, unknown>; readonly type: 'strategic' | 'merge' };
  /** Called with the stored Event after the write succeeded. */
  readonly written?: (stored: E) => void;
}

/** What a sink gets from its broadcaster. */
export interface EventSinkContext {
  /** The broadcaster's clock (event time, spam filter, series timers). */
  readonly clock: Clock;
  /** Where the sink logs. */
  readonly logger: Logger;
  /** Names Events uniquely. */
  readonly namer: EventNamer;
  /**
   * Performs a write with the broadcaster's retries; resolves once it was written or given
   * up on (logged). Never rejects.
   */
  readonly send: <E extends AnyEvent>(write: EventWrite<E>) => Promise<void>;
}

/** One Event API, as the broadcaster sees it. */
export interface EventSink {
  /** The API it writes. */
  readonly api: EventApi;
  /** Shapes a recorded event for the API and sends what must be written (maybe nothing). */
  record(event: RecordedEvent): Promise<void>;
  /** Sends what it holds back (series counts); resolves once sent. */
  flush(): Promise<void>;
  /** Cancels its timers; nothing is sent afterwards. */
  close(): void;
}

/**
 * One attempt of `write`: patch when it has a patch, create when it has none or the patch
 * answered NotFound. Resolves with the stored Event; rejects with the API error.
 */
export async function patchElseCreate<E extends AnyEvent>(
  write: EventWrite<E>,
  signal: AbortSignal,
): Promise<E> {
  const { client, event, patch } = write;
  if (patch !== undefined) {
    try {
      return await client.patch(event.metadata?.name ?? '', patch.body, {
        type: patch.type,
        signal,
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return client.create(event, { signal });
}

/** `event <namespace>/<name> (<reason>)`, for logs. */
export function describeWrite<E extends AnyEvent>(write: EventWrite<E>): string {
  const meta = write.event.metadata;
  return `event ${meta?.namespace ?? 'default'}/${meta?.name ?? ''} (${write.event.reason ?? ''})`;
}
