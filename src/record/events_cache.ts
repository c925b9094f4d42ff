/**
 * The event correlator of client-go's core/v1 recorder (`tools/record/events_cache.go`): what
 * happens to an event between `recorder.event(...)` and the API server.
 *
 * 1. **Aggregation** ({@link EventAggregator}): events that are *similar* — same source,
 *    involved object, type and reason, but a different message — are counted per object and
 *    reason. Within 10 minutes of the last one, the 10th distinct message and every similar
 *    event after it are replaced by one event whose message starts with
 *    `(combined from similar events): `, keyed by the similarity key, so they all update one
 *    object instead of creating new ones.
 * 2. **Logging** ({@link EventLogger}): an event seen before (same key: source, object, type,
 *    reason and message) is not created again; it becomes a patch of the existing Event
 *    that raises `count` and moves `lastTimestamp` (and `message`).
 * 3. **Spam filter** ({@link EventSpamFilter}): per source and object a token bucket of 25
 *    events refilled by one every 5 minutes; an event without a token is dropped.
 *
 * Caches hold 4096 keys each (least recently used evicted). Time comes from the clock.
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { LruCache } from './lru.js';
import type { CoreEvent } from './types.js';
import { formatTime } from './time.js';

/** Options of the correlator (client-go's `CorrelatorOptions`); defaults are client-go's. */
export interface CorrelatorOptions {
  /** Keys per cache (default 4096). */
  lruCacheSize?: number;
  /** Spam filter bucket size per source+object (default 25). */
  burstSize?: number;
  /** Spam filter refill rate in events per second (default 1/300: one per 5 minutes). */
  qps?: number;
  /** Distinct similar messages before aggregation (default 10). */
  maxEvents?: number;
  /** Window of aggregation in seconds after the last similar event (default 600). */
  maxIntervalSeconds?: number;
}

/** client-go's correlator defaults. */
export const correlatorDefaults: Readonly<Required<CorrelatorOptions>> = Object.freeze({
  lruCacheSize: 4096,
  burstSize: 25,
  qps: 1 / 300,
  maxEvents: 10,
  maxIntervalSeconds: 600,
});

const SEP = '\u0000';

/** The key of identical events: source, involved object, type, reason, message. */
export function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  ].join(SEP);
}

/** The key of similar events: source, involved object, type, reason, reporter (no message). */
export function aggregateKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ].join(SEP);
}

/** The spam-filter key: source and involved object. */
export function spamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
  ].join(SEP);
}

/** The message prefix of an aggregated event. */
export const COMBINED_PREFIX = '(combined from similar events): ';

/** What {@link EventAggregator.aggregate} decided. */
export interface AggregateResult {
  /** The event itself, or the combined event replacing it. */
  event: CoreEvent;
  /** The key the event logger tracks it under (the similarity key for a combined event). */
  key: string;
}

/** What {@link EventLogger.observe} decided. */
export interface ObserveResult {
  /** The event, with name, count and firstTimestamp of the Event it repeats. */
  event: CoreEvent;
  /** The patch of the stored Event when it is a repeat, else undefined (create it). */
  patch: Record<string, unknown> | undefined;
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastMs: number;
}

/** Aggregates similar events (see the module comment). */
export class EventAggregator {
  readonly #cache: LruCache<AggregateRecord>;
  readonly #maxEvents: number;
  readonly #maxIntervalMs: number;
  readonly #clock: Clock;
  readonly #name: (objectName: string) => string;

  /**
   * @param options - limits.
   * @param clock - source of time.
   * @param name - makes a fresh event name for an object (`<name>.<hex ns>`).
   */
  constructor(
    options: Required<CorrelatorOptions>,
    clock: Clock,
    name: (objectName: string) => string,
  ) {
    this.#cache = new LruCache(options.lruCacheSize);
    this.#maxEvents = options.maxEvents;
    this.#maxIntervalMs = options.maxIntervalSeconds * 1000;
    this.#clock = clock;
    this.#name = name;
  }

  /** The event to record and the key it is logged under. */
  aggregate(event: CoreEvent): AggregateResult {
    const now = this.#clock.now();
    const key = aggregateKey(event);
    let record = this.#cache.get(key);
    if (record === undefined || now - record.lastMs > this.#maxIntervalMs) {
      record = { localKeys: new Set(), lastMs: now };
    }
    record.localKeys.add(event.message ?? '');
    record.lastMs = now;
    this.#cache.set(key, record);
    if (record.localKeys.size < this.#maxEvents) return { event, key: eventKey(event) };
    // Keep the set bounded: forget one message (any), as client-go's PopAny.
    const first = record.localKeys.values().next();
    if (first.done !== true) record.localKeys.delete(first.value);
    const t = formatTime(now);
    // Only what client-go's aggregate copy carries: no annotations, no reporting fields.
    const combined: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: this.#name(event.involvedObject.name ?? ''),
        namespace: event.metadata?.namespace ?? 'default',
      },
      involvedObject: event.involvedObject,
      message: COMBINED_PREFIX + (event.message ?? ''),
      count: 1,
      firstTimestamp: t,
      lastTimestamp: t,
    };
    if (event.type !== undefined) combined.type = event.type;
    if (event.reason !== undefined) combined.reason = event.reason;
    if (event.source !== undefined) combined.source = event.source;
    return { event: combined, key };
  }
}

