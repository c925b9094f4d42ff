/**
 * The workers waiting in a queue's `get()`: one list both work queues share.
 *
 * @module
 * @internal
 */

interface Waiter<R> {
  resolve: (r: R) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Workers blocked in `get()`, first come first served. A wait with a signal leaves the list
 * and rejects with the signal's reason when aborted; a resolved wait stops listening.
 *
 * @typeParam R - what a wait resolves to.
 * @internal
 */
export class Waiters<R> {
  #list: Waiter<R>[] = [];

  /** Number of waiting workers. */
  get length(): number {
    return this.#list.length;
  }

  /** Wait until {@link Waiters.resolveNext} or {@link Waiters.resolveAll} hands over a result. */
  wait(signal: AbortSignal | undefined): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiter: Waiter<R> = { resolve, signal, onAbort: undefined };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          const i = this.#list.indexOf(waiter);
          if (i >= 0) this.#list.splice(i, 1);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#list.push(waiter);
    });
  }

  /** Resolve the longest-waiting worker with `r`; false when none waits. */
  resolveNext(r: R): boolean {
    const waiter = this.#list.shift();
    if (waiter === undefined) return false;
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(r);
    return true;
  }

  /** Resolve every waiting worker with `r` (shutdown). */
  resolveAll(r: R): void {
    const list = this.#list;
    this.#list = [];
    for (const w of list) {
      if (w.onAbort !== undefined) w.signal?.removeEventListener('abort', w.onAbort);
      w.resolve(r);
    }
  }
}
