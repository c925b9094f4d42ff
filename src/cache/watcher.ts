/**
 * `watcher()`: a list-and-watch as an async iterable (kube-rs `kube_runtime::watcher`).
 *
 * ```ts
 * for await (const event of watcher(pods, { labelSelector: 'app=web', signal })) {
 *   if (event.type === 'Apply') console.log('changed', event.object.metadata?.name);
 * }
 * ```
 *
 * It runs the kit's {@link Reflector} (paged or streaming list, bookmarks, relist after
 * 410, backoff with jitter, Retry-After, idle timeout) into a small store that turns each
 * of its calls into events:
 *
 * - a (re)list is `Init`, one `InitApply` per object, `InitDone`: a consumer that keeps a
 *   cache builds the new state between `Init` and `InitDone` and swaps it in at
 *   `InitDone` (objects that vanished while the watch was down are simply absent);
 * - a watch ADDED or MODIFIED is `Apply`, a DELETED is `Delete`.
 *
 * Lifecycle: nothing starts until the first `next()`. Aborting `signal` ends the loop;
 * leaving it (`break`, `return`, a throw) calls `return()`, which does the same. Either way
 * the iterator settles only after the reflector has stopped: no request, socket or timer
 * is left.
 *
 * Backpressure: at most `bufferSize` watch events (default {@link defaultWatcherBufferSize})
 * wait for the consumer, plus at most one relist (held as the one array the list
 * produced). While that buffer is full the watcher reads nothing more from the watch
 * response, so its decoder pauses the socket after its own read-ahead, and TCP flow control
 * holds the server: a consumer that stops reading costs a bounded amount of memory. A list
 * is not started while the buffer is full either.
 *
 * @module
 */
