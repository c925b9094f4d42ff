/**
 * The source an informer's reflector reads from.
 *
 * @module
 */
import type { ListOptions, ObjectList, WatchEvent } from '../client/types.js';
import { parseFieldSelector } from '../apimachinery/fields.js';
import { parseLabelSelector } from '../apimachinery/labels.js';
import { shardSelectorMatcher } from '../apimachinery/shard_selector.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';

/**
 * Two functions that list and watch one kind of object: the reflector's only view of the
 * API server. Build one from a KubeConfig with `listWatchFromClient`, or script one in
 * tests.
 *
 * Contract:
 * - `list` resolves to one page (honouring `limit`/`continue`) or rejects with an
 *   `ApiError` (or a network error).
 * - `watch` resolves once the server has accepted the watch (response headers received),
 *   or rejects with an `ApiError` (for example 410 Gone or 429) or a network error.
 *   Iterating the result yields events in order until the server closes the stream
 *   (iteration ends) or it breaks (iteration throws: a malformed line is a
 *   `WatchDecodeError`, a dropped connection a network error). `ERROR` events are
 *   yielded as they come; the reader turns their Status into an `ApiError`.
 * - Aborting `signal`, or leaving the `for await` loop, closes the connection.
 * - Objects from `list` and from `watch` have the same plain-JSON shape.
 */
