/**
 * Debouncing of a controller's triggers (kube-rs `Config::debounce`): triggers for one key
 * inside the window give one enqueue, on the trailing edge.
 *
 * - The first trigger of a key starts a window of `debounceMs`; each further trigger inside
 *   it moves the end to `debounceMs` after that trigger (trailing edge).
 * - **But never later than `maxDebounceMs` after the first trigger**: a key that changes
 *   more often than every `debounceMs` would otherwise never be reconciled (the starvation
 *   kube-rs warns of); the cap bounds its delay.
 * - The key is enqueued once, at the highest priority any of its triggers asked for, a
 *   trigger without a priority counting as 0 (as controller-runtime's priority queue takes
 *   the highest of the priorities added, the default being 0): a real change followed in
 *   the window by a resync (`LowPriority`) is queued at 0, not behind the backlog.
 * - `stop()` drops the keys still waiting and cancels their timers.
 *
 * @module
 */
import type { Clock, Timer } from '../util/clock.js';

interface Pending {
  readonly first: number;
  /** The highest priority of the window's triggers (none counts as 0). */
  priority: number;
  timer: Timer;
}

/** Collapses bursts of triggers per key; see the module rules. @internal */
export class Debouncer {
  readonly #clock: Clock;
  readonly #debounceMs: number;
  readonly #maxDebounceMs: number;
  readonly #fire: (key: string, priority: number) => void;
  readonly #pending = new Map<string, Pending>();
  #stopped = false;

  /** @param fire - called with the key and its highest priority when its window closes. */
  constructor(
    clock: Clock,
    debounceMs: number,
    maxDebounceMs: number,
    fire: (key: string, priority: number) => void,
  ) {
    this.#clock = clock;
    this.#debounceMs = debounceMs;
    this.#maxDebounceMs = maxDebounceMs;
    this.#fire = fire;
  }

  /** One more trigger for `key`, at `priority` (undefined: none asked for, i.e. 0). */
  trigger(key: string, priority: number | undefined): void {
    if (this.#stopped) return;
    const asked = priority ?? 0;
    const now = this.#clock.now();
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      const entry: Pending = {
        first: now,
        priority: asked,
        timer: this.#arm(key, Math.min(this.#debounceMs, this.#maxDebounceMs)),
      };
      this.#pending.set(key, entry);
      return;
    }
    if (asked > pending.priority) pending.priority = asked;
    pending.timer.cancel();
    const end = Math.min(now + this.#debounceMs, pending.first + this.#maxDebounceMs);
    pending.timer = this.#arm(key, end - now);
  }

  /** Keys waiting for their window to close. */
  pendingLen(): number {
    return this.#pending.size;
  }

  /** Drop every waiting key and its timer; later triggers are ignored. */
  stop(): void {
    this.#stopped = true;
    for (const p of this.#pending.values()) p.timer.cancel();
    this.#pending.clear();
  }

  #arm(key: string, delayMs: number): Timer {
    return this.#clock.setTimeout(() => {
      const p = this.#pending.get(key);
      this.#pending.delete(key);
      this.#fire(key, p?.priority ?? 0);
    }, delayMs);
  }
}
