/**
 * What to do with a {@link watcher} stream, as plain functions over async iterables (kube-rs
 * `WatchStreamExt`): keep the objects, drop the repeats, reflect into a cache, share one
 * watch among several readers.
 *
 * ```ts
 * const cache = new Indexer<V1ConfigMap>();
 * const events = reflect(watcher(configMaps, { signal }), cache);
 * for await (const cm of predicateFilter(appliedObjects(events), predicates.generation)) { … }
 * ```
 *
 * Each function pulls from its input only when its own reader pulls, so backpressure
 * carries through a chain; leaving the outer loop closes every stream under it.
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import { Indexer } from './indexer.js';
import type { WatcherEvent } from './watcher.js';

/** The objects a stream added or changed: every `InitApply` and `Apply` (kube-rs `applied_objects`). */
export async function* appliedObjects<T>(
  events: AsyncIterable<WatcherEvent<T>>,
): AsyncGenerator<T, void, undefined> {
  for await (const e of events) {
    if (e.type === 'InitApply' || e.type === 'Apply') yield e.object;
  }
}

/**
 * The objects a stream touched: every `InitApply`, `Apply` and `Delete` (kube-rs
 * `touched_objects`); a controller that looks each one up again needs nothing more.
 */
export async function* touchedObjects<T>(
  events: AsyncIterable<WatcherEvent<T>>,
): AsyncGenerator<T, void, undefined> {
  for await (const e of events) {
    if (e.type === 'InitApply' || e.type === 'Apply' || e.type === 'Delete') yield e.object;
  }
}

/**
 * What a {@link predicateFilter} compares: a value of the object (`undefined` lets the
 * object through every time).
 */
export type StreamPredicate<T> = (obj: T) => string | number | undefined;

interface Meta {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
}

/** A stable text of a string map (keys sorted), or `""` when absent. */
function mapText(map: Record<string, string> | undefined): string {
  if (map === undefined) return '';
  return JSON.stringify(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k]]),
  );
}

/**
 * The predicates of kube-rs `predicates::*`: `generation` (spec changes only: objects
 * without a generation always pass), `labels`, `annotations`, `finalizers`,
 * `resourceVersion`.
 */
export const predicates = Object.freeze({
  /** `metadata.generation`: passes spec changes, drops status-only updates. */
  generation: (obj: unknown): number | undefined => (obj as Meta | null)?.metadata?.generation,
  /** The labels. */
  labels: (obj: unknown): string => mapText((obj as Meta | null)?.metadata?.labels),
  /** The annotations. */
  annotations: (obj: unknown): string => mapText((obj as Meta | null)?.metadata?.annotations),
  /** The finalizers (in order). */
  finalizers: (obj: unknown): string =>
    JSON.stringify(
      (obj as { metadata?: { finalizers?: string[] } } | null)?.metadata?.finalizers ?? [],
    ),
  /** `metadata.resourceVersion`: drops exact repeats (a relist's unchanged objects). */
  resourceVersion: (obj: unknown): string | undefined =>
    (obj as Meta | null)?.metadata?.resourceVersion,
});

/** Options of {@link predicateFilter}. */
export interface PredicateFilterOptions {
  /**
   * How long the last value of an object is remembered after it was last seen, in ms
   * (kube-rs #1836): without it the memory grows with every object ever seen, deleted ones
   * included. An object not seen for this long or longer passes again. Default one hour.
   */
  ttlMs?: number;
  /** Source of time. */
  clock?: Clock;
}

/** The default memory of {@link predicateFilter}: one hour. */
export const defaultPredicateTtlMs = 60 * 60 * 1000;

/**
 * The objects whose `predicate` value differs from the last one seen for the same object
 * (namespace, name and uid, so a recreated object passes), as kube-rs `predicate_filter`.
 * The first sighting always passes. Several predicates: pass a function that joins them.
 */
export async function* predicateFilter<T>(
  objects: AsyncIterable<T>,
  predicate: StreamPredicate<T>,
  options: PredicateFilterOptions = {},
): AsyncGenerator<T, void, undefined> {
  const clock = options.clock ?? realClock;
  const ttlMs = options.ttlMs ?? defaultPredicateTtlMs;
  const seen = new Map<string, { value: string | number; at: number }>();
  let lastSweep = clock.now();
  for await (const obj of objects) {
    const now = clock.now();
    if (now - lastSweep >= ttlMs) {
      for (const [k, v] of seen) if (now - v.at >= ttlMs) seen.delete(k);
      lastSweep = now;
    }
    const value = predicate(obj);
    if (value === undefined) {
      yield obj;
      continue;
    }
    const m = (obj as Meta | null)?.metadata;
    const key = `${m?.namespace ?? ''}/${m?.name ?? ''}/${m?.uid ?? ''}`;
    const before = seen.get(key);
    seen.set(key, { value, at: now });
    // Seen within the TTL with the same value: a repeat. At or past the TTL it counts as new.
    if (before !== undefined && before.value === value && now - before.at < ttlMs) continue;
    yield obj;
  }
}

