/**
 * The webhook server, as controller-runtime's `webhook.DefaultServer`: HTTPS on port 9443
 * serving admission and conversion webhooks by path, with the certificate read from a cert
 * dir and reloaded when it changes.
 *
 * - Certificate: `<certDir>/<certName>` and `<certDir>/<keyName>` (default
 *   `$TMPDIR/k8s-webhook-server/serving-certs/tls.crt` and `tls.key`), watched by a
 *   {@link CertWatcher}; a new certificate goes into the running server
 *   (`setSecureContext`): rotation never needs a restart. A missing or broken certificate
 *   at start fails `start`.
 * - `clientCAName`: clients must present a certificate signed by that CA (mTLS).
 * - TLS 1.2 or later; HTTP/1.1 only unless `enableHTTP2` (kubebuilder turns HTTP/2 off by
 *   default since the HTTP/2 Rapid Reset and Stream Cancellation advisories).
 * - Bodies over 7 MiB are refused; only `application/json` is read.
 * - Keep-alive 120 s, longer than the API server's idle-connection timeout (90 s), so the
 *   server never closes a connection the API server is about to reuse (the cause of `EOF`
 *   on webhook calls).
 * - Every replica runs it (`needLeaderElection: false`); {@link WebhookServer.startedChecker}
 *   is the readiness check (a TLS handshake with the server).
 * - Stopping: no new connections; requests in flight get `shutdownTimeoutMs` (default
 *   60 s, as controller-runtime) to finish, then every socket is closed. `start` settles
 *   when nothing it opened is left.
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { createSecureServer } from 'node:http2';
import type { Http2SecureServer, Http2ServerRequest, Http2Session } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import type { SecureContextOptions, TLSSocket, TlsOptions } from 'node:tls';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { GaugeMetric, HistogramMetric } from '../util/metrics.js';
import { defaultLogger } from '../util/logger.js';
import type { AdmissionHandler } from './admission.js';
import { AdmissionWebhook } from './admission.js';
import type { CertificateKeyPair } from './certificates.js';
import { CertWatcher, DEFAULT_CERT_WATCH_INTERVAL_MS } from './certwatcher.js';
import type { ConvertibleKind, DefaultSpoke } from './conversion.js';
import { ConversionWebhook } from './conversion.js';
import { WebhookError } from './errors.js';
import type { HttpWebhook, WebhookHttpResponse } from './http.js';
import { MAX_REQUEST_BYTES } from './http.js';
import type { CertWatcherMetricsProvider, WebhookMetricsProvider } from './metrics.js';
import { getDefaultWebhookMetricsProvider } from './metrics.js';
import type { WebhookTarget } from './paths.js';
import { CONVERT_PATH, defaultWebhookName, mutatePath, validatePath } from './paths.js';
import type { Defaulter, Validator } from './typed.js';
import { defaultingHandler, validatingHandler } from './typed.js';
import type { KubeObject } from '../client/types.js';

/** controller-runtime's default webhook port. */
export const DEFAULT_WEBHOOK_PORT = 9443;

/** The default cert dir: `$TMPDIR/k8s-webhook-server/serving-certs`. */
export function defaultCertDir(): string {
  return join(tmpdir(), 'k8s-webhook-server', 'serving-certs');
}

/** Where a started {@link WebhookServer} listens. */
export interface WebhookServerAddress {
  /** The host to dial (`127.0.0.1` when listening on every IPv4 address). */
  host: string;
  /** The port (the real one when the option was 0). */
  port: number;
}

