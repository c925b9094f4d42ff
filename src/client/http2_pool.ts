/**
 * HTTP/2 sessions to one API server, for the {@link Transport}: what Go's `http2.Transport`
 * does under client-go.
 *
 * - **ALPN.** A connection offers `h2` and `http/1.1`; when the server picks `http/1.1`
 *   (or nothing) the pool says so once and the transport uses HTTP/1.1 for that server from
 *   then on.
 * - **Multiplexing.** Every request and watch is a stream on a shared session. A session
 *   carries at most the server's `SETTINGS_MAX_CONCURRENT_STREAMS`; the next stream opens a
 *   second session (Go's `StrictMaxConcurrentStreams: false`, kube-apiserver's
 *   `--http2-max-streams-per-connection`).
 * - **Flow control.** Node acknowledges connection-level data as it arrives and stream-level
 *   data only as the stream is read, so a paused body (a slow consumer) stops the server
 *   sending on that stream alone.
 * - **Health check.** While a session carries streams it sends a PING after every
 *   `readIdleTimeoutMs` (client-go 30 s) and destroys the session when no answer comes within
 *   `pingTimeoutMs` (15 s): every stream on it fails with a connection error, so watches are
 *   re-established by their reflectors on a new session.
 * - **GOAWAY.** A session that received GOAWAY takes no new streams; new requests go to a new
 *   session, streams the server accepted finish, and streams it refused (above the last
 *   stream id, or reset with `REFUSED_STREAM`) are reported as unprocessed so that the
 *   transport sends them again, whatever the method.
 *
 * - **Idle connections.** A session left with no open stream is closed (gracefully: GOAWAY
 *   then close) after `idleTimeoutMs` without a new one, 90 s by default: Go's
 *   `http2.Transport` closes idle connections after its `IdleConnTimeout`, which client-go
 *   takes from `http.DefaultTransport` (90 s, set by apimachinery's
 *   `SetOldTransportDefaults`). The next request opens a new session.
 *
 * An idle session does not keep the process alive (as the idle sockets of an HTTP/1.1
 * keep-alive agent), and neither does its idle-close timer (unref'd on the real clock).
 *
 * @module
 */
import * as http2 from 'node:http2';
import * as tls from 'node:tls';
import { RealClock } from '../util/clock.js';
import type { Clock, Timer } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/** client-go's `ReadIdleTimeout` of the HTTP/2 health check, in ms. */
export const DEFAULT_READ_IDLE_TIMEOUT_MS = 30_000;
/** client-go's `PingTimeout` of the HTTP/2 health check, in ms. */
export const DEFAULT_PING_TIMEOUT_MS = 15_000;

/**
 * How long a session with no open stream stays open before it is closed, in ms: client-go's
 * `IdleConnTimeout` (that of `http.DefaultTransport`, which Go's HTTP/2 transport inherits).
 */
export const DEFAULT_IDLE_CONNECTION_TIMEOUT_MS = 90_000;

/** Go's transport default stream window (4 MiB would let 200 stalled watches buffer 800 MiB). */
const STREAM_WINDOW = 1 << 20;
/** Connection window: Node acknowledges connection-level data on arrival, so this only smooths bursts. */
const SESSION_WINDOW = 16 << 20;

const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL } = http2.constants;

/** What the pool needs to know about one server. */
export interface Http2Target {
  /** Host name or IP (no brackets). */
  host: string;
  /** Port. */
  port: number;
  /** `:authority` of requests. */
  authority: string;
  /** TLS options (CA, client certificate, server name, verification). */
  tls: tls.ConnectionOptions;
}

/** Options of an {@link Http2Pool}. */
export interface Http2PoolOptions {
  /** Source of time for the health check. */
  clock: Clock;
  /** Where session events are logged (debug). */
  logger: Logger;
  /** Idle read time before a PING, in ms. */
  readIdleTimeoutMs: number;
  /** Time to wait for the PING's answer before the session is declared dead, in ms. */
  pingTimeoutMs: number;
  /**
   * Time a session with no open stream stays open, in ms (0: until the transport is
   * closed). Default {@link DEFAULT_IDLE_CONNECTION_TIMEOUT_MS}.
   */
  idleConnectionTimeoutMs?: number;
}

/** Error of a session found dead by the PING health check. */
export class Http2PingTimeoutError extends Error {
  /** `ERR_HTTP2_PING_TIMEOUT`: a network-level code, as reflectors expect of a dropped connection. */
  readonly code = 'ERR_HTTP2_PING_TIMEOUT';
  /** @param ms - how long the PING went unanswered. */
  constructor(ms: number) {
    super(`the HTTP/2 connection answered no PING within ${ms} ms and was closed`);
    this.name = 'Http2PingTimeoutError';
  }
}

