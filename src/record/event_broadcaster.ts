/**
 * The event broadcaster: takes events from recorders, queues them, and writes them to the
 * API server in the background (client-go's `EventBroadcaster` with `StartRecordingToSink`).
 *
 * - **Never blocks, never throws to the caller.** `recorder.event(...)` puts the event on a
 *   bounded queue (1000 by default, client-go's `maxQueuedEvents`) and returns; when the queue
 *   is full the event is dropped, logged and counted (`event_recorder_dropped_events_total`).
 *   Write errors are logged, never rejected.
 * - **Two backends**, as client-go's two recorders:
 *   - `core/v1` (default, `tools/record`): Events with `involvedObject`, `source`,
 *     `firstTimestamp`/`lastTimestamp`/`count`, through the {@link EventCorrelator}
 *     (aggregation, patching repeats, per-object spam filter). `kubectl describe` lists
 *     core/v1 Events (it searches them by `involvedObject` field selectors), so these show
 *     there on every server, the in-memory one included.
 *   - `events.k8s.io/v1` (`tools/events`): Events with `regarding`, `related`, `action`,
 *     `note`, `eventTime` (MicroTime), `reportingController`/`reportingInstance`; an
 *     isomorphic event (same action, reason, reporter, regarding and related) seen again
 *     becomes a `series` (count 2, patched), later repeats raise the count in memory, written
 *     every 30 minutes, when the series ends (6 minutes without repeats) and on flush/close.
 * - **Retries** a write that got no answer from the server (connection errors, timeouts) up
 *   to 12 times, 10 s apart (the first delay randomized), as client-go; a write the server
 *   rejected is logged and not retried.
 * - **Shutdown:** {@link EventBroadcaster.flush} waits until everything queued is written;
 *   {@link EventBroadcaster.close} stops taking events, flushes, and — when its signal aborts
 *   — stops waiting, drops (and counts) what is left and cancels its timers.
 *
 * @module
 */
import { Deque } from '../util/deque.js';
import { ApiError, isNotFound } from '../client/errors.js';
import { ResourceClient } from '../client/resource_client.js';
import type { KubeConfigLike, Transport, TransportOptions } from '../client/transport.js';
import { toTransport } from '../client/transport.js';
import type { CounterMetric } from '../workqueue/metrics.js';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { EventCorrelator } from './events_cache.js';
import type { CorrelateResult, CorrelatorOptions } from './events_cache.js';
import { getDefaultEventMetricsProvider } from './metrics.js';
import type { EventMetricsProvider } from './metrics.js';
import { EventRecorderImpl } from './recorder.js';
import type { EventRecorder, RecorderOptions } from './recorder.js';
import { EventNamer, formatMicroTime } from './time.js';
import { coreEventsResource, eventsV1Resource } from './types.js';
import type { CoreEvent, EventsV1Event, ObjectReference } from './types.js';

/** Which Event API the broadcaster writes. */
export type EventApi = 'core/v1' | 'events.k8s.io/v1';

/** Options of {@link EventBroadcaster}. */
export interface EventBroadcasterOptions extends Omit<TransportOptions, 'metricsProvider'> {
  /** Which API to write: `core/v1` (default; what `kubectl describe` lists) or `events.k8s.io/v1`. */
  api?: EventApi;
  /** Longest queue of unwritten events; further events are dropped (default 1000). */
  queueLength?: number;
  /** Correlator limits for the core/v1 backend (client-go's defaults otherwise). */
  correlator?: CorrelatorOptions;
  /** Source of time (timestamps, the spam filter, retries, series timers). Default the real clock. */
  clock?: Clock;
  /** Where write failures and drops are logged (default warnings and errors to stderr). */
  logger?: Logger;
  /** Metrics provider (default: the one set with `setDefaultEventMetricsProvider`). */
  metricsProvider?: EventMetricsProvider;
  /** Where the transport made from a KubeConfig reports `rest_client_*` (the transport's default otherwise). */
  restClientMetricsProvider?: TransportOptions['metricsProvider'];
  /** The `name` label of the metrics (default `events`). */
  name?: string;
  /** Delay between retries of a write that got no answer, in ms (default 10 000). */
  retryDelayMs?: number;
  /** Attempts per event (default 12). */
  maxTries?: number;
  /** Randomness in [0, 1) for the first retry delay (tests pin it). */
  random?: () => number;
}