import { ApiError, isGone } from '../client/errors.js';
import type { ListOptions, ObjectList, WatchEvent } from '../client/types.js';
import type { BackoffOptions } from '../util/backoff.js';
import { defaultReflectorBackoff } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import { errorMessage, KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { ListerWatcher, ListWatchClient } from './listwatch.js';
import { listWatchFromClient } from './listwatch.js';
import type { ReflectorStore, ReflectorTuning } from './reflector.js';
import { Reflector } from './reflector.js';

/** One event of a {@link watcher} stream (kube-rs `watcher::Event`). */
export type WatcherEvent<T> =
  | WatcherInitEvent
  | WatcherObjectEvent<'InitApply', T>
  | WatcherInitDoneEvent
  | WatcherObjectEvent<'Apply', T>
  | WatcherObjectEvent<'Delete', T>;

/** A (re)list starts: the objects until `InitDone` are the complete new state. */
export interface WatcherInitEvent {
  /** `Init`. */
  readonly type: 'Init';
}

/** The (re)list is complete; what was not in it is gone. */
export interface WatcherInitDoneEvent {
  /** `InitDone`. */
  readonly type: 'InitDone';
}

/**
 * An event about one object: `InitApply` (one object of the (re)list), `Apply` (added or
 * modified) or `Delete` (deleted; its last state).
 */
export interface WatcherObjectEvent<K extends 'InitApply' | 'Apply' | 'Delete', T> {
  /** What happened. */
  readonly type: K;
  /** The object. */
  readonly object: T;
}

/** The default bound of undelivered watch events of a {@link watcher}. */
export const defaultWatcherBufferSize = 100;

/**
 * kube-rs's `DefaultBackoff`: 800 ms, ×2, full jitter, capped at 30 s, started over after
 * 2 minutes without failure. It is what {@link watcher} uses when `backoff` is not given
 * (the reflector's default); pass it, or a variant, as `backoff`.
 */
export function defaultBackoff(): BackoffOptions {
  return { ...defaultReflectorBackoff };
}

/** Options of {@link watcher}: what to watch, how, and for how long. */
export interface WatcherOptions extends ReflectorTuning {
  /** Label selector of every list and watch. */
  labelSelector?: string;
  /** Field selector of every list and watch. */
  fieldSelector?: string;
  /**
   * Server-side shard selector (KEP-5866), e.g. from `shardSelectorFor`. When its list has
   * no `metadata.shardInfo`, the watcher filters on its side too, and logs once that the
   * server did not apply it when an object outside the ranges arrives.
   */
  shardSelector?: string;
  /** Ends the stream when aborted. */
  signal?: AbortSignal;
  /** Undelivered watch events held at most before the socket is paused. Default 100. */
  bufferSize?: number;
  /**
   * End the stream with a {@link WatcherPermanentError} at the first answer that retrying
   * cannot fix (400, 401, 403, 404) instead of retrying it with backoff. Default false
   * (retry forever, as the reflector; such errors are logged once).
   */
  failOnPermanentError?: boolean;
  /** Called with every error that ended a list or a watch (the stream retries after backoff). */
  onError?: (error: unknown) => void;
  /** Name in logs. Default `watcher`. */
  name?: string;
  /** Where to log. */
  logger?: Logger;
  /** Source of time (tests pass a `FakeClock`). */
  clock?: Clock;
  /** Source of randomness in [0, 1) (tests pin it). */
  random?: () => number;
}

/** A watcher stopped by an answer that retrying cannot fix (`failOnPermanentError`). */
export class WatcherPermanentError extends KubeControllerKitError {
  /** @param name - the watcher; @param cause - the server's answer. */
  constructor(
    name: string,
    override readonly cause: ApiError,
  ) {
    super(`${name}: ${cause.message} (HTTP ${cause.code}); retrying will not help`, { cause });
  }
}

type Entry<T> =
  | { readonly kind: 'event'; readonly event: WatcherEvent<T> }
  | { readonly kind: 'relist'; readonly items: readonly T[] };

/**
 * Watch `client` as an async iterable of {@link WatcherEvent}s.
 *
 * @param client - a resource client (`ResourceClient` fits), or anything with its `list`
 *   and `watch`.
 * @throws `SelectorParseError` / `ShardSelectorParseError` at once for a malformed selector.
 */
export function watcher<T>(
  client: ListWatchClient<T>,
  options: WatcherOptions = {},
): AsyncIterableIterator<WatcherEvent<T>> {
  const lwOptions: Parameters<typeof listWatchFromClient>[1] = {};
  if (options.labelSelector !== undefined) lwOptions.labelSelector = options.labelSelector;
  if (options.fieldSelector !== undefined) lwOptions.fieldSelector = options.fieldSelector;
  if (options.shardSelector !== undefined) lwOptions.shardSelector = options.shardSelector;
  lwOptions.logger = options.logger ?? defaultLogger;
  lwOptions.name = options.name ?? 'watcher';
  return watcherFromListerWatcher(listWatchFromClient(client, lwOptions), options);
}

/** {@link watcher} over a {@link ListerWatcher} (selectors are then the lister-watcher's). */
export function watcherFromListerWatcher<T>(
  listerWatcher: ListerWatcher<T>,
  options: WatcherOptions = {},
): AsyncIterableIterator<WatcherEvent<T>> {
  return new WatcherStream(listerWatcher, options);
}

/** The iterator behind {@link watcher}. */
class WatcherStream<T> implements AsyncIterableIterator<WatcherEvent<T>> {
  readonly #lw: ListerWatcher<T>;
  readonly #options: WatcherOptions;
  readonly #bound: number;
  readonly #name: string;
  /** Entries not yet handed out; a relist expands as it is read. */
  readonly #queue: Entry<T>[] = [];
  /** The relist being handed out, and the next index in it (-1: `Init` not yet sent). */
  #relist: { items: readonly T[]; next: number } | undefined;
  /** Watch events in #queue (the bounded part). */
  #watchEvents = 0;
  #relistsQueued = 0;
  readonly #ac = new AbortController();
  #run: Promise<void> | undefined;
  #failure: unknown;
  #finished = false;
  /** Wakes the consumer waiting in next(). */
  #wakeConsumer: (() => void) | undefined;
  /** Wakes the producer waiting for room. */
  #roomWaiters: (() => void)[] = [];
  readonly #onUserAbort = (): void => this.#ac.abort(this.#options.signal?.reason);

  constructor(lw: ListerWatcher<T>, options: WatcherOptions) {
    this.#options = options;
    this.#bound = Math.max(1, options.bufferSize ?? defaultWatcherBufferSize);
    this.#name = options.name ?? 'watcher';
    this.#lw = this.#gate(lw);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatcherEvent<T>> {
    return this;
  }

  /** Undelivered watch events and relists (for tests and metrics). */
  get buffered(): { watchEvents: number; relists: number } {
    return { watchEvents: this.#watchEvents, relists: this.#relistsQueued };
  }

  async next(): Promise<IteratorResult<WatcherEvent<T>>> {
    this.#start();
    for (;;) {
      const event = this.#take();
      if (event !== undefined) return { done: false, value: event };
      if (this.#finished || this.#ac.signal.aborted) return this.#end();
      await new Promise<void>((resolve) => (this.#wakeConsumer = resolve));
      this.#wakeConsumer = undefined;
    }
  }

  async return(): Promise<IteratorResult<WatcherEvent<T>>> {
    this.#ac.abort();
    this.#wakeRoom();
    await this.#run;
    this.#finished = true;
    this.#options.signal?.removeEventListener('abort', this.#onUserAbort);
    return { done: true, value: undefined };
  }

  /** Ends the stream: waits for the reflector, then reports its failure if any. */
  async #end(): Promise<IteratorResult<WatcherEvent<T>>> {
    await this.return();
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      throw failure instanceof Error ? failure : new Error(errorMessage(failure));
    }
    return { done: true, value: undefined };
  }

  #start(): void {
    if (this.#run !== undefined) return;
    const signal = this.#options.signal;
    if (signal !== undefined) {
      if (signal.aborted) this.#ac.abort(signal.reason);
      else signal.addEventListener('abort', this.#onUserAbort, { once: true });
    }
    const store: ReflectorStore<T> = {
      add: (obj) => this.#push({ kind: 'event', event: { type: 'Apply', object: obj } }),
      update: (obj) => this.#push({ kind: 'event', event: { type: 'Apply', object: obj } }),
      delete: (obj) => this.#push({ kind: 'event', event: { type: 'Delete', object: obj } }),
      replace: (items) => this.#push({ kind: 'relist', items }),
      resync: () => undefined,
    };
    const o = this.#options;
    const reflector = new Reflector<T>(this.#lw, store, {
      ...pickTuning(o),
      name: this.#name,
      ...(o.logger === undefined ? {} : { logger: o.logger }),
      ...(o.clock === undefined ? {} : { clock: o.clock }),
      ...(o.random === undefined ? {} : { random: o.random }),
      watchErrorHandler: (err, r) => this.#onError(err, r),
    });
    this.#run = reflector.run(this.#ac.signal).finally(() => {
      this.#finished = true;
      this.#wakeConsumer?.();
    });
    this.#ac.signal.addEventListener('abort', () => this.#wakeConsumer?.(), { once: true });
  }

  #onError(err: unknown, reflector: Reflector<T>): void {
    try {
      this.#options.onError?.(err);
    } catch {
      // a throwing callback must not stop the stream
    }
    const permanent = err instanceof ApiError && [400, 401, 403, 404].includes(err.code);
    if (permanent && this.#options.failOnPermanentError === true) {
      this.#failure = new WatcherPermanentError(reflector.name, err);
      this.#ac.abort(this.#failure);
      return;
    }
    const logger = this.#options.logger ?? defaultLogger;
    const message = `${reflector.name}: ${errorMessage(err)}`;
    if (isGone(err)) logger.debug(message);
    else logger.warn(message);
  }

  #push(entry: Entry<T>): void {
    this.#queue.push(entry);
    if (entry.kind === 'event') this.#watchEvents++;
    else this.#relistsQueued++;
    this.#wakeConsumer?.();
  }

  #take(): WatcherEvent<T> | undefined {
    for (;;) {
      const relist = this.#relist;
      if (relist !== undefined) {
        if (relist.next === -1) {
          relist.next = 0;
          return { type: 'Init' };
        }
        if (relist.next < relist.items.length)
          return { type: 'InitApply', object: relist.items[relist.next++] as T };
        this.#relist = undefined;
        this.#relistsQueued--;
        this.#wakeRoom();
        return { type: 'InitDone' };
      }
      const entry = this.#queue.shift();
      if (entry === undefined) return undefined;
      if (entry.kind === 'relist') {
        this.#relist = { items: entry.items, next: -1 };
        continue;
      }
      this.#watchEvents--;
      this.#wakeRoom();
      return entry.event;
    }
  }

  #hasRoom(): boolean {
    return this.#watchEvents < this.#bound && this.#relistsQueued === 0;
  }

  #wakeRoom(): void {
    if (!this.#hasRoom() && !this.#ac.signal.aborted) return;
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when the buffer has room or `signal` aborts. */
  #room(signal: AbortSignal): Promise<void> {
    if (this.#hasRoom() || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.#roomWaiters.push(done);
    });
  }

  /**
   * The lister-watcher, gated by the buffer: a list starts only when there is room, and a
   * watch's next event is read only when there is room (so a full buffer stops reading the
   * response: backpressure).
   */
  #gate(lw: ListerWatcher<T>): ListerWatcher<T> {
    return {
      list: async (options: ListOptions, signal: AbortSignal): Promise<ObjectList<T>> => {
        await this.#room(signal);
        return lw.list(options, signal);
      },
      watch: async (options, signal) => {
        const stream = await lw.watch(options, signal);
        return gatedStream(
          stream,
          signal,
          (s) => this.#room(s),
          () => this.#hasRoom(),
        );
      },
    };
  }
}

