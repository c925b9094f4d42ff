/**
 * The transport: the only place in the library that speaks HTTP to the API server.
 *
 * A {@link Transport} turns a client-node `KubeConfig` into requests over HTTP/2
 * (`node:http2`, one shared connection for every request and watch) to an `https:` server
 * that offers it, as client-go does, else over `node:http` / `node:https` with a keep-alive
 * agent:
 *
 * - **HTTP/2** (option `http2`, default on over TLS unless `DISABLE_HTTP2` is set): ALPN
 *   decides; streams are multiplexed, a second connection opens at the server's
 *   `SETTINGS_MAX_CONCURRENT_STREAMS`, a PING health check (30 s idle, 15 s timeout, on the
 *   {@link Clock}) closes a dead connection so that watches are re-established, GOAWAY and
 *   refused streams are sent again on a new connection (see `http2_pool.ts`).
 *
 * - **Server and TLS** come from the current context's cluster: the CA, the client
 *   certificate and key, the TLS server name, and `insecure-skip-tls-verify` only when the
 *   kubeconfig sets it. A plain `http://` server works as with kubectl, with or without
 *   that flag (client-node alone refuses it without the flag).
 * - **Authentication** is whatever `KubeConfig.applyToHTTPSOptions` applies — bearer token,
 *   token file, client certificate, exec credential plugin, auth provider, basic auth — the
 *   one method that client-node 1.x and 2.x both offer. The result is cached for
 *   `credentialTtlMs` (default 10 s) and re-applied at once after a 401, so expiring
 *   credentials are refreshed without paying for `applyToHTTPSOptions` on every request.
 * - **Bodies** are JSON; gzip is accepted (`Accept-Encoding: gzip`) and decompressed, for
 *   streams too. The user agent is `kube-controller-kit/<version>`.
 * - **Errors** are {@link ApiError}s built from the server's `Status` (or a synthesized one
 *   when the body is not a Status), {@link RequestTimeoutError}, {@link ConnectionError}, or
 *   the abort reason. No credential appears in a message or a log line: URLs are redacted
 *   and headers never leave the transport.
 * - **Retry-After**: a 429 or 5xx answer carrying `Retry-After` is retried after that many
 *   seconds (through the {@link Clock}, abortable), at most `maxRetries` times (default 10),
 *   for every method and for watch starts, as client-go's REST client does. A 5xx without
 *   the header, and any other failure, is returned at once: the caller (a reflector's
 *   backoff, a controller's requeue) decides.
 *
 * Close the transport ({@link Transport.close}) when done: it destroys the pooled sockets.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type * as http2 from 'node:http2';
import * as https from 'node:https';
import { finished } from 'node:stream';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { realClock } from '../util/clock.js';
import type { Clock, Timer } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger, toLogger } from '../util/logger.js';
import type { ApiErrorOptions, ApiRequestTarget } from './errors.js';
import {
  ApiError,
  ConnectionError,
  KubeConfigError,
  RequestTimeoutError,
  ResponseDecodeError,
} from './errors.js';
import type { RestClientMetricsProvider } from './metrics.js';
import { REQUEST_ERROR_CODE, getDefaultRestClientMetricsProvider } from './metrics.js';
import {
  DEFAULT_IDLE_CONNECTION_TIMEOUT_MS,
  DEFAULT_PING_TIMEOUT_MS,
  DEFAULT_READ_IDLE_TIMEOUT_MS,
  Http2Pool,
  cancelStream,
  isUnprocessed,
} from './http2_pool.js';
import type { Http2Connection } from './http2_pool.js';
import { redactUrl } from './redact.js';
import { checkedMaxEventBytes } from './watch_decoder.js';
import type { Status } from './types.js';
import { VERSION } from './version.js';

/** The parts of a kubeconfig cluster entry the transport reads. */
export interface KubeConfigCluster {
  /** The cluster's name in the kubeconfig, used in error messages. */
  name?: string;
  /** The API server URL, e.g. `https://10.0.0.1:6443`. */
  server: string;
  /** True when the kubeconfig sets `insecure-skip-tls-verify`. */
  skipTLSVerify?: boolean;
}

/** The part of a kubeconfig user entry the transport reads. */
export interface KubeConfigUserName {
  /** The user's name in the kubeconfig, used in error messages. */
  name: string;
}

/**
 * What the transport needs from a client-node `KubeConfig`: the two methods that 1.x and 2.x
 * share. A `KubeConfig` of either major fits; so does a hand-written stand-in.
 */
export interface KubeConfigLike {
  /** The cluster of the current context (server URL, skip-verify flag), or null. */
  getCurrentCluster(): KubeConfigCluster | null;
  /** Applies TLS material and authentication headers of the current user to request options. */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
  /** The user of the current context; only its name is read, for error messages. */
  getCurrentUser?(): KubeConfigUserName | null;
}

