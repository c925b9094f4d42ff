/**
 * The guard around the test API server's handler: whatever arrives on a connection gets an
 * HTTP answer with a `Status` body, or a closed connection, never silence and never an
 * error logged as the server's own. Go's net/http (which kube-apiserver serves with)
 * answers what it cannot read before any handler runs; the guard does the same on Node's
 * parser, worded as kube-apiserver words failures:
 *
 * - a request Node cannot parse: 400 (431 for headers past Node's limit, as Go), then the
 *   connection closes; bytes that do not parse after a request in flight (a body longer
 *   than its `Content-Length`, pipelined garbage) wait for that request's answer first, as
 *   Go reads the next request only after the handler returns;
 * - a body whose framing breaks while the handler reads it (a bad chunk size): 400, then
 *   the connection closes (kube-apiserver answers 500 for a body it cannot read; the fault
 *   is the client's, so 400 here);
 * - an HTTP/1.1 request without `Host`: 400 `missing required Host header` (Go's words;
 *   Node's own answer has no body);
 * - an `Expect` other than `100-continue`: 417 (Go's code; Node's own has no body);
 * - `CONNECT`: routed like any other method (the router answers 404 or 405), instead of
 *   Node dropping the connection;
 * - a client that hangs up mid-body, or whose body cannot be read, is logged at debug, not
 *   as a failure of the server.
 *
 * @module
 */
import { ServerResponse } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorMessage } from 'kube-controller-kit';
import type { Logger } from 'kube-controller-kit';
import { sendStatus } from './responses.js';
import { failure } from './status.js';

/** The handler the guard protects; it answers through `res`, and may reject. */
export type GuardedHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface InFlight {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

/** A request whose body could not be read: the client hung up or broke its framing. */
function unreadableBody(req: IncomingMessage, err: unknown): boolean {
  if (req.complete) return false;
  return req.errored === err || req.destroyed || errorMessage(err) === 'aborted';
}

/** The raw answer written on a socket Node's parser gave up on, its body a Status. */
function rawStatus(code: number, reason: string, text: string, message: string, head: boolean) {
  const body = JSON.stringify(failure(code, reason, message));
  return (
    `HTTP/1.1 ${code} ${text}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n` +
    (head ? '' : body)
  );
}

/** Guards one HTTP server's handler; see the module documentation. */
export class HttpGuard {
  readonly #log: Logger;
  readonly #handle: GuardedHandler;
  /** The request being answered on each HTTP/1 socket. */
  readonly #inFlight = new WeakMap<object, InFlight>();

  /** @param log - where client faults are logged (debug) and server faults (error). */
  constructor(log: Logger, handle: GuardedHandler) {
    this.#log = log;
    this.#handle = handle;
  }

  /** The request listener to create the server with. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    const http1 = req.httpVersionMajor !== 2;
    if (http1) {
      const socket = req.socket;
      this.#inFlight.set(socket, { req, res });
      res.once('close', () => {
        if (this.#inFlight.get(socket)?.res === res) this.#inFlight.delete(socket);
      });
    }
    if (http1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
      req.resume();
      res.shouldKeepAlive = false;
      sendStatus(res, failure(400, 'BadRequest', 'missing required Host header'));
      return;
    }
    this.#handle(req, res).catch((err: unknown) => {
      if (unreadableBody(req, err)) {
        this.#log.debug('test API server: the request body could not be read', {
          err: errorMessage(err),
        });
        res.destroy();
        return;
      }
      this.#log.error('test API server: request failed', { err: errorMessage(err) });
      if (!res.headersSent) sendStatus(res, failure(500, 'InternalError', errorMessage(err)));
      else res.destroy();
    });
  };

  /** Installs the guard's listeners on `server` (created with {@link HttpGuard.listener}). */
  attach(server: Server): void {
    // Answered by the listener with a Status, instead of Node's bare 400.
    (server as { requireHostHeader?: boolean }).requireHostHeader = false;
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      res.shouldKeepAlive = false;
      sendStatus(
        res,
        failure(
          417,
          'ExpectationFailed',
          `the expectation ${JSON.stringify(req.headers.expect ?? '')} is not supported; only 100-continue is`,
        ),
      );
    });
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      // Node hands CONNECT over as a tunnel; answer it as a request instead.
      socket.on('error', () => socket.destroy());
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as never);
      res.once('finish', () => {
        res.detachSocket(socket as never);
        socket.end();
      });
      res.once('close', () => socket.destroy());
      this.listener(req, res);
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      this.#clientError(err, socket);
    });
  }

  #clientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const raw = (err as { rawPacket?: unknown }).rawPacket;
    const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
    const answer =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? rawStatus(
            431,
            'RequestHeaderFieldsTooLarge',
            'Request Header Fields Too Large',
            'the request headers are too large',
            head,
          )
        : rawStatus(
            400,
            'BadRequest',
            'Bad Request',
            `the request could not be parsed: ${err.code ?? err.message}`,
            head,
          );
    const inFlight = this.#inFlight.get(socket);
    if (inFlight === undefined) {
      socket.end(answer);
      return;
    }
    const { req, res } = inFlight;
    if (!req.complete) {
      // The body of the request in flight broke: answer it, then close.
      this.#log.debug('test API server: a request body could not be parsed', {
        err: err.code ?? err.message,
      });
      if (res.headersSent) {
        socket.destroy();
        return;
      }
      res.shouldKeepAlive = false;
      sendStatus(
        res,
        failure(
          400,
          'BadRequest',
          `the request body could not be read: ${err.code ?? err.message}`,
        ),
      );
      res.once('finish', () => req.destroy());
      return;
    }
    // Bytes after a whole request: its answer first, then this one, then close.
    const after = (): void => {
      if (socket.writable && !socket.writableEnded) socket.end(answer);
      else socket.destroy();
    };
    if (res.writableFinished) after();
    else {
      res.once('finish', after);
      res.once('close', () => {
        if (!res.writableFinished) socket.destroy();
      });
    }
  }
}
