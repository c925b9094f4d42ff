/**
 * The source an informer's reflector reads from.
 *
 * @module
 */
import type { ListOptions, ObjectList, WatchEvent } from '../client/types.js';
import { parseFieldSelector } from '../apimachinery/fields.js';
import { parseLabelSelector } from '../apimachinery/labels.js';

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
 */
export function validateSelectors(options: {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}): void {
  if (options.labelSelector !== undefined) parseLabelSelector(options.labelSelector);
  if (options.fieldSelector !== undefined) parseFieldSelector(options.fieldSelector);
}

/**
 * A {@link ListerWatcher} over a resource client, with the same selectors on lists and
 * watches (client-go's `NewFilteredListWatchFromClient`).
 *
 * @throws `SelectorParseError` at once when a selector is malformed.
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
    if (options.tweakListOptions === undefined) return o;
    return options.tweakListOptions(o) ?? o;
  };
  return {
    list: (listOptions, signal) => client.list(prepare(listOptions), { signal }),
    watch: (watchOptions, signal) => client.watch(prepare(watchOptions), { signal }),
  };
}