/** Options of a {@link Transport}. */
export interface TransportOptions {
  /** Source of time for timeouts and Retry-After sleeps. Default: the real clock. */
  clock?: Clock;
  /** Where retries and credential refreshes are logged (debug/warn). Default: warnings to stderr. */
  logger?: Logger;
  /** Timeout of a whole request/response exchange (not of a watch stream), in ms. Default 60 000. */
  timeoutMs?: number;
  /** Retries after a 429/5xx with Retry-After, per request or watch start. Default 10 (client-go's). */
  maxRetries?: number;
  /** How long applied credentials are reused before `applyToHTTPSOptions` runs again, in ms. Default 10 000. */
  credentialTtlMs?: number;
  /** User-Agent header. Default `kube-controller-kit/<version>`. */
  userAgent?: string;
  /** Most sockets open at once to the server over HTTP/1.1 (HTTP/2 shares one). Default: unlimited. */
  maxSockets?: number;
  /**
   * Do not ask for gzipped responses (no `Accept-Encoding` header), as client-go's
   * `DisableCompression`. kube-apiserver gzips large get/list responses for clients that
   * ask; on a fast network, turning this on trades bandwidth for the CPU both sides spend
   * compressing. A response that is gzipped anyway is still inflated. Default: false.
   */
  disableCompression?: boolean;
  /**
   * Receives `rest_client_requests_total` and `rest_client_request_duration_seconds`.
   * Default: the provider set with `setDefaultRestClientMetricsProvider`, if any.
   */
  metricsProvider?: RestClientMetricsProvider;
  /**
   * Speak HTTP/2 to an `https:` server that offers it (ALPN `h2`), as client-go does by
   * default: every request and watch of this transport is a stream on one shared
   * connection (a second one opens when the server's `SETTINGS_MAX_CONCURRENT_STREAMS` is
   * reached). A server that does not offer `h2` is spoken to in HTTP/1.1. `false` keeps
   * HTTP/1.1 with a keep-alive socket per concurrent request, as client-go's
   * `DISABLE_HTTP2`. Plain `http:` servers always get HTTP/1.1. Default: true, unless the
   * environment variable `DISABLE_HTTP2` is set to a non-empty value (as in client-go).
   */
  http2?: boolean;
  /**
   * HTTP/2 health check: a connection carrying streams sends a PING after this long, in
   * ms (client-go's `ReadIdleTimeout`, 30 s). 0 turns the health check off.
   */
  http2ReadIdleTimeoutMs?: number;
  /**
   * HTTP/2 health check: a PING unanswered for this long closes the connection, failing its
   * streams so that watches are re-established on a new one, in ms (client-go's
   * `PingTimeout`, 15 s).
   */
  http2PingTimeoutMs?: number;
  /**
   * An HTTP/2 connection left with no open stream (no request, no watch) for this long is
   * closed, in ms; the next request opens a new one. Default 90 000: client-go's
   * `IdleConnTimeout` (that of Go's `http.DefaultTransport`, which its HTTP/2 transport
   * inherits). 0 keeps idle connections until {@link Transport.close}.
   */
  http2IdleConnectionTimeoutMs?: number;
  /**
   * The longest watch event (one line of a watch response, decompressed) a watch of this
   * transport accepts, in bytes. A longer line ends the watch with a
   * `WatchEventTooLargeError` as soon as the limit is passed (a reflector then relists), so
   * a server or proxy that sends a line without end costs at most this much memory.
   * Default 16 MiB (`defaultMaxWatchEventBytes`), client-go's frame limit.
   */
  maxWatchEventBytes?: number;
}

/** The HTTP methods the API server uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Query parameters; `undefined` values are left out. */
export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

/** One request to the API server. */
export interface RequestSpec {
  /** The HTTP method. */
  method: HttpMethod;
  /** Path below the server URL, starting with `/` (e.g. `/api/v1/namespaces/a/pods`). */
  path: string;
  /** Query parameters. */
  query?: QueryParams;
  /** A body, sent as JSON (strings are sent as they are). */
  body?: unknown;
  /** Content-Type of the body. Default `application/json`. */
  contentType?: string;
  /** Accept header. Default `application/json`. */
  accept?: string;
  /** Cancels the request (and the stream it opened). */
  signal?: AbortSignal | undefined;
  /** Overrides the transport's timeout for this request (for streams: until the headers arrive). */
  timeoutMs?: number | undefined;
  /**
   * Retry after 429/5xx answers carrying `Retry-After`. Default: true, for every method and
   * for watch starts, as client-go's REST client does (the server sends Retry-After only
   * when it did not act on the request).
   */
  retry?: boolean;
}

/** An open response stream: status, headers and the (decompressed) body. */
export interface OpenStream {
  /** HTTP status code (2xx; other codes reject {@link Transport.stream}). */
  statusCode: number;
  /** Response headers. */
  headers: http.IncomingHttpHeaders;
  /** The body, decompressed when the server gzipped it. */
  body: Readable;
  /** `METHOD /path` with secrets redacted, for messages. */
  context: string;
  /** Closes the connection and stops listening to the signal. Safe to call more than once. */
  close(): void;
}

interface Credentials {
  readonly headers: Record<string, string>;
  readonly agent: http.Agent;
  /** The HTTP/2 sessions for these TLS settings, unless HTTP/2 is off. */
  readonly pool: Http2Pool | undefined;
  readonly expiresAt: number;
}

/** A response of either protocol, as the transport reads it. */
interface Response {
  readonly statusCode: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The raw (possibly gzipped) body. */
  readonly body: Readable;
  /** True when the whole body arrived. */
  complete(): boolean;
  /** Closes the response (HTTP/1.1: the socket; HTTP/2: RST_STREAM CANCEL). */
  destroy(): void;
}

interface Opened {
  res: Response;
  context: string;
  finish: () => void;
  timedOut: () => boolean;
}

/** What #open computes once for both protocols. */
interface Prepared {
  path: string;
  context: string;
  headers: Record<string, string>;
  payload: Buffer | undefined;
  timeoutMs: number;
}

const tlsFields = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
] as const;

function isTransport(source: Transport | KubeConfigLike): source is Transport {
  return source instanceof Transport;
}

/**
 * The transport of a KubeConfig or an existing transport: a resource client built from a
 * KubeConfig creates its own transport; pass a shared one to pool connections.
 */
export function toTransport(
  source: Transport | KubeConfigLike,
  options?: TransportOptions,
): Transport {
  return isTransport(source) ? source : new Transport(source, options);
}