/** One queued event. @internal */
export type QueuedEvent =
  { api: 'core/v1'; event: CoreEvent } | { api: 'events.k8s.io/v1'; event: EventsV1Event };

/** How long an events.k8s.io series lives without a repeat (client-go's finishTime). */
export const SERIES_FINISH_MS = 6 * 60_000;
/** How often pending series counts are written (client-go's refreshTime). */
export const SERIES_REFRESH_MS = 30 * 60_000;

interface SeriesEntry {
  event: EventsV1Event;
  /** The series count changed since it was last written. */
  dirty: boolean;
}

/**
 * Queues events from its recorders and writes them in the background. One per process is
 * enough; make recorders with {@link EventBroadcaster.newRecorder}.
 *
 * @example
 * ```ts
 * const broadcaster = new EventBroadcaster(kc);
 * const recorder = broadcaster.newRecorder({ component: 'application-controller' });
 * recorder.event(app, 'Normal', 'Created', 'created deployment web');
 * // on shutdown:
 * await broadcaster.close(AbortSignal.timeout(5000));
 * ```
 */
export class EventBroadcaster {
  /** The API this broadcaster writes. */
  readonly api: EventApi;
  readonly #core: ResourceClient<CoreEvent>;
  readonly #v1: ResourceClient<EventsV1Event>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #queueLength: number;
  readonly #retryDelayMs: number;
  readonly #maxTries: number;
  readonly #random: () => number;
  readonly #dropped: CounterMetric;
  readonly #namer: EventNamer;
  readonly #correlator: EventCorrelator;
  readonly #series = new Map<string, SeriesEntry>();
  readonly #queue = new Deque<QueuedEvent>();
  readonly #stop = new AbortController();
  #draining: Promise<void> | undefined;
  #closed = false;
  #droppedCount = 0;
  #seriesTimer: Timer | undefined;
  #ticks = 0;
  /** The transport made here from a KubeConfig (closed by close()); undefined when shared. */
  readonly #ownedTransport: Transport | undefined;

