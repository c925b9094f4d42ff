/**
 * Leader election configuration: client-go's validation rules and defaults.
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { LeaderElectionConfigError } from './errors.js';
import type { ResourceLock } from './lease_lock.js';
import type { LeaderElectionMetricsProvider } from './metrics.js';

/** Default lease duration: 15 s (kube-controller-manager and kube-scheduler). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** Default renew deadline: 10 s. */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** Default retry period: 2 s. */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's jitter factor for acquire retries: waits of retryPeriod × [1, 2.2). */
export const JITTER_FACTOR = 1.2;

/** What the elector calls as leadership comes and goes. */
export interface LeaderCallbacks {
  /**
   * Called when this candidate becomes leader. `signal` aborts (with a
   * `LeadershipLostError`) the moment leadership ends; stop all guarded work then. The
   * elector waits for a returned promise to settle before it releases the lease and calls
   * `onStoppedLeading`. Returning early does not give up leadership.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once when `run()` ends, whether or not this candidate ever led. */
  onStoppedLeading(): void | Promise<void>;
  /**
   * Called asynchronously whenever the observed holder differs from the last one reported,
   * including the first holder observed and `''` when the lease was released.
   */
  onNewLeader?(identity: string): void | Promise<void>;
}

/** Configuration of a {@link LeaderElector}. Durations are in milliseconds. */
export interface LeaderElectionConfig {
  /** The lock to hold, usually a {@link LeaseLock}; its identity must be non-empty. */
  lock: ResourceLock;
  /**
   * How long non-leaders wait, after they last saw the lease change, before trying to take
   * it over (default 15 000). Written to the Lease rounded up to whole seconds, so it must
   * be at least 1000.
   */
  leaseDurationMs?: number;
  /**
   * How long the leader keeps trying to renew before it gives up leadership (default
   * 10 000). Counted from the start of its last successful renewal.
   */
  renewDeadlineMs?: number;
  /** How long to wait between attempts to acquire or renew (default 2000). */
  retryPeriodMs?: number;
  /** The callbacks. `onStartedLeading` and `onStoppedLeading` are required. */
  callbacks: LeaderCallbacks;
  /**
   * When true, the leader writes an empty holder (and a 1 s duration) when it stops
   * leading, so another candidate takes over within about one retry period. Only set it if
   * the guarded work has stopped by the time `onStartedLeading`'s promise settles.
   */
  releaseOnCancel?: boolean;
  /** A name for logs and health checks (default: the lock's description). */
  name?: string;
  /** Source of time (default: the real clock). */
  clock?: Clock;
  /** Where to log (default: warnings and errors to stderr). */
  logger?: Logger;
  /** Random numbers in [0, 1) for retry jitter (default `Math.random`). */
  random?: () => number;
  /** Where to report `leader_election_master_status` and `leader_election_slowpath_total`. */
  metrics?: LeaderElectionMetricsProvider;
}

/** A validated configuration with every default filled in. */
export interface ResolvedLeaderElectionConfig {
  /** The lock. */
  lock: ResourceLock;
  /** Lease duration in ms. */
  leaseDurationMs: number;
  /** Renew deadline in ms. */
  renewDeadlineMs: number;
  /** Retry period in ms. */
  retryPeriodMs: number;
  /** The callbacks. */
  callbacks: LeaderCallbacks;
  /** Release the lease when leadership ends. */
  releaseOnCancel: boolean;
  /** Name for logs and health checks. */
  name: string;
}

function positive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) {
    throw new LeaderElectionConfigError(
      `${name} > 0`,
      `${name} is ${value}; give a positive number of milliseconds`,
    );
  }
}

/**
 * Checks a configuration against client-go's rules and fills in the defaults
 * (15 s / 10 s / 2 s).
 *
 * Rules: all durations > 0; leaseDuration ≥ 1 s (the Lease stores whole seconds);
 * leaseDuration > renewDeadline; renewDeadline > 1.2 × retryPeriod; the lock and its
 * identity are set; onStartedLeading and onStoppedLeading are functions.
 *
 * @throws {@link LeaderElectionConfigError} naming the first rule broken.
 */
export function validateLeaderElectionConfig(
  config: LeaderElectionConfig,
): ResolvedLeaderElectionConfig {
  const leaseDurationMs = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadlineMs = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriodMs = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  positive('leaseDuration', leaseDurationMs);
  positive('renewDeadline', renewDeadlineMs);
  positive('retryPeriod', retryPeriodMs);
  if (leaseDurationMs < 1000) {
    throw new LeaderElectionConfigError(
      'leaseDuration >= 1s',
      `leaseDurationMs is ${leaseDurationMs}; the Lease stores whole seconds, use at least 1000`,
    );
  }
  if (!(leaseDurationMs > renewDeadlineMs)) {
    throw new LeaderElectionConfigError(
      'leaseDuration > renewDeadline',
      `leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs})`,
    );
  }
  if (!(renewDeadlineMs > JITTER_FACTOR * retryPeriodMs)) {
    throw new LeaderElectionConfigError(
      'renewDeadline > 1.2 × retryPeriod',
      `renewDeadlineMs (${renewDeadlineMs}) must be greater than ${JITTER_FACTOR} × retryPeriodMs (${retryPeriodMs})`,
    );
  }
  const lock = config.lock as ResourceLock | undefined;
  if (lock === undefined || lock === null) {
    throw new LeaderElectionConfigError('lock set', 'give a LeaseLock as `lock`');
  }
  if (typeof lock.identity !== 'string' || lock.identity === '') {
    throw new LeaderElectionConfigError(
      'lock identity non-empty',
      `the lock ${lock.describe()} has an empty identity; give each candidate a unique identity`,
    );
  }
  const callbacks = config.callbacks as LeaderCallbacks | undefined;
  if (typeof callbacks?.onStartedLeading !== 'function') {
    throw new LeaderElectionConfigError(
      'onStartedLeading set',
      'callbacks.onStartedLeading must be a function that runs the guarded work',
    );
  }
  if (typeof callbacks.onStoppedLeading !== 'function') {
    throw new LeaderElectionConfigError(
      'onStoppedLeading set',
      'callbacks.onStoppedLeading must be a function (it is called when run() ends)',
    );
  }
  return {
    lock,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    callbacks,
    releaseOnCancel: config.releaseOnCancel ?? false,
    name: config.name ?? lock.describe(),
  };
}
