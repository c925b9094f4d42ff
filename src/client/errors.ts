/**
 * Errors from the API server, typed.
 *
 * Every failed request becomes an {@link ApiError} built from the server's `Status`
 * object. Ask what kind of failure it was with the `is*` helpers, which follow client-go's
 * rule: the reason decides, and the HTTP code decides only when the reason is unknown.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';
import type { GroupResource, Status, StatusDetails, StatusReason } from './types.js';

/**
 * What a request addressed, as read from its path: which resource of which group/version,
 * and (when there is one) the namespace, object name and subresource. The transport fills it
 * in so that a 404 for a resource the server does not serve can say which one.
 */
export interface ApiRequestTarget {
  /** API group (`''` for the core group). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Plural resource name, e.g. `pods`. */
  resource: string;
  /** Namespace, `''` when none. */
  namespace: string;
  /** Object name, `''` when none. */
  name: string;
  /** Subresource, e.g. `status`; `''` when none. */
  subresource: string;
}

/** Options of an {@link ApiError}. */
export interface ApiErrorOptions {
  /** The HTTP code when the Status lacks one. */
  code?: number;
  /** The Retry-After header's value in seconds. */
  retryAfterSeconds?: number;
  /** The underlying error. */
  cause?: unknown;
  /** Which request failed (`GET /api/v1/pods`), put in front of the message. */
  context?: string;
  /** What the request addressed; lets a 404 name the resource the server does not serve. */
  target?: ApiRequestTarget;
}

/**
 * A request the API server (or a cache standing in for it) answered with a failure.
 *
 * The message says what went wrong in words, as kubectl would show it, after the request:
 * `GET /api/v1/namespaces/y/pods: forbidden: serviceaccount ops/x cannot list pods in
 * namespace y`, `the server has no resource widgets.example.com/v1`, `unauthorized: …`,
 * `bad request: …`; other failures carry the server's own message (`pods "x" not found`,
 * `Operation cannot be fulfilled on …`). {@link ApiError.summary} is the same words without
 * the request: stable across retries, fit for deduplicating log lines.
 */
export class ApiError extends KubeControllerKitError {
  /** HTTP status code (0 when the request never got an answer). */
  readonly code: number;
  /** Machine-readable reason from the Status, or `''`. */
  readonly reason: StatusReason;
  /** Details from the Status. */
  readonly details: StatusDetails | undefined;
  /** The full Status object. */
  readonly status: Status;
  /** Seconds to wait before retrying (from `Retry-After` or the Status details). */
  readonly retryAfterSeconds: number | undefined;
  /** The failure in words, without the request (the message minus its `METHOD /path: ` prefix). */
  readonly summary: string;
  /**
   * True when sending the same request again cannot succeed until something outside it
   * changes: bad request (400), credentials (401), permissions (403), a resource the server
   * does not serve or an object that does not exist (404), a method or media type the
   * resource does not take (405, 406, 415), an invalid object (422). See {@link isPermanentError}.
   */
  readonly permanent: boolean;

  /**
   * @param status - the server's Status object.
   * @param options - the HTTP code when the Status lacks one, the Retry-After header's value,
   * a cause, the request (for the message) and what it addressed.
   */
  constructor(status: Status, options: ApiErrorOptions = {}) {
    const code = status.code ?? options.code ?? 0;
    const summary = describeFailure(status, code, options.target);
    super(options.context ? `${options.context}: ${summary}` : summary, {
      cause: options.cause,
    });
    this.status = status;
    this.code = code;
    this.reason = status.reason ?? '';
    this.details = status.details;
    this.retryAfterSeconds = options.retryAfterSeconds ?? status.details?.retryAfterSeconds;
    this.summary = summary;
    this.permanent = permanentCodes.has(permanentCodeOf(this.reason, code));
  }
}

const codeByReason: Partial<Record<string, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  ServerTimeout: 504,
  Timeout: 504,
};

/** The code that classifies a failure: the reason's when it is known, else the HTTP code. */
function permanentCodeOf(reason: string, code: number): number {
  return codeByReason[reason] ?? code;
}

const permanentCodes = new Set([400, 401, 403, 404, 405, 406, 415, 422]);

