/**
 * Fault injection for the test API server: deterministic, explicit, and scoped to the
 * server (call {@link TestApiServerFaults.reset} between tests that share one).
 *
 * @module
 */
import type { Status } from 'kube-controller-kit';
import { failure } from './status.js';

/** The verbs a request filter can name (as kube-apiserver's audit log names them). */
export type RequestVerb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Selects requests (every given field must match; an empty filter matches all). */
export interface RequestFilter {
  /** One verb or several. */
  verb?: RequestVerb | RequestVerb[];
  /** Plural resource name, e.g. `pods`. */
  resource?: string;
  /** API group ('' for core). */
  group?: string;
  /** Namespace. */
  namespace?: string;
  /** Object name. */
  name?: string;
  /** Subresource, e.g. `status`. */
  subresource?: string;
}

/** Selects open watches (every given field must match). */
export interface WatchSelector {
  /** Plural resource name. */
  resource?: string;
  /** API group. */
  group?: string;
  /** Namespace the watch is scoped to. */
  namespace?: string;
}

/** How to fail requests. */
export interface FailureSpec extends RequestFilter {
  /** HTTP code: 429, 500, 503, 410, or any other failure code. */
  code: number;
  /** For 429/503: the Retry-After header and `details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
  /** The Status message (a default per code otherwise). */
  message?: string;
}

/** What one request looks like to the fault filters. */
export interface RequestInfo {
  /** The verb. */
  verb: RequestVerb;
  /** API group. */
  group: string;
  /** Resource. */
  resource: string;
  /** Namespace ('' when none). */
  namespace: string;
  /** Name ('' when none). */
  name: string;
  /** Subresource ('' when none). */
  subresource: string;
}

/** The server-side operations the watch and history faults act on. */
export interface FaultTarget {
  /** Applies an action to each open watch matching the selector; returns how many. */
  forEachWatch(
    selector: WatchSelector | undefined,
    action: 'end' | 'destroy' | 'pause' | 'resume' | { closeAfter: number } | { write: string },
  ): number;
  /** Compacts all history up to now. */
  compact(): void;
  /** Drops every connection; optionally forgets history. */
  restart(forgetHistory: boolean): void;
}

interface ArmedFailure {
  spec: FailureSpec;
  remaining: number;
}

interface Latency {
  ms: number;
  filter: RequestFilter;
}

/** Whether a request matches a filter. */
export function requestMatches(filter: RequestFilter, req: RequestInfo): boolean {
  if (filter.verb !== undefined) {
    const verbs = Array.isArray(filter.verb) ? filter.verb : [filter.verb];
    if (!verbs.includes(req.verb)) return false;
  }
  if (filter.resource !== undefined && filter.resource !== req.resource) return false;
  if (filter.group !== undefined && filter.group !== req.group) return false;
  if (filter.namespace !== undefined && filter.namespace !== req.namespace) return false;
  if (filter.name !== undefined && filter.name !== req.name) return false;
  if (filter.subresource !== undefined && filter.subresource !== req.subresource) return false;
  return true;
}

const DEFAULT_REASON: Record<number, [string, string]> = {
  400: ['BadRequest', 'injected fault: bad request'],
  403: ['Forbidden', 'injected fault: forbidden'],
  404: ['NotFound', 'injected fault: not found'],
  409: ['Conflict', 'injected fault: conflict'],
  410: ['Expired', 'too old resource version: injected'],
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'Internal error occurred: injected fault'],
  503: [
    'ServiceUnavailable',
    'The server is currently unable to handle the request (injected fault)',
  ],
  504: ['Timeout', 'injected fault: timeout'],
};

/** A failure chosen for one request by {@link TestApiServerFaults.takeFailure}. */
export interface InjectedFailure {
  /** The Status to answer with. */
  status: Status;
  /** The Retry-After header to send, in seconds. */
  retryAfterSeconds?: number;
}

/**
 * The fault controls of a test API server (`server.faults`).
 *
 * @example
 * ```ts
 * server.faults.failNext(2, { verb: 'list', resource: 'pods', code: 429, retryAfterSeconds: 1 });
 * server.faults.closeWatches({ resource: 'pods' });
 * server.faults.compact(); // resuming watches now get 410 Expired
 * ```
 */
