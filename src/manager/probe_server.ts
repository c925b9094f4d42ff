/**
 * The Manager's health probe endpoint: `/healthz` (liveness) and `/readyz` (readiness),
 * each a {@link HealthCheckSet}, on their own address; `GET` and `HEAD` only (405
 * otherwise), 404 for any other path.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../util/logger.js';
import { send } from './healthz.js';
import type { HealthCheckSet } from './healthz.js';
import { ServerRunnable } from './servers.js';
import type { BindAddress, RequestHandler } from './servers.js';

/** Options of {@link healthProbeServer}. */
export interface HealthProbeServerOptions {
  /** Where it listens. */
  readonly bind: BindAddress;
  /** The liveness checks (`/healthz`). */
  readonly healthz: HealthCheckSet;
  /** The readiness checks (`/readyz`). */
  readonly readyz: HealthCheckSet;
  /** Where it logs its address and the reasons of failed checks. */
  readonly logger: Logger;
}

/** The handler of the probe endpoint. */
export function healthProbeHandler(
  options: Omit<HealthProbeServerOptions, 'bind'>,
): RequestHandler {
  const { healthz, readyz, logger } = options;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://probe');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n');
      return;
    }
    if (await healthz.handle(req, res, url, logger)) return;
    if (await readyz.handle(req, res, url, logger)) return;
    send(res, 404, '404 page not found\n');
  };
}

/** The probe server as a runnable of the Manager's `httpServers` group. */
export function healthProbeServer(options: HealthProbeServerOptions): ServerRunnable {
  const handler = healthProbeHandler(options);
  return new ServerRunnable({
    what: 'health probe',
    label: 'health probes',
    serves: ' (/healthz, /readyz)',
    bind: options.bind,
    logger: options.logger,
    handler: () => handler,
  });
}
