/**
 * The Manager's health probe endpoint: `/healthz` (liveness) and `/readyz` (readiness),
 * each a {@link HealthCheckSet}, on their own address; `GET` and `HEAD` only (405
 * otherwise), 404 for any other path.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../util/clock.js';
import type { HttpServerLimits } from '../util/http_server.js';
import type { Logger } from '../util/logger.js';
import type { RequestTarget } from '../util/request_target.js';
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
  /** Limits of the server (defaults: controller-runtime's, see docs/limits.md). */
  readonly limits?: HttpServerLimits;
  /** The clock of the server's own timers. */
  readonly clock?: Clock;
}

/** The handler of the probe endpoint. */
export function healthProbeHandler(
  options: Pick<HealthProbeServerOptions, 'healthz' | 'readyz' | 'logger'>,
): RequestHandler {
  const { healthz, readyz, logger } = options;
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
  ): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n');
      return;
    }
    if (await healthz.handle(req, res, target, logger)) return;
    if (await readyz.handle(req, res, target, logger)) return;
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
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
}