  /**
   * @param source - a client-node KubeConfig or a shared Transport.
   * @param options - the API, queue length, correlator limits, clock, logger, metrics.
   */
  constructor(source: Transport | KubeConfigLike, options: EventBroadcasterOptions = {}) {
    // The clock drives event time, the spam filter and retries, not HTTP timeouts.
    const { clock: _clock, metricsProvider: _events, restClientMetricsProvider, ...rest } = options;
    const transportOptions: TransportOptions =
      restClientMetricsProvider === undefined
        ? rest
        : { ...rest, metricsProvider: restClientMetricsProvider };
    const transport = toTransport(source, transportOptions);
    this.#ownedTransport = transport === source ? undefined : transport;
    this.api = options.api ?? 'core/v1';
    this.#core = new ResourceClient(transport, coreEventsResource);
    this.#v1 = new ResourceClient(transport, eventsV1Resource);
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#queueLength = options.queueLength ?? 1000;
    this.#retryDelayMs = options.retryDelayMs ?? 10_000;
    this.#maxTries = options.maxTries ?? 12;
    this.#random = options.random ?? Math.random;
    const provider = options.metricsProvider ?? getDefaultEventMetricsProvider();
    this.#dropped = provider?.newDroppedEventsMetric(options.name ?? 'events') ?? { inc() {} };
    this.#namer = new EventNamer(() => this.#clock.now());
    this.#correlator = new EventCorrelator(options.correlator ?? {}, this.#clock, (n) =>
      this.#namer.name(n),
    );
  }

  /**
   * A recorder that reports as `component` (core: `source.component`; events.k8s.io:
   * `reportingController`). Recorders share this broadcaster's queue.
   */
  newRecorder(options: RecorderOptions): EventRecorder {
    return new EventRecorderImpl(options, {
      api: this.api,
      clock: this.#clock,
      logger: this.#logger,
      namer: this.#namer,
      enqueue: (item) => this.#enqueue(item),
    });
  }

  /** Events waiting to be written. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Events dropped so far (queue full, or left when close gave up). */
  get dropped(): number {
    return this.#droppedCount;
  }

  /** True once {@link EventBroadcaster.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  #drop(what: string, count = 1): void {
    this.#droppedCount += count;
    for (let i = 0; i < count; i++) this.#dropped.inc();
    this.#logger.warn(`event recorder: dropped ${count} event(s): ${what}`);
  }

  #enqueue(item: QueuedEvent): void {
    if (this.#closed) {
      this.#drop('the broadcaster is closed');
      return;
    }
    if (this.#queue.length >= this.#queueLength) {
      this.#drop(`too many queued events (queue length ${this.#queueLength})`);
      return;
    }
    this.#queue.push(item);
    this.#draining ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        const item = this.#queue.shift();
        if (item === undefined) break;
        if (this.#stop.signal.aborted) {
          this.#drop(
            'the broadcaster was closed before it could write them',
            1 + this.#queue.length,
          );
          this.#queue.clear();
          break;
        }
        try {
          if (item.api === 'core/v1') await this.#recordCore(item.event);
          else await this.#recordV1(item.event);
        } catch (err) {
          // Defensive: the write paths catch their own errors.
          this.#logger.error('event recorder: unexpected error', { err: errorMessage(err) });
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /**
   * Resolves when every queued event has been written (or given up on), and pending
   * events.k8s.io series counts are written. With a signal, resolves when it aborts even if
   * writes are still pending (they continue). Never rejects.
   */
  async flush(signal?: AbortSignal): Promise<void> {
    const done = (async (): Promise<void> => {
      while (this.#draining !== undefined) await this.#draining;
      await this.#writeDirtySeries(false);
    })();
    if (signal === undefined) return done;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const onAbort = (): void => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      void done.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /**
   * Stops taking events (later ones are dropped and counted), writes what is queued, and
   * cancels the series timer; a transport the broadcaster made from a KubeConfig is closed
   * (a shared Transport is left open). When `signal` aborts first, retries stop, what is left is
   * dropped and counted, and the promise resolves once the write in flight has settled.
   * Never rejects.
   */
  async close(signal?: AbortSignal): Promise<void> {
    this.#closed = true;
    const onAbort = (): void => this.#stop.abort();
    if (signal?.aborted === true) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.flush(signal);
      if (this.#stop.signal.aborted) {
        this.#stop.abort();
        while (this.#draining !== undefined) await this.#draining;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#stop.abort();
      this.#seriesTimer?.cancel();
      this.#seriesTimer = undefined;
      this.#ownedTransport?.close();
    }
  }

  /** Retry loop shared by both backends: `attempt` returns true when done. */
  async #withRetries(what: string, attempt: () => Promise<boolean>): Promise<void> {
    for (let tries = 1; ; tries++) {
      if (await attempt()) return;
      if (tries >= this.#maxTries) {
        this.#logger.error(`event recorder: unable to write ${what} (retry limit exceeded)`);
        return;
      }
      const delay = tries === 1 ? this.#retryDelayMs * this.#random() : this.#retryDelayMs;
      try {
        await this.#clock.sleep(delay, this.#stop.signal);
      } catch {
        this.#logger.error(`event recorder: unable to write ${what} (broadcaster is shut down)`);
        return;
      }
    }
  }

  /** Logs a failed write; true when it must not be retried (the server answered). */
  #rejected(err: unknown, what: string): boolean {
    if (err instanceof ApiError && err.code > 0) {
      if (err.reason === 'AlreadyExists') {
        this.#logger.debug(`event recorder: server rejected ${what} (will not retry)`, {
          err: err.message,
        });
      } else {
        this.#logger.error(`event recorder: server rejected ${what} (will not retry)`, {
          err: err.message,
        });
      }
      return true;
    }
    this.#logger.warn(`event recorder: unable to write ${what} (may retry after sleeping)`, {
      err: errorMessage(err),
    });
    return false;
  }

  async #recordCore(event: CoreEvent): Promise<void> {
    const result: CorrelateResult = this.#correlator.correlate(event);
    if (result.skip) return;
    const ev = result.event;
    const ns = ev.metadata?.namespace ?? 'default';
    const name = ev.metadata?.name ?? '';
    const what = `event ${ns}/${name} (${ev.reason ?? ''})`;
    const client = this.#core.namespace(ns);
    await this.#withRetries(what, async () => {
      let err: unknown;
      let stored: CoreEvent | undefined;
      if (result.patch !== undefined) {
        try {
          stored = await client.patch(name, result.patch, {
            type: 'strategic',
            signal: this.#stop.signal,
          });
        } catch (e) {
          err = e;
        }
      }
      if (result.patch === undefined || isNotFound(err)) {
        err = undefined;
        const fresh: CoreEvent = { ...ev, metadata: { ...ev.metadata } };
        delete fresh.metadata?.resourceVersion;
        try {
          stored = await client.create(fresh, { signal: this.#stop.signal });
        } catch (e) {
          err = e;
        }
      }
      if (err === undefined && stored !== undefined) {
        this.#correlator.updateState(stored, result.key);
        return true;
      }
      return this.#rejected(err, what);
    });
  }

  async #recordV1(event: EventsV1Event): Promise<void> {
    const key = v1Key(event);
    const cached = this.#series.get(key);
    let toRecord: EventsV1Event;
    if (cached !== undefined) {
      const now = formatMicroTime(this.#clock.now());
      if (cached.event.series !== undefined) {
        cached.event.series = { count: cached.event.series.count + 1, lastObservedTime: now };
        cached.dirty = true;
        return;
      }
      cached.event.series = { count: 2, lastObservedTime: now };
      toRecord = structuredClone(cached.event);
    } else {
      this.#series.set(key, { event: event, dirty: false });
      toRecord = structuredClone(event);
    }
    this.#armSeriesTimer();
    await this.#writeV1(key, toRecord);
  }

  async #writeV1(key: string, event: EventsV1Event): Promise<void> {
    const ns = event.metadata?.namespace ?? 'default';
    const name = event.metadata?.name ?? '';
    const what = `event ${ns}/${name} (${event.reason})`;
    const client = this.#v1.namespace(ns);
    await this.#withRetries(what, async () => {
      let err: unknown;
      let stored: EventsV1Event | undefined;
      if (event.series !== undefined) {
        try {
          stored = await client.patch(
            name,
            { series: event.series },
            { type: 'merge', signal: this.#stop.signal },
          );
        } catch (e) {
          err = e;
        }
      }
      if (event.series === undefined || isNotFound(err)) {
        err = undefined;
        const fresh: EventsV1Event = { ...event, metadata: { ...event.metadata } };
        delete fresh.metadata?.resourceVersion;
        try {
          stored = await client.create(fresh, { signal: this.#stop.signal });
        } catch (e) {
          err = e;
        }
      }
      if (err === undefined && stored !== undefined) {
        const entry = this.#series.get(key);
        if (entry !== undefined && stored.metadata?.name !== undefined) {
          entry.event.metadata = { ...entry.event.metadata, name: stored.metadata.name };
        }
        return true;
      }
      return this.#rejected(err, what);
    });
  }

  /** Write series whose count moved; with `finishOld`, end series idle for 6 minutes. */
  async #writeDirtySeries(finishOld: boolean): Promise<void> {
    const now = this.#clock.now();
    for (const [key, entry] of [...this.#series]) {
      const last = Date.parse(entry.event.series?.lastObservedTime ?? entry.event.eventTime);
      const finished = finishOld && now - last > SERIES_FINISH_MS;
      if (entry.dirty && entry.event.series !== undefined) {
        entry.dirty = false;
        await this.#writeV1(key, structuredClone(entry.event));
      }
      if (finished) this.#series.delete(key);
    }
  }

  #armSeriesTimer(): void {
    if (this.#seriesTimer !== undefined || this.#closed) return;
    this.#seriesTimer = this.#clock.setTimeout(() => {
      this.#seriesTimer = undefined;
      this.#ticks++;
      // Every 6 minutes end idle series; every 30 minutes (5 ticks) write moved counts.
      const refresh = this.#ticks % (SERIES_REFRESH_MS / SERIES_FINISH_MS) === 0;
      void this.#seriesTick(refresh);
    }, SERIES_FINISH_MS);
  }

  async #seriesTick(refresh: boolean): Promise<void> {
    try {
      const now = this.#clock.now();
      for (const [key, entry] of [...this.#series]) {
        const last = Date.parse(entry.event.series?.lastObservedTime ?? entry.event.eventTime);
        const finished = now - last > SERIES_FINISH_MS;
        if ((refresh || finished) && entry.dirty && entry.event.series !== undefined) {
          entry.dirty = false;
          await this.#writeV1(key, structuredClone(entry.event));
        }
        if (finished) this.#series.delete(key);
      }
    } catch (err) {
      this.#logger.error('event recorder: series refresh failed', { err: errorMessage(err) });
    }
    if (this.#series.size > 0) this.#armSeriesTimer();
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
