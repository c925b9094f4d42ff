/**
 * Timestamps of events: metav1.Time (seconds) and MicroTime (microseconds), and event names.
 *
 * @module
 */
export { formatMicroTime } from '../apimachinery/micro_time.js';

/** metav1.Time's wire form: RFC 3339 in UTC, whole seconds. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The last nanosecond stamp handed out in this process (shared by every namer). */
let lastNs = 0n;

/**
 * Makes event names `<object>.<hex nanoseconds>` as client-go does, strictly increasing in
 * the process: the clock gives milliseconds, so events in the same millisecond — from any
 * broadcaster of this process — get the next nanosecond and never collide.
 */
export class EventNamer {
  readonly #now: () => number;

  /** @param now - milliseconds since the epoch. */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** A fresh name for an event about the object `objectName`. */
  name(objectName: string): string {
    let ns = BigInt(Math.floor(this.#now())) * 1_000_000n;
    if (ns <= lastNs) ns = lastNs + 1n;
    lastNs = ns;
    return `${objectName}.${ns.toString(16)}`;
  }
}