/** A watch stream whose `next()` first waits for room; `takeBuffered` only when there is. */
function gatedStream<T>(
  stream: AsyncIterable<WatchEvent<T>>,
  signal: AbortSignal,
  room: (signal: AbortSignal) => Promise<void>,
  hasRoom: () => boolean,
): AsyncIterable<WatchEvent<T>> {
  return {
    [Symbol.asyncIterator]: () => {
      const inner = stream[Symbol.asyncIterator]();
      const take = (inner as { takeBuffered?: unknown }).takeBuffered;
      const gated: AsyncIterator<WatchEvent<T>> & {
        takeBuffered?: () => WatchEvent<T> | undefined;
        held: () => Promise<void> | undefined;
      } = {
        next: async () => {
          await room(signal);
          return inner.next();
        },
        return: async () => (await inner.return?.()) ?? { done: true, value: undefined },
        // The reflector awaits this before next(), with its idle clock stopped: while the
        // consumer holds the stream, the server's silence is not measured.
        held: () => (hasRoom() || signal.aborted ? undefined : room(signal)),
      };
      if (typeof take === 'function')
        gated.takeBuffered = () =>
          hasRoom() ? (take as () => WatchEvent<T> | undefined).call(inner) : undefined;
      return gated;
    },
  };
}

function pickTuning(o: WatcherOptions): ReflectorTuning {
  const t: ReflectorTuning = {};
  if (o.pageSize !== undefined) t.pageSize = o.pageSize;
  if (o.watchList !== undefined) t.watchList = o.watchList;
  if (o.backoff !== undefined) t.backoff = o.backoff;
  if (o.backoffResetMs !== undefined) t.backoffResetMs = o.backoffResetMs;
  if (o.idleTimeoutMs !== undefined) t.idleTimeoutMs = o.idleTimeoutMs;
  if (o.minWatchTimeoutSeconds !== undefined) t.minWatchTimeoutSeconds = o.minWatchTimeoutSeconds;
  return t;
}
