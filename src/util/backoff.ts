/**
 * Exponential backoff with jitter and a cap, after client-go's `wait.Backoff`, plus the
 * reflector's "reset after a quiet period" wrapper ({@link DelayWithReset}).
 *
 * Arithmetic (client-go's `Backoff.Step`): each step returns the current duration with
 * jitter added (`d + random·jitter·d`), then multiplies the duration by `factor`. When the
 * product exceeds `capMs`, the duration is pinned to the cap and the remaining steps drop
 * to 0; from then on every step returns the (jittered) cap. With `steps` exhausted the
 * duration no longer grows.
 *
 * @module
 */
import type { Clock } from './clock.js';
import { realClock } from './clock.js';

/** The parameters of an exponential backoff (client-go's `wait.Backoff`). */
export interface BackoffOptions {
  /** The first delay, in milliseconds. */
  durationMs: number;
  /** Multiplier applied after each step; 0 or 1 keeps the delay constant. Default 1. */
  factor?: number;
  /** Each delay becomes `d + random·jitter·d`; 0 disables jitter. Default 0. */
  jitter?: number;
  /** How many times the delay may still grow (and, for retry loops, how many tries remain). Default 1. */
  steps?: number;
  /** Upper bound of the un-jittered delay, in ms; 0 means no cap. Default 0. */
  capMs?: number;
}

/**
 * The reflector's default: 800 ms, ×2, jitter 1.0, cap 30 s, 38 steps (client-go). Delays
 * settle in [30 s, 60 s).
 */
export const defaultReflectorBackoff: Readonly<Required<BackoffOptions>> = Object.freeze({
  durationMs: 800,
  factor: 2,
  jitter: 1,
  steps: 38,
  capMs: 30_000,
});

/** How long the reflector's backoff waits without a reset before starting over (2 min). */
export const defaultBackoffResetMs = 120_000;

/**
 * `durationMs` plus a random fraction of `maxFactor·durationMs` (client-go's `wait.Jitter`;
 * a `maxFactor` ≤ 0 counts as 1).
 */
export function jitter(
  durationMs: number,
  maxFactor: number,
  random: () => number = Math.random,
): number {
  const f = maxFactor <= 0 ? 1 : maxFactor;
  return durationMs + random() * f * durationMs;
}

/** A stateful exponential backoff: each {@link Backoff.step} returns the next delay. */
export class Backoff {
  #durationMs: number;
  #steps: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #capMs: number;
  readonly #random: () => number;

  /**
   * @param options - duration, factor, jitter, steps and cap.
   * @param random - source of randomness in [0, 1) (default `Math.random`; tests pin it).
   */
  constructor(options: BackoffOptions, random: () => number = Math.random) {
    if (!(options.durationMs >= 0)) {
      throw new RangeError(`Backoff durationMs must be a number ≥ 0, got ${options.durationMs}`);
    }
    this.#durationMs = options.durationMs;
    this.#factor = options.factor ?? 1;
    this.#jitter = options.jitter ?? 0;
    this.#steps = options.steps ?? 1;
    this.#capMs = options.capMs ?? 0;
    this.#random = random;
  }

  /** Steps left before the delay stops growing (retry loops stop when it reaches 0). */
  get stepsRemaining(): number {
    return this.#steps;
  }

  /** The next un-jittered delay, in ms. */
  get currentMs(): number {
    return this.#durationMs;
  }

  /** Return the next delay in ms and advance the backoff. */
  step(): number {
    if (this.#steps < 1) {
      return this.#jitter > 0
        ? jitter(this.#durationMs, this.#jitter, this.#random)
        : this.#durationMs;
    }
    this.#steps--;
    const duration = this.#durationMs;
    if (this.#factor !== 0) {
      this.#durationMs = this.#durationMs * this.#factor;
      if (this.#capMs > 0 && this.#durationMs > this.#capMs) {
        this.#durationMs = this.#capMs;
        this.#steps = 0;
      }
    }
    return this.#jitter > 0 ? jitter(duration, this.#jitter, this.#random) : duration;
  }
}

/** Options of {@link DelayWithReset}. */
export interface DelayWithResetOptions {
  /** Start over from the initial delay when more than this many ms passed since the last reset. 0 never resets. */
  resetAfterMs: number;
  /** Source of time (default the real clock). */
  clock?: Clock;
  /** Source of randomness in [0, 1) (default `Math.random`). */
  random?: () => number;
}

/**
 * A backoff that starts over when more than `resetAfterMs` has passed since it was
 * created or last reset: not since the last failure (client-go's `Backoff.DelayWithReset`).
 * A steady stream of failures therefore still returns to short delays every period.
 */
export class DelayWithReset {
  readonly #options: BackoffOptions;
  readonly #resetAfterMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  #backoff: Backoff;
  #lastReset: number;

  /**
   * @param backoff - the backoff parameters; `steps` ≤ 0 or absent means unlimited growth up to the cap.
   * @param options - the reset period, clock and randomness.
   */
  constructor(backoff: BackoffOptions, options: DelayWithResetOptions) {
    this.#options = {
      ...backoff,
      steps:
        backoff.steps === undefined || backoff.steps <= 0 ? Number.MAX_SAFE_INTEGER : backoff.steps,
    };
    this.#resetAfterMs = options.resetAfterMs;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#backoff = new Backoff(this.#options, this.#random);
    this.#lastReset = this.#clock.now();
  }

  /** The next delay in ms, starting over first if the reset period has passed. */
  next(): number {
    const now = this.#clock.now();
    if (this.#resetAfterMs > 0 && now - this.#lastReset > this.#resetAfterMs) {
      this.#backoff = new Backoff(this.#options, this.#random);
      this.#lastReset = now;
    }
    return this.#backoff.step();
  }
}
