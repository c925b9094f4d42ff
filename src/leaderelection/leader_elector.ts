/**
 * Leader election over a lock, with client-go's rules.
 *
 * Candidates race to write their identity into one Lease. The holder renews it every
 * `retryPeriod`; the others read it every `retryPeriod` (with jitter) and take it over
 * only after they have seen it unchanged for `leaseDuration`, measured on their own clock
 * from the moment they saw it change. The holder's timestamps are never compared with
 * the local clock, so clock offsets between machines do not matter (clock rates must
 * agree).
 *
 * The leader gives up leadership when it has not renewed within `renewDeadline` of the
 * start of its last successful renewal. Because `leaseDuration > renewDeadline`, a leader
 * cut off from the API server stops before any other candidate may take over.
 *
 * Differences from client-go, all in the direction of fewer overlapping leaders:
 * - the renew deadline counts from the start of the last successful renewal (client-go
 *   counts from the start of each renew round, up to one retry period later);
 * - a leader that reads the Lease and finds another holder stops at once instead of
 *   retrying until the deadline;
 * - the elector waits for `onStartedLeading`'s promise to settle before it releases the
 *   lease and calls `onStoppedLeading`;
 * - a rejection from `onStartedLeading` gives up leadership and is rethrown by `run()`.
 *
 * @module
 */
import { isConflict, isNotFound } from '../client/errors.js';
import { jitter } from '../util/backoff.js';
import { realClock } from '../util/clock.js';
import type { Clock, Timer } from '../util/clock.js';
import { errorMessage, isAbortError } from '../util/errors.js';
import { defaultLogger, toLogger } from '../util/logger.js';
import type { Logger } from '../util/logger.js';
import { JITTER_FACTOR, validateLeaderElectionConfig } from './config.js';
import type { LeaderElectionConfig, ResolvedLeaderElectionConfig } from './config.js';
import {
  ElectorAlreadyRunningError,
  LeadershipLostError,
  LeaseRenewalOverdueError,
} from './errors.js';
import type { LeadershipLostReason } from './errors.js';
import type { LeaderElectionRecord } from './lease_lock.js';
import type { LeaderElectionMetricsProvider } from './metrics.js';
import { formatMicroTime } from '../apimachinery/micro_time.js';

const emptyRecord: LeaderElectionRecord = Object.freeze({
  holderIdentity: '',
  leaseDurationSeconds: 0,
  acquireTime: '',
  renewTime: '',
  leaderTransitions: 0,
});

/**
 * Runs leader election for one candidate.
 *
 * @example
 * ```ts
 * const elector = new LeaderElector({
 *   lock,
 *   releaseOnCancel: true,
 *   callbacks: {
 *     onStartedLeading: (signal) => controller.run(signal),
 *     onStoppedLeading: () => logger.info('stopped leading'),
 *     onNewLeader: (id) => logger.info('leader is now', { id }),
 *   },
 * });
 * await elector.run(shutdownSignal);
 * ```
 */
export class LeaderElector {
  readonly #config: ResolvedLeaderElectionConfig;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #metrics: LeaderElectionMetricsProvider | undefined;
  #observedRecord: LeaderElectionRecord = emptyRecord;
  #observedRaw: string | undefined;
  #observedTime = 0;
  #reportedLeader = '';
  #leading = false;
  #running = false;
  readonly #pending = new Set<Promise<void>>();

  /**
   * @param config - the lock, durations and callbacks.
   * @throws {@link LeaderElectionConfigError} when the config breaks a rule.
   */
  constructor(config: LeaderElectionConfig) {
    this.#config = validateLeaderElectionConfig(config);
    this.#clock = config.clock ?? realClock;
    this.#logger = toLogger(config.logger ?? defaultLogger);
    this.#random = config.random ?? Math.random;
    this.#metrics = config.metrics;
  }

  /** The name given in the config, or the lock's `namespace/name`. */
  get name(): string {
    return this.#config.name;
  }