export interface ListerWatcher<T> {
  /** List one page of objects. */
  list(options: ListOptions, signal: AbortSignal): Promise<ObjectList<T>>;
  /** Start a watch; resolves once the server has accepted it. */
  watch(options: ListOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>>;
}

/**
 * The two calls of a resource client a {@link ListerWatcher} needs; `ResourceClient` from
 * the client module fits.
 */
export interface ListWatchClient<T> {
  /** List one page. */
  list(options: ListOptions, request: { signal?: AbortSignal }): Promise<ObjectList<T>>;
  /** Start a watch. */
  watch(
    options: ListOptions,
    request: { signal?: AbortSignal },
  ): Promise<AsyncIterable<WatchEvent<T>>>;
}

/** Options of {@link listWatchFromClient}. */
export interface ListWatchFromClientOptions {
  /** Label selector applied to every list and watch. */
  labelSelector?: string;
  /** Field selector applied to every list and watch. */
  fieldSelector?: string;
  /**
   * Server-side shard selector (KEP-5866) sent with every list and watch, e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`. A list
   * that comes back without `metadata.shardInfo` may not be filtered (the server lacks the
   * `ShardedListAndWatch` gate; kube-apiserver 1.36 also leaves it off custom resource
   * lists it did filter): its items, and the watch events after it, are then filtered
   * here, and an object outside the ranges is logged once.
   */
  shardSelector?: string;
  /** Where the client-side shard filtering is logged. Default: the library's logger. */
  logger?: Logger;
  /** Name in that log line (e.g. the informer's). Default `list-watch`. */
  name?: string;
  /**
   * Last word on the options of every list and watch (e.g. to add a selector computed at
   * run time). It receives a copy; return a new object or change the copy.
   */
  tweakListOptions?: (options: ListOptions) => ListOptions | void;
}

/**
 * Parse a label and a field selector as the server would, so that a malformed one fails
 * where it is written instead of as a 400 retried forever.
 *
 * @throws `SelectorParseError` naming the selector, the position and the problem.
 *
 * @internal
 */
export function validateSelectors(options: {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  shardSelector?: string | undefined;
}): void {
  if (options.labelSelector !== undefined) parseLabelSelector(options.labelSelector);
  if (options.fieldSelector !== undefined) parseFieldSelector(options.fieldSelector);
  if (options.shardSelector !== undefined && options.shardSelector !== '')
    shardSelectorMatcher(options.shardSelector);
}

/**
 * A {@link ListerWatcher} over a resource client, with the same selectors on lists and
 * watches (client-go's `NewFilteredListWatchFromClient`).
 *
 * @throws `SelectorParseError` (or `ShardSelectorParseError`) at once when a selector is
 *   malformed.
 */
export function listWatchFromClient<T>(
  client: ListWatchClient<T>,
  options: ListWatchFromClientOptions = {},
): ListerWatcher<T> {
  validateSelectors(options);
  const prepare = (base: ListOptions): ListOptions => {
    const o: ListOptions = { ...base };
    if (options.labelSelector !== undefined && options.labelSelector !== '')
      o.labelSelector = options.labelSelector;
    if (options.fieldSelector !== undefined && options.fieldSelector !== '')
      o.fieldSelector = options.fieldSelector;
    if (options.shardSelector !== undefined && options.shardSelector !== '')
      o.shardSelector = options.shardSelector;
    if (options.tweakListOptions === undefined) return o;
    return options.tweakListOptions(o) ?? o;
  };
  const lw: ListerWatcher<T> = {
    list: (listOptions, signal) => client.list(prepare(listOptions), { signal }),
    watch: (watchOptions, signal) => client.watch(prepare(watchOptions), { signal }),
  };
  if (options.shardSelector === undefined || options.shardSelector === '') return lw;
  return shardFilteringListerWatcher(lw, options.shardSelector, {
    logger: options.logger ?? defaultLogger,
    name: options.name ?? 'list-watch',
  });
}

/**
 * Wraps a lister-watcher that sends `shardSelector` so that it also holds when the server
 * ignores it: a list without `metadata.shardInfo` is filtered here, and so are the watch
 * events until a list shows that the server applies the selector (a
 * streaming list has no list metadata, so its events are checked too; an object's uid and
 * namespace never change, so the check is exact). That the server ignored the selector is
 * logged once, when an object outside the ranges arrives: a list without `shardInfo` alone
 * does not show it (kube-apiserver 1.36 filters custom resource lists without one).
 *
 * @throws `ShardSelectorParseError` when `shardSelector` is malformed.
 */
export function shardFilteringListerWatcher<T>(
  lw: ListerWatcher<T>,
  shardSelector: string,
  options: { logger?: Logger; name?: string } = {},
): ListerWatcher<T> {
  const matches = shardSelectorMatcher(shardSelector);
  const logger = options.logger ?? defaultLogger;
  const name = options.name ?? 'list-watch';
  let serverApplies = false;
  let logged = false;
  const logOnce = (why: string): void => {
    if (logged) return;
    logged = true;
    logger.info(
      `${name}: the server did not apply shardSelector ${JSON.stringify(shardSelector)} (${why}; is its ShardedListAndWatch feature gate off?); filtering on the client`,
    );
  };
  return {
    async list(listOptions, signal) {
      const page = await lw.list(listOptions, signal);
      if (page.metadata.shardInfo !== undefined) {
        serverApplies = true;
        return page;
      }
      // No shardInfo is not proof: kube-apiserver 1.36 filters custom resource lists without
      // saying so. Filter here anyway (a no-op on a filtered list), and say the server did
      // not apply the selector only when the list shows it: an object outside the ranges.
      serverApplies = false;
      const kept = page.items.filter(matches);
      if (kept.length < page.items.length)
        logOnce('its list has objects outside the selected ranges');
      return { ...page, items: kept };
    },
    async watch(watchOptions, signal) {
      const stream = await lw.watch(watchOptions, signal);
      if (serverApplies && watchOptions.sendInitialEvents !== true) return stream;
      return filterWatch(stream, (event) => {
        if (event.type === 'BOOKMARK' || event.type === 'ERROR') return true;
        if (matches(event.object)) return true;
        logOnce('its watch sent an object outside the selected ranges');
        return false;
      });
    },
  };
}

/** The events of `stream` that `keep` accepts (the decoder's `takeBuffered` kept). */
function filterWatch<T>(
  stream: AsyncIterable<WatchEvent<T>>,
  keep: (event: WatchEvent<T>) => boolean,
): AsyncIterable<WatchEvent<T>> {
  return {
    [Symbol.asyncIterator]: () => {
      const inner = stream[Symbol.asyncIterator]();
      const take = (inner as { takeBuffered?: unknown }).takeBuffered;
      const takeBuffered =
        typeof take === 'function'
          ? (): WatchEvent<T> | undefined => {
              for (;;) {
                const e = (take as () => WatchEvent<T> | undefined).call(inner);
                if (e === undefined || keep(e)) return e;
              }
            }
          : undefined;
      const it: AsyncIterator<WatchEvent<T>> & {
        takeBuffered?: () => WatchEvent<T> | undefined;
      } = {
        async next() {
          for (;;) {
            const step = await inner.next();
            if (step.done === true || keep(step.value)) return step;
            const buffered = takeBuffered?.();
            if (buffered !== undefined) return { done: false, value: buffered };
          }
        },
        return: async () => (await inner.return?.()) ?? { done: true, value: undefined },
      };
      if (takeBuffered !== undefined) it.takeBuffered = takeBuffered;
      return it;
    },
  };
}
