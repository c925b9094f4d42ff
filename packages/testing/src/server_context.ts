/**
 * What the HTTP layer of the test API server (router, resource handlers, watch handler)
 * shares: the registry, the store and its storage, the clock, the open watches, the
 * timers to cancel on close, and the parsed form of a resource request.
 *
 * @module
 */
import type { Clock, Logger, Timer } from 'kube-controller-kit';
import type { Authenticator, UserInfo } from './authentication.js';
import type { Authorizer } from './authorization.js';
import type { RequestVerb } from './faults.js';
import type { OpenWatches } from './open_watches.js';
import type { ResourceRegistry, ResourceType } from './registry/resource_registry.js';
import type { RequestGate } from './request_gate.js';
import type { ResourceStore } from './resource_store.js';
import type { ServiceAccountTokens } from './service_account_tokens.js';
import type { TestApiServerFeatureGates } from './feature_gates.js';
import type { Storage } from './storage.js';
import type { TableContext } from './table.js';
import type { WebhookConverter } from './webhook_converter.js';

/** The server settings the HTTP layer reads. */
export interface HttpSettings {
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** How long a list at a future resourceVersion waits before 504. */
  tooLargeResourceVersionWaitMs: number;
  /** Interval of BOOKMARK events on watches that allow them. */
  bookmarkIntervalMs: number;
  /** Alpha features switched on (`--feature-gates`). */
  featureGates: TestApiServerFeatureGates;
}

/** Timers of in-flight requests, cancelled when the server closes. */
export class PendingTimers {
  readonly #timers = new Set<Timer>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Runs `fn` after `ms` on the server's clock unless the server closes first. */
  setTimeout(fn: () => void, ms: number): Timer {
    const timer = this.#clock.setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  /** Cancels one timer. */
  cancel(timer: Timer): void {
    timer.cancel();
    this.#timers.delete(timer);
  }

  /** Resolves after `ms` on the server's clock (never, once the server has closed). */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.setTimeout(resolve, ms);
    });
  }

  /** Cancels every timer. */
  cancelAll(): void {
    for (const t of this.#timers) t.cancel();
    this.#timers.clear();
  }
}

/** The state the HTTP layer works on. */
export interface ServerContext {
  /** Which resources are served. */
  readonly registry: ResourceRegistry;
  /** Object lifecycle rules. */
  readonly store: ResourceStore;
  /** The objects and their change history. */
  readonly storage: Storage;
  /** Timestamps, bookmarks, timeouts. */
  readonly clock: Clock;
  /** Logger. */
  readonly log: Logger;
  /** Open watch streams. */
  readonly watches: OpenWatches;
  /** Timers to cancel on close. */
  readonly timers: PendingTimers;
  /** Settings. */
  readonly settings: HttpSettings;
  /** Who requests come from, and which tokens the server knows. */
  readonly authenticator: Authenticator;
  /** Conversion of custom resources whose CRD converts through a webhook. */
  readonly converter: WebhookConverter;
  /** What users may do (the reviews ask it). */
  readonly authorizer: Authorizer;
  /** Authentication, impersonation and authorization of every request. */
  readonly gate: RequestGate;
  /** Issues the ServiceAccount tokens of TokenRequests. */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** The columns of `as=Table` responses for a resource at a version. */
  tableContext(type: ResourceType, version: string): TableContext;
}

/** A request for a resource, as the router parsed it from the path and method. */
export interface ResourceRequest {
  /** The resource addressed. */
  type: ResourceType;
  /** The version in the path. */
  version: string;
  /** Namespace in the path ('' when none). */
  namespace: string;
  /** Object name in the path ('' for collections). */
  name: string;
  /** Subresource in the path ('' when none). */
  subresource: string;
  /** The verb, from method, path and `watch` parameter. */
  verb: RequestVerb;
  /** Query parameters. */
  query: URLSearchParams;
  /** Who sent the request. */
  user: UserInfo;
}