  /** The configuration in force, defaults filled in. */
  get config(): Readonly<ResolvedLeaderElectionConfig> {
    return this.#config;
  }

  /**
   * True while this candidate leads: from a successful acquire until leadership ends (the
   * moment the `onStartedLeading` signal aborts).
   */
  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder named by the last observed record (`''` when none or released). */
  getLeader(): string {
    return this.#observedRecord.holderIdentity;
  }

  /** `leaseTransitions` of the last observed record: how many times the lease changed hands. */
  get leaseTransitions(): number {
    return this.#observedRecord.leaderTransitions;
  }

  /** The last observed record (a copy). */
  get observedRecord(): LeaderElectionRecord {
    return { ...this.#observedRecord };
  }

  /**
   * Health check (client-go's `Check`): returns an error when the last observed record
   * names this candidate and it has not renewed for more than `leaseDuration +
   * toleranceMs` (its renew loop is stuck, or it lost the lease and kept running).
   * Returns undefined otherwise, including for candidates that are not leading.
   */
  check(toleranceMs = 0): LeaseRenewalOverdueError | undefined {
    if (!this.#recordNamesMe()) return undefined;
    const since = this.#clock.now() - this.#observedTime;
    const limit = this.#config.leaseDurationMs + toleranceMs;
    if (since > limit) return new LeaseRenewalOverdueError(this.#config.name, since, limit);
    return undefined;
  }

  /**
   * Takes part in the election until `signal` aborts or leadership is lost: acquires the
   * lease (first try at once, then every retryPeriod × [1, 2.2)), calls
   * `onStartedLeading`, renews every retryPeriod, and stops leading when no renewal
   * succeeded within renewDeadline. Always calls `onStoppedLeading` at the end, even if
   * this candidate never led.
   *
   * Resolves once everything it started has stopped: timers, requests, the
   * `onStartedLeading` promise, the release and the callbacks. To go back to the election
   * after losing, call `run()` again (see {@link runWhileLeading}).
   *
   * @throws {@link ElectorAlreadyRunningError} when a previous run() has not finished.
   * Rejects with the error of `onStartedLeading` when that function fails.
   */
  async run(signal?: AbortSignal): Promise<void> {
    if (this.#running) throw new ElectorAlreadyRunningError(this.#config.name);
    this.#running = true;
    try {
      const acquiredAt = await this.#acquire(signal);
      if (acquiredAt !== undefined) await this.#lead(signal, acquiredAt);
    } finally {
      try {
        await this.#config.callbacks.onStoppedLeading();
      } catch (err) {
        this.#logger.error('onStoppedLeading failed', { lease: this.#config.name, error: err });
      }
      while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
      this.#running = false;
    }
  }

  /** Tries until acquired (returns the start time of the winning attempt) or aborted. */
  async #acquire(signal: AbortSignal | undefined): Promise<number | undefined> {
    const { lock, retryPeriodMs } = this.#config;
    this.#logger.info('attempting to acquire leader lease', {
      lease: this.#config.name,
      identity: lock.identity,
    });
    for (;;) {
      if (signal?.aborted === true) return undefined;
      const start = this.#clock.now();
      const ok = await this.#tryAcquireOrRenew(signal);
      this.#maybeReportTransition();
      if (ok) {
        this.#logger.info('successfully acquired lease', {
          lease: this.#config.name,
          identity: lock.identity,
        });
        return start;
      }
      const wait = jitter(retryPeriodMs, JITTER_FACTOR, this.#random);
      if (!(await this.#sleep(wait, signal))) return undefined;
    }
  }

  /** Leads: starts the guarded work, renews, and cleans up when leadership ends. */
  async #lead(signal: AbortSignal | undefined, acquiredAt: number): Promise<void> {
    const { lock, callbacks, renewDeadlineMs, retryPeriodMs } = this.#config;
    const leading = new AbortController();
    let lost: LeadershipLostReason | undefined;
    let deadline: Timer | undefined;
    const lose = (reason: LeadershipLostReason): void => {
      if (lost !== undefined) return;
      lost = reason;
      deadline?.cancel();
      this.#leading = false;
      this.#metrics?.leaderOff(this.#config.name);
      this.#logger.info('stopped leading', {
        lease: this.#config.name,
        identity: lock.identity,
        reason,
      });
      leading.abort(new LeadershipLostError(this.#config.name, lock.identity, reason));
    };
    const armDeadline = (from: number): void => {
      deadline?.cancel();
      deadline = this.#clock.setTimeout(
        () => lose('renew-deadline-exceeded'),
        from + renewDeadlineMs - this.#clock.now(),
      );
    };
    const onAbort = (): void => lose('cancelled');

    let workError: { error: unknown } | undefined;
    let work: Promise<void> | undefined;
    if (signal?.aborted === true) {
      lost = 'cancelled';
    } else {
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#leading = true;
      this.#metrics?.leaderOn(this.#config.name);
      armDeadline(acquiredAt);
      work = (async () => {
        await Promise.resolve();
        if (lost !== undefined) return;
        await callbacks.onStartedLeading(leading.signal);
      })().catch((err: unknown) => {
        if (lost !== undefined && isAbortError(err, leading.signal)) return;
        this.#logger.error('onStartedLeading failed; giving up leadership', {
          lease: this.#config.name,
          error: err,
        });
        workError = { error: err };
        lose('cancelled');
      });
    }

    let first = true;
    while (lost === undefined) {
      if (!first && !(await this.#sleep(retryPeriodMs, leading.signal))) break;
      first = false;
      const start = this.#clock.now();
      const ok = await this.#tryAcquireOrRenew(leading.signal);
      this.#maybeReportTransition();
      if (lost !== undefined) break;
      if (ok) {
        armDeadline(start);
      } else {
        const holder = this.#observedRecord.holderIdentity;
        if (holder !== '' && holder !== lock.identity) lose('another-holder');
      }
    }

    signal?.removeEventListener('abort', onAbort);
    deadline?.cancel();
    this.#leading = false;
    if (work !== undefined) await work;
    if (this.#config.releaseOnCancel) await this.#release();
    if (workError !== undefined) throw workError.error;
  }

  /** client-go's tryAcquireOrRenew: true when this candidate holds the lease afterwards. */
  async #tryAcquireOrRenew(signal: AbortSignal | undefined): Promise<boolean> {
    const { lock, leaseDurationMs } = this.#config;
    const now = this.#clock.now();
    const nowString = formatMicroTime(now);
    const record: LeaderElectionRecord = {
      holderIdentity: lock.identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: nowString,
      renewTime: nowString,
      leaderTransitions: 0,
    };

    // 1. Fast path: the leader updates optimistically from its last view.
    if (this.#recordNamesMe() && this.#isLeaseValid(now)) {
      record.acquireTime = this.#observedRecord.acquireTime;
      record.leaderTransitions = this.#observedRecord.leaderTransitions;
      try {
        await raceAbort(lock.update(record, signal), signal);
        this.#setObservedRecord(record);
        return true;
      } catch (err) {
        if (isAborted(signal)) return false;
        this.#logFailure('failed to renew lease optimistically, falling back to slow path', err);
      }
    }

    // 2. Get the record, or create it.
    let observed: LeaderElectionRecord;
    try {
      const got = await raceAbort(lock.get(signal), signal);
      observed = got.record;
      // 3. Note the local time whenever the record changed.
      if (got.raw !== this.#observedRaw) {
        this.#setObservedRecord(got.record);
        this.#observedRaw = got.raw;
      }
    } catch (err) {
      if (isAborted(signal)) return false;
      if (!isNotFound(err)) {
        this.#logFailure('error retrieving lease', err);
        return false;
      }
      try {
        await raceAbort(lock.create(record, signal), signal);
      } catch (createErr) {
        if (!isAborted(signal)) this.#logFailure('error creating lease', createErr);
        return false;
      }
      this.#setObservedRecord(record);
      return true;
    }

    // 4. Another holder's lease that has not expired by our clock: wait.
    if (observed.holderIdentity !== '' && this.#isLeaseValid(now) && !this.#recordNamesMe()) {
      this.#logger.debug('lease is held by another candidate and has not expired', {
        lease: this.#config.name,
        holder: observed.holderIdentity,
      });
      return false;
    }

    // 5. Take over or renew.
    if (this.#recordNamesMe()) {
      record.acquireTime = observed.acquireTime;
      record.leaderTransitions = observed.leaderTransitions;
      this.#metrics?.slowpathExercised(this.#config.name);
    } else {
      record.leaderTransitions = observed.leaderTransitions + 1;
    }
    try {
      await raceAbort(lock.update(record, signal), signal);
    } catch (err) {
      if (!isAborted(signal)) this.#logFailure('failed to update lease', err);
      return false;
    }
    this.#setObservedRecord(record);
    return true;
  }

  /** client-go's release: an empty holder with a 1 s duration, within renewDeadline. */
  async #release(): Promise<void> {
    if (!this.#recordNamesMe()) return;
    const { lock, renewDeadlineMs } = this.#config;
    const now = formatMicroTime(this.#clock.now());
    const record: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: this.#observedRecord.leaderTransitions,
    };
    const timeout = new AbortController();
    const timer = this.#clock.setTimeout(
      () => timeout.abort(new DOMException('release timed out', 'TimeoutError')),
      renewDeadlineMs,
    );
    try {
      try {
        await raceAbort(lock.update(record, timeout.signal), timeout.signal);
      } catch (err) {
        // A renewal cut short by the loss may have landed after all, leaving our view of
        // the Lease one resourceVersion behind: re-read, and release only if still ours.
        if (!isConflict(err)) throw err;
        const got = await raceAbort(lock.get(timeout.signal), timeout.signal);
        if (got.record.holderIdentity !== lock.identity) {
          this.#setObservedRecord(got.record);
          this.#observedRaw = got.raw;
          return;
        }
        record.leaderTransitions = got.record.leaderTransitions;
        await raceAbort(lock.update(record, timeout.signal), timeout.signal);
      }
      this.#setObservedRecord(record);
      this.#logger.info('released lease', { lease: this.#config.name, identity: lock.identity });
    } catch (err) {
      this.#logger.error('failed to release lease', { lease: this.#config.name, error: err });
    } finally {
      timer.cancel();
    }
  }

  #recordNamesMe(): boolean {
    return this.#observedRecord.holderIdentity === this.#config.lock.identity;
  }

  #isLeaseValid(now: number): boolean {
    return this.#observedTime + this.#observedRecord.leaseDurationSeconds * 1000 > now;
  }

  #setObservedRecord(record: LeaderElectionRecord): void {
    this.#observedRecord = record;
    this.#observedTime = this.#clock.now();
  }

  #maybeReportTransition(): void {
    const holder = this.#observedRecord.holderIdentity;
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    const callbacks = this.#config.callbacks;
    if (callbacks.onNewLeader === undefined) return;
    const call = (async () => {
      await Promise.resolve();
      await callbacks.onNewLeader?.(holder);
    })().catch((err: unknown) => {
      this.#logger.error('onNewLeader failed', { lease: this.#config.name, error: err });
    });
    this.#pending.add(call);
    void call.finally(() => this.#pending.delete(call));
  }

  #logFailure(message: string, err: unknown): void {
    const fields = { lease: this.#config.name, error: errorMessage(err) };
    if (isConflict(err)) this.#logger.debug(message, fields);
    else this.#logger.warn(message, fields);
  }

  #sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    return this.#clock.sleep(ms, signal).then(
      () => true,
      () => false,
    );
  }
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    if (signal.aborted) {
      onAbort();
    } else {
      signal.addEventListener('abort', onAbort, { once: true });
    }
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error); // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion
      },
    );
  });
}