/** `"system:serviceaccount:ops:x"` → `serviceaccount ops/x`; other users are quoted. */
function describeSubject(user: string): string {
  const sa = /^system:serviceaccount:([^:]+):(.+)$/.exec(user);
  if (sa !== null) return `serviceaccount ${sa[1]}/${sa[2]}`;
  if (user === 'system:anonymous') return 'the anonymous user (no credentials were sent)';
  return `user ${JSON.stringify(user)}`;
}

/**
 * kube-apiserver's authorization refusal: `pods is forbidden: User "u" cannot list resource
 * "pods" in API group "" in the namespace "y"` (or `at the cluster scope`), optionally
 * followed by `: <authorizer's reason>`.
 */
const forbiddenPattern =
  /^(?:.*? is forbidden: )?User "([^"]*)" cannot ([^\s]+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]*)"| at the cluster scope)?(?:: ([^]*))?$/;

function describeForbidden(message: string): string {
  const m = forbiddenPattern.exec(message);
  if (m === null) return /\bforbidden\b/i.test(message) ? message : `forbidden: ${message}`;
  const [, user = '', verb = '', resourcePath = '', group = '', namespace, why] = m;
  const [resource = '', ...sub] = resourcePath.split('/');
  const what =
    formatGroupResource({ group, resource }) + (sub.length > 0 ? `/${sub.join('/')}` : '');
  const where = namespace !== undefined ? ` in namespace ${namespace}` : ' at the cluster scope';
  const reason = why !== undefined && why.trim() !== '' ? ` (${why.trim()})` : '';
  return `forbidden: ${describeSubject(user)} cannot ${verb} ${what}${where}${reason}`;
}

/** `widgets.example.com/v1`, `pods/v1`. */
function formatGroupVersionResource(t: ApiRequestTarget): string {
  return `${formatGroupResource(t)}/${t.version}`;
}

/** The failure in words, as kubectl shows it; see {@link ApiError}. */
function describeFailure(
  status: Status,
  code: number,
  target: ApiRequestTarget | undefined,
): string {
  const message = (status.message ?? '').trim();
  const reason = status.reason ?? '';
  const kind = permanentCodeOf(reason, code);
  switch (kind) {
    case 400:
      return message === ''
        ? 'bad request'
        : /^bad request\b/i.test(message)
          ? message
          : `bad request: ${message}`;
    case 401:
      return message === '' || message === 'Unauthorized'
        ? "unauthorized: the server did not accept the kubeconfig user's credentials (a missing, wrong or expired token or certificate)"
        : `unauthorized: ${message}`;
    case 403:
      return describeForbidden(message === '' ? 'forbidden' : message);
    case 404: {
      const named = status.details?.name !== undefined && status.details.name !== '';
      if (!named && target !== undefined && target.resource !== '') {
        return target.subresource !== ''
          ? `the server has no subresource ${JSON.stringify(target.subresource)} of ${formatGroupVersionResource(target)}`
          : `the server has no resource ${formatGroupVersionResource(target)}; is its CustomResourceDefinition installed, or the API version right?`;
      }
      return message === '' ? `not found (${code})` : message;
    }
    default:
      return message === '' ? `the server answered ${code} ${reason}`.trim() : message;
  }
}

/**
 * Whether retrying the same request cannot help until something outside it changes (see
 * {@link ApiError.permanent}); also true for a {@link KubeConfigError}. Connection failures,
 * timeouts, 409, 410, 429 and 5xx answers are transient. Callers that keep retrying anyway
 * (a reflector does, as client-go's) use it to report the failure loudly and once.
 */
export function isPermanentError(err: unknown): boolean {
  if (err instanceof ApiError) return err.permanent;
  return err instanceof KubeConfigError;
}

/** Renders `group/resource` as the API server does in messages: `pods`, `deployments.apps`. */
export function formatGroupResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/**
 * The object asked for does not exist: 404, reason `NotFound`, with the API server's
 * message form (`pods "x" not found`). Listers throw it too.
 */
export class NotFoundError extends ApiError {
  /** The group of the missing object. */
  readonly group: string;
  /** The resource of the missing object. */
  readonly resource: string;
  /** The name of the missing object. */
  readonly objectName: string;