/** Authenticated JSON requests and streams to one API server. See the module documentation. */
export class Transport {
  /** The server URL (from the kubeconfig), without a trailing slash; user-info removed. */
  readonly server: string;
  /** The longest watch event accepted, in bytes (see {@link TransportOptions.maxWatchEventBytes}). */
  readonly maxWatchEventBytes: number;
  readonly #kc: KubeConfigLike;
  readonly #base: URL;
  readonly #secure: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #ttl: number;
  readonly #userAgent: string;
  readonly #maxSockets: number;
  readonly #acceptEncoding: Readonly<Record<string, string>>;
  readonly #metrics: RestClientMetricsProvider | undefined;
  readonly #agents = new Map<string, http.Agent>();
  readonly #pools = new Map<string, Http2Pool>();
  readonly #http2: boolean;
  readonly #readIdleTimeoutMs: number;
  readonly #idleConnectionTimeoutMs: number;
  readonly #pingTimeoutMs: number;
  #credentials: Promise<Credentials> | undefined;
  #closed = false;

  /**
   * @param kubeConfig - a client-node `KubeConfig` (1.x or 2.x) with a current context.
   * @param options - timeouts, retries, clock, logger.
   * @throws KubeConfigError when there is no current cluster or its server URL is invalid.
   * @throws RangeError when `maxWatchEventBytes` is not a positive integer.
   */
  constructor(kubeConfig: KubeConfigLike, options: TransportOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (cluster === null || cluster.server === '') {
      throw new KubeConfigError(
        'the kubeconfig has no current cluster with a server URL; set current-context or load a kubeconfig first',
      );
    }
    let base: URL;
    try {
      base = new URL(cluster.server);
    } catch (err) {
      throw new KubeConfigError(
        `the current cluster's server URL ${JSON.stringify(redactUrl(cluster.server))} is not a valid URL; fix the kubeconfig`,
        { cause: err },
      );
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:') {
      throw new KubeConfigError(
        `the current cluster's server URL uses ${base.protocol}; only https: and http: are supported`,
      );
    }
    base.username = '';
    base.password = '';
    base.search = '';
    base.hash = '';
    this.#base = base;
    this.server = base.toString().replace(/\/+$/, '');
    this.#secure = base.protocol === 'https:';
    this.#kc = kubeConfig;
    this.#clock = options.clock ?? realClock;
    this.#logger = toLogger(options.logger ?? defaultLogger);
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#maxRetries = options.maxRetries ?? 10;
    this.#ttl = options.credentialTtlMs ?? 10_000;
    this.#userAgent = options.userAgent ?? `kube-controller-kit/${VERSION}`;
    this.#maxSockets = options.maxSockets ?? Infinity;
    this.#acceptEncoding = options.disableCompression === true ? {} : { 'Accept-Encoding': 'gzip' };
    this.#metrics = options.metricsProvider ?? getDefaultRestClientMetricsProvider();
    this.#http2 = this.#secure && (options.http2 ?? !http2DisabledByEnvironment());
    this.#readIdleTimeoutMs = options.http2ReadIdleTimeoutMs ?? DEFAULT_READ_IDLE_TIMEOUT_MS;
    this.#pingTimeoutMs = options.http2PingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
    this.#idleConnectionTimeoutMs =
      options.http2IdleConnectionTimeoutMs ?? DEFAULT_IDLE_CONNECTION_TIMEOUT_MS;
    this.maxWatchEventBytes = checkedMaxEventBytes(options.maxWatchEventBytes);
  }