/**
 * Keep `indexer` in step with a stream and pass every event on (kube-rs `reflect`): a
 * relist is gathered from `Init` to `InitDone` and swapped in whole at `InitDone`, so the
 * cache never shows half a relist and loses what vanished; `Apply` stores, `Delete`
 * removes. Read it with `new Lister(indexer, groupResource)`: a lister over a stream.
 *
 * The cache may be behind the stream's consumer by nothing (the event is applied before
 * it is passed on) but is only as fresh as the stream is read.
 */
export async function* reflect<T>(
  events: AsyncIterable<WatcherEvent<T>>,
  indexer: Indexer<T>,
): AsyncGenerator<WatcherEvent<T>, void, undefined> {
  const apply = reflector(indexer);
  for await (const e of events) {
    apply(e);
    yield e;
  }
}

/** The store half of {@link reflect}: a function that applies one event to `indexer`. */
function reflector<T>(indexer: Indexer<T>): (e: WatcherEvent<T>) => void {
  let buffer: T[] | undefined;
  return (e) => {
    switch (e.type) {
      case 'Init':
        buffer = [];
        break;
      case 'InitApply':
        (buffer ??= []).push(e.object);
        break;
      case 'InitDone':
        indexer.replace(buffer ?? [], '');
        buffer = undefined;
        break;
      case 'Apply':
        indexer.update(e.object);
        break;
      case 'Delete':
        indexer.delete(e.object);
        break;
    }
  };
}

/** Options of {@link shareWatcher}. */
export interface ShareWatcherOptions<T> {
  /**
   * The cache the shared stream reflects into (and replays to late subscribers). Default: a
   * new `Indexer`.
   */
  indexer?: Indexer<T>;
  /**
   * Events each subscriber may have unread before the shared stream stops reading its
   * source (so the slowest subscriber sets the pace). Default 100.
   */
  bufferSize?: number;
}

/**
 * One watch read by several consumers (kube-rs `reflect_shared` + `subscribe`): the source
 * is read once, reflected into one cache, and every subscriber gets every event.
 *
 * - A subscriber that joins late first gets the cache as `Init`, `InitApply`…, `InitDone`
 *   (when it joins during a relist, at that relist's end), then live events: every
 *   subscriber sees a complete state before changes.
 * - Backpressure: the source is read only while every subscriber has fewer than
 *   `bufferSize` unread events (a late subscriber's replay is not counted).
 * - The source is read from the first `subscribe()` until it ends (abort its signal) or
 *   {@link SharedWatcher.close}; a subscriber leaving (`break`) does not stop it.
 */
export class SharedWatcher<T> {
  /** The cache the shared stream keeps (read it through a `Lister`). */
  readonly indexer: Indexer<T>;
  readonly #source: AsyncIterator<WatcherEvent<T>>;
  readonly #bound: number;
  readonly #subscribers = new Set<Subscriber<T>>();
  readonly #apply: (e: WatcherEvent<T>) => void;
  /** Where the source stands: before any event, inside a relist, or between relists. */
  #phase: 'fresh' | 'initializing' | 'ready' = 'fresh';
  #pump: Promise<void> | undefined;
  #closed = false;
  #failure: unknown;
  #wakePump: (() => void) | undefined;

  /** @param source - usually a {@link watcher}. */
  constructor(source: AsyncIterable<WatcherEvent<T>>, options: ShareWatcherOptions<T> = {}) {
    this.#source = source[Symbol.asyncIterator]();
    this.indexer = options.indexer ?? new Indexer<T>();
    this.#bound = Math.max(1, options.bufferSize ?? 100);
    this.#apply = reflector(this.indexer);
  }