  /** @param groupResource - what kind of object; @param name - its name. */
  constructor(groupResource: GroupResource, name: string) {
    super({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: `${formatGroupResource(groupResource)} "${name}" not found`,
      details: { name, group: groupResource.group, kind: groupResource.resource },
    });
    this.group = groupResource.group;
    this.resource = groupResource.resource;
    this.objectName = name;
  }
}

const knownReasons = new Set<string>([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

function matches(err: unknown, reason: string, code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.reason === reason) return true;
  return !knownReasons.has(err.reason) && err.code === code;
}

/** 404 NotFound. */
export function isNotFound(err: unknown): err is ApiError {
  return matches(err, 'NotFound', 404);
}
/** 409 AlreadyExists (a create of a name that exists). */
export function isAlreadyExists(err: unknown): err is ApiError {
  return err instanceof ApiError && err.reason === 'AlreadyExists';
}
/** 409 Conflict (a write with a stale resourceVersion). */
export function isConflict(err: unknown): err is ApiError {
  return matches(err, 'Conflict', 409);
}
/** 410 Gone: the requested resourceVersion is too old (reason Gone or Expired). */
export function isGone(err: unknown): err is ApiError {
  return matches(err, 'Gone', 410) || isResourceExpired(err);
}
/** 410 Expired: the resourceVersion or continue token has been compacted away. */
export function isResourceExpired(err: unknown): err is ApiError {
  return err instanceof ApiError && err.reason === 'Expired';
}
/** 429 TooManyRequests. */
export function isTooManyRequests(err: unknown): err is ApiError {
  return matches(err, 'TooManyRequests', 429);
}
/** 422 Invalid. */
export function isInvalid(err: unknown): err is ApiError {
  return matches(err, 'Invalid', 422);
}
/** 400 BadRequest. */
export function isBadRequest(err: unknown): err is ApiError {
  return matches(err, 'BadRequest', 400);
}
/** 403 Forbidden. */
export function isForbidden(err: unknown): err is ApiError {
  return matches(err, 'Forbidden', 403);
}
/** 401 Unauthorized. */
export function isUnauthorized(err: unknown): err is ApiError {
  return matches(err, 'Unauthorized', 401);
}
/** 500 InternalError. */
export function isInternalError(err: unknown): err is ApiError {
  return matches(err, 'InternalError', 500);
}
/** 503 ServiceUnavailable. */
export function isServiceUnavailable(err: unknown): err is ApiError {
  return matches(err, 'ServiceUnavailable', 503);
}
/**
 * The server refused a resourceVersion newer than it has seen ("Too large resource
 * version"): the cause `ResourceVersionTooLarge`, or a Timeout whose message says so.
 */
export function isTooLargeResourceVersion(err: unknown): err is ApiError {
  if (!(err instanceof ApiError)) return false;
  if (err.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge') === true)
    return true;
  return err.reason === 'Timeout' && /too large resource version/i.test(err.message);
}

/**
 * A watch stream carried a line that is not a watch event (not JSON, or without `type` and
 * `object`). The connection is closed; the reader should start a new watch (a reflector
 * relists).
 */
export class WatchDecodeError extends KubeControllerKitError {
  /** 1-based number of the offending line in the stream. */
  readonly line: number;
  /** Byte offset of the offending line from the start of the (decompressed) body. */
  readonly byteOffset: number;
  /** The start of the offending line, at most 120 characters. */
  readonly excerpt: string;

  /**
   * @param context - which watch (method and redacted path).
   * @param line - 1-based line number.
   * @param byteOffset - where the line starts.
   * @param text - the offending line (it is truncated here).
   * @param cause - the parse error, if any.
   * @param problem - what is wrong with the line (default: it is not a watch event).
   */
  constructor(
    context: string,
    line: number,
    byteOffset: number,
    text: string,
    cause?: unknown,
    problem = 'is not a watch event',
  ) {
    const excerpt = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    super(
      `${context}: watch stream line ${line} (byte offset ${byteOffset}) ${problem}: ` +
        `${JSON.stringify(excerpt)}; the watch was closed, start a new one`,
      { cause },
    );
    this.line = line;
    this.byteOffset = byteOffset;
    this.excerpt = excerpt;
  }
}

/**
 * A watch stream line longer than the decoder's limit (`maxWatchEventBytes` of the
 * transport, default 16 MiB): the server, or a proxy, sent more
 * bytes without a newline than one event may have. The decoder stops reading at the limit,
 * so it never holds more than that; the watch is closed, and a reflector relists. client-go
 * refuses such a frame too (`ErrObjectTooLarge`, 16 MiB).
 */
export class WatchEventTooLargeError extends WatchDecodeError {
  /** The limit, in bytes. */
  readonly limit: number;
  /** The bytes of the line read when the decoder stopped (more than `limit`). */
  readonly bytesRead: number;

  /**
   * @param context - which watch (method and redacted path).
   * @param line - 1-based line number.
   * @param byteOffset - where the line starts.
   * @param head - the start of the line (it is truncated for the message).
   * @param limit - the limit in bytes.
   * @param bytesRead - how many bytes of the line were read.
   */
  constructor(
    context: string,
    line: number,
    byteOffset: number,
    head: string,
    limit: number,
    bytesRead: number,
  ) {
    super(
      context,
      line,
      byteOffset,
      head,
      undefined,
      `is longer than the limit of ${limit} bytes per event (${bytesRead} bytes read without a newline; ` +
        `raise maxWatchEventBytes if the server's objects are that large)`,
    );
    this.limit = limit;
    this.bytesRead = bytesRead;
  }
}

/**
 * A successful (2xx) answer whose body is not JSON — a proxy's HTML page, a truncated body.
 * Nothing was decoded; a read can be retried, a write may or may not have taken effect.
 */
export class ResponseDecodeError extends KubeControllerKitError {
  /** The HTTP status code of the answer. */
  readonly statusCode: number;
  /** The start of the body, at most 120 characters. */
  readonly excerpt: string;

  /**
   * @param context - which request (method and redacted URL).
   * @param statusCode - the HTTP status.
   * @param body - the body that did not parse (it is truncated here).
   * @param cause - the parse error.
   */
  constructor(context: string, statusCode: number, body: string, cause?: unknown) {
    const excerpt = body.length > 120 ? `${body.slice(0, 120)}…` : body;
    super(
      `${context}: the ${statusCode} answer's body is not JSON (${body.length} characters, ` +
        `starting ${JSON.stringify(excerpt)}); is a proxy in the way?`,
      { cause },
    );
    this.statusCode = statusCode;
    this.excerpt = excerpt;
  }
}

/** A request got no complete answer within its timeout. The request was cancelled. */
export class RequestTimeoutError extends KubeControllerKitError {
  /** The timeout that expired, in milliseconds. */
  readonly timeoutMs: number;

  /** @param context - which request (method and redacted URL); @param timeoutMs - the limit. */
  constructor(context: string, timeoutMs: number) {
    super(
      `${context}: no complete answer within ${timeoutMs} ms; the request was cancelled ` +
        `(raise timeoutMs or check that the API server is reachable and healthy)`,
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The request failed below HTTP: connection refused or reset, DNS, TLS. `cause` holds the
 * Node.js error (its `code`, such as `ECONNREFUSED`, is copied to {@link ConnectionError.code}).
 */
export class ConnectionError extends KubeControllerKitError {
  /** The Node.js error code, such as `ECONNREFUSED`, `ECONNRESET`, or `''`. */
  readonly code: string;

  /** @param context - which request (method and redacted URL); @param cause - the Node.js error. */
  constructor(context: string, cause: unknown) {
    const code =
      typeof cause === 'object' &&
      cause !== null &&
      typeof (cause as { code?: unknown }).code === 'string'
        ? (cause as { code: string }).code
        : '';
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`${context} failed: ${detail}; check the server address, network and TLS settings`, {
      cause,
    });
    this.code = code;
  }
}

/** The KubeConfig cannot be used: no current cluster, an invalid server URL, unusable credentials. */
export class KubeConfigError extends KubeControllerKitError {}

/** Discovery found no resource for a kind (group/version/kind) or a resource name. */
export class NoMatchError extends KubeControllerKitError {
  /** What was looked up, as given (e.g. `apps/v1, Kind=Deployment` or `deploy`). */
  readonly query: string;

  /** @param query - what was looked up; @param message - the full message. */
  constructor(query: string, message: string) {
    super(message);
    this.query = query;
  }
}
