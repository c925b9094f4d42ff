/**
 * controller-runtime's `SetupSignalHandler`: the first SIGTERM or SIGINT aborts a signal
 * (graceful shutdown), a second one exits the process at once with code 1.
 *
 * @module
 */

/** What {@link setupSignalHandler} returns. */
export interface SignalHandler {
  /** Aborts on the first SIGTERM or SIGINT; its reason names the signal. */
  readonly signal: AbortSignal;
  /** Remove the process listeners (after shutdown finished). */
  dispose(): void;
}

/** Options of {@link setupSignalHandler}. */
export interface SignalHandlerOptions {
  /** The signals to handle (default SIGTERM and SIGINT). */
  signals?: readonly NodeJS.Signals[];
  /** What a second signal does (default: `process.exit(1)`, as controller-runtime). */
  onSecondSignal?: (signal: NodeJS.Signals) => void;
}

/**
 * Handle SIGTERM and SIGINT: the first aborts the returned signal, the second exits with
 * code 1 (a stuck shutdown can still be interrupted). `Manager.start()` calls it when it is
 * given no signal.
 */
export function setupSignalHandler(options: SignalHandlerOptions = {}): SignalHandler {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const onSecond =
    options.onSecondSignal ??
    ((): void => {
      process.exit(1);
    });
  const controller = new AbortController();
  const listener = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      onSecond(sig);
      return;
    }
    controller.abort(new Error(`received ${sig}`));
  };
  for (const s of signals) process.on(s, listener);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of signals) process.off(s, listener);
    },
  };
}
