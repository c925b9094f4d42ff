/**
 * The events.k8s.io/v1 event sink (client-go `tools/events`): Events with `regarding`,
 * `related`, `action`, `note`, `eventTime` (MicroTime), `reportingController`/
 * `reportingInstance`. An isomorphic event (same action, reason, reporter, regarding and
 * related) seen again becomes a `series` (count 2, merge-patched; created again when the
 * Event is gone); later repeats raise the count in memory, written every 30 minutes, when
 * the series ends (6 minutes without repeats) and on flush.
 *
 * @module
 */
import { hostname } from 'node:os';
import { formatMicroTime } from '../apimachinery/micro_time.js';
import { ResourceClient } from '../client/resource_client.js';
import type { Transport } from '../client/transport.js';
import type { Timer } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import { getReference } from './reference.js';
import type { EventSink, EventSinkContext, RecordedEvent } from './sink.js';
import { eventsV1Resource } from './types.js';
import type { EventsV1Event, ObjectReference } from './types.js';

/** How long an events.k8s.io series lives without a repeat (client-go's finishTime). */
export const SERIES_FINISH_MS = 6 * 60_000;
/** How often pending series counts are written (client-go's refreshTime). */
export const SERIES_REFRESH_MS = 30 * 60_000;

interface SeriesEntry {
  event: EventsV1Event;
  /** The series count changed since it was last written. */
  dirty: boolean;
}

/** Writes events.k8s.io/v1 Events, folding repeats into series. */
export class EventsV1Sink implements EventSink {
  /** `events.k8s.io/v1`. */
  readonly api = 'events.k8s.io/v1';
  readonly #client: ResourceClient<EventsV1Event>;
  readonly #ctx: EventSinkContext;
  readonly #series = new Map<string, SeriesEntry>();
  #timer: Timer | undefined;
  #ticks = 0;
  #closed = false;

  /**
   * @param transport - where Events are written.
   * @param ctx - the broadcaster's clock, logger, namer and retrying `send`.
   */
  constructor(transport: Transport, ctx: EventSinkContext) {
    this.#client = new ResourceClient(transport, eventsV1Resource);
    this.#ctx = ctx;
  }

  async record(recorded: RecordedEvent): Promise<void> {
    const event = this.#event(recorded);
    const key = v1Key(event);
    const cached = this.#series.get(key);
    let toWrite: EventsV1Event;
    if (cached !== undefined) {
      const now = formatMicroTime(this.#ctx.clock.now());
      if (cached.event.series !== undefined) {
        cached.event.series = { count: cached.event.series.count + 1, lastObservedTime: now };
        cached.dirty = true;
        return;
      }
      cached.event.series = { count: 2, lastObservedTime: now };
      toWrite = structuredClone(cached.event);
    } else {
      this.#series.set(key, { event, dirty: false });
      toWrite = structuredClone(event);
    }
    this.#armTimer();
    await this.#write(key, toWrite);
  }

  /** Writes every series whose count moved since it was last written. */
  async flush(): Promise<void> {
    await this.#writeSeries(false, true);
  }

  close(): void {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  /** The events.k8s.io Event of a recorded event (`tools/events`' `generateEvent`). */
  #event(r: RecordedEvent): EventsV1Event {
    const event: EventsV1Event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        name: r.name,
        namespace: r.namespace,
        ...(r.annotations !== undefined ? { annotations: { ...r.annotations } } : {}),
      },
      eventTime: formatMicroTime(r.time),
      reportingController: r.component,
      reportingInstance: r.host ?? hostname(),
      action: r.action ?? r.reason,
      reason: r.reason,
      regarding: r.regarding,
      note: r.message,
      type: r.type,
    };
    if (r.related !== undefined) {
      try {
        event.related = getReference(r.related);
      } catch (err) {
        this.#ctx.logger.warn(`event recorder: related object left out: ${errorMessage(err)}`);
      }
    }
    return event;
  }

  /** Create the Event, or merge-patch the series of one that exists. */
  #write(key: string, event: EventsV1Event): Promise<void> {
    delete event.metadata?.resourceVersion;
    return this.#ctx.send({
      client: this.#client.namespace(event.metadata?.namespace ?? 'default'),
      event,
      ...(event.series !== undefined
        ? { patch: { body: { series: event.series }, type: 'merge' as const } }
        : {}),
      written: (stored) => {
        const entry = this.#series.get(key);
        if (entry !== undefined && stored.metadata?.name !== undefined) {
          entry.event.metadata = { ...entry.event.metadata, name: stored.metadata.name };
        }
      },
    });
  }

  /**
   * Writes the series whose count moved (all of them when `all`, else only those that end
   * now); with `finishIdle`, ends the series idle for longer than {@link SERIES_FINISH_MS}.
   */
  async #writeSeries(finishIdle: boolean, all: boolean): Promise<void> {
    const now = this.#ctx.clock.now();
    for (const [key, entry] of [...this.#series]) {
      const last = Date.parse(entry.event.series?.lastObservedTime ?? entry.event.eventTime);
      const finished = finishIdle && now - last > SERIES_FINISH_MS;
      if ((all || finished) && entry.dirty && entry.event.series !== undefined) {
        entry.dirty = false;
        await this.#write(key, structuredClone(entry.event));
      }
      if (finished) this.#series.delete(key);
    }
  }

  #armTimer(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = this.#ctx.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#ticks++;
      // Every 6 minutes end idle series; every 30 minutes (5 ticks) write moved counts.
      const refresh = this.#ticks % (SERIES_REFRESH_MS / SERIES_FINISH_MS) === 0;
      void this.#tick(refresh);
    }, SERIES_FINISH_MS);
  }

  async #tick(refresh: boolean): Promise<void> {
    try {
      await this.#writeSeries(true, refresh);
    } catch (err) {
      this.#ctx.logger.error('event recorder: series refresh failed', { err: errorMessage(err) });
    }
    if (this.#series.size > 0) this.#armTimer();
  }
}

function refKey(r: ObjectReference | undefined): string {
  if (r === undefined) return '';
  return [r.apiVersion, r.kind, r.namespace, r.name, r.uid, r.fieldPath].join('\u0001');
}

/** The isomorphism key of events.k8s.io events: action, reason, reporter, regarding, related. */
function v1Key(e: EventsV1Event): string {
  return [
    e.action,
    e.reason,
    e.reportingController,
    e.reportingInstance,
    refKey(e.regarding),
    refKey(e.related),
  ].join('\u0000');
}
