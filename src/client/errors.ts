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

/** A request the API server (or a cache standing in for it) answered with a failure. */
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

  /**
   * @param status - the server's Status object.
   * @param options - the HTTP code when the Status lacks one, the Retry-After header's value,
   * and a cause.
   */
  constructor(
    status: Status,
    options: { code?: number; retryAfterSeconds?: number; cause?: unknown; context?: string } = {},
  ) {
    const code = status.code ?? options.code ?? 0;
    const message = status.message ?? `the server answered ${code} ${status.reason ?? ''}`.trim();
    super(options.context ? `${options.context}: ${message}` : message, {
      cause: options.cause,
    });
    this.status = status;
    this.code = code;
    this.reason = status.reason ?? '';
    this.details = status.details;
    this.retryAfterSeconds = options.retryAfterSeconds ?? status.details?.retryAfterSeconds;
  }
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
   */
  constructor(context: string, line: number, byteOffset: number, text: string, cause?: unknown) {
    const excerpt = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    super(
      `${context}: watch stream line ${line} (byte offset ${byteOffset}) is not a watch event: ` +
        `${JSON.stringify(excerpt)}; the watch was closed, start a new one`,
      { cause },
    );
    this.line = line;
    this.byteOffset = byteOffset;
    this.excerpt = excerpt;
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
