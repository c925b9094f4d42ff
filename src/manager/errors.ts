/**
 * Errors of the manager.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/** {@link ManagerOptions} are invalid (a bad bind address, a leader election without an id, …). */
export class InvalidManagerOptionsError extends KubeControllerKitError {}

/** `start()` was called twice on one manager. */
export class ManagerAlreadyStartedError extends KubeControllerKitError {
  constructor() {
    super('Manager.start() was already called; a manager runs once per process');
  }
}

/** A runnable was added after the manager began to shut down. */
export class ManagerStoppingError extends KubeControllerKitError {
  /** @param name - the runnable. */
  constructor(name: string) {
    super(`cannot add runnable ${name}: the manager is shutting down`);
  }
}

/**
 * This process lost its leader lease: the leader-only runnables were stopped and the
 * manager shut down. `start()` rejects with it so that the process exits non-zero and is
 * restarted (controller-runtime exits with "leader election lost").
 */
export class LeaderElectionLostError extends KubeControllerKitError {
  /** `namespace/name` of the Lease. */
  readonly lease: string;
  /** This candidate's identity. */
  readonly identity: string;

  /** @param lease - the Lease; @param identity - this candidate; @param cause - why leadership ended. */
  constructor(lease: string, identity: string, cause: unknown) {
    super(
      `leader election lost: ${identity} no longer holds lease ${lease}` +
        (cause instanceof Error ? ` (${cause.message})` : '') +
        '; the manager stopped every runnable and exits',
      { cause },
    );
    this.lease = lease;
    this.identity = identity;
  }
}

/** A runnable's `start` rejected; the manager stopped everything else. */
export class RunnableFailedError extends KubeControllerKitError {
  /** The runnable's name. */
  readonly runnable: string;

  /** @param runnable - its name; @param cause - what it threw. */
  constructor(runnable: string, cause: unknown) {
    super(
      `runnable ${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}; the manager stopped`,
      { cause },
    );
    this.runnable = runnable;
  }
}

/** A probe or metrics server could not listen on its address. */
export class BindError extends KubeControllerKitError {
  /** The address asked for. */
  readonly address: string;

  /** @param what - which server; @param address - the address; @param cause - the listen error. */
  constructor(what: string, address: string, cause: unknown) {
    super(
      `the ${what} server could not listen on ${address}: ${cause instanceof Error ? cause.message : String(cause)}; ` +
        `choose another address, or '0' to disable it`,
      { cause },
    );
    this.address = address;
  }
}
