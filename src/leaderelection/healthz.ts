/**
 * A health check for leader election (client-go's `HealthzAdaptor`).
 *
 * @module
 */
import type { LeaderElector } from './leader_elector.js';

/** The tolerance kube-controller-manager and kube-scheduler use: 20 s. */
export const DEFAULT_HEALTHZ_TOLERANCE_MS = 20_000;

/**
 * Adapts {@link LeaderElector.check} to a named health check. Create it before the
 * elector exists (health endpoints usually start first) and hand it the elector later;
 * until then it reports healthy.
 *
 * @example
 * ```ts
 * const healthz = new HealthzAdaptor();
 * healthz.setLeaderElection(elector);
 * server.on('request', (req, res) => {
 *   const err = healthz.check();
 *   res.statusCode = err === undefined ? 200 : 500;
 *   res.end(err?.message ?? 'ok');
 * });
 * ```
 */
export class HealthzAdaptor {
  /** The check's name, as client-go registers it: `leaderElection`. */
  readonly name = 'leaderElection';
  /** How far past its lease duration a leader may be before it counts as unhealthy. */
  readonly toleranceMs: number;
  #elector: LeaderElector | undefined;

  /** @param toleranceMs - extra time allowed past the lease duration (default 20 000). */
  constructor(toleranceMs = DEFAULT_HEALTHZ_TOLERANCE_MS) {
    this.toleranceMs = toleranceMs;
  }

  /** Sets the elector to check. */
  setLeaderElection(elector: LeaderElector): void {
    this.#elector = elector;
  }

  /** Undefined when healthy (or no elector set yet); otherwise the error to report. */
  check(): Error | undefined {
    return this.#elector?.check(this.toleranceMs);
  }
}
