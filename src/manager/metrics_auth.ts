/**
 * Who may read `/metrics` (controller-runtime's `pkg/metrics/filters`
 * `WithAuthenticationAndAuthorization`, what kubebuilder scaffolds behind
 * `--metrics-secure`): the request's bearer token is authenticated by the API server with a
 * TokenReview, and the user it names is authorized with a SubjectAccessReview for the
 * request's verb (`get`) on its non-resource path (`/metrics`). Decisions are cached
 * briefly, as the delegating authenticator and authorizer do (tokens one minute, allowed
 * five minutes, denied thirty seconds). The answers are controller-runtime's: 401
 * `Unauthorized` without an accepted token, 403 `Authorization denied for user <name>`;
 * when the API server cannot be asked (unreachable, an error status, no answer within
 * `reviewTimeoutMs`), 500 `Authentication failed` for the TokenReview and 500
 * `Authorization for user <name> failed` for the SubjectAccessReview, so that a scraper
 * reports an outage, not a bad token. (controller-runtime answers a token the API server
 * refuses with 500 too, because k8s.io/apiserver's bearer-token authenticator turns a
 * refusal into an error; the kit answers it 401, as kube-apiserver does.)
 *
 * The operator's ServiceAccount needs `create` on `tokenreviews` and
 * `subjectaccessreviews` (the `system:auth-delegator` ClusterRole, or kubebuilder's
 * `metrics-auth-role`); a scraper needs `get` on the non-resource URL `/metrics`
 * (kubebuilder's `metrics-reader`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '../client/transport.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { RequestHandler } from './servers.js';

/** Options of {@link withAuthenticationAndAuthorization}. */
export interface MetricsAuthOptions {
  /** Where the reviews are sent (the Manager's transport). */
  readonly transport: Transport;
  /** Expiry of cached decisions (default the real clock). */
  readonly clock?: Clock;
  /** Where failures to ask the API server are logged. */
  readonly logger?: Logger;
  /** How long an authenticated token is remembered (default 60 000 ms). */
  readonly tokenCacheTtlMs?: number;
  /** How long an allowed decision is remembered (default 300 000 ms). */
  readonly allowCacheTtlMs?: number;
  /** How long a denied decision is remembered (default 30 000 ms). */
  readonly denyCacheTtlMs?: number;
  /**
   * How long one TokenReview or SubjectAccessReview may take (default 10 000 ms,
   * controller-runtime's `TokenAccessReviewTimeout`); past it the scrape is answered 500.
   */
  readonly reviewTimeoutMs?: number;
}

interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

interface TokenReviewAnswer {
  status?: { authenticated?: boolean; user?: ReviewedUser };
}

interface AccessReviewAnswer {
  status?: { allowed?: boolean };
}

/** A small cache of decisions with an expiry each (oldest dropped past `max`). */
class DecisionCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #clock: Clock;
  readonly #max: number;

  constructor(clock: Clock, max = 1024) {
    this.#clock = clock;
    this.#max = max;
  }

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    if (e.expires <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#clock.now() + ttlMs });
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}

function reply(res: ServerResponse, code: number, text: string): void {
  // Go's http.Error: text/plain, nosniff, the message and a newline.
  const body = `${text}\n`;
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

/** The bearer token of a request, as the API server's authenticator reads it. */
function bearer(req: IncomingMessage): string | undefined {
  const parts = (req.headers.authorization ?? '').trim().split(' ', 3);
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  return parts[1] === '' ? undefined : parts[1];
}

/**
 * Wraps a handler so that only requests with a bearer token the API server accepts, from
 * a user allowed `<verb>` on the request's path, reach it.
 */
export function withAuthenticationAndAuthorization(
  handler: RequestHandler,
  options: MetricsAuthOptions,
): RequestHandler {
  const clock = options.clock ?? realClock;
  const tokens = new DecisionCache<ReviewedUser | null>(clock);
  const decisions = new DecisionCache<boolean>(clock);
  const tokenTtl = options.tokenCacheTtlMs ?? 60_000;
  const allowTtl = options.allowCacheTtlMs ?? 300_000;
  const denyTtl = options.denyCacheTtlMs ?? 30_000;

  const timeoutMs = options.reviewTimeoutMs ?? 10_000;

  const authenticate = async (token: string, signal: AbortSignal): Promise<ReviewedUser | null> => {
    const cached = tokens.get(token);
    if (cached !== undefined) return cached;
    const answer = await options.transport.request<TokenReviewAnswer>({
      method: 'POST',
      signal,
      timeoutMs,
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    const user =
      answer.status?.authenticated === true && answer.status.user?.username !== undefined
        ? answer.status.user
        : null;
    tokens.set(token, user, tokenTtl);
    return user;
  };

  const authorize = async (
    user: ReviewedUser,
    verb: string,
    path: string,
    signal: AbortSignal,
  ): Promise<boolean> => {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, verb, path]);
    const cached = decisions.get(key);
    if (cached !== undefined) return cached;
    const spec: Record<string, unknown> = {
      user: user.username,
      groups: user.groups ?? [],
      nonResourceAttributes: { path, verb },
    };
    if (user.uid !== undefined) spec.uid = user.uid;
    if (user.extra !== undefined) spec.extra = user.extra;
    const answer = await options.transport.request<AccessReviewAnswer>({
      method: 'POST',
      signal,
      timeoutMs,
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
    });
    const allowed = answer.status?.allowed === true;
    decisions.set(key, allowed, allowed ? allowTtl : denyTtl);
    return allowed;
  };

  return async (req, res, target) => {
    // A client that goes away cancels the reviews asked for it.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const token = bearer(req);
    let user: ReviewedUser | null = null;
    if (token !== undefined) {
      try {
        user = await authenticate(token, gone.signal);
      } catch (err) {
        // The API server could not be asked: an outage, not a bad token (500, as
        // controller-runtime's filter answers an authenticator error).
        options.logger?.error('metrics: Authentication failed: the TokenReview failed', {
          error: errorMessage(err),
        });
        reply(res, 500, 'Authentication failed');
        return;
      }
    }
    if (user === null) {
      reply(res, 401, 'Unauthorized');
      return;
    }
    const verb = (req.method ?? 'GET').toLowerCase();
    const path = target.path;
    let allowed: boolean;
    try {
      allowed = await authorize(user, verb, path, gone.signal);
    } catch (err) {
      const message = `Authorization for user ${user.username} failed`;
      options.logger?.error(`metrics: ${message}: the SubjectAccessReview failed`, {
        error: errorMessage(err),
      });
      reply(res, 500, message);
      return;
    }
    if (!allowed) {
      reply(res, 403, `Authorization denied for user ${user.username}`);
      return;
    }
    await handler(req, res, target);
  };
}
