/**
 * The errors leader election throws or reports.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/**
 * A {@link LeaderElectionConfig} breaks one of client-go's rules. `rule` names the rule
 * (for example `leaseDuration > renewDeadline`); the message says which values broke it
 * and how to fix them.
 */
export class LeaderElectionConfigError extends KubeControllerKitError {
  /** The rule that was broken, e.g. `renewDeadline > 1.2 × retryPeriod`. */
  readonly rule: string;

  /**
   * @param rule - the rule that was broken.
   * @param detail - which values broke it and what to do.
   */
  constructor(rule: string, detail: string) {
    super(`invalid leader election config: ${rule} is required: ${detail}`);
    this.rule = rule;
  }
}

/**
 * {@link LeaseLock.update} was called before the lock had read or created its Lease, so it
 * has no resourceVersion to send. Call `get` or `create` first.
 */
export class LeaseNotInitializedError extends KubeControllerKitError {
  /** @param lease - `namespace/name` of the Lease. */
  constructor(lease: string) {
    super(
      `lease ${lease} cannot be updated before it has been read or created: call get() or create() first`,
    );
  }
}

/** Why an elector stopped leading. */
export type LeadershipLostReason =
  /** No renewal succeeded within `renewDeadlineMs` of the start of the last successful one. */
  | 'renew-deadline-exceeded'
  /** The Lease was observed to name another holder. */
  | 'another-holder'
  /** The signal given to `run()` was aborted (or the leading function asked to step down). */
  | 'cancelled';

/**
 * The reason with which the signal given to `onStartedLeading` is aborted: this process
 * is no longer the leader and must stop the work the lease guards.
 */
export class LeadershipLostError extends KubeControllerKitError {
  /** Why leadership ended. */
  readonly reason: LeadershipLostReason;

  /**
   * @param lease - `namespace/name` of the Lease.
   * @param identity - this candidate's identity.
   * @param reason - why leadership ended.
   */
  constructor(lease: string, identity: string, reason: LeadershipLostReason) {
    const why =
      reason === 'renew-deadline-exceeded'
        ? 'the lease could not be renewed within renewDeadline'
        : reason === 'another-holder'
          ? 'the lease now names another holder'
          : 'the election was cancelled';
    super(`${identity} stopped leading on lease ${lease}: ${why}; stop all work the lease guards`);
    this.reason = reason;
  }
}

/**
 * The health check failed: this process believes it leads but has not renewed its lease
 * for longer than `leaseDuration + tolerance` (its renew loop is stuck). Restart the process.
 */
export class LeaseRenewalOverdueError extends KubeControllerKitError {
  /**
   * @param lease - `namespace/name` of the Lease.
   * @param sinceMs - how long ago the lease was last renewed or observed.
   * @param limitMs - `leaseDuration + tolerance`.
   */
  constructor(lease: string, sinceMs: number, limitMs: number) {
    super(
      `leader election on lease ${lease} is unhealthy: last renewal ${sinceMs} ms ago exceeds ${limitMs} ms (leaseDuration + tolerance); the renew loop is stuck, restart the process`,
    );
  }
}

/** {@link LeaderElector.run} was called while a previous `run()` of the same elector is active. */
export class ElectorAlreadyRunningError extends KubeControllerKitError {
  /** @param lease - `namespace/name` of the Lease. */
  constructor(lease: string) {
    super(
      `leader elector for lease ${lease} is already running: await the previous run() before starting another`,
    );
  }
}
