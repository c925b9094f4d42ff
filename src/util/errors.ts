/**
 * The root of the library's error classes.
 *
 * @module
 */

/**
 * Every error the library throws on purpose extends this class, so callers can tell the
 * library's errors from others with one `instanceof`.
 */
export class KubeControllerKitError extends Error {
  /** @param message - what went wrong, which object, and what to do about it. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The message of any thrown value, for logs and wrapped errors. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** True when `err` is the rejection of an aborted signal (an AbortError or the signal's reason). */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true && err === signal.reason) return true;
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}