  /** The subscribers reading now. */
  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** A new reader of the shared stream; `break` out of it to unsubscribe. */
  subscribe(): AsyncIterableIterator<WatcherEvent<T>> {
    const sub = new Subscriber<T>(this, this.#bound);
    if (this.#closed) sub.finish(undefined);
    else {
      if (this.#phase === 'ready') sub.replay(this.indexer.list());
      else if (this.#phase === 'initializing') sub.waitingForInitDone = true;
      this.#subscribers.add(sub);
      this.#pump ??= this.#run();
    }
    return sub;
  }

  /** Stop reading the source (closing it) and end every subscriber after its buffer. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakePump?.();
    // A watcher source ends at once (its pending read included); a generator after its
    // pending read.
    const returned = this.#closeSource();
    await this.#pump;
    await returned;
  }

  #sourceClosed: Promise<unknown> | undefined;
  #closeSource(): Promise<unknown> {
    return (this.#sourceClosed ??= Promise.resolve(this.#source.return?.()));
  }

  /** @internal a subscriber left. */
  leave(sub: Subscriber<T>): void {
    this.#subscribers.delete(sub);
    this.#wakePump?.();
  }

  /** @internal a subscriber read an event. */
  wake(): void {
    this.#wakePump?.();
  }

  #allHaveRoom(): boolean {
    for (const s of this.#subscribers) if (!s.hasRoom()) return false;
    return true;
  }

  async #run(): Promise<void> {
    try {
      while (!this.#closed) {
        while (!this.#closed && !this.#allHaveRoom())
          await new Promise<void>((resolve) => (this.#wakePump = resolve));
        this.#wakePump = undefined;
        if (this.#closed) break;
        const step = await this.#source.next();
        if (step.done === true) break;
        this.#deliver(step.value);
      }
    } catch (err) {
      this.#failure = err;
    } finally {
      this.#closed = true;
      await this.#closeSource();
      for (const s of this.#subscribers) s.finish(this.#failure);
    }
  }

  #deliver(e: WatcherEvent<T>): void {
    this.#apply(e);
    if (e.type === 'Init') this.#phase = 'initializing';
    else if (e.type === 'InitDone') this.#phase = 'ready';
    for (const s of this.#subscribers) {
      if (s.waitingForInitDone) {
        if (e.type === 'InitDone') {
          s.waitingForInitDone = false;
          s.replay(this.indexer.list());
        }
        continue;
      }
      s.push(e);
    }
  }
}

/** One reader of a {@link SharedWatcher}. */
class Subscriber<T> implements AsyncIterableIterator<WatcherEvent<T>> {
  readonly #shared: SharedWatcher<T>;
  readonly #bound: number;
  readonly #buffer: WatcherEvent<T>[] = [];
  /** Replayed events, not counted against the bound. */
  #replayed = 0;
  #done = false;
  #failure: unknown;
  #wake: (() => void) | undefined;
  waitingForInitDone = false;

  constructor(shared: SharedWatcher<T>, bound: number) {
    this.#shared = shared;
    this.#bound = bound;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatcherEvent<T>> {
    return this;
  }

  hasRoom(): boolean {
    return this.#buffer.length - this.#replayed < this.#bound;
  }

  push(e: WatcherEvent<T>): void {
    this.#buffer.push(e);
    this.#wake?.();
  }

  replay(objects: T[]): void {
    this.#buffer.push({ type: 'Init' });
    for (const object of objects) this.#buffer.push({ type: 'InitApply', object });
    this.#buffer.push({ type: 'InitDone' });
    this.#replayed += objects.length + 2;
    this.#wake?.();
  }

  finish(failure: unknown): void {
    this.#done = true;
    this.#failure = failure;
    this.#wake?.();
  }

  async next(): Promise<IteratorResult<WatcherEvent<T>>> {
    for (;;) {
      const e = this.#buffer.shift();
      if (e !== undefined) {
        if (this.#replayed > 0) this.#replayed--;
        this.#shared.wake();
        return { done: false, value: e };
      }
      if (this.#done) {
        this.#shared.leave(this);
        if (this.#failure !== undefined) {
          const f = this.#failure;
          this.#failure = undefined;
          throw f instanceof Error ? f : new Error(errorMessage(f));
        }
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  async return(): Promise<IteratorResult<WatcherEvent<T>>> {
    this.#done = true;
    this.#buffer.length = 0;
    this.#shared.leave(this);
    return { done: true, value: undefined };
  }
}

/** {@link SharedWatcher} over `source`: `shareWatcher(watcher(pods, { signal })).subscribe()`. */
export function shareWatcher<T>(
  source: AsyncIterable<WatcherEvent<T>>,
  options: ShareWatcherOptions<T> = {},
): SharedWatcher<T> {
  return new SharedWatcher(source, options);
}