  /**
   * The protocol requests to this server use: `'h2'` once a connection negotiated HTTP/2,
   * `'http/1.1'` when HTTP/2 is off, the server is plain http or did not offer `h2`, and
   * `undefined` before the first connection decided it.
   */
  get protocol(): 'h2' | 'http/1.1' | undefined {
    if (!this.#http2) return 'http/1.1';
    let any: 'h2' | 'http/1.1' | undefined;
    for (const pool of this.#pools.values()) {
      if (pool.http1Only) any ??= 'http/1.1';
      else if (pool.sessionCount > 0) any = 'h2';
    }
    return any;
  }

  /** Connections open now over HTTP/2 (sessions), for tests and benchmarks. */
  get http2SessionCount(): number {
    let n = 0;
    for (const pool of this.#pools.values()) n += pool.sessionCount;
    return n;
  }

  /** Drops the cached credentials: the next request applies the kubeconfig again. */
  invalidateCredentials(): void {
    this.#credentials = undefined;
  }

  /**
   * Sends a request and resolves with the parsed JSON body (`undefined` for an empty body).
   *
   * @throws ApiError for a non-2xx answer; ResponseDecodeError for a 2xx body that is not
   * JSON; RequestTimeoutError; ConnectionError; the abort reason.
   */
  async request<R>(spec: RequestSpec): Promise<R> {
    if (this.#metrics === undefined) return this.#request(spec);
    const start = this.#clock.now();
    try {
      return await this.#request<R>(spec);
    } finally {
      this.#metrics.observeRequestLatency(
        spec.method,
        this.#base.host,
        (this.#clock.now() - start) / 1000,
      );
    }
  }

  async #request<R>(spec: RequestSpec): Promise<R> {
    const retry = spec.retry ?? true;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const credentials = await this.#getCredentials(spec.signal);
      const answer = await this.#exchange(spec, credentials);
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        if (answer.body.length === 0) return undefined as R;
        const text = answer.body.toString('utf8');
        try {
          return JSON.parse(text) as R;
        } catch (err) {
          throw new ResponseDecodeError(this.#context(spec), answer.statusCode, text, err);
        }
      }
      if (answer.statusCode === 401 && !refreshed) {
        refreshed = true;
        this.#refreshAfterUnauthorized();
        continue;
      }
      const error = this.#apiError(spec, answer.statusCode, answer.headers, answer.body);
      if (retry && (await this.#waitToRetry(spec, answer.statusCode, answer.headers, attempt)))
        continue;
      throw error;
    }
  }

  /**
   * After a 429 or 5xx answer with `Retry-After`, and while fewer than `maxRetries` retries
   * were made, sleeps that many seconds (on the clock, abortable) and resolves true: the
   * caller sends the request again. Resolves false when the answer is final.
   */
  async #waitToRetry(
    spec: RequestSpec,
    code: number,
    headers: http.IncomingHttpHeaders,
    attempt: number,
  ): Promise<boolean> {
    const wait = retryDelaySeconds(code, headers);
    if (wait === undefined || attempt >= this.#maxRetries) return false;
    this.#logger.debug('retrying after Retry-After', {
      request: this.#context(spec),
      code,
      retryAfterSeconds: wait,
      attempt: attempt + 1,
    });
    await this.#clock.sleep(wait * 1000, spec.signal);
    return true;
  }

  /**
   * Opens a streaming request (a watch) and resolves once the response headers arrive. A
   * 429 or 5xx answer with `Retry-After` is retried as in {@link Transport.request}; any
   * other non-2xx answer rejects with an {@link ApiError}. The caller reads
   * `body` and must call `close()` when done (aborting the signal closes it too).
   */
  async stream(spec: RequestSpec): Promise<OpenStream> {
    const retry = spec.retry ?? true;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const credentials = await this.#getCredentials(spec.signal);
      const opened = await this.#open(spec, credentials, false);
      const res = opened.res;
      const code = res.statusCode;
      if (code >= 200 && code < 300) {
        const body = decompressed(res);
        return {
          statusCode: code,
          headers: res.headers,
          body,
          context: opened.context,
          close: () => {
            opened.finish();
            if (body !== res.body) body.destroy();
            res.destroy();
          },
        };
      }
      let raw: Buffer;
      try {
        raw = await readAll(decompressed(res));
      } catch (err) {
        throw this.#wrapNetworkError(spec, err, opened);
      } finally {
        opened.finish();
      }
      if (code === 401 && !refreshed) {
        refreshed = true;
        this.#refreshAfterUnauthorized();
        continue;
      }
      const error = this.#apiError(spec, code, res.headers, raw);
      if (retry && (await this.#waitToRetry(spec, code, res.headers, attempt))) continue;
      throw error;
    }
  }

  /** Destroys every pooled socket and HTTP/2 session; later requests fail. Open streams are closed too. */
  close(): void {
    this.#closed = true;
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
    for (const pool of this.#pools.values()) pool.close();
    this.#pools.clear();
    this.#credentials = undefined;
  }

  #context(spec: RequestSpec): string {
    return `${spec.method} ${redactUrl(this.#pathWithQuery(spec))}`;
  }

  #pathWithQuery(spec: RequestSpec): string {
    const prefix = this.#base.pathname.replace(/\/+$/, '');
    const parts: string[] = [];
    if (spec.query !== undefined) {
      for (const [k, v] of Object.entries(spec.query)) {
        if (v === undefined) continue;
        parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
      }
    }
    // One flat string, not a rope of its pieces: an HTTP/2 stream keeps its :path for as
    // long as it is open, so every watch held the rope (a dozen nodes, 0.3 KB).
    const query = parts.length > 0 ? `?${parts.join('&')}` : '';
    return [prefix, spec.path, query].join('');
  }

  #refreshAfterUnauthorized(): void {
    this.#logger.debug('the server answered 401; applying the kubeconfig credentials again');
    this.#credentials = undefined;
  }

