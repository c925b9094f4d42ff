/**
 * The event recorder a reconcile calls (client-go's `record.EventRecorder`): checks the
 * event, resolves the object's reference, names the Event and hands it to its broadcaster's
 * queue; the broadcaster's sink shapes it for its API. It never waits and never throws.
 *
 * @module
 */
import { format } from 'node:util';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { RecordedEvent } from './sink.js';
import type { EventNamer } from './time.js';
import { getReference } from './reference.js';
import type { EventSubject } from './reference.js';
import type { EventType, ObjectReference } from './types.js';

/** Options of {@link EventBroadcaster.newRecorder}. */
export interface RecorderOptions {
  /**
   * Who reports: `source.component` of core events and `reportingController` of
   * events.k8s.io events, e.g. `application-controller` (required, non-empty).
   */
  component: string;
  /**
   * The instance: `source.host` / `reportingInstance` of core events (absent by default, as
   * client-go), `reportingInstance` of events.k8s.io events (default: this host's name).
   */
  host?: string;
}

/** Everything an event can say, for {@link EventRecorder.record}. */
export interface EventSpec {
  /** The object the event is about, or a reference to it (see `getReference`). */
  regarding: EventSubject;
  /** A second object involved (events.k8s.io only: `related`). */
  related?: EventSubject;
  /** `Normal` or `Warning`. */
  type: EventType;
  /** CamelCase reason, e.g. `Created`. */
  reason: string;
  /** What was done (events.k8s.io `action`; default: the reason). */
  action?: string;
  /** The message (`message` / `note`). */
  message: string;
  /** Annotations of the Event object. */
  annotations?: Record<string, string>;
  /** A field of the object, e.g. `spec.containers{web}` (`fieldPath` of the reference). */
  fieldPath?: string;
}

/**
 * Records events about objects. Every method returns at once: the event is queued and
 * written in the background; invalid input is logged and dropped.
 */
export interface EventRecorder {
  /** Records an event: `type` is `Normal` or `Warning`, `reason` CamelCase. */
  event(obj: EventSubject, type: EventType, reason: string, message: string): void;
  /**
   * Like {@link EventRecorder.event} with a printf-style message (`%s`, `%d`, `%j`, `%o`;
   * Go's `%v` is read as `%s`).
   */
  eventf(obj: EventSubject, type: EventType, reason: string, fmt: string, ...args: unknown[]): void;
  /** Like {@link EventRecorder.eventf}, with annotations on the Event object. */
  annotatedEventf(
    obj: EventSubject,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    fmt: string,
    ...args: unknown[]
  ): void;
  /** Records an event with every field it can carry (related object, action, fieldPath). */
  record(spec: EventSpec): void;
}

/** What a recorder needs from its broadcaster. @internal */
export interface RecorderContext {
  clock: Clock;
  logger: Logger;
  namer: EventNamer;
  enqueue: (event: RecordedEvent) => void;
}

/** @internal */
export class EventRecorderImpl implements EventRecorder {
  readonly #component: string;
  readonly #host: string | undefined;
  readonly #ctx: RecorderContext;

  constructor(options: RecorderOptions, ctx: RecorderContext) {
    this.#component = options.component;
    this.#host = options.host;
    this.#ctx = ctx;
    if (options.component === '') {
      ctx.logger.error('event recorder: component is empty; events will carry no source');
    }
  }

  event(obj: EventSubject, type: EventType, reason: string, message: string): void {
    this.record({ regarding: obj, type, reason, message });
  }

  eventf(
    obj: EventSubject,
    type: EventType,
    reason: string,
    fmt: string,
    ...args: unknown[]
  ): void {
    this.record({ regarding: obj, type, reason, message: sprintf(fmt, args) });
  }

  annotatedEventf(
    obj: EventSubject,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    fmt: string,
    ...args: unknown[]
  ): void {
    this.record({ regarding: obj, type, reason, message: sprintf(fmt, args), annotations });
  }

  record(spec: EventSpec): void {
    try {
      this.#record(spec);
    } catch (err) {
      this.#ctx.logger.error('event recorder: could not record event', {
        err: err instanceof Error ? err.message : String(err),
      });
    }
  }

  #record(spec: EventSpec): void {
    const { logger } = this.#ctx;
    const r = spec.regarding;
    const meta = 'metadata' in r ? r.metadata : undefined;
    const where = `${r.kind ?? '?'} ${meta?.namespace ?? ('namespace' in r ? (r.namespace ?? '') : '')}/${meta?.name ?? ('name' in r ? (r.name ?? '?') : '?')}`;
    if (spec.type !== 'Normal' && spec.type !== 'Warning') {
      logger.error(
        `event recorder: unsupported event type "${String(spec.type)}" for ${where}; use Normal or Warning (event dropped)`,
        { reason: spec.reason },
      );
      return;
    }
    let ref: ObjectReference;
    try {
      ref = getReference(spec.regarding, undefined, spec.fieldPath);
    } catch (err) {
      logger.error(`event recorder: ${errorMessage(err)} (event dropped)`, { reason: spec.reason });
      return;
    }
    this.#ctx.enqueue({
      regarding: ref,
      related: spec.related,
      type: spec.type,
      reason: spec.reason,
      action: spec.action,
      message: spec.message,
      annotations: spec.annotations,
      component: this.#component,
      host: this.#host,
      time: this.#ctx.clock.now(),
      name: this.#ctx.namer.name(ref.name ?? ''),
      namespace: ref.namespace ?? 'default',
    });
  }
}

/** printf with Node's `util.format`; Go's `%v` reads as `%s`. */
function sprintf(fmt: string, args: readonly unknown[]): string {
  return format(fmt.replace(/%v/g, '%s'), ...args);
}