/** Options of a {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** Address to listen on (default: every address). */
  host?: string;
  /** Port (default 9443; `0` picks a free one; negative disables the server). */
  port?: number;
  /** Directory of the certificate and key (default {@link defaultCertDir}). */
  certDir?: string;
  /** Certificate file name (default `tls.crt`). */
  certName?: string;
  /** Key file name (default `tls.key`). */
  keyName?: string;
  /** File name, in the cert dir, of a CA that client certificates must be signed by (mTLS). */
  clientCAName?: string;
  /** Serve HTTP/2 as well as HTTP/1.1 (default false). */
  enableHTTP2?: boolean;
  /** Extra TLS options, applied last (like controller-runtime's `TLSOpts`). */
  tlsOptions?: TlsOptions;
  /** Keep-alive of idle connections in ms (default 120 000). */
  keepAliveTimeoutMs?: number;
  /** Time given to requests in flight when stopping, in ms (default 60 000). */
  shutdownTimeoutMs?: number;
  /** Poll interval of the cert watcher in ms (default 10 000). */
  certWatchIntervalMs?: number;
  /** Time source of the cert poll, latency and shutdown (default: the real clock). */
  clock?: Clock;
  /** Logger (default: the library's default logger). */
  logger?: Logger;
  /** Metrics (default: the provider set with `setDefaultWebhookMetricsProvider`). */
  metricsProvider?: WebhookMetricsProvider & CertWatcherMetricsProvider;
}

/** How kube-apiserver should treat a failed call (the configuration's `failurePolicy`). */
export type FailurePolicy = 'Fail' | 'Ignore';

/** The configuration's `sideEffects`. */
export type SideEffectClass = 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';

/** One admission rule of a webhook configuration. */
export interface WebhookRule {
  /** Operations (`CREATE`, `UPDATE`, `DELETE`, `CONNECT`, `*`). */
  operations: string[];
  /** API groups (`''` for core, `*` for all). */
  apiGroups: string[];
  /** API versions. */
  apiVersions: string[];
  /** Resources, e.g. `applications`, `pods/status`, `*`. */
  resources: string[];
  /** `Namespaced`, `Cluster` or `*`. */
  scope?: 'Namespaced' | 'Cluster' | '*';
}

/** What a webhook configuration says about one registered admission webhook. */
export interface AdmissionRegistration {
  /** `mutating` or `validating`. */
  type: 'mutating' | 'validating';
  /** The webhook's name in the configuration (fully qualified, e.g. `vapplication-v1.kb.io`). */
  name: string;
  /** The path it is served at. */
  path: string;
  /** Which requests it is sent. */
  rules: WebhookRule[];
  /** Default `Fail`. */
  failurePolicy: FailurePolicy;
  /** Default `None`. */
  sideEffects: SideEffectClass;
  /** Default 10. */
  timeoutSeconds: number;
  /** Default `['v1']`. */
  admissionReviewVersions: string[];
}

/** Options of {@link WebhookServer.registerAdmission}. */
export interface RegisterAdmissionOptions {
  /** `mutating` or `validating`. */
  type: 'mutating' | 'validating';
  /** The webhook's fully qualified name in the configuration. */
  name: string;
  /** Where it is served (must start with `/`). */
  path: string;
  /** Which requests it is sent. */
  rules: WebhookRule[];
  /** The handler. */
  handler: AdmissionHandler;
  /** Default `Fail`. */
  failurePolicy?: FailurePolicy;
  /** Default `None`. */
  sideEffects?: SideEffectClass;
  /** Default 10 (1 to 30). */
  timeoutSeconds?: number;
}

/** Options of {@link WebhookServer.registerFor}. */
export interface RegisterForOptions<T extends KubeObject> {
  /** Defaults objects (served at {@link mutatePath}). */
  defaulter?: Defaulter<T>;
  /** Validates objects (served at {@link validatePath}). */
  validator?: Validator<T>;
  /** Default `Fail`. */
  failurePolicy?: FailurePolicy;
  /** Default `None`. */
  sideEffects?: SideEffectClass;
  /** Default 10. */
  timeoutSeconds?: number;
  /** The mutating webhook's name (default `m<kind>-<version>.kb.io`). */
  mutatingName?: string;
  /** The validating webhook's name (default `v<kind>-<version>.kb.io`). */
  validatingName?: string;
}

