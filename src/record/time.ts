/**
 * Timestamps of events: metav1.Time (seconds) and MicroTime (microseconds), and event names.
 *
 * @module
 */
export { formatMicroTime } from '../leaderelection/micro_time.js';

/** metav1.Time's wire form: RFC 3339 in UTC, whole seconds. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Makes event names `<object>.<hex nanoseconds>` as client-go does, strictly increasing per
 * generator: the clock gives milliseconds, so events in the same millisecond get the next
 * nanosecond and never collide.
 */
export class EventNamer {
  #last = 0n;
  readonly #now: () => number;

  /** @param now - milliseconds since the epoch. */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** A fresh name for an event about the object `objectName`. */
  name(objectName: string): string {
    let ns = BigInt(Math.floor(this.#now())) * 1_000_000n;
    if (ns <= this.#last) ns = this.#last + 1n;
    this.#last = ns;
    return `${objectName}.${ns.toString(16)}`;
  }
}
