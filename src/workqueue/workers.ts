/**
 * Running workers over a queue: `runWorkers(queue, n, handler, signal)` is the loop every
 * controller writes by hand, once.
 *
 * @module
 */
import { defaultLogger, toLogger } from '../util/logger.js';
import type { Logger } from '../util/logger.js';
import { KubeControllerKitError, isAbortError } from '../util/errors.js';
import type { WorkQueue } from './interface.js';

/** Processes one item. The signal aborts when the workers are told to stop. */
export type WorkHandler<T> = (item: T, signal: AbortSignal) => unknown;

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions<T> {
  /**
   * Called with a handler's error (thrown or rejected) and its item. If it is absent, the
   * error is logged. `done(item)` has been called either way; requeueing is up to you.
   */
  onError?: (err: unknown, item: T) => void;
  /** Where errors go when there is no `onError` (default: warnings and errors to stderr). */
  logger?: Logger;
}

/** {@link runWorkers} was asked for an impossible number of workers. */
export class InvalidWorkerCountError extends KubeControllerKitError {}

/**
 * Run `workers` concurrent loops that take items from `queue`, call `handler(item, signal)`
 * and then `queue.done(item)` (also when the handler throws). Each loop takes a new item
 * only after its handler settled, so at most `workers` items are in flight.
 *
 * Resolves when `signal` aborts or the queue is shut down and drained, and only after
 * every handler in flight has settled. The queue is not shut down for you. Handler errors
 * go to `onError` or the logger; they never become unhandled rejections.
 */
export async function runWorkers<T>(
  queue: WorkQueue<T>,
  workers: number,
  handler: WorkHandler<T>,
  signal: AbortSignal,
  options: RunWorkersOptions<T> = {},
): Promise<void> {
  if (!Number.isInteger(workers) || workers < 1) {
    throw new InvalidWorkerCountError(
      `runWorkers: workers must be a positive integer, got ${String(workers)}`,
    );
  }
  const logger = toLogger(options.logger ?? defaultLogger);
  const report = (err: unknown, item: T): void => {
    try {
      if (options.onError !== undefined) options.onError(err, item);
      else logger.error('work queue handler failed', { item, error: err });
    } catch (hookErr) {
      logger.error('work queue onError hook threw', { item, error: hookErr });
    }
  };
  const loop = async (): Promise<void> => {
    while (!signal.aborted) {
      let next;
      try {
        next = await queue.get(signal);
      } catch (err) {
        if (isAbortError(err, signal) || signal.aborted) return;
        throw err;
      }
      if (next.shutdown) return;
      const item = next.item;
      try {
        await handler(item, signal);
      } catch (err) {
        report(err, item);
      } finally {
        queue.done(item);
      }
    }
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < workers; i++) loops.push(loop());
  await Promise.all(loops);
}
