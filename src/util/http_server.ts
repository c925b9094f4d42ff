/**
 * The one place that serves HTTP for the kit: every server it runs (the webhook server, the
 * probe server, the metrics server, secured or not) is a {@link GuardedHttpServer}, which
 * guards its handler as Go's `net/http` server does, so that no handler can forget to.
 *
 * **Whatever arrives gets an answer or a closed connection; nothing escapes.**
 * - A request-target that does not parse ({@link parseRequestTarget}) is answered
 *   `400 Bad Request` (with `Connection: close` on HTTP/1.1, as Go writes it) before any
 *   handler runs; a handler gets the parsed target and never parses `req.url` itself.
 * - A handler that throws or rejects is answered `500 Internal Server Error` (when it had
 *   not started its answer; else the connection or stream is reset) and logged once, at
 *   error, with its stack: that is a bug in the server, not in the client.
 * - A response or socket `error` (a write after the end, a reset) is logged, never thrown.
 * - HTTP parse errors (a malformed request line or header, headers over
 *   `maxHeaderBytes`) are answered as Node answers them: 400, 431, and 408 on a timeout,
 *   then the connection closes. Bytes that do not parse after a whole request wait for
 *   that request's answer first, as Go reads the next request only once the handler
 *   returned (Node's default wrote the 400 in its place). TLS garbage ends the handshake.
 * - Client mistakes are logged at debug, one line each, without a stack.
 *
 * **Every phase is bounded** ({@link HttpServerLimits}; controller-runtime's
 * `httpserver.New` values where it sets one):
 * - the TLS handshake, {@link HttpServerLimits.tlsHandshakeTimeoutMs};
 * - the request headers, from the connection's start or the request's first byte,
 *   {@link HttpServerLimits.readHeaderTimeoutMs} (on HTTP/2: the first stream of a session
 *   must open within it);
 * - the whole request, headers and body, {@link HttpServerLimits.readTimeoutMs} (on
 *   HTTP/2, per stream, on the kit's clock);
 * - an idle keep-alive connection or HTTP/2 session with no stream open,
 *   {@link HttpServerLimits.idleTimeoutMs} (on HTTP/2, on the kit's clock);
 * - header bytes, {@link HttpServerLimits.maxHeaderBytes}, and HTTP/2 streams open at once,
 *   {@link HttpServerLimits.maxConcurrentStreams}.
 *
 * A body left unread (over its limit, see {@link readRequestBody}, or not read at all)
 * closes the connection after the answer (HTTP/2: resets the stream with `NO_ERROR`, RFC
 * 9113 §8.1, as Go does), so a client cannot keep the server reading. An `Expect` other
 * than `100-continue` is answered 417 and an HTTP/2 `CONNECT` 405, before any handler, the
 * same way. While stopping, an HTTP/1.1 connection closes once its answer in progress is
 * written (Go's `Shutdown`).
 *
 * @module
 */
