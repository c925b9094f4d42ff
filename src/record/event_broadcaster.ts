/**
 * The event broadcaster: takes events from recorders, queues them, and writes them to the
 * API server in the background through its sink (client-go's `EventBroadcaster` with
 * `StartRecordingToSink`). It owns the queue, the retries and the shutdown; what is written
 * for an event is the sink's business (see `sink.ts`):
 *
 * - `core/v1` (default, `tools/record`): `CoreEventSink`, through client-go's
 *   correlator. `kubectl describe` lists core/v1 Events (it searches them by
 *   `involvedObject` field selectors), so these show there on every server.
 * - `events.k8s.io/v1` (`tools/events`): `EventsV1Sink`, with series.
 *
 * The rules the broadcaster keeps:
 *
 * - **Never blocks, never throws to the caller.** `recorder.event(...)` puts the event on a
 *   bounded queue (1000 by default, client-go's `maxQueuedEvents`) and returns; when the queue
 *   is full the event is dropped, logged and counted (`event_recorder_dropped_events_total`).
 *   Write errors are logged, never rejected.
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
import { ApiError } from '../client/errors.js';
import type { KubeConfigLike, Transport, TransportOptions } from '../client/transport.js';
import { toTransport } from '../client/transport.js';
import type { CounterMetric } from '../util/metrics.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { CoreEventSink } from './core_sink.js';
import type { CorrelatorOptions } from './events_cache.js';
import { EventsV1Sink } from './events_v1_sink.js';
import { getDefaultEventMetricsProvider } from './metrics.js';
import type { EventMetricsProvider } from './metrics.js';
import { EventRecorderImpl } from './recorder.js';
import type { EventRecorder, RecorderOptions } from './recorder.js';
import { describeWrite, patchElseCreate } from './sink.js';
import type {
  AnyEvent,
  EventApi,
  EventSink,
  EventSinkContext,
  EventWrite,
  RecordedEvent,
} from './sink.js';
import { EventNamer } from './time.js';

export type { EventApi } from './sink.js';
export { SERIES_FINISH_MS, SERIES_REFRESH_MS } from './events_v1_sink.js';

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
  readonly #sink: EventSink;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #queueLength: number;
  readonly #retryDelayMs: number;
  readonly #maxTries: number;
  readonly #random: () => number;
  readonly #dropped: CounterMetric;
  readonly #namer: EventNamer;
  readonly #queue = new Deque<RecordedEvent>();
  readonly #stop = new AbortController();
  #draining: Promise<void> | undefined;
  #closed = false;
  #droppedCount = 0;
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
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#queueLength = options.queueLength ?? 1000;
    this.#retryDelayMs = options.retryDelayMs ?? 10_000;
    this.#maxTries = options.maxTries ?? 12;
    this.#random = options.random ?? Math.random;
    const provider = options.metricsProvider ?? getDefaultEventMetricsProvider();
    this.#dropped = provider?.newDroppedEventsMetric(options.name ?? 'events') ?? { inc() {} };
    this.#namer = new EventNamer(() => this.#clock.now());
    const ctx: EventSinkContext = {
      clock: this.#clock,
      logger: this.#logger,
      namer: this.#namer,
      send: (write) => this.#send(write),
    };
    this.#sink =
      this.api === 'core/v1'
        ? new CoreEventSink(transport, options.correlator ?? {}, ctx)
        : new EventsV1Sink(transport, ctx);
  }

  /**
   * A recorder that reports as `component` (core: `source.component`; events.k8s.io:
   * `reportingController`). Recorders share this broadcaster's queue.
   */
  newRecorder(options: RecorderOptions): EventRecorder {
    return new EventRecorderImpl(options, {
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

  #enqueue(item: RecordedEvent): void {
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
          await this.#sink.record(item);
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
      await this.#sink.flush();
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
      this.#sink.close();
      this.#ownedTransport?.close();
    }
  }

  /** Performs `write` (patch else create), retrying what got no answer; never rejects. */
  async #send<E extends AnyEvent>(write: EventWrite<E>): Promise<void> {
    const what = describeWrite(write);
    for (let tries = 1; ; tries++) {
      try {
        const stored = await patchElseCreate(write, this.#stop.signal);
        write.written?.(stored);
        return;
      } catch (err) {
        if (this.#rejected(err, what)) return;
      }
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
}
