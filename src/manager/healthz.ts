/**
 * Named health checks served as Kubernetes serves `/healthz` and `/readyz`
 * (k8s.io/apiserver's healthz package, which controller-runtime copies):
 *
 * - `GET /healthz` runs every check: `200 ok` when all pass; otherwise `500` and one line
 *   per check, `[+]name ok` or `[-]name failed: reason withheld`, then
 *   `healthz check failed`. The reasons are logged, never sent.
 * - `?verbose` lists the checks on success too, ending with `healthz check passed`.
 * - `?exclude=name` (repeatable) skips a check.
 * - `GET /healthz/<name>` runs that one check: `200 ok`, or `500 internal server error:
 *   <reason>`; `404` for an unknown name.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { RequestTarget } from '../util/request_target.js';
import { InvalidManagerOptionsError } from './errors.js';

/**
 * A health check: healthy when it returns (or resolves) without an error; unhealthy when
 * it throws, rejects, or returns an `Error`.
 */
export type HealthCheck = () => void | Error | undefined | Promise<void | Error | undefined>;

/** controller-runtime's `healthz.Ping`: always healthy. */
export const ping: HealthCheck = () => undefined;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** An ordered set of named checks served under one path (`/healthz` or `/readyz`). */
export class HealthCheckSet {
  /** The path, e.g. `/healthz`. */
  readonly path: string;
  readonly #checks = new Map<string, HealthCheck>();

  /** @param path - where the set is served (`/healthz`, `/readyz`). */
  constructor(path: string) {
    this.path = path;
  }

  /**
   * Add a named check.
   *
   * @throws {@link InvalidManagerOptionsError} for a name that is empty, has a `/`, or is taken.
   */
  add(name: string, check: HealthCheck): void {
    if (!NAME.test(name)) {
      throw new InvalidManagerOptionsError(
        `${this.path} check name ${JSON.stringify(name)} is invalid: use letters, digits, '.', '_' and '-' (it becomes ${this.path}/<name>)`,
      );
    }
    if (this.#checks.has(name)) {
      throw new InvalidManagerOptionsError(`${this.path} already has a check named ${name}`);
    }
    if (typeof check !== 'function') {
      throw new InvalidManagerOptionsError(`${this.path} check ${name} must be a function`);
    }
    this.#checks.set(name, check);
  }

  /** The names of the checks, in the order they were added. */
  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Run one check: undefined when healthy, else the reason. Unknown names throw. */
  async run(name: string): Promise<string | undefined> {
    const check = this.#checks.get(name);
    if (check === undefined) throw new InvalidManagerOptionsError(`no check named ${name}`);
    try {
      const result = await check();
      return result instanceof Error ? result.message : undefined;
    } catch (err) {
      return errorMessage(err);
    }
  }

  /**
   * Serve `req` when its path is this set's; returns false when the path is not ours.
   *
   * @param target - the parsed request-target (its decoded path and its query).
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    target: Pick<RequestTarget, 'path' | 'query'>,
    logger: Logger,
  ): Promise<boolean> {
    const path = target.path;
    const kind = this.path.slice(1);
    if (path === this.path || path === `${this.path}/`) {
      const excluded = new Set(target.query.getAll('exclude'));
      const verbose = target.query.has('verbose');
      const lines: string[] = [];
      const reasons: string[] = [];
      for (const name of this.#checks.keys()) {
        if (excluded.has(name)) {
          lines.push(`[+]${name} excluded: ok`);
          continue;
        }
        const reason = await this.run(name);
        if (reason === undefined) lines.push(`[+]${name} ok`);
        else {
          lines.push(`[-]${name} failed: reason withheld`);
          reasons.push(`${name}: ${reason}`);
        }
      }
      if (reasons.length > 0) {
        logger.info(`${kind} check failed: ${reasons.join('; ')}`);
        send(res, 500, `${lines.join('\n')}\n${kind} check failed\n`);
      } else if (verbose) {
        send(res, 200, `${lines.join('\n')}\n${kind} check passed\n`);
      } else {
        send(res, 200, 'ok');
      }
      return true;
    }
    if (path.startsWith(`${this.path}/`)) {
      const name = path.slice(this.path.length + 1);
      if (!this.#checks.has(name)) {
        send(res, 404, `404 page not found: no ${kind} check named ${name}\n`);
        return true;
      }
      const reason = await this.run(name);
      if (reason === undefined) send(res, 200, 'ok');
      else {
        logger.info(`${kind} check ${name} failed: ${reason}`);
        send(res, 500, `internal server error: ${reason}\n`);
      }
      return true;
    }
    void req;
    return false;
  }
}

/** Write a plain-text response (also used by the servers). @internal */
export function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType?: string,
): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType ?? 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(body);
}
