/**
 * Many timeouts on one timer of a clock: what lets a process with hundreds of informers
 * hold one timer for all their watch deadlines, not one each.
 *
 * {@link sharedTimers} gives the one set of a clock. Its `setTimeout` behaves as the clock's
 * own (the callback runs once the clock reaches the deadline; `cancel()` before then stops
 * it; cancelling twice or after it ran does nothing), but only the earliest deadline of the
 * set is a timer of the clock: when it fires, every deadline due by then runs, earliest
 * first (ties in the order they were set), and the timer is set again for the next one.
 * With no deadline left, no timer is left either. Under a {@link FakeClock} deadlines fire
 * as the clock advances, as its own timers do.
 *
 * @module
 */
import type { Clock, Timer } from '../util/clock.js';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- named in TSDoc
import type { FakeClock } from '../util/clock.js';

/** One deadline of a {@link SharedTimers}. */
class Deadline implements Timer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
  readonly #owner: SharedTimers;

  constructor(owner: SharedTimers, at: number, seq: number, callback: () => void) {
    this.#owner = owner;
    this.at = at;
    this.seq = seq;
    this.callback = callback;
  }

  cancel(): void {
    this.#owner.cancel(this);
  }
}

/**
 * The timeouts of one clock, on one timer of that clock. See the module documentation.
 */
export class SharedTimers {
  readonly #clock: Clock;
  readonly #deadlines = new Set<Deadline>();
  #seq = 0;
  #timer: Timer | undefined;
  #timerAt = Infinity;

  /** @param clock - the clock whose time and timer the deadlines use. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** How many deadlines are waiting. */
  get size(): number {
    return this.#deadlines.size;
  }

  /** Run `callback` once after `delayMs` ms (negative counts as 0), as `Clock.setTimeout`. */
  setTimeout(callback: () => void, delayMs: number): Timer {
    const at = this.#clock.now() + Math.max(0, delayMs);
    const deadline = new Deadline(this, at, this.#seq++, callback);
    this.#deadlines.add(deadline);
    if (at < this.#timerAt) this.#arm(at);
    return deadline;
  }

  /** Drops a deadline (it will not run); the timer goes with the last one. @internal */
  cancel(deadline: Deadline): void {
    if (!this.#deadlines.delete(deadline)) return;
    if (this.#deadlines.size === 0) this.#disarm();
  }

  #arm(at: number): void {
    this.#timer?.cancel();
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), at - this.#clock.now());
  }

  #disarm(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now();
    const due: Deadline[] = [];
    for (const d of this.#deadlines) if (d.at <= now) due.push(d);
    due.sort((a, b) => a.at - b.at || a.seq - b.seq);
    try {
      for (const d of due) {
        // Skipped when an earlier callback cancelled it, as a timer of the clock would be.
        if (this.#deadlines.delete(d)) d.callback();
      }
    } finally {
      this.#rearm();
    }
  }

  #rearm(): void {
    let next = Infinity;
    for (const d of this.#deadlines) if (d.at < next) next = d.at;
    if (next === Infinity) this.#disarm();
    else if (next < this.#timerAt) this.#arm(next);
  }
}

const byClock = new WeakMap<Clock, SharedTimers>();

/** The one {@link SharedTimers} of `clock` (made on first use). */
export function sharedTimers(clock: Clock): SharedTimers {
  let timers = byClock.get(clock);
  if (timers === undefined) {
    timers = new SharedTimers(clock);
    byClock.set(clock, timers);
  }
  return timers;
}
