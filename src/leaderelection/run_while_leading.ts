/**
 * Running a controller only while this process leads.
 *
 * @module
 */
import type { LeaderElectionConfig } from './config.js';
import { LeaderElector } from './leader_elector.js';

/** What to do after leadership is lost: return, or go back to the election. */
export type OnLeadershipLost = 'exit' | 'rejoin';

/** How a {@link LeaderElectedRunner} ended. */
export type LeaderElectedRunOutcome =
  /** The signal given to `run()` aborted. */
  | 'cancelled'
  /** Leadership was lost and `onLost` is `'exit'`. */
  | 'leadership-lost'
  /** The guarded function returned while leading; the runner stepped down. */
  | 'completed';

/** Options of a {@link LeaderElectedRunner}: the election config without the callbacks. */
export interface LeaderElectedRunnerOptions extends Omit<LeaderElectionConfig, 'callbacks'> {
  /**
   * The guarded work (a controller). Runs only while leading; `signal` aborts when
   * leadership ends or the runner is cancelled. Returning gives up leadership (the runner
   * ends with `'completed'`); throwing gives up leadership and `run()` rejects with the
   * error.
   */
  run(signal: AbortSignal): Promise<void>;
  /** After losing leadership: `'exit'` (default) returns, `'rejoin'` runs for election again. */
  onLost?: OnLeadershipLost;
  /** Called whenever another holder is observed (see {@link LeaderCallbacks.onNewLeader}). */
  onNewLeader?(identity: string): void | Promise<void>;
  /** Called each time an election round ends (see {@link LeaderCallbacks.onStoppedLeading}). */
  onStoppedLeading?(): void | Promise<void>;
}

/**
 * Runs a function only while leading, on top of one {@link LeaderElector}.
 *
 * @example
 * ```ts
 * const runner = new LeaderElectedRunner({
 *   lock,
 *   releaseOnCancel: true,
 *   onLost: 'rejoin',
 *   run: (signal) => controller.run(signal),
 * });
 * const outcome = await runner.run(shutdownSignal); // 'cancelled' on shutdown
 * ```
 */
export class LeaderElectedRunner {
  /** The elector underneath (for `isLeader()`, `check()`, a {@link HealthzAdaptor}). */
  readonly elector: LeaderElector;
  readonly #options: LeaderElectedRunnerOptions;
  #round: { controller: AbortController; completed: boolean } | undefined;

  /**
   * @param options - the election config, the guarded function and what to do on loss.
   * @throws {@link LeaderElectionConfigError} when the config breaks a rule.
   */
  constructor(options: LeaderElectedRunnerOptions) {
    this.#options = options;
    const config: LeaderElectionConfig = {
      ...options,
      callbacks: {
        onStartedLeading: (signal) => this.#lead(signal),
        onStoppedLeading: () => options.onStoppedLeading?.(),
        onNewLeader: (identity) => options.onNewLeader?.(identity),
      },
    };
    this.elector = new LeaderElector(config);
  }

  /**
   * Takes part in the election until cancelled, until the function returns, or (with
   * `onLost: 'exit'`) until leadership is lost. Resolves after everything has stopped.
   * Rejects with the function's error if it throws while leading.
   */
  async run(signal?: AbortSignal): Promise<LeaderElectedRunOutcome> {
    for (;;) {
      if (signal?.aborted === true) return 'cancelled';
      const controller = new AbortController();
      const round = { controller, completed: false };
      this.#round = round;
      const onAbort = (): void => controller.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await this.elector.run(controller.signal);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        this.#round = undefined;
      }
      if (round.completed) return 'completed';
      if (isAborted(signal)) return 'cancelled';
      if ((this.#options.onLost ?? 'exit') === 'exit') return 'leadership-lost';
    }
  }

  async #lead(signal: AbortSignal): Promise<void> {
    const round = this.#round;
    await this.#options.run(signal);
    if (!signal.aborted && round !== undefined) {
      round.completed = true;
      round.controller.abort();
    }
  }
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Runs `options.run` only while leading; shorthand for
 * `new LeaderElectedRunner(options).run(signal)`.
 */
export function runWhileLeading(
  options: LeaderElectedRunnerOptions,
  signal?: AbortSignal,
): Promise<LeaderElectedRunOutcome> {
  return new LeaderElectedRunner(options).run(signal);
}