  #getCredentials(signal: AbortSignal | undefined): Promise<Credentials> {
    if (this.#closed) {
      return Promise.reject(
        new KubeConfigError('the transport was closed; create a new client to send requests'),
      );
    }
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const cached = this.#credentials;
    if (cached !== undefined) {
      return cached.then((c) => {
        if (this.#clock.now() < c.expiresAt || this.#credentials !== cached) return c;
        this.#credentials = undefined;
        return this.#getCredentials(signal);
      });
    }
    const fresh = this.#applyKubeConfig();
    this.#credentials = fresh;
    fresh.catch(() => {
      if (this.#credentials === fresh) this.#credentials = undefined;
    });
    return fresh;
  }

  async #applyKubeConfig(): Promise<Credentials> {
    const options: https.RequestOptions = { headers: {} };
    try {
      await (this.#secure ? this.#kc : plainHttpView(this.#kc)).applyToHTTPSOptions(options);
    } catch (err) {
      // client-node's messages name files and plugins, not secrets; keep only the message.
      // Except a JSON parse error: it quotes the text it could not parse, which is the
      // credential itself when an exec plugin prints a bare token. Keep only its kind.
      const detail =
        err instanceof SyntaxError
          ? 'the exec credential plugin (or credential file) did not produce valid JSON'
          : err instanceof Error
            ? err.message.trim()
            : 'unknown error';
      throw new KubeConfigError(
        `could not apply the credentials of ${this.#describeContext()}: ${detail}; ` +
          `check that user's auth settings in the kubeconfig`,
      );
    }
    const headers: Record<string, string> = {};
    const applied = options.headers;
    if (applied !== undefined && !Array.isArray(applied)) {
      for (const [k, v] of Object.entries(applied)) {
        if (v === undefined) continue;
        headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      }
    }
    if (typeof options.auth === 'string' && options.auth !== '') {
      headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    }
    // client-node may have made an agent of its own; we pool ours instead.
    const previous = options.agent;
    if (previous instanceof http.Agent) previous.destroy();
    const { agent, pool } = this.#agentFor(options);
    return { headers, agent, pool, expiresAt: this.#clock.now() + this.#ttl };
  }

  /** `kubeconfig user "u" (cluster "c", server https://…)`, for messages. */
  #describeContext(): string {
    let user: string | undefined;
    let cluster: string | undefined;
    try {
      user = this.#kc.getCurrentUser?.()?.name;
      cluster = this.#kc.getCurrentCluster()?.name;
    } catch {
      // a stand-in that cannot say: name only the server
    }
    const who =
      user !== undefined && user !== ''
        ? `kubeconfig user ${JSON.stringify(user)}`
        : 'the kubeconfig user';
    const where =
      cluster !== undefined && cluster !== '' ? `cluster ${JSON.stringify(cluster)}, ` : '';
    return `${who} (${where}server ${redactUrl(this.server)})`;
  }

  #agentFor(options: https.RequestOptions): { agent: http.Agent; pool: Http2Pool | undefined } {
    const hash = createHash('sha256');
    const agentOptions: https.AgentOptions = {
      keepAlive: true,
      keepAliveMsecs: 30_000,
      maxSockets: this.#maxSockets,
      scheduling: 'lifo',
    };
    // TLS material means nothing to a plain-http server; an http.Agent ignores it anyway.
    for (const field of this.#secure ? tlsFields : []) {
      const value = options[field];
      if (value === undefined) continue;
      hash.update(field);
      hash.update(
        typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value),
      );
      (agentOptions as Record<string, unknown>)[field] = value;
    }
    const key = hash.digest('hex');
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = this.#secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
      this.#agents.set(key, agent);
    }
    if (!this.#http2) return { agent, pool: undefined };
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      const tlsOptions: Record<string, unknown> = {};
      for (const field of tlsFields) {
        if (options[field] !== undefined) tlsOptions[field] = options[field];
      }
      const host = this.#base.hostname.replace(/^\[|\]$/g, '');
      pool = new Http2Pool(
        {
          host,
          port: this.#base.port === '' ? 443 : Number(this.#base.port),
          authority: this.#base.host,
          tls: tlsOptions,
        },
        {
          clock: this.#clock,
          logger: this.#logger,
          readIdleTimeoutMs: this.#readIdleTimeoutMs,
          pingTimeoutMs: this.#pingTimeoutMs,
          idleConnectionTimeoutMs: this.#idleConnectionTimeoutMs,
        },
      );
      this.#pools.set(key, pool);
    }
    return { agent, pool };
  }

  #prepare(spec: RequestSpec, credentials: Credentials): Prepared {
    const path = this.#pathWithQuery(spec);
    const context = `${spec.method} ${redactUrl(this.#base.origin + path)}`;
    const headers: Record<string, string> = {
      Accept: spec.accept ?? 'application/json',
      ...this.#acceptEncoding,
      'User-Agent': this.#userAgent,
      ...credentials.headers,
    };
    let payload: Buffer | undefined;
    if (spec.body !== undefined) {
      payload = Buffer.from(typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body));
      headers['Content-Type'] = spec.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    return { path, context, headers, payload, timeoutMs: spec.timeoutMs ?? this.#timeoutMs };
  }

  #open(
    spec: RequestSpec,
    credentials: Credentials,
    wholeExchange: boolean,
    staleRetried = false,
  ): Promise<Opened> {
    const prepared = this.#prepare(spec, credentials);
    const pool = credentials.pool;
    if (pool !== undefined && !pool.http1Only) {
      return this.#openH2(spec, credentials, pool, prepared, wholeExchange, staleRetried);
    }
    return this.#openH1(spec, credentials, prepared, wholeExchange, staleRetried);
  }

  #openH1(
    spec: RequestSpec,
    credentials: Credentials,
    prepared: Prepared,
    wholeExchange: boolean,
    staleRetried: boolean,
  ): Promise<Opened> {
    return new Promise((resolve, reject) => {
      const req = (this.#secure ? https : http).request({
        agent: credentials.agent,
        protocol: this.#base.protocol,
        hostname: this.#base.hostname.replace(/^\[|\]$/g, ''),
        port: this.#base.port === '' ? undefined : Number(this.#base.port),
        method: spec.method,
        path: prepared.path,
        headers: prepared.headers,
      });
      new H1Exchange(this.#exchangeHost, spec, credentials, prepared, req, {
        wholeExchange,
        staleRetried,
        resolve,
        reject,
      });
      req.end(prepared.payload);
    });
  }

  /**
   * The request as a stream on a shared HTTP/2 session (see {@link Http2Pool}). Falls back
   * to HTTP/1.1 when the server's ALPN answer has no `h2`. One {@link H2Exchange} object
   * carries the request's state (see there why not closures).
   */
  #openH2(
    spec: RequestSpec,
    credentials: Credentials,
    pool: Http2Pool,
    prepared: Prepared,
    wholeExchange: boolean,
    staleRetried: boolean,
  ): Promise<Opened> {
    return new Promise((resolve, reject) => {
      const exchange = new H2Exchange(this.#exchangeHost, spec, credentials, prepared, {
        wholeExchange,
        staleRetried,
        resolve,
        reject,
      });
      exchange.start(pool);
    });
  }

  /** What an {@link H2Exchange} needs of this transport: one object for all its requests. */
  readonly #exchangeHost: ExchangeHost = {
    clock: () => this.#clock,
    count: (code, method) => this.#metrics?.incrementRequestResult(code, method, this.#base.host),
    wrapNetworkError: (spec, err, opened) => this.#wrapNetworkError(spec, err, opened),
    reopen: (spec, credentials, wholeExchange) =>
      this.#open(spec, credentials, wholeExchange, true),
    openH1: (spec, credentials, prepared, wholeExchange, staleRetried) =>
      this.#openH1(spec, credentials, prepared, wholeExchange, staleRetried),
    logger: () => this.#logger,
  };

  #wrapNetworkError(
    spec: RequestSpec,
    err: unknown,
    opened: { context: string; timedOut: () => boolean },
  ): Error {
    if (err instanceof RequestTimeoutError || err instanceof ApiError) return err;
    if (spec.signal?.aborted === true) return spec.signal.reason as Error;
    if (opened.timedOut())
      return new RequestTimeoutError(opened.context, spec.timeoutMs ?? this.#timeoutMs);
    return new ConnectionError(opened.context, err);
  }

  async #exchange(
    spec: RequestSpec,
    credentials: Credentials,
  ): Promise<{ statusCode: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    const opened = await this.#open(spec, credentials, true);
    try {
      const body = await readAll(decompressed(opened.res));
      return { statusCode: opened.res.statusCode, headers: opened.res.headers, body };
    } catch (err) {
      opened.res.destroy();
      throw this.#wrapNetworkError(spec, err, opened);
    } finally {
      opened.finish();
    }
  }

  #apiError(
    spec: RequestSpec,
    code: number,
    headers: http.IncomingHttpHeaders,
    body: Buffer,
  ): ApiError {
    const retryAfter = retryAfterHeader(headers);
    const status = statusFrom(code, body);
    const options: ApiErrorOptions = { code, context: this.#context(spec) };
    if (retryAfter !== undefined) options.retryAfterSeconds = retryAfter;
    const target = requestTarget(spec.path);
    if (target !== undefined) options.target = target;
    return new ApiError(status, options);
  }
}