/** One session and its bookkeeping. */
export class Http2Connection {
  /** The Node session. */
  readonly session: http2.ClientHttp2Session;
  /** Streams open on it. */
  active = 0;
  /** Streams it has carried (a failure of a later one may be a stale connection). */
  started = 0;
  /** False after GOAWAY, close or error: it takes no new streams. */
  usable = true;
  #idleTimer: Timer | undefined;
  #pingTimer: Timer | undefined;
  /** Closes the session once it has carried no stream for the idle-connection timeout. */
  #closeTimer: Timer | undefined;
  readonly #pool: Http2Pool;

  constructor(session: http2.ClientHttp2Session, pool: Http2Pool) {
    this.session = session;
    this.#pool = pool;
  }

  /** The most streams the server lets this session carry. */
  get maxStreams(): number {
    return this.session.remoteSettings.maxConcurrentStreams ?? 100;
  }

  /** Counts a new stream; starts the health check and refs the session on the first. */
  acquire(): void {
    this.started++;
    if (this.active++ === 0) {
      this.#closeTimer?.cancel();
      this.#closeTimer = undefined;
      this.session.ref();
      this.#armIdle();
    }
  }

  /**
   * Uncounts a stream; an idle session stops its health check, stops holding the process,
   * and is closed if no stream comes within the idle-connection timeout.
   */
  release(): void {
    if (--this.active > 0) return;
    this.#stopTimers();
    if (this.session.destroyed) return;
    this.session.unref();
    if (!this.session.closed) this.#armClose();
  }

  /** Stops the health check timers. */
  stopTimers(): void {
    this.#stopTimers();
  }

  #stopTimers(): void {
    this.#closeTimer?.cancel();
    this.#closeTimer = undefined;
    this.#idleTimer?.cancel();
    this.#idleTimer = undefined;
    this.#pingTimer?.cancel();
    this.#pingTimer = undefined;
  }

  #armClose(): void {
    const { clock, logger } = this.#pool.options;
    const ms = this.#pool.options.idleConnectionTimeoutMs ?? DEFAULT_IDLE_CONNECTION_TIMEOUT_MS;
    if (!(ms > 0)) return;
    this.#closeTimer = unrefTimeout(clock, ms, () => {
      this.#closeTimer = undefined;
      if (this.active > 0 || this.session.destroyed || this.session.closed) return;
      logger.debug('HTTP/2 connection idle; closing it', { idleConnectionTimeoutMs: ms });
      this.#pool.discard(this);
      // GOAWAY and close: nothing is in flight, so the session ends at once.
      this.session.close();
    });
  }

  #armIdle(): void {
    const { clock, readIdleTimeoutMs } = this.#pool.options;
    if (!(readIdleTimeoutMs > 0)) return;
    this.#idleTimer?.cancel();
    this.#idleTimer = clock.setTimeout(() => this.#ping(), readIdleTimeoutMs);
  }

  #ping(): void {
    this.#idleTimer = undefined;
    if (this.session.destroyed || this.active === 0) return;
    const { clock, pingTimeoutMs, logger } = this.#pool.options;
    this.#pingTimer = clock.setTimeout(() => {
      this.#pingTimer = undefined;
      logger.debug('HTTP/2 health check: no PING answer; closing the connection', {
        pingTimeoutMs,
        streams: this.active,
      });
      this.#pool.discard(this);
      this.session.destroy(new Http2PingTimeoutError(pingTimeoutMs));
    }, pingTimeoutMs);
    try {
      this.session.ping((err) => {
        this.#pingTimer?.cancel();
        this.#pingTimer = undefined;
        // A ping cancelled by the session's end needs no action: the streams fail on their own.
        if (err === null && this.active > 0 && !this.session.destroyed) this.#armIdle();
      });
    } catch {
      // too many unanswered pings or a closing session: the ping timer decides
    }
  }
}

/** Sessions to one server; see the module documentation. */
export class Http2Pool {
  /** The options it was built with. */
  readonly options: Http2PoolOptions;
  readonly #target: Http2Target;
  readonly #connections: Http2Connection[] = [];
  readonly #all = new Set<Http2Connection>();
  #connecting: Promise<Http2Connection | 'http/1.1'> | undefined;
  #closed = false;
  /** Set once the server answered ALPN without `h2`. */
  http1Only = false;

  /** @param target - the server; @param options - clock, logger, health-check timings. */
  constructor(target: Http2Target, options: Http2PoolOptions) {
    this.#target = target;
    this.options = options;
  }

  /** Sessions open now (for tests and benchmarks). */
  get sessionCount(): number {
    return this.#all.size;
  }

