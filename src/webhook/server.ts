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
 * - It runs on the kit's guarded HTTP server (`GuardedHttpServer`, src/util/http_server.ts),
 *   as every server of the kit does: a request-target is parsed as Go's server parses it
 *   (`//x:99999/validate` is a path, answered 404; one that does not parse is 400 before
 *   any webhook runs), a failure is an answer and never an exception, and every phase of a
 *   connection is bounded by {@link WebhookServerOptions.limits} (TLS handshake and headers
 *   32 s, controller-runtime's `ReadHeaderTimeout`; the whole request 60 s; header bytes
 *   16 KiB; HTTP/2 streams 250 per session). docs/limits.md has the table.
 * - Bodies over 7 MiB are refused, at once: a `Content-Length` over the limit before a byte
 *   is read, a longer body the moment it passes the limit; the connection then closes after
 *   the answer. Only `application/json` is read, nested at most 1,000 deep.
 * - Keep-alive 120 s, longer than the API server's idle-connection timeout (90 s), so the
 *   server never closes a connection the API server is about to reuse (the cause of `EOF`
 *   on webhook calls). An HTTP/2 session with no stream open is closed after the same time.
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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import type { SecureContextOptions, TLSSocket, TlsOptions } from 'node:tls';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import { GuardedHttpServer, resolveHttpServerLimits } from '../util/http_server.js';
import type { GuardedRequest, GuardedResponse, HttpServerLimits } from '../util/http_server.js';
import { RequestBodyError, readRequestBody } from '../util/request_body.js';
import type { RequestTarget } from '../util/request_target.js';
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
  /**
   * Keep-alive of idle connections (and of HTTP/2 sessions without a stream) in ms
   * (default 120 000: longer than kube-apiserver's 90 s, see above).
   */
  keepAliveTimeoutMs?: number;
  /**
   * The other limits of the server: TLS handshake and header time (default 32 s,
   * controller-runtime's `ReadHeaderTimeout`), whole-request time (default 60 s), header
   * bytes (default 16 KiB), HTTP/2 streams per session (default 250). See docs/limits.md.
   */
  limits?: Omit<HttpServerLimits, 'idleTimeoutMs'>;
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
  readonly #limits: Required<HttpServerLimits>;
  readonly #webhooks = new Map<string, HttpWebhook>();
  readonly #pathMetrics = new Map<string, { inFlight: GaugeMetric; latency: HistogramMetric }>();
  readonly #admission: AdmissionRegistration[] = [];
  #conversion: ConversionWebhook | undefined;
  #certWatcher: CertWatcher | undefined;
  #address: WebhookServerAddress | undefined;
  #started = deferred();
  #running = false;
  #runs = 0;

  /**
   * @param options - address, cert dir, TLS, limits and metrics.
   * @throws `InvalidServerLimitsError` for limits that make no sense.
   */
  constructor(options: WebhookServerOptions = {}) {
    this.#options = options;
    this.#limits = resolveHttpServerLimits(
      { ...options.limits, idleTimeoutMs: options.keepAliveTimeoutMs ?? 120_000 },
      'webhook server',
    );
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#metrics = options.metricsProvider ?? getDefaultWebhookMetricsProvider();
  }

  /** The port from the options (default 9443). */
  get port(): number {
    return this.#options.port ?? DEFAULT_WEBHOOK_PORT;
  }

  /** The limits in force: the `limits` option over the defaults (docs/limits.md). */
  get limits(): Readonly<Required<HttpServerLimits>> {
    return this.#limits;
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
    const tls = this.#secureOptions(pair, clientCA);
    const common = {
      name: 'webhook server',
      limits: this.#limits,
      logger: this.#logger,
      clock: this.#clock,
    };
    const server = this.#options.enableHTTP2
      ? new GuardedHttpServer({
          ...common,
          tls,
          http2: true,
          handler: (req, res, target) => this.#handle(req, res, target, signal),
        })
      : new GuardedHttpServer({
          ...common,
          tls: { ...tls, ALPNProtocols: ['http/1.1'] },
          handler: (req, res, target) => this.#handle(req, res, target, signal),
        });
    certWatcher.onChange((next) => {
      server.setSecureContext(this.#secureOptions(next, clientCA));
    });

    const bound = await server.listen(this.port, this.#options.host);
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
    await server.close(this.#options.shutdownTimeoutMs ?? 60_000);
    watcherStop.abort();
    await watching;
  }

  /**
   * One request, behind the guard (the target parsed, a throw answered 500): the webhook
   * at its path reads the body (at most {@link MAX_REQUEST_BYTES}) and answers.
   */
  async #handle(
    req: GuardedRequest,
    res: GuardedResponse,
    target: RequestTarget,
    serverSignal: AbortSignal,
  ): Promise<void> {
    const path = target.path;
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
    let body: string;
    try {
      const read = await readRequestBody(req, res, MAX_REQUEST_BYTES);
      if (read.tooLarge) {
        this.#logger.warn(
          `webhook server: the body of a request to ${path} is over the limit of ${MAX_REQUEST_BYTES} bytes (${read.declaredLength !== undefined ? `Content-Length ${read.declaredLength}` : `${read.bytesRead} bytes received`}); it is not read further and the connection closes after the answer`,
        );
      }
      answer = await webhook.serveHTTP({
        path,
        body: read.tooLarge ? Buffer.alloc(0) : read.body,
        bodyTooLarge: read.tooLarge,
        contentType: req.headers['content-type'],
        signal: controller.signal,
      });
      body = answer.body === undefined ? '' : JSON.stringify(answer.body);
    } catch (err) {
      if (err instanceof RequestBodyError) {
        // The client went away mid-body: nobody to answer.
        this.#logger.debug(`webhook server: ${path}: ${err.message}`);
        answer = { statusCode: 400 };
      } else {
        this.#logger.error(`webhook server: serving ${path} failed`, {
          error: err,
        });
        answer = { statusCode: 500, body: { message: errorMessage(err) } };
      }
      body = answer.body === undefined ? '' : JSON.stringify(answer.body);
    } finally {
      serverSignal.removeEventListener('abort', abort);
      pathMetrics?.inFlight.dec();
    }
    const headers: Record<string, string | number> = {
      'content-length': Buffer.byteLength(body),
    };
    if (answer.body !== undefined) headers['content-type'] = 'application/json';
    this.#metrics?.newRequestsTotalMetric(path, String(answer.statusCode)).inc();
    pathMetrics?.latency.observe((this.#clock.now() - startedAt) / 1000);
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(answer.statusCode, headers);
    res.end(body);
  }
}
