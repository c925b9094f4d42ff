/**
 * Waiting in a test for something that happens over real sockets (a controller's write, an
 * Event, a status condition): poll a check until it passes, and fail with what was awaited
 * and the last reason it did not pass.
 *
 * @module
 */
import { KubeControllerKitError, errorMessage } from 'kube-controller-kit';

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long, in ms (default 10 000). */
  timeoutMs?: number | undefined;
  /** Time between two checks, in ms (default 10). */
  intervalMs?: number | undefined;
  /** What is awaited, for the error message (default: the check's source, shortened). */
  description?: string | undefined;
  /** Stops waiting: rejects with the signal's reason, nothing left scheduled. */
  signal?: AbortSignal | undefined;
}

/** {@link waitFor} gave up: the check never passed within the timeout. */
export class WaitForTimeoutError extends KubeControllerKitError {}

/** What a passing check returned: anything but `false`, `undefined` or `null`. */
export type WaitForResult<T> = Exclude<Awaited<T>, false | undefined | null>;

/**
 * Calls `check` until it passes, then resolves with what it returned. A check passes when
 * it returns (or resolves to) anything but `false`, `undefined` or `null` without throwing;
 * so both styles work:
 *
 * ```ts
 * const app = await waitFor(() => server.get<Application>(apps, 'web', 'default')?.status);
 * await waitFor(() => assert.equal(server.list(events, 'default').length, 2)); // retried while it throws
 * ```
 *
 * Checks run one at a time, every `intervalMs` of real time (the in-memory server and the
 * controller under test talk over loopback sockets, so a fake clock does not move them).
 *
 * @param check - what must hold; may be async.
 * @param options - timeout, interval, description, signal; a string is the description.
 * @throws WaitForTimeoutError after `timeoutMs`, naming what was awaited, with the last
 *   error the check threw (or the value it returned) as the reason.
 */
export async function waitFor<T>(
  check: () => T,
  options: WaitForOptions | string = {},
): Promise<WaitForResult<T>> {
  const o: WaitForOptions = typeof options === 'string' ? { description: options } : options;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const intervalMs = o.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let last: { error: unknown } | { value: unknown } | undefined;
  for (;;) {
    o.signal?.throwIfAborted();
    try {
      const value = await check();
      if (value !== false && value !== undefined && value !== null) {
        return value as WaitForResult<T>;
      }
      last = { value };
    } catch (err) {
      last = { error: err };
    }
    if (Date.now() >= deadline) {
      const what = o.description ?? describeCheck(check);
      const why =
        last === undefined
          ? ''
          : 'error' in last
            ? `; last failure: ${errorMessage(last.error)}`
            : `; it last returned ${String(last.value)}`;
      throw new WaitForTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}${why}`, {
        cause: last !== undefined && 'error' in last ? last.error : undefined,
      });
    }
    await pause(intervalMs, o.signal);
  }
}

function describeCheck(check: () => unknown): string {
  const source = check
    .toString()
    .replace(/\s+/g, ' ')
    .replace(/^(async\s*)?\(\)\s*=>\s*/, '');
  return source.length > 120 ? `${source.slice(0, 117)}...` : source;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      const reason: unknown = signal?.reason;
      reject(reason instanceof Error ? reason : new Error(String(reason)));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