/**
 * Methods that may be sent again when a reused connection drops before any answer: the
 * safe ones (RFC 9110 §9.2.1), the set Go's transport replays. A write is not retried: the
 * server may have acted on it before the connection dropped.
 */
const REPLAYABLE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A connection closed under a request before its answer (reset, broken pipe, hang-up). */
function isConnectionDrop(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || err.message === 'socket hang up';
}

/** client-go's switch: a non-empty `DISABLE_HTTP2` turns HTTP/2 off for transports that do not choose. */
function http2DisabledByEnvironment(): boolean {
  const value = process.env.DISABLE_HTTP2;
  return value !== undefined && value !== '';
}

/** An HTTP/2 failure that means the connection under the stream went away. */
function isH2Drop(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    isConnectionDrop(err) ||
    code === 'ERR_HTTP2_SESSION_ERROR' ||
    code === 'ERR_HTTP2_STREAM_ERROR' ||
    code === 'ERR_HTTP2_INVALID_SESSION' ||
    code === 'ERR_HTTP2_STREAM_CLOSED'
  );
}

/** What an {@link H2Exchange} asks of its {@link Transport}. */
interface ExchangeHost {
  clock(): Clock;
  logger(): Logger;
  /** Counts a request's result (an HTTP code, or the error code) in the metrics. */
  count(code: string, method: string): void;
  wrapNetworkError(
    spec: RequestSpec,
    err: unknown,
    opened: { context: string; timedOut: () => boolean },
  ): Error;
  /** Sends the request again (once: stale-retried). */
  reopen(spec: RequestSpec, credentials: Credentials, wholeExchange: boolean): Promise<Opened>;
  openH1(
    spec: RequestSpec,
    credentials: Credentials,
    prepared: Prepared,
    wholeExchange: boolean,
    staleRetried: boolean,
  ): Promise<Opened>;
}

/** How an exchange was started and how it answers: the settle functions of its promise. */
interface ExchangeOptions {
  wholeExchange: boolean;
  staleRetried: boolean;
  resolve: (opened: Opened) => void;
  reject: (err: unknown) => void;
}

/** The parts of a request that a retry or a fallback sends again. */
interface Resend {
  spec: RequestSpec;
  credentials: Credentials;
  prepared: Prepared;
  resolve: (opened: Opened) => void;
  reject: (err: unknown) => void;
}

/**
 * One request, from sending it to its answer, and then the answer itself ({@link Opened}
 * and its {@link Response}). An object rather than a dozen closures: a watch keeps its
 * exchange for as long as it runs, so every watch held the closures, and the contexts that
 * captured the request (its spec, headers, options, resolvers), until it closed. Once
 * answered it keeps only what the open response needs. The abort listener is the object
 * itself (`handleEvent`).
 */
abstract class Exchange implements Opened, Response {
  readonly context: string;
  statusCode = 0;
  headers: http.IncomingHttpHeaders = {};
  body: Readable = undefined as unknown as Readable;
  protected readonly host: ExchangeHost;
  protected readonly method: string;
  protected readonly signal: AbortSignal | undefined;
  protected readonly wholeExchange: boolean;
  protected readonly staleRetried: boolean;
  protected isTimedOut = false;
  protected settled = false;
  #request: Resend | undefined;
  #timer: Timer | undefined;

