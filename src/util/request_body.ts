/**
 * Reading a request body with a size limit, as controller-runtime's webhooks read theirs
 * through an `io.LimitedReader`: never more than the limit is held, a `Content-Length` over
 * the limit is refused before a byte is read, and reading stops the moment the limit is
 * passed. The connection is then closed after the answer (HTTP/1.1 says `Connection:
 * close`; HTTP/2 resets the stream), so a client that keeps sending holds nothing.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { KubeControllerKitError } from './errors.js';

/** A request whose body can be read (HTTP/1.1 or HTTP/2). */
export type BodyRequest = IncomingMessage | Http2ServerRequest;

/** What {@link readRequestBody} read. */
export type RequestBody =
  | {
      /** The body was within the limit. */
      readonly tooLarge: false;
      /** The whole body (empty when none was sent). */
      readonly body: Buffer;
    }
  | {
      /** The body is over the limit; nothing more is read and the connection will close. */
      readonly tooLarge: true;
      /** The `Content-Length` the client declared, when it declared one over the limit. */
      readonly declaredLength: number | undefined;
      /** The bytes received before reading stopped. */
      readonly bytesRead: number;
    };

/** The client went away, or the stream failed, before the body was complete. */
export class RequestBodyError extends KubeControllerKitError {}

/** Requests whose body was left unread: their connection (or stream) closes after the answer. */
const abandoned = new WeakSet<BodyRequest>();

/** True when the body of `req` was abandoned over its limit (the guard then closes the connection). */
export function isBodyAbandoned(req: BodyRequest): boolean {
  return abandoned.has(req);
}

function abandon(req: BodyRequest, res: ServerResponse | Http2ServerResponse | undefined): void {
  abandoned.add(req);
  req.pause();
  // HTTP/1.1: tell the client, and let Node close the connection once the answer is out.
  if (res !== undefined && req.httpVersionMajor === 1 && !res.headersSent) {
    res.setHeader('Connection', 'close');
  }
}

/**
 * Read the body of `req`, at most `maxBytes` of it.
 *
 * @param res - the response, to mark `Connection: close` when the body is abandoned.
 * @returns the body, or `tooLarge` (at once when `Content-Length` is over the limit).
 * @throws {@link RequestBodyError} when the client goes away or the stream fails first.
 */
export function readRequestBody(
  req: BodyRequest,
  res: ServerResponse | Http2ServerResponse | undefined,
  maxBytes: number,
): Promise<RequestBody> {
  const declaredText = req.headers['content-length'];
  const declared =
    typeof declaredText === 'string' && /^\d+$/.test(declaredText) ? Number(declaredText) : NaN;
  if (declared > maxBytes) {
    abandon(req, res);
    return Promise.resolve({ tooLarge: true, declaredLength: declared, bytesRead: 0 });
  }
  if (req.readableEnded) return Promise.resolve({ tooLarge: false, body: Buffer.alloc(0) });
  return new Promise<RequestBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) {
        cleanup();
        abandon(req, res);
        chunks.length = 0;
        resolve({ tooLarge: true, declaredLength: undefined, bytesRead: size });
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ tooLarge: false, body: Buffer.concat(chunks, size) });
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(
        new RequestBodyError(`reading the request body failed: ${err.message}`, { cause: err }),
      );
    };
    const onClose = (): void => {
      cleanup();
      reject(
        new RequestBodyError(
          `the client went away after ${size} bytes of the request body, before its end`,
        ),
      );
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