interface ResponseLike {
  writeHead(statusCode: number, headers: Record<string, string | number>): unknown;
  end(body?: string): unknown;
  on(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * Serves webhooks over HTTPS. Register handlers, then run {@link WebhookServer.start}
 * (or add the server to a Manager, which runs it on every replica).
 *
 * @example
 * ```ts
 * const server = new WebhookServer({ certDir: '/tmp/k8s-webhook-server/serving-certs' });
 * server.registerFor(applicationType, { defaulter, validator });
 * server.registerConversion({ group: 'apps.example.com', kind: 'Application', hub: 'v1', spokes: { v2 } });
 * await server.start(signal);
 * ```
 */
export class WebhookServer {
  /** A name for logs. */
  readonly name = 'webhook-server';
  /** Every replica serves webhooks: never leader-gated. */
  readonly needLeaderElection = false;
  /** The Manager's runnable group it runs in: `webhooks`, started before the caches. */
  readonly group = 'webhooks' as const;

  readonly #options: WebhookServerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: (WebhookMetricsProvider & CertWatcherMetricsProvider) | undefined;
  readonly #webhooks = new Map<string, HttpWebhook>();
  readonly #pathMetrics = new Map<string, { inFlight: GaugeMetric; latency: HistogramMetric }>();
  readonly #admission: AdmissionRegistration[] = [];
  #conversion: ConversionWebhook | undefined;
  #certWatcher: CertWatcher | undefined;
  #address: WebhookServerAddress | undefined;
  #started = deferred();
  #running = false;
  #runs = 0;

  /** @param options - address, cert dir, TLS and metrics. */
  constructor(options: WebhookServerOptions = {}) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#metrics = options.metricsProvider ?? getDefaultWebhookMetricsProvider();
  }

  /** The port from the options (default 9443). */
  get port(): number {
    return this.#options.port ?? DEFAULT_WEBHOOK_PORT;
  }

  /** The cert dir from the options (default {@link defaultCertDir}). */
  get certDir(): string {
    return this.#options.certDir ?? defaultCertDir();
  }

  /** Where the server listens once started (the real port when `port` was 0). */
  get address(): WebhookServerAddress | undefined {
    return this.#address;
  }

  /** The cert watcher of the running server (undefined before start). */
  get certWatcher(): CertWatcher | undefined {
    return this.#certWatcher;
  }

  /** The registered paths, in registration order. */
  paths(): string[] {
    return [...this.#webhooks.keys()];
  }

  /** The admission webhooks registered with their configuration details. */
  admissionWebhooks(): readonly AdmissionRegistration[] {
    return [...this.#admission];
  }

  /** The kinds registered for conversion at `/convert`. */
  conversionKinds(): readonly ConvertibleKind[] {
    return this.#conversion?.kinds() ?? [];
  }

  /**
   * Serve `webhook` at `path` (controller-runtime's `Register`), instrumented with the
   * webhook metrics under the path.
   *
   * @throws {@link WebhookError} when the path is taken or does not start with `/`.
   */
  register(path: string, webhook: HttpWebhook): void {
    if (!path.startsWith('/')) {
      throw new WebhookError(`webhook server: path "${path}" must start with "/"`);
    }
    if (this.#webhooks.has(path)) {
      throw new WebhookError(`webhook server: can't register duplicate path: ${path}`);
    }
    this.#webhooks.set(path, webhook);
    const metrics = this.#metrics;
    if (metrics !== undefined) {
      // Created at zero, as controller-runtime's InstrumentedHook does.
      metrics.newRequestsTotalMetric(path, '200');
      metrics.newRequestsTotalMetric(path, '500');
      this.#pathMetrics.set(path, {
        inFlight: metrics.newRequestsInFlightMetric(path),
        latency: metrics.newLatencyMetric(path),
      });
    }
  }

  /** Serve a raw admission handler and record it for the generated configurations. */
  registerAdmission(options: RegisterAdmissionOptions): void {
    const timeoutSeconds = options.timeoutSeconds ?? 10;
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
      throw new WebhookError(
        `webhook ${options.name}: timeoutSeconds must be between 1 and 30, got ${timeoutSeconds}`,
      );
    }
    this.register(
      options.path,
      new AdmissionWebhook(options.handler, {
        logger: this.#logger,
        ...(this.#metrics ? { metricsProvider: this.#metrics } : {}),
      }),
    );
    this.#admission.push({
      type: options.type,
      name: options.name,
      path: options.path,
      rules: options.rules,
      failurePolicy: options.failurePolicy ?? 'Fail',
      sideEffects: options.sideEffects ?? 'None',
      timeoutSeconds,
      admissionReviewVersions: ['v1'],
    });
  }

  /**
   * Serve a typed defaulter and/or validator for one type at controller-runtime's paths
   * ({@link mutatePath}, {@link validatePath}), as `ctrl.NewWebhookManagedBy(mgr).For(&T{})`.
   * The defaulter gets CREATE and UPDATE; the validator CREATE, UPDATE, and DELETE when it
   * has `validateDelete`.
   */
  registerFor<T extends KubeObject>(target: WebhookTarget, options: RegisterForOptions<T>): void {
    if (options.defaulter === undefined && options.validator === undefined) {
      throw new WebhookError(`webhook for ${target.kind}: give a defaulter, a validator, or both`);
    }
    const rule = (operations: string[]): WebhookRule[] => [
      {
        operations,
        apiGroups: [target.group],
        apiVersions: [target.version],
        resources: [target.resource],
        scope: target.scope ?? '*',
      },
    ];
    const common = {
      ...(options.failurePolicy ? { failurePolicy: options.failurePolicy } : {}),
      ...(options.sideEffects ? { sideEffects: options.sideEffects } : {}),
      ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    };
    if (options.defaulter !== undefined) {
      this.registerAdmission({
        type: 'mutating',
        name: options.mutatingName ?? defaultWebhookName('mutating', target),
        path: mutatePath(target),
        rules: rule(['CREATE', 'UPDATE']),
        handler: defaultingHandler(options.defaulter),
        ...common,
      });
    }
    if (options.validator !== undefined) {
      const operations = ['CREATE', 'UPDATE'];
      if (options.validator.validateDelete !== undefined) operations.push('DELETE');
      this.registerAdmission({
        type: 'validating',
        name: options.validatingName ?? defaultWebhookName('validating', target),
        path: validatePath(target),
        rules: rule(operations),
        handler: validatingHandler(options.validator),
        ...common,
      });
    }
  }

  /**
   * Convert a kind's versions at `/convert`, hub and spoke (registers the path on first use).
   * `Hub` is the hub version's type, e.g. the `Widget` that `gen types` writes for it:
   * `server.registerConversion<v1.Widget>({ …, spokes: { v2: converter } })` with a
   * `SpokeConverter<v1.Widget, v2.Widget>`.
   */
  registerConversion<Hub extends KubeObject, Spoke extends KubeObject = DefaultSpoke<Hub>>(
    kind: ConvertibleKind<Hub, Spoke>,
  ): void {
    if (this.#conversion === undefined) {
      const conversion = new ConversionWebhook({
        logger: this.#logger,
        ...(this.#metrics ? { metricsProvider: this.#metrics } : {}),
      });
      this.register(CONVERT_PATH, conversion);
      this.#conversion = conversion;
    }
    this.#conversion.register(kind);
  }

  /** Resolves once the server listens; rejects if `start` failed. */
  started(): Promise<void> {
    return this.#started.promise;
  }

  /** The Manager's ready check of the runnable: {@link WebhookServer.started}. */
  ready(): Promise<void> {
    return this.#started.promise;
  }

  /**
   * controller-runtime's `StartedChecker`, for `/readyz`: fails until the server has
   * started, then succeeds when a TLS handshake with it completes (10 s limit).
   */
  startedChecker(): () => Promise<void> {
    return async () => {
      if (this.port < 0) return;
      const address = this.#address;
      if (!this.#running || address === undefined) {
        throw new WebhookError('webhook server has not been started yet');
      }
      await new Promise<void>((resolve, reject) => {
        const socket: TLSSocket = tlsConnect({
          host: address.host,
          port: address.port,
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        });
        socket.setTimeout(10_000);
        const fail = (err: unknown): void => {
          socket.destroy();
          reject(new WebhookError(`webhook server is not reachable: ${errorMessage(err)}`));
        };
        socket.once('secureConnect', () => {
          socket.destroy();
          resolve();
        });
        socket.once('timeout', () => fail('TLS handshake timed out'));
        socket.once('error', fail);
      });
    };
  }

  #secureOptions(
    pair: CertificateKeyPair,
    clientCA: string | undefined,
  ): SecureContextOptions & TlsOptions {
    return {
      cert: pair.cert,
      key: pair.key,
      minVersion: 'TLSv1.2',
      ...(clientCA !== undefined
        ? { ca: clientCA, requestCert: true, rejectUnauthorized: true }
        : {}),
      ...this.#options.tlsOptions,
    };
  }

  /**
   * Serve until `signal` aborts; settles once the listener, every connection, the cert
   * watcher and its timer are gone. Rejects when the certificate or client CA cannot be
   * read, or the port cannot be bound.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new WebhookError('webhook server: started twice');
    // A second run (after a stop) gets a fresh "started" promise.
    if (this.#runs++ > 0) this.#started = deferred();
    if (this.port < 0) {
      this.#logger.info('webhook server is disabled');
      this.#started.resolve();
      if (!signal.aborted) {
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      }
      return;
    }
    try {
      await this.#serve(signal);
    } catch (err) {
      this.#started.reject(err);
      throw err;
    } finally {
      this.#running = false;
      this.#address = undefined;
    }
  }

  async #serve(signal: AbortSignal): Promise<void> {
    const certDir = this.certDir;
    const certWatcher = new CertWatcher({
      certPath: join(certDir, this.#options.certName ?? 'tls.crt'),
      keyPath: join(certDir, this.#options.keyName ?? 'tls.key'),
      clock: this.#clock,
      intervalMs: this.#options.certWatchIntervalMs ?? DEFAULT_CERT_WATCH_INTERVAL_MS,
      logger: this.#logger,
      ...(this.#metrics ? { metricsProvider: this.#metrics } : {}),
    });
    await certWatcher.readCertificate();
    let clientCA: string | undefined;
    if (this.#options.clientCAName !== undefined) {
      const caPath = join(certDir, this.#options.clientCAName);
      try {
        clientCA = await readFile(caPath, 'utf8');
        new X509Certificate(clientCA);
      } catch (err) {
        throw new WebhookError(
          `webhook server: failed to read client CA cert ${caPath}: ${errorMessage(err)}`,
          {
            cause: err,
          },
        );
      }
    }
    if (signal.aborted) return;
    const pair = certWatcher.current as CertificateKeyPair;
    const onRequest = (req: IncomingMessage | Http2ServerRequest, res: object): void => {
      void this.#handle(req, res as ResponseLike, signal);
    };
    const server: HttpsServer | Http2SecureServer = this.#options.enableHTTP2
      ? createSecureServer({ ...this.#secureOptions(pair, clientCA), allowHTTP1: true }, onRequest)
      : createHttpsServer(
          { ...this.#secureOptions(pair, clientCA), ALPNProtocols: ['http/1.1'] },
          onRequest,
        );
    if ('keepAliveTimeout' in server) {
      server.keepAliveTimeout = this.#options.keepAliveTimeoutMs ?? 120_000;
      server.headersTimeout = server.keepAliveTimeout + 5_000;
    }
    const sockets = new Set<TLSSocket>();
    const sessions = new Set<Http2Session>();
    server.on('secureConnection', (socket: TLSSocket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('session', (session: Http2Session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
    server.on('tlsClientError', (err: Error) => {
      this.#logger.debug(`webhook server: TLS handshake failed: ${err.message}`);
    });
    certWatcher.onChange((next) => {
      server.setSecureContext(this.#secureOptions(next, clientCA));
    });

    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      server.once('error', onError);
      server.listen(this.port, this.#options.host, () => {
        server.off('error', onError);
        resolve();
      });
    });
    const bound = server.address() as AddressInfo;
    // Every address (no host, 0.0.0.0 or the dual-stack ::): dial the IPv4 loopback.
    const listenHost = this.#options.host ?? '';
    const host = ['', '0.0.0.0', '::'].includes(listenHost) ? '127.0.0.1' : listenHost;
    this.#address = { host, port: bound.port };
    this.#certWatcher = certWatcher;
    this.#running = true;
    this.#logger.info('webhook server: serving', { address: bound.address, port: bound.port });
    this.#started.resolve();

    const watcherStop = new AbortController();
    const watching = certWatcher.start(watcherStop.signal);
    if (!signal.aborted) {
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    }
    this.#running = false;
    this.#logger.info('webhook server: shutting down');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    for (const session of sessions) session.close();
    let timer: Timer | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = this.#clock.setTimeout(resolve, this.#options.shutdownTimeoutMs ?? 60_000);
    });
    await Promise.race([closed, deadline]);
    timer?.cancel();
    for (const socket of sockets) socket.destroy();
    await closed;
    watcherStop.abort();
    await watching;
  }

  async #handle(
    req: IncomingMessage | Http2ServerRequest,
    res: ResponseLike,
    serverSignal: AbortSignal,
  ): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://webhook.invalid').pathname;
    const webhook = this.#webhooks.get(path);
    if (webhook === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    const startedAt = this.#clock.now();
    const pathMetrics = this.#pathMetrics.get(path);
    pathMetrics?.inFlight.inc();
    const controller = new AbortController();
    const abort = (): void => controller.abort(new WebhookError('webhook server: request ended'));
    serverSignal.addEventListener('abort', abort, { once: true });
    res.on('close', () => {
      if (!res.writableFinished) abort();
    });
    let answer: WebhookHttpResponse;
    let tooLarge = false;
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_REQUEST_BYTES) {
          tooLarge = true;
          chunks.length = 0;
        } else {
          chunks.push(chunk);
        }
      }
      answer = await webhook.serveHTTP({
        path,
        body: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks),
        bodyTooLarge: tooLarge,
        contentType: req.headers['content-type'],
        signal: controller.signal,
      });
    } catch (err) {
      this.#logger.error(`webhook server: serving ${path} failed: ${errorMessage(err)}`);
      answer = { statusCode: 500, body: { message: errorMessage(err) } };
    } finally {
      serverSignal.removeEventListener('abort', abort);
    }
    const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
    const headers: Record<string, string | number> = {
      'content-length': Buffer.byteLength(body),
    };
    if (answer.body !== undefined) headers['content-type'] = 'application/json';
    if (tooLarge && 'httpVersionMajor' in req && req.httpVersionMajor === 1) {
      headers.connection = 'close';
    }
    try {
      res.writeHead(answer.statusCode, headers);
      res.end(body);
    } catch (err) {
      this.#logger.warn(
        `webhook server: writing the answer to ${path} failed: ${errorMessage(err)}`,
      );
    }
    pathMetrics?.inFlight.dec();
    this.#metrics?.newRequestsTotalMetric(path, String(answer.statusCode)).inc();
    pathMetrics?.latency.observe((this.#clock.now() - startedAt) / 1000);
  }
}
