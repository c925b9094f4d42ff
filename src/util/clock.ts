/**
 * Time, as the library sees it.
 *
 * Every queue, backoff, resync timer and leader-election timeout takes its time from a
 * {@link Clock}, so that tests drive time with a {@link FakeClock} instead of sleeping.
 *
 * @module
 */

/** A scheduled callback that can be cancelled. Cancelling twice, or after it fired, is a no-op. */
export interface Timer {
  /** Stop the callback from running. */
  cancel(): void;
}

/** The source of time for the library. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Run `callback` once after `delayMs` milliseconds (negative delays count as 0).
   */
  setTimeout(callback: () => void, delayMs: number): Timer;
  /**
   * Resolve after `delayMs` milliseconds. With a signal, an abort rejects the promise with
   * the signal's reason at once and cancels the timer (nothing is left scheduled).
   */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

/** Longest delay Node's timers accept; longer ones would fire after 1 ms. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

function sleepWith(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(signal?.reason as Error);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wall clock and Node's own timers. */
export class RealClock implements Clock {
  /** {@inheritDoc Clock.now} */
  now(): number {
    return Date.now();
  }

  /** {@inheritDoc Clock.setTimeout} */
  setTimeout(callback: () => void, delayMs: number): Timer {
    let handle: NodeJS.Timeout | undefined;
    let cancelled = false;
    // Node clamps delays above 2^31-1 ms to 1 ms; chain shorter timers instead.
    const arm = (remaining: number): void => {
      const step = Math.min(Math.max(0, remaining), MAX_TIMER_DELAY);
      handle = setTimeout(() => {
        if (cancelled) return;
        if (remaining > MAX_TIMER_DELAY) arm(remaining - MAX_TIMER_DELAY);
        else callback();
      }, step);
    };
    arm(delayMs);
    return {
      cancel: () => {
        cancelled = true;
        if (handle !== undefined) clearTimeout(handle);
      },
    };
  }

  /** {@inheritDoc Clock.sleep} */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, delayMs, signal);
  }
}

/** The clock used when none is given. */
export const realClock: Clock = new RealClock();

interface FakeTimer {
  at: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to. Timers fire in time order (ties in the order they
 * were set) while {@link FakeClock.advance} moves time forward.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const slept = clock.sleep(1000);
 * await clock.advance(1000); // fires the timer, then lets promise callbacks run
 * await slept;
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimer[] = [];

  /** @param startMs - the initial time in ms since the epoch (default 2026-01-01T00:00:00Z). */
  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  /** {@inheritDoc Clock.now} */
  now(): number {
    return this.#now;
  }

  /** {@inheritDoc Clock.setTimeout} */
  setTimeout(callback: () => void, delayMs: number): Timer {
    const timer: FakeTimer = {
      at: this.#now + Math.max(0, delayMs),
      seq: this.#seq++,
      callback,
      cancelled: false,
    };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
        this.#timers = this.#timers.filter((t) => t !== timer);
      },
    };
  }

  /** {@inheritDoc Clock.sleep} */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, delayMs, signal);
  }

  /** How many timers are waiting to fire. */
  pendingTimers(): number {
    return this.#timers.length;
  }

  /** The time at which the next timer fires, or undefined when none is waiting. */
  nextTimerAt(): number | undefined {
    const next = this.#earliest();
    return next?.at;
  }

  /**
   * Move time forward by `ms`, firing each due timer in order and letting promise callbacks
   * and immediates run after each one (so code awaiting a timer can set the next one).
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + Math.max(0, ms);
    await flushAsync();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.at > target) break;
      this.#fire(next);
      await flushAsync();
    }
    this.#now = target;
    await flushAsync();
  }

  /** Like {@link FakeClock.advance}, without yielding to promise callbacks between timers. */
  advanceSync(ms: number): void {
    const target = this.#now + Math.max(0, ms);
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.at > target) break;
      this.#fire(next);
    }
    this.#now = target;
  }

  /** Advance exactly to the next timer and fire it (and any due at the same instant). */
  async runNext(): Promise<boolean> {
    await flushAsync();
    const next = this.#earliest();
    if (next === undefined) return false;
    await this.advance(next.at - this.#now);
    return true;
  }

  /**
   * Resolve once at least `count` timers are waiting, letting the code under test run
   * meanwhile. Rejects after `maxTurns` turns of the event loop with nothing scheduled,
   * so a test that waits for a timer that never comes fails instead of hanging.
   */
  async waitForTimers(count = 1, maxTurns = 1000): Promise<void> {
    for (let i = 0; i < maxTurns; i++) {
      if (this.#timers.length >= count) return;
      await new Promise<void>((r) => setImmediate(r));
    }
    throw new Error(
      `FakeClock.waitForTimers: expected ${count} pending timer(s), have ${this.#timers.length}`,
    );
  }

  #earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.#timers) {
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }

  #fire(timer: FakeTimer): void {
    this.#timers = this.#timers.filter((t) => t !== timer);
    if (timer.at > this.#now) this.#now = timer.at;
    if (!timer.cancelled) timer.callback();
  }
}

/** Let pending promise callbacks and immediates run (a few turns of the event loop). */
export async function flushAsync(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}
