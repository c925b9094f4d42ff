// A watch stream a test drives by hand: push events, end it cleanly, or break it with an
// error. It honours the signal it is bound to (iteration throws an AbortError once aborted)
// and records whether the reader closed it. Shared by the reflector and informer tests.
import type { WatchEvent } from '../../src/client/types.js';

const abortError = (): Error => Object.assign(new Error('aborted'), { name: 'AbortError' });

export class ScriptedWatchStream<T> implements AsyncIterable<WatchEvent<T>> {
  readonly #buffer: (WatchEvent<T> | { end: true } | { error: unknown })[] = [];
  #wake: (() => void) | undefined;
  /** True once the reader has left its `for await` loop. */
  closed = false;
  signal: AbortSignal | undefined;

  push(...events: WatchEvent<T>[]): this {
    this.#buffer.push(...events);
    this.#wake?.();
    return this;
  }

  end(): this {
    this.#buffer.push({ end: true });
    this.#wake?.();
    return this;
  }

  fail(error: unknown): this {
    this.#buffer.push({ error });
    this.#wake?.();
    return this;
  }

  bind(signal: AbortSignal): this {
    this.signal = signal;
    signal.addEventListener('abort', () => this.#wake?.(), { once: true });
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    try {
      for (;;) {
        while (this.#buffer.length === 0) {
          if (this.signal?.aborted) throw abortError();
          await new Promise<void>((r) => (this.#wake = r));
        }
        if (this.signal?.aborted) throw abortError();
        const next = this.#buffer.shift()!;
        if ('end' in next) return;
        if ('error' in next) throw next.error;
        yield next;
      }
    } finally {
      this.closed = true;
    }
  }
}