  /**
   * A session with room for one more stream, counted as acquired; `'http/1.1'` when the
   * server does not speak HTTP/2 (decided by ALPN on the first connection).
   */
  async acquire(): Promise<Http2Connection | 'http/1.1'> {
    for (;;) {
      if (this.http1Only) return 'http/1.1';
      for (const c of this.#connections) {
        if (c.usable && !c.session.closed && !c.session.destroyed && c.active < c.maxStreams) {
          c.acquire();
          return c;
        }
      }
      if (this.#connecting === undefined) {
        const connecting = this.#connect();
        this.#connecting = connecting;
        void connecting
          .finally(() => {
            if (this.#connecting === connecting) this.#connecting = undefined;
          })
          .catch(() => undefined);
      }
      const got = await this.#connecting;
      if (got === 'http/1.1') return got;
    }
  }

  /** Takes a session out of rotation (GOAWAY, failure): new streams go elsewhere. */
  discard(c: Http2Connection): void {
    c.usable = false;
    const i = this.#connections.indexOf(c);
    if (i >= 0) this.#connections.splice(i, 1);
  }

  /** Destroys every session (and so every stream on them). */
  close(): void {
    this.#closed = true;
    for (const c of [...this.#all]) {
      c.stopTimers();
      c.session.destroy();
    }
    this.#all.clear();
    this.#connections.length = 0;
  }

  #connect(): Promise<Http2Connection | 'http/1.1'> {
    const { host, port, authority } = this.#target;
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        ...this.#target.tls,
        host,
        port,
        servername: this.#target.tls.servername ?? (isIp(host) ? undefined : host),
        ALPNProtocols: ['h2', 'http/1.1'],
      });
      const onError = (err: Error): void => {
        socket.destroy();
        reject(err);
      };
      socket.once('error', onError);
      socket.once('secureConnect', () => {
        if (this.#closed) {
          socket.destroy();
          reject(new Error('the transport was closed'));
          return;
        }
        if (socket.alpnProtocol !== 'h2') {
          socket.off('error', onError);
          socket.destroy();
          this.http1Only = true;
          this.options.logger.debug('the server does not offer HTTP/2 (ALPN); using HTTP/1.1', {
            server: authority,
          });
          resolve('http/1.1');
          return;
        }
        const session = http2.connect(`https://${authority}`, {
          createConnection: () => socket,
          settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
        });
        const c = new Http2Connection(session, this);
        let settled = false;
        session.on('error', (err) => {
          if (!settled) {
            settled = true;
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        socket.off('error', onError);
        session.once('close', () => {
          if (!settled) {
            settled = true;
            reject(new Error('the HTTP/2 connection closed before the server sent its SETTINGS'));
          }
        });
        session.on('goaway', (code, lastStreamId) => {
          this.options.logger.debug('HTTP/2 GOAWAY: new requests go to a new connection', {
            code,
            lastStreamId,
            streams: c.active,
          });
          this.discard(c);
        });
        session.once('close', () => {
          this.discard(c);
          c.stopTimers();
          this.#all.delete(c);
        });
        // The server's SETTINGS (with its stream limit) come first; wait for them.
        session.once('remoteSettings', () => {
          if (settled) return;
          settled = true;
          try {
            session.setLocalWindowSize(SESSION_WINDOW);
          } catch {
            // the session is going away; its streams will fail on their own
          }
          session.unref();
          this.#all.add(c);
          this.#connections.push(c);
          resolve(c);
        });
      });
    });
  }
}

/**
 * True when a stream failed without the server processing it: refused (RST_STREAM
 * `REFUSED_STREAM`, or a stream above a GOAWAY's last stream id, which nghttp2 reports the
 * same way). Go's transport retries such requests on a new connection whatever the method.
 */
export function isUnprocessed(stream: http2.ClientHttp2Stream, err: unknown): boolean {
  if (stream.rstCode === NGHTTP2_REFUSED_STREAM) return true;
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ERR_HTTP2_GOAWAY_SESSION' || code === 'ERR_HTTP2_STREAM_CANCEL';
}

/** Cancels a stream (RST_STREAM `CANCEL`), as Go does when a request's context ends. */
export function cancelStream(stream: http2.ClientHttp2Stream): void {
  if (!stream.closed && !stream.destroyed) stream.close(NGHTTP2_CANCEL);
}

/** A timer on `clock`, unref'd when it is the real clock (it must not keep the process alive). */
function unrefTimeout(clock: Clock, ms: number, callback: () => void): Timer {
  if (!(clock instanceof RealClock)) return clock.setTimeout(callback, ms);
  const handle = setTimeout(callback, ms);
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