export class TestApiServerFaults {
  #failures: ArmedFailure[] = [];
  #latencies: Latency[] = [];
  readonly #target: FaultTarget;

  /** @param target - the server the faults act on (internal). */
  constructor(target: FaultTarget) {
    this.#target = target;
  }

  /** Fails the next `count` requests that match `spec` with its code. */
  failNext(count: number, spec: FailureSpec): void {
    if (count > 0) this.#failures.push({ spec, remaining: count });
  }

  /** Delays every matching request by `ms` (before it is handled); returns the undo. */
  addLatency(ms: number, filter: RequestFilter = {}): () => void {
    const l: Latency = { ms, filter };
    this.#latencies.push(l);
    return () => {
      this.#latencies = this.#latencies.filter((x) => x !== l);
    };
  }

  /** Ends matching watches now, cleanly (the chunked response is terminated). */
  closeWatches(selector?: WatchSelector): number {
    return this.#target.forEachWatch(selector, 'end');
  }

  /** Ends matching open watches cleanly after they have sent `events` more events. */
  closeWatchesAfter(events: number, selector?: WatchSelector): number {
    return this.#target.forEachWatch(selector, { closeAfter: events });
  }

  /** Destroys the sockets of matching watches abruptly (no clean end). */
  destroyWatches(selector?: WatchSelector): number {
    return this.#target.forEachWatch(selector, 'destroy');
  }

  /** Holds events of matching watches without closing them, until {@link resumeWatches}. */
  pauseWatches(selector?: WatchSelector): number {
    return this.#target.forEachWatch(selector, 'pause');
  }

  /** Writes the held events of paused watches and resumes them. */
  resumeWatches(selector?: WatchSelector): number {
    return this.#target.forEachWatch(selector, 'resume');
  }

  /** Writes raw text into matching watches (e.g. a truncated line, or `not json\n`). */
  writeToWatches(text: string, selector?: WatchSelector): number {
    return this.#target.forEachWatch(selector, { write: text });
  }

  /** Writes a line that is not valid JSON into matching watches. */
  writeMalformedLine(selector?: WatchSelector): number {
    return this.writeToWatches('{"type":"ADDED","object":{not json}}\n', selector);
  }

  /** Writes a truncated event (no closing braces, no newline) then ends matching watches. */
  writeTruncatedLineAndClose(selector?: WatchSelector): number {
    const n = this.writeToWatches('{"type":"MODIFIED","object":{"kind":"Po', selector);
    this.closeWatches(selector);
    return n;
  }

  /** Compacts history up to now: watches and continue tokens from earlier versions get 410. */
  compact(): void {
    this.#target.compact();
  }

  /**
   * Simulates an API server restart: every connection is dropped; with `forgetHistory`,
   * watch history is compacted so clients must relist.
   */
  restart(options: { forgetHistory?: boolean } = {}): void {
    this.#target.restart(options.forgetHistory ?? false);
  }

  /** Clears armed failures and latencies. */
  reset(): void {
    this.#failures = [];
    this.#latencies = [];
  }

  /** The failure to answer a request with, consuming one armed failure (internal). */
  takeFailure(req: RequestInfo): InjectedFailure | undefined {
    const f = this.#failures.find((x) => x.remaining > 0 && requestMatches(x.spec, req));
    if (!f) return undefined;
    f.remaining--;
    this.#failures = this.#failures.filter((x) => x.remaining > 0);
    const [reason, message] = DEFAULT_REASON[f.spec.code] ?? ['InternalError', 'injected fault'];
    const details: Status['details'] = {};
    if (f.spec.retryAfterSeconds !== undefined) {
      details.retryAfterSeconds = f.spec.retryAfterSeconds;
    }
    const status = failure(f.spec.code, reason, f.spec.message ?? message, details);
    return f.spec.retryAfterSeconds !== undefined
      ? { status, retryAfterSeconds: f.spec.retryAfterSeconds }
      : { status };
  }

  /** Total latency to add to a request (internal). */
  latencyFor(req: RequestInfo): number {
    let ms = 0;
    for (const l of this.#latencies) if (requestMatches(l.filter, req)) ms += l.ms;
    return ms;
  }
}