  constructor(
    host: ExchangeHost,
    spec: RequestSpec,
    credentials: Credentials,
    prepared: Prepared,
    options: ExchangeOptions,
  ) {
    this.host = host;
    this.method = spec.method;
    this.signal = spec.signal;
    this.context = prepared.context;
    this.wholeExchange = options.wholeExchange;
    this.staleRetried = options.staleRetried;
    this.#request = {
      spec,
      credentials,
      prepared,
      resolve: options.resolve,
      reject: options.reject,
    };
  }

  /** This object is the response too. */
  get res(): Response {
    return this;
  }

  /** The signal's abort. */
  abstract handleEvent(): void;
  abstract complete(): boolean;
  abstract destroy(): void;

  timedOut(): boolean {
    return this.isTimedOut;
  }

  finish(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.signal?.removeEventListener('abort', this);
  }

  /** Starts the request's timeout, which calls `onTimeout`, and listens to its signal. */
  protected arm(timeoutMs: number, onTimeout: (err: Error) => void): void {
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.#timer = this.host.clock().setTimeout(() => {
        this.isTimedOut = true;
        onTimeout(new RequestTimeoutError(this.context, timeoutMs));
      }, timeoutMs);
    }
    this.signal?.addEventListener('abort', this, { once: true });
  }

  /** The request, until the exchange settles (then undefined). */
  protected get request(): Resend | undefined {
    return this.#request;
  }

  /** Settles: hands back the request's parts and forgets them. */
  protected settle(): Resend | undefined {
    const request = this.#request;
    this.settled = true;
    this.#request = undefined;
    return request;
  }

  /** Sends the request again on a new connection, once; the answer settles this one's promise. */
  protected again(message: string, err: unknown): void {
    const r = this.settle()!;
    this.finish();
    this.host.logger().debug(message, {
      request: this.context,
      error: err instanceof Error ? err.message : String(err),
    });
    this.host.reopen(r.spec, r.credentials, this.wholeExchange).then(r.resolve, r.reject);
  }

  /** Fails with `err` as a network error (counted); nothing once settled. */
  protected fail(err: unknown): void {
    if (this.settled) return;
    const r = this.settle()!;
    this.finish();
    this.host.count(REQUEST_ERROR_CODE, this.method);
    r.reject(this.host.wrapNetworkError(r.spec, err, this));
  }

  /** The answer's head arrived: count it, and resolve with this exchange. */
  protected answered(code: number, headers: http.IncomingHttpHeaders): void {
    const r = this.settle();
    this.host.count(String(code), this.method);
    if (!this.wholeExchange) {
      this.#timer?.cancel();
      this.#timer = undefined;
    }
    this.statusCode = code;
    this.headers = headers;
    r?.resolve(this);
  }
}

/** One request over HTTP/1.1 (see {@link Exchange}). */
class H1Exchange extends Exchange {
  readonly #req: http.ClientRequest;
  #res: http.IncomingMessage | undefined;

  constructor(
    host: ExchangeHost,
    spec: RequestSpec,
    credentials: Credentials,
    prepared: Prepared,
    req: http.ClientRequest,
    options: ExchangeOptions,
  ) {
    super(host, spec, credentials, prepared, options);
    this.#req = req;
    this.arm(prepared.timeoutMs, (err) => req.destroy(err));
    req.on('error', (err) => this.#onError(err));
    req.on('response', (res) => {
      this.#res = res;
      this.body = res;
      this.answered(res.statusCode ?? 0, res.headers);
    });
  }

  handleEvent(): void {
    this.#req.destroy(this.signal?.reason as Error);
  }

  complete(): boolean {
    return this.#res?.complete === true;
  }

  destroy(): void {
    this.#res?.destroy();
  }

  #onError(err: Error): void {
    if (this.settled) return;
    if (
      !this.staleRetried &&
      !this.isTimedOut &&
      this.signal?.aborted !== true &&
      this.#req.reusedSocket &&
      REPLAYABLE_METHODS.has(this.method) &&
      isConnectionDrop(err)
    ) {
      // A pooled keep-alive socket the server closed while it sat idle: the request
      // never reached a handler. Send it once more on a fresh connection, as Go's
      // transport does for replayable requests (and Node's docs advise).
      this.again('retrying on a new connection: the server closed the idle one', err);
      return;
    }
    this.fail(err);
  }
}

/** One request as a stream on a shared HTTP/2 session (see {@link Exchange}). */
class H2Exchange extends Exchange {
  #stream: http2.ClientHttp2Stream | undefined;
  #reused = false;

  start(pool: Http2Pool): void {
    this.arm(this.request!.prepared.timeoutMs, (err) => this.#stop(err));
    pool.acquire().then(
      (got) => this.#acquired(pool, got),
      (err: unknown) => this.fail(err),
    );
  }

  handleEvent(): void {
    this.#stop(this.signal?.reason as Error);
  }

  complete(): boolean {
    return this.#stream?.readableEnded === true;
  }

  destroy(): void {
    const s = this.#stream;
    if (s === undefined) return;
    cancelStream(s);
    s.destroy();
  }

  #stop(err: Error): void {
    const s = this.#stream;
    if (s !== undefined) {
      cancelStream(s);
      s.destroy(err);
    } else this.fail(err);
  }

  #acquired(pool: Http2Pool, got: Http2Connection | 'http/1.1'): void {
    if (got === 'http/1.1') {
      if (this.settled) return;
      const r = this.settle()!;
      this.finish();
      this.host
        .openH1(r.spec, r.credentials, r.prepared, this.wholeExchange, this.staleRetried)
        .then(r.resolve, r.reject);
      return;
    }
    if (this.settled) {
      got.release();
      return;
    }
    this.#reused = got.started > 1;
    const { path, headers, payload } = this.request!.prepared;
    let s: http2.ClientHttp2Stream;
    try {
      s = got.session.request(
        { ':method': this.method, ':path': path, ...headers },
        { endStream: payload === undefined },
      );
    } catch (err) {
      // The session went away between acquire and request: nothing was sent.
      got.release();
      pool.discard(got);
      if (!this.staleRetried)
        this.again('retrying on a new HTTP/2 connection: the connection was closing', err);
      else this.fail(err);
      return;
    }
    this.#stream = s;
    this.body = s;
    s.once('close', () => {
      got.release();
      if (!this.settled) this.#onError(new StreamClosedError(s.rstCode));
    });
    s.on('error', (err: Error) => this.#onError(err));
    s.once('response', (h: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader) => {
      if (!this.settled) this.answered(Number(h[':status'] ?? 0), h);
    });
    if (payload !== undefined) s.end(payload);
  }