interface EventLog {
  count: number;
  firstTimestamp: string | undefined;
  name: string;
  resourceVersion: string | undefined;
}

/** Turns repeats of a recorded event into a patch of it (see the module comment). */
export class EventLogger {
  readonly #cache: LruCache<EventLog>;

  /** @param size - keys kept. */
  constructor(size: number) {
    this.#cache = new LruCache(size);
  }

  /**
   * The event with `count`, `firstTimestamp` and name carried over from the last observation
   * under `key`, and the patch that updates the stored Event (undefined for a new event).
   */
  observe(event: CoreEvent, key: string): ObserveResult {
    const last = this.#cache.get(key);
    let out = event;
    let patch: Record<string, unknown> | undefined;
    if (last !== undefined && last.count > 0) {
      const metadata = { ...event.metadata, name: last.name };
      if (last.resourceVersion !== undefined) metadata.resourceVersion = last.resourceVersion;
      else delete metadata.resourceVersion;
      out = { ...event, metadata, count: last.count + 1 };
      if (last.firstTimestamp !== undefined) out.firstTimestamp = last.firstTimestamp;
      patch = { count: out.count, lastTimestamp: out.lastTimestamp, message: out.message };
    }
    this.#cache.set(key, {
      count: out.count ?? 1,
      firstTimestamp: out.firstTimestamp,
      name: out.metadata?.name ?? '',
      resourceVersion: out.metadata?.resourceVersion,
    });
    return { event: out, patch };
  }

  /** Records what the server stored (name, count, resourceVersion) under `key`. */
  updateState(stored: CoreEvent, key: string): void {
    this.#cache.set(key, {
      count: stored.count ?? 1,
      firstTimestamp: stored.firstTimestamp,
      name: stored.metadata?.name ?? '',
      resourceVersion: stored.metadata?.resourceVersion,
    });
  }
}

/** A token bucket that never waits: {@link TokenBucket.tryAccept} takes a token or says no. */
export class TokenBucket {
  #tokens: number;
  #lastMs: number;
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;

  /** @param qps - tokens per second. @param burst - bucket size (starts full). */
  constructor(qps: number, burst: number, clock: Clock) {
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#lastMs = clock.now();
  }

  /** Takes a token if one is available. */
  tryAccept(): boolean {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#lastMs) / 1000) * this.#qps);
    this.#lastMs = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    return false;
  }
}

/** Per source+object token buckets (client-go's `EventSourceObjectSpamFilter`). */
export class EventSpamFilter {
  readonly #cache: LruCache<TokenBucket>;
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;

  /** @param options - bucket size, refill rate and cache size. */
  constructor(options: Required<CorrelatorOptions>, clock: Clock) {
    this.#cache = new LruCache(options.lruCacheSize);
    this.#qps = options.qps;
    this.#burst = options.burstSize;
    this.#clock = clock;
  }

  /** True when the event must be dropped (no token left for its source and object). */
  filter(event: CoreEvent): boolean {
    const key = spamKey(event);
    let bucket = this.#cache.get(key);
    if (bucket === undefined) bucket = new TokenBucket(this.#qps, this.#burst, this.#clock);
    const skip = !bucket.tryAccept();
    this.#cache.set(key, bucket);
    return skip;
  }
}

/** What the correlator decided for one event. */
export type CorrelateResult =
  | {
      /** Dropped by the spam filter. */
      skip: true;
    }
  | {
      /** To be written. */
      skip: false;
      /** The event to create, or to patch when `patch` is set. */
      event: CoreEvent;
      /** Patch of `count`, `lastTimestamp` and `message` of the existing Event. */
      patch: Record<string, unknown> | undefined;
      /** The logger key to update once written. */
      key: string;
    };

/** Aggregation, then logging, then the spam filter — client-go's `EventCorrelator`. */
export class EventCorrelator {
  readonly #aggregator: EventAggregator;
  readonly #logger: EventLogger;
  readonly #spam: EventSpamFilter;

  /** @param options - client-go's correlator options. */
  constructor(options: CorrelatorOptions, clock: Clock, name: (objectName: string) => string) {
    const o: Required<CorrelatorOptions> = { ...correlatorDefaults, ...options };
    this.#aggregator = new EventAggregator(o, clock, name);
    this.#logger = new EventLogger(o.lruCacheSize);
    this.#spam = new EventSpamFilter(o, clock);
  }

  /** Decide what to write for `event`. */
  correlate(event: CoreEvent): CorrelateResult {
    const aggregated = this.#aggregator.aggregate(event);
    const observed = this.#logger.observe(aggregated.event, aggregated.key);
    if (this.#spam.filter(observed.event)) return { skip: true };
    return { skip: false, event: observed.event, patch: observed.patch, key: aggregated.key };
  }

  /** Remember what the server stored, so the next repeat patches it. */
  updateState(stored: CoreEvent, key: string): void {
    this.#logger.updateState(stored, key);
  }
}
