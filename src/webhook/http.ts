/**
 * What the webhook server hands a registered webhook and what it takes back: the request
 * body (already limited to {@link MAX_REQUEST_BYTES}), its content type and a signal; a
 * status code and a JSON body.
 *
 * @module
 */

/**
 * The largest request body a webhook reads: 7 MiB, as controller-runtime (an
 * AdmissionReview holds at most two objects of up to 3 MiB each, plus under 1 MiB of the
 * rest). The server stops reading at the limit (a `Content-Length` over it is refused
 * before reading) and hands the webhook `bodyTooLarge`.
 */
export const MAX_REQUEST_BYTES = 7 * 1024 * 1024;

/** A request as the server hands it to a webhook. */
export interface WebhookHttpRequest {
  /** The path it was sent to. */
  path: string;
  /** The body, at most {@link MAX_REQUEST_BYTES} bytes (empty when none was sent). */
  body: Buffer;
  /** True when the body was longer than {@link MAX_REQUEST_BYTES} (then `body` is empty). */
  bodyTooLarge: boolean;
  /** The `Content-Type` header, if any. */
  contentType: string | undefined;
  /** Aborts when the client goes away or the server stops. */
  signal: AbortSignal;
}

/** A webhook's answer: an HTTP status and a body sent as JSON (none when `undefined`). */
export interface WebhookHttpResponse {
  /** HTTP status code. */
  statusCode: number;
  /** The body, serialized as JSON. */
  body?: unknown;
}

/** Anything the webhook server can serve at a path. */
export interface HttpWebhook {
  /** Answer one request. Never rejects: failures are answers. */
  serveHTTP(request: WebhookHttpRequest): Promise<WebhookHttpResponse>;
}

/**
 * True when a `Content-Type` header names `application/json` (parameters allowed).
 *
 * @internal
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * True for the errors JavaScript raises on a programming mistake (`TypeError`,
 * `RangeError`, `ReferenceError`, `SyntaxError`, `EvalError`, `URIError`): what a Go panic
 * is to controller-runtime. The typed handlers answer these with code 500 and count a
 * panic; any other thrown error is the handler's answer.
 */
export function isProgrammingError(err: unknown): boolean {
  return (
    err instanceof TypeError ||
    err instanceof RangeError ||
    err instanceof ReferenceError ||
    err instanceof SyntaxError ||
    err instanceof EvalError ||
    err instanceof URIError
  );
}