import { STATUS_CODES, createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { constants as http2Constants, createSecureServer } from 'node:http2';
import type {
  Http2SecureServer,
  Http2ServerRequest,
  Http2ServerResponse,
  Http2Session,
  ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import type { Clock, Timer } from './clock.js';
import { realClock } from './clock.js';
import { KubeControllerKitError, errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { isBodyAbandoned } from './request_body.js';
import { isRequestTargetError, parseRequestTarget, quoteTarget } from './request_target.js';
import type { RequestTarget } from './request_target.js';

/**
 * The size, time and count limits of a {@link GuardedHttpServer}. Times in milliseconds;
 * `0` turns a time limit off (not the TLS handshake's). docs/limits.md has each beside
 * controller-runtime's and Go's value.
 */
export interface HttpServerLimits {
  /**
   * Time for the TLS handshake, from the connection (default: `readHeaderTimeoutMs`, as Go
   * bounds a handshake by its read timeouts; controller-runtime's: 32 s).
   */
  readonly tlsHandshakeTimeoutMs?: number;
  /**
   * Time to receive a request's headers, from the connection's start or the request's
   * first byte (default 32 000: controller-runtime's `ReadHeaderTimeout`).
   */
  readonly readHeaderTimeoutMs?: number;
  /**
   * Time to receive a whole request, headers and body (default 60 000, kube-apiserver's
   * request timeout; controller-runtime sets no `ReadTimeout`, so a body trickled forever
   * would hold its server). Must not be below `readHeaderTimeoutMs`.
   */
  readonly readTimeoutMs?: number;
  /**
   * Time an idle keep-alive connection, or an HTTP/2 session without a stream, is kept
   * (default 90 000: controller-runtime's `IdleTimeout`).
   */
  readonly idleTimeoutMs?: number;
  /**
   * Largest request line and headers, in bytes (default 16 384, Node's; larger ones are
   * answered 431). controller-runtime allows 1 MiB (Go's default).
   */
  readonly maxHeaderBytes?: number;
  /** HTTP/2 streams a session may have open at once (default 250, Go's HTTP/2 server's). */
  readonly maxConcurrentStreams?: number;
}

/** The defaults of {@link HttpServerLimits}. */
export const DEFAULT_HTTP_SERVER_LIMITS: Readonly<Required<HttpServerLimits>> = Object.freeze({
  tlsHandshakeTimeoutMs: 32_000,
  readHeaderTimeoutMs: 32_000,
  readTimeoutMs: 60_000,
  idleTimeoutMs: 90_000,
  maxHeaderBytes: 16 * 1024,
  maxConcurrentStreams: 250,
});

/** Limits that make no sense (negative, not an integer, a read timeout below the header one). */
export class InvalidServerLimitsError extends KubeControllerKitError {}

/**
 * The limits with every default filled in.
 *
 * @throws {@link InvalidServerLimitsError} naming the limit that is not a non-negative
 * integer, a TLS handshake time of 0, or a `readTimeoutMs` below `readHeaderTimeoutMs`.
 */
export function resolveHttpServerLimits(
  limits: HttpServerLimits = {},
  what = 'server',
): Required<HttpServerLimits> {
  const readHeaderTimeoutMs =
    limits.readHeaderTimeoutMs ?? DEFAULT_HTTP_SERVER_LIMITS.readHeaderTimeoutMs;
  const out: Required<HttpServerLimits> = {
    readHeaderTimeoutMs,
    tlsHandshakeTimeoutMs:
      limits.tlsHandshakeTimeoutMs ??
      (readHeaderTimeoutMs > 0
        ? readHeaderTimeoutMs
        : DEFAULT_HTTP_SERVER_LIMITS.tlsHandshakeTimeoutMs),
    readTimeoutMs: limits.readTimeoutMs ?? DEFAULT_HTTP_SERVER_LIMITS.readTimeoutMs,
    idleTimeoutMs: limits.idleTimeoutMs ?? DEFAULT_HTTP_SERVER_LIMITS.idleTimeoutMs,
    maxHeaderBytes: limits.maxHeaderBytes ?? DEFAULT_HTTP_SERVER_LIMITS.maxHeaderBytes,
    maxConcurrentStreams:
      limits.maxConcurrentStreams ?? DEFAULT_HTTP_SERVER_LIMITS.maxConcurrentStreams,
  };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new InvalidServerLimitsError(
        `${what}: ${name} must be a non-negative integer, got ${String(value)}`,
      );
    }
  }
  if (out.tlsHandshakeTimeoutMs === 0) {
    throw new InvalidServerLimitsError(`${what}: tlsHandshakeTimeoutMs must be above 0`);
  }
  if (out.maxHeaderBytes === 0 || out.maxConcurrentStreams === 0) {
    throw new InvalidServerLimitsError(
      `${what}: maxHeaderBytes and maxConcurrentStreams must be above 0`,
    );
  }
  if (out.readTimeoutMs > 0 && out.readTimeoutMs < out.readHeaderTimeoutMs) {
    throw new InvalidServerLimitsError(
      `${what}: readTimeoutMs (${out.readTimeoutMs}) must not be below readHeaderTimeoutMs (${out.readHeaderTimeoutMs})`,
    );
  }
  return out;
}

/** A request as a guarded handler gets it: HTTP/1.1, or HTTP/2 through Node's compatibility API. */
export type GuardedRequest = IncomingMessage | Http2ServerRequest;
/** A response as a guarded handler gets it. */
export type GuardedResponse = ServerResponse | Http2ServerResponse;

/**
 * A handler behind the guard: gets the parsed request-target; may throw or reject (the
 * guard answers 500 and logs it).
 */
export type GuardedHandler<
  Req extends GuardedRequest = GuardedRequest,
  Res extends GuardedResponse = GuardedResponse,
> = (req: Req, res: Res, target: RequestTarget) => void | Promise<void>;

interface CommonOptions {
  /** The server's name in logs (`webhook server`, `metrics server`). */
  readonly name: string;
  /** Its limits (defaults {@link DEFAULT_HTTP_SERVER_LIMITS}). */
  readonly limits?: HttpServerLimits;
  /** Where client mistakes (debug) and handler failures (error) are logged. */
  readonly logger: Logger;
  /** The clock of the HTTP/2 session and stream timers and of the shutdown grace (default real). */
  readonly clock?: Clock;
}

/** Options of a {@link GuardedHttpServer} speaking HTTP/1.1, plain or over TLS. */
export interface Http1GuardedServerOptions extends CommonOptions {
  /** Serve HTTPS with these options (certificate, key, client CA); plain HTTP when absent. */
  readonly tls?: SecureContextOptions & TlsOptions;
  /** HTTP/1.1 only. */
  readonly http2?: false;
  /** The handler. */
  readonly handler: GuardedHandler<IncomingMessage, ServerResponse>;
}

/** Options of a {@link GuardedHttpServer} speaking HTTP/2 and HTTP/1.1 over TLS (ALPN). */
export interface Http2GuardedServerOptions extends CommonOptions {
  /** The certificate, key and TLS settings. */
  readonly tls: SecureContextOptions & TlsOptions;
  /** Offer `h2` as well as `http/1.1`. */
  readonly http2: true;
  /** The handler. */
  readonly handler: GuardedHandler;
}

/** Options of a {@link GuardedHttpServer}. */
export type GuardedHttpServerOptions = Http1GuardedServerOptions | Http2GuardedServerOptions;

/** The Node server under a {@link GuardedHttpServer}: HTTP, HTTPS, or HTTPS with HTTP/2. */
export type NodeServer = HttpServer | HttpsServer | Http2SecureServer;

/** How often Node checks the header and request timeouts of HTTP/1.1 connections. */
function checkingInterval(limits: Required<HttpServerLimits>): number {
  const shortest = Math.min(
    ...[limits.readHeaderTimeoutMs, limits.readTimeoutMs].filter((t) => t > 0),
    4000,
  );
  return Math.max(10, Math.min(1000, Math.floor(shortest / 4)));
}

function isHttp1(req: GuardedRequest): boolean {
  return req.httpVersionMajor === 1;
}

/** Go's `http.Error`: text/plain, nosniff, the text and a newline. */
function plainAnswer(
  req: GuardedRequest,
  res: GuardedResponse,
  status: number,
  text: string,
  close: boolean,
): void {
  const body = `${text}\n`;
  const headers: Record<string, string | number> = {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
  };
  if (close && isHttp1(req)) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
}

/** The HTTP/2 stream under a compatibility-API request. */
function streamOf(req: GuardedRequest): ServerHttp2Stream | undefined {
  return isHttp1(req) ? undefined : (req as Http2ServerRequest).stream;
}

/** Close what carries `req`: the HTTP/1.1 connection once its answer is written, or the HTTP/2 stream. */
function closeCarrier(req: GuardedRequest, code = http2Constants.NGHTTP2_NO_ERROR): void {
  const stream = streamOf(req);
  if (stream !== undefined) {
    if (!stream.closed && !stream.destroyed) stream.close(code);
    return;
  }
  const socket = (req as IncomingMessage).socket as Socket | null;
  if (socket !== null && !socket.destroyed) socket.destroySoon();
}

/**
 * Call `fn` once the answer is written: HTTP/1.1, the response's `finish`; HTTP/2, the
 * stream's own `finish` (the compatibility response emits `finish` only when the stream
 * closes, which a client that still owes its body can put off for ever).
 */
function onAnswered(
  req: GuardedRequest,
  res: GuardedResponse,
  fn: () => void,
  waitForEnd = true,
): void {
  const stream = streamOf(req);
  if (stream === undefined) {
    res.once('finish', fn);
    return;
  }
  if (!waitForEnd) {
    // An answer before any handler (417, 405): a few bytes, written at once.
    stream.once('finish', fn);
    return;
  }
  // The compatibility response waits for trailers: its last DATA frame is still queued in
  // nghttp2 at 'finish'. A stream reset then can abort the process (Node 20: a native
  // assertion in Http2Stream::OnTrailers on the destroyed stream, seen with a 7 MiB body
  // the client was still sending), so it is reset only once the answer's end went out:
  // its END_STREAM sent, or the trailers asked for and sent.
  // 'wantTrailers' can come before or after 'finish'.
  let finished = false;
  let trailersAsked = false;
  let called = false;
  const ready = (): void => {
    if (called || !finished) return;
    if (trailersAsked || stream.state.localClose === 1 || stream.destroyed) {
      called = true;
      setImmediate(fn);
    }
  };
  stream.once('wantTrailers', () => {
    trailersAsked = true;
    ready();
  });
  stream.once('finish', () => {
    finished = true;
    ready();
  });
}

/** True once the client has sent the whole request (HTTP/2: its side of the stream is closed). */
function requestComplete(req: GuardedRequest): boolean {
  const stream = streamOf(req);
  if (stream === undefined) return (req as IncomingMessage).complete;
  return stream.destroyed || stream.closed || stream.state.remoteClose === 1;
}

/**
 * An HTTP server (plain, HTTPS, or HTTPS with HTTP/2) whose every request goes through the
 * guard described in this module, with every phase bounded. `listen`, then `close`.
 */
export class GuardedHttpServer {
  /** The name in logs. */
  readonly name: string;
  /** The limits in force. */
  readonly limits: Readonly<Required<HttpServerLimits>>;
  readonly #server: NodeServer;
  readonly #handler: GuardedHandler;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #sockets = new Set<Socket>();
  readonly #sessions = new Set<Http2Session>();
  readonly #timers = new Set<Timer>();
  /** The request being answered on each HTTP/1.1 connection. */
  readonly #inFlight = new WeakMap<object, { req: IncomingMessage; res: ServerResponse }>();
  readonly #tls: boolean;
  #address: AddressInfo | undefined;
  #closing = false;

  /**
   * @param options - protocol, TLS, handler, limits, logger and clock.
   * @throws {@link InvalidServerLimitsError} for limits that make no sense.
   */
  constructor(options: GuardedHttpServerOptions) {
    this.name = options.name;
    this.limits = resolveHttpServerLimits(options.limits, options.name);
    this.#handler = options.handler as GuardedHandler;
    this.#logger = options.logger;
    this.#clock = options.clock ?? realClock;
    this.#tls = options.tls !== undefined;
    const limits = this.limits;
    const onRequest = (req: GuardedRequest, res: GuardedResponse): void => this.#serve(req, res);
    const http1 = {
      headersTimeout: limits.readHeaderTimeoutMs,
      requestTimeout: limits.readTimeoutMs,
      keepAliveTimeout: limits.idleTimeoutMs,
      connectionsCheckingInterval: checkingInterval(limits),
      maxHeaderSize: limits.maxHeaderBytes,
      requireHostHeader: true,
    };
    if (options.http2 === true) {
      const server = createSecureServer(
        {
          ...options.tls,
          allowHTTP1: true,
          handshakeTimeout: limits.tlsHandshakeTimeoutMs,
          settings: {
            maxConcurrentStreams: limits.maxConcurrentStreams,
            maxHeaderListSize: limits.maxHeaderBytes,
          },
        },
        onRequest,
      );
      // The HTTP/1.1 fallback reads the HTTP/1.1 server's settings from this server, which
      // leaves keep-alive unbounded and the Host header optional unless they are set here.
      Object.assign(server, http1);
      server.on('session', (session: Http2Session) => this.#trackSession(session));
      // CONNECT: Node answers an HTTP/2 one 405 and leaves its stream open while the client
      // may still send; the HTTP/1.1 fallback's socket is destroyed, as Node does by default.
      server.on('connect', (req: GuardedRequest, resOrSocket: GuardedResponse | Socket) => {
        if (isHttp1(req)) (resOrSocket as Socket).destroy();
        else this.#refuse(req, resOrSocket as GuardedResponse, 405, 'Method Not Allowed');
      });
      this.#server = server;
    } else if (options.tls !== undefined) {
      this.#server = createHttpsServer(
        { ...options.tls, ...http1, handshakeTimeout: limits.tlsHandshakeTimeoutMs },
        onRequest,
      );
    } else {
      this.#server = createHttpServer(http1, onRequest);
    }
    // An Expect other than 100-continue: 417 (as Go), and the body is not waited for.
    this.#server.on('checkExpectation', (req: GuardedRequest, res: GuardedResponse) => {
      this.#refuse(req, res, 417, 'Expectation Failed');
    });
    this.#server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      this.#clientError(err, socket);
    });
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    if (this.#tls) {
      this.#server.on('tlsClientError', (err: Error) => {
        this.#logger.debug(`${this.name}: TLS handshake failed: ${err.message}`);
      });
    }
  }

  /** The Node server underneath (for its events; never replace its request listener). */
  get server(): NodeServer {
    return this.#server;
  }

  /** The bound address once listening. */
  get address(): AddressInfo | undefined {
    return this.#address;
  }

  /** Connections open now (TCP sockets, in any phase). */
  get connections(): number {
    return this.#sockets.size;
  }

  /**
   * Listen on `port` (0 picks one) and `host` (every address when undefined).
   *
   * @returns the bound address; rejects with the listen error (e.g. `EADDRINUSE`).
   */
  async listen(port: number, host?: string): Promise<AddressInfo> {
    const server = this.#server;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      server.once('error', onError);
      server.listen({ port, ...(host !== undefined ? { host } : {}) }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    // An error after listening (EMFILE on accept) must not be an uncaught 'error' event.
    server.on('error', (err: Error) => {
      this.#logger.error(`${this.name}: the server failed`, { error: err });
    });
    this.#address = server.address() as AddressInfo;
    return this.#address;
  }

  /** Serve a new certificate from the next handshake on. */
  setSecureContext(options: SecureContextOptions): void {
    (this.#server as HttpsServer | Http2SecureServer).setSecureContext(options);
  }

  /**
   * Stop: no new connections; idle ones close at once, and the others as soon as their
   * answer in progress is written; requests in flight get `graceMs` (on the server's clock)
   * to finish, then every connection is destroyed. Resolves once the
   * server and every socket and timer it opened are gone.
   */
  async close(graceMs = 0): Promise<void> {
    this.#closing = true;
    const server = this.#server;
    const closed = new Promise<void>((resolve) => {
      if (!server.listening) resolve();
      else server.close(() => resolve());
    });
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    for (const session of this.#sessions) session.close();
    if (graceMs > 0 && this.#sockets.size > 0) {
      let timer: Timer | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = this.#clock.setTimeout(resolve, graceMs);
      });
      await Promise.race([closed, deadline]);
      timer?.cancel();
    }
    for (const socket of this.#sockets) socket.destroy();
    await closed;
    for (const timer of this.#timers) timer.cancel();
    this.#timers.clear();
  }

  /** A timer on the server's clock, cancelled when `close` ends at the latest. */
  #timer(callback: () => void, delayMs: number): Timer {
    const timer = this.#clock.setTimeout(() => {
      this.#timers.delete(timer);
      callback();
    }, delayMs);
    this.#timers.add(timer);
    return {
      cancel: () => {
        timer.cancel();
        this.#timers.delete(timer);
      },
    };
  }

  /**
   * An HTTP/2 session: its first stream must open within `readHeaderTimeoutMs`; with no
   * stream open, it is closed after `idleTimeoutMs` (Go's `IdleTimeout` counts only time
   * without a request).
   */
  #trackSession(session: Http2Session): void {
    this.#sessions.add(session);
    let open = 0;
    let timer: Timer | undefined;
    const arm = (delayMs: number, why: string): void => {
      timer?.cancel();
      timer = undefined;
      if (delayMs <= 0) return;
      timer = this.#timer(() => {
        timer = undefined;
        this.#logger.debug(`${this.name}: closing an HTTP/2 session ${why}`);
        session.close();
      }, delayMs);
    };
    arm(
      this.limits.readHeaderTimeoutMs,
      `that opened no stream within ${this.limits.readHeaderTimeoutMs} ms`,
    );
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      timer?.cancel();
      timer = undefined;
      stream.once('close', () => {
        open--;
        if (open === 0 && !session.closed && !session.destroyed) {
          arm(this.limits.idleTimeoutMs, `idle for ${this.limits.idleTimeoutMs} ms`);
        }
      });
    });
    session.once('close', () => {
      timer?.cancel();
      this.#sessions.delete(session);
    });
  }

  /** The guard: every request of every protocol comes through here. */
  #serve(req: GuardedRequest, res: GuardedResponse): void {
    // A write after the end, or a reset while writing, is an 'error' event: never uncaught.
    res.on('error', (err: Error) => {
      this.#logger.debug(`${this.name}: writing a response failed: ${err.message}`);
    });
    const target = parseRequestTarget(req.url);
    if (isRequestTargetError(target)) {
      this.#logger.debug(
        `${this.name}: 400 for ${String(req.method)} ${quoteTarget(req.url ?? '')}: ${target.error}`,
      );
      this.#answer(req, res, 400, '400 Bad Request', true);
      return;
    }
    if (isHttp1(req)) {
      const socket = (req as IncomingMessage).socket;
      const inFlight = { req: req as IncomingMessage, res: res as ServerResponse };
      this.#inFlight.set(socket, inFlight);
      res.once('close', () => {
        if (this.#inFlight.get(socket) === inFlight) this.#inFlight.delete(socket);
      });
    }
    this.#boundStream(req, res);
    // A body left unread (over its limit, or not read at all) closes the connection after
    // the answer (HTTP/2: resets the stream with NO_ERROR, RFC 9113 §8.1, as Go does), so
    // a client cannot keep the server waiting for the rest of it.
    // While stopping, an HTTP/1.1 connection closes after the answer in progress, as Go's
    // Shutdown closes each connection once it is idle.
    const stopping = (): boolean => this.#closing && isHttp1(req);
    if (stopping()) res.setHeader('connection', 'close');
    onAnswered(req, res, () => {
      if (isBodyAbandoned(req) || !requestComplete(req) || stopping()) closeCarrier(req);
    });
    let result: void | Promise<void>;
    try {
      result = this.#handler(req, res, target);
    } catch (err) {
      this.#failed(req, res, target, err);
      return;
    }
    if (result !== undefined) {
      Promise.resolve(result).catch((err: unknown) => this.#failed(req, res, target, err));
    }
  }

  /**
   * HTTP/2: the whole request of a stream within `readTimeoutMs`, on the kit's clock. Past
   * it, a stream whose client still owes part of its request is answered 408 (when no
   * answer has started) and reset; so is one that was answered but whose client never
   * finished sending (Node cannot always reset it at once: a HEAD answer never `finish`es).
   */
  #boundStream(req: GuardedRequest, res: GuardedResponse): void {
    const stream = streamOf(req);
    const limit = this.limits.readTimeoutMs;
    if (stream === undefined || limit <= 0 || stream.endAfterHeaders) return;
    const timer = this.#timer(() => {
      if (requestComplete(req)) return;
      this.#logger.debug(
        `${this.name}: the request of an HTTP/2 stream was not received within ${limit} ms`,
      );
      if (!res.headersSent) this.#answer(req, res, 408, 'Request Timeout', false);
      closeCarrier(req, http2Constants.NGHTTP2_CANCEL);
    }, limit);
    req.once('end', () => timer.cancel());
    stream.once('close', () => timer.cancel());
  }

  /**
   * Bytes Node's HTTP/1.1 parser refused (or a header or request timeout): Node's answer
   * (431 for headers past `maxHeaderBytes`, 408 for a timeout, else 400) and the connection
   * closed. When they follow a whole request still being answered, that answer goes out
   * first (Go reads the next request only after the handler returns); when the request in
   * flight is the one that broke (its body's framing), the socket is closed, as Node does.
   */
  #clientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    // A TLS handshake failure comes here too (the HTTPS server re-emits it): nothing can be
    // written on that connection, nor on one that reset.
    const parserOrTimeout =
      err.code !== undefined &&
      (err.code.startsWith('HPE_') || err.code === 'ERR_HTTP_REQUEST_TIMEOUT');
    if (!parserOrTimeout || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    this.#logger.debug(
      `${this.name}: ${status} for a request that does not parse: ${err.code ?? err.message}`,
    );
    const answer = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n\r\n`;
    const answerAndClose = (): void => {
      if (socket.writable && !socket.writableEnded) socket.write(answer, () => socket.destroy());
      else socket.destroy();
    };
    const inFlight = this.#inFlight.get(socket);
    if (inFlight === undefined) {
      answerAndClose();
      return;
    }
    const { req, res } = inFlight;
    if (!req.complete || res.headersSent) {
      // The request in flight is the one that broke, or its answer is under way: the
      // connection cannot carry another answer.
      if (res.headersSent) socket.destroy();
      else answerAndClose();
      return;
    }
    res.once('finish', answerAndClose);
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
  }

  /** Answer before any handler, then close what carries the request (its body is not read). */
  #refuse(req: GuardedRequest, res: GuardedResponse, status: number, text: string): void {
    res.on('error', (err: Error) => {
      this.#logger.debug(`${this.name}: writing a response failed: ${err.message}`);
    });
    this.#logger.debug(
      `${this.name}: ${status} for ${String(req.method)} ${quoteTarget(req.url ?? '')}`,
    );
    this.#boundStream(req, res);
    onAnswered(req, res, () => closeCarrier(req), false);
    this.#answer(req, res, status, text, true);
  }

  #failed(req: GuardedRequest, res: GuardedResponse, target: RequestTarget, err: unknown): void {
    this.#logger.error(
      `${this.name}: the handler of ${String(req.method)} ${quoteTarget(target.path)} failed`,
      { error: err },
    );
    if (!res.headersSent) {
      this.#answer(req, res, 500, 'Internal Server Error', false);
    } else if (!res.writableEnded) {
      // Half an answer is out: reset, so the client does not take it for a whole one.
      const stream = streamOf(req);
      if (stream !== undefined) closeCarrier(req, http2Constants.NGHTTP2_INTERNAL_ERROR);
      else (req as IncomingMessage).socket?.destroy();
    }
  }

  #answer(
    req: GuardedRequest,
    res: GuardedResponse,
    status: number,
    text: string,
    close: boolean,
  ): void {
    try {
      plainAnswer(req, res, status, text, close);
    } catch (err) {
      this.#logger.debug(`${this.name}: writing a ${status} answer failed: ${errorMessage(err)}`);
      closeCarrier(req, http2Constants.NGHTTP2_INTERNAL_ERROR);
    }
  }
}