  #onError(err: Error): void {
    if (this.settled) return;
    const s = this.#stream!;
    const retryable = !this.staleRetried && !this.isTimedOut && this.signal?.aborted !== true;
    if (retryable && isUnprocessed(s, err)) {
      // GOAWAY or REFUSED_STREAM: the server did not process it; any method may go again.
      this.again(
        'retrying on a new HTTP/2 connection: the server refused the stream (GOAWAY or REFUSED_STREAM)',
        err,
      );
      return;
    }
    if (retryable && this.#reused && REPLAYABLE_METHODS.has(this.method) && isH2Drop(err)) {
      this.again('retrying on a new HTTP/2 connection: the server closed the connection', err);
      return;
    }
    this.fail(err);
  }
}

/** A stream the server (or the session's end) closed before it answered. */
class StreamClosedError extends Error {
  readonly code = 'ERR_HTTP2_STREAM_CLOSED';
  constructor(rstCode: number) {
    super(`the HTTP/2 stream was closed before an answer (RST_STREAM code ${rstCode})`);
    this.name = 'StreamClosedError';
  }
}

/**
 * The kubeconfig as seen for a plain-http server. client-node (1.x and 2.x) refuses to apply
 * credentials to an `http:` cluster unless `insecure-skip-tls-verify` is set: its
 * `applyToHTTPSOptions` ends by building an agent and throws for that combination, after the
 * headers are already computed. kubectl and client-go accept such a kubeconfig (there is no
 * TLS to verify), and this transport builds its own agent anyway, so the credentials are
 * applied through a view whose current cluster carries the flag. The user's KubeConfig is
 * not changed.
 */
function plainHttpView(kc: KubeConfigLike): KubeConfigLike {
  const view = Object.create(kc) as KubeConfigLike;
  view.getCurrentCluster = (): KubeConfigCluster | null => {
    const cluster = kc.getCurrentCluster();
    return cluster === null ? null : { ...cluster, skipTLSVerify: true };
  };
  return view;
}

/**
 * What a resource path addresses: `/api/v1[/namespaces/ns]/resource[/name[/sub]]` or
 * `/apis/group/version[/namespaces/ns]/resource[/name[/sub]]`; undefined for other paths
 * (discovery, `/version`).
 */
export function requestTarget(path: string): ApiRequestTarget | undefined {
  const segs = path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '')
    .map(safeDecode);
  let group: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    rest = segs.slice(1);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1]!;
    rest = segs.slice(2);
  } else {
    return undefined;
  }
  const version = rest[0]!;
  let parts = rest.slice(1);
  let namespace = '';
  // `namespaces/x/<resource>…`, except `namespaces/x/status|finalize` (the Namespace's own).
  if (
    parts[0] === 'namespaces' &&
    parts.length >= 3 &&
    !(parts.length === 3 && (parts[2] === 'status' || parts[2] === 'finalize'))
  ) {
    namespace = parts[1]!;
    parts = parts.slice(2);
  }
  const [resource = '', name = '', ...sub] = parts;
  if (resource === '') return undefined;
  return { group, version, resource, namespace, name, subresource: sub.join('/') };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The body stream of a response, gunzipped when the server compressed it. */
function decompressed(res: Response): Readable {
  const body = res.body;
  const encoding = res.headers['content-encoding'];
  if (encoding !== 'gzip') return body;
  const gunzip = zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  body.on('error', (err) => gunzip.destroy(err));
  gunzip.on('close', () => {
    if (!body.destroyed && !res.complete()) res.destroy();
  });
  return body.pipe(gunzip);
}

function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    finished(stream, (err) => {
      if (err !== undefined && err !== null) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
  });
}

function retryAfterHeader(headers: http.IncomingHttpHeaders): number | undefined {
  const value = headers['retry-after'];
  if (typeof value !== 'string' || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim());
}

/** Seconds to wait before retrying, as client-go decides: 429 or 5xx with a Retry-After header. */
function retryDelaySeconds(code: number, headers: http.IncomingHttpHeaders): number | undefined {
  if (code !== 429 && (code < 500 || code > 599)) return undefined;
  return retryAfterHeader(headers);
}

const reasonByCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The Status in an error body, or one synthesized from the code (as client-go does). */
function statusFrom(code: number, body: Buffer): Status {
  if (body.length > 0) {
    try {
      const parsed = JSON.parse(body.toString('utf8')) as unknown;
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        (parsed as { kind?: unknown }).kind === 'Status'
      ) {
        const status = parsed as Status;
        return status.code === undefined ? { ...status, code } : status;
      }
    } catch {
      // not JSON: fall through
    }
  }
  const reason = reasonByCode[code] ?? (code >= 500 ? 'InternalError' : '');
  const text = body.length > 0 ? body.toString('utf8', 0, Math.min(body.length, 200)).trim() : '';
  const message =
    text !== ''
      ? `the server answered ${code}${reason ? ` (${reason})` : ''}: ${text}`
      : `the server answered ${code}${reason ? ` (${reason})` : ''} with no Status body`;
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}
