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
import type { Logger } from '../util/logger.js';
import { send } from './healthz.js';
import { ServerRunnable } from './servers.js';
import type { BindAddress, RequestHandler } from './servers.js';

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
}

/** The handler of the metrics endpoint: `/metrics` renders `registry`. */
export function metricsHandler(registry: MetricsRegistry): RequestHandler {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://metrics');
    if (url.pathname !== '/metrics') {
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
    handler: async () => {
      const registry = options.registry ?? (await defaultMetricsRegistry(options.logger));
      return registry === undefined ? undefined : metricsHandler(registry);
    },
  });
}
