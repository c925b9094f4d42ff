/**
 * The Manager's metrics endpoint (controller-runtime's `pkg/metrics/server`): `GET /metrics`
 * (or `HEAD`) renders a registry in the Prometheus text format on its own address; other
 * paths answer 404, other methods 405. The registry is prom-client's global one unless the
 * Manager is given one; prom-client is an optional peer, loaded only when the endpoint is
 * enabled (when it cannot be loaded, the endpoint is disabled with a warning).
 *
 * The request handler ({@link metricsHandler}) and the listener ({@link metricsServer})
 * are built here and nowhere else.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../util/errors.js';
import type { Clock } from '../util/clock.js';
import type { HttpServerLimits } from '../util/http_server.js';
import type { Logger } from '../util/logger.js';
import type { RequestTarget } from '../util/request_target.js';
import { send } from './healthz.js';
import { withAuthenticationAndAuthorization } from './metrics_auth.js';
import type { MetricsAuthOptions } from './metrics_auth.js';
import { ServerRunnable } from './servers.js';
import type { BindAddress, RequestHandler, TlsSource } from './servers.js';

/** A prom-client `Registry`, or anything that renders the text exposition format. */
export interface MetricsRegistry {
  /** The exposition text. */
  metrics(): Promise<string> | string;
  /** Its Content-Type header. */
  readonly contentType: string;
}

/** Options of {@link metricsServer}. */
export interface MetricsServerOptions {
  /** Where it listens. */
  readonly bind: BindAddress;
  /** The registry to serve; undefined: prom-client's global registry, loaded on start. */
  readonly registry: MetricsRegistry | undefined;
  /** Where it logs its address, or why it is disabled. */
  readonly logger: Logger;
  /**
   * Secure serving (`--metrics-secure`): HTTPS with this certificate, and only callers the
   * API server authenticates (TokenReview) and authorizes (SubjectAccessReview, `get` on
   * `/metrics`) are served.
   */
  readonly secure?: { readonly tls: TlsSource; readonly auth: MetricsAuthOptions };
  /** Limits of the server (defaults: controller-runtime's, see docs/limits.md). */
  readonly limits?: HttpServerLimits;
  /** The clock of the server's own timers. */
  readonly clock?: Clock;
}

/** The handler of the metrics endpoint: `/metrics` renders `registry`. */
export function metricsHandler(registry: MetricsRegistry): RequestHandler {
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
  ): Promise<void> => {
    if (target.path !== '/metrics') {
      send(res, 404, '404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n');
      return;
    }
    const text = await registry.metrics();
    send(res, 200, text, registry.contentType);
  };
}

/** prom-client's global registry, or undefined (logged) when prom-client cannot be loaded. */
export async function defaultMetricsRegistry(logger: Logger): Promise<MetricsRegistry | undefined> {
  try {
    const prom = await import('prom-client');
    return prom.register;
  } catch (err) {
    logger.warn(
      `manager: the metrics endpoint is disabled: prom-client could not be loaded (${errorMessage(err)}); install prom-client or set metricsBindAddress: '0'`,
    );
    return undefined;
  }
}

/** The metrics server as a runnable of the Manager's `httpServers` group. */
export function metricsServer(options: MetricsServerOptions): ServerRunnable {
  return new ServerRunnable({
    what: 'metrics',
    bind: options.bind,
    logger: options.logger,
    serves: '/metrics',
    ...(options.secure !== undefined ? { tls: options.secure.tls } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    handler: async () => {
      const registry = options.registry ?? (await defaultMetricsRegistry(options.logger));
      if (registry === undefined) return undefined;
      const handler = metricsHandler(registry);
      return options.secure === undefined
        ? handler
        : withAuthenticationAndAuthorization(handler, options.secure.auth);
    },
  });
}
