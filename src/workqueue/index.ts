/**
 * The work queue (client-go's `util/workqueue`) that stands between an informer's handlers
 * and the workers: a key is never processed by two workers at once, a key added while it is
 * being processed is queued again after `done`, and a key added many times waits once.
 * {@link Queue}, {@link DelayingQueue} (`addAfter`), {@link RateLimitingQueue}
 * (`addRateLimited`, `forget`), {@link PriorityQueue}, client-go's rate limiters,
 * {@link runWorkers}, and metrics under client-go's names.
 *
 * Imported from `kube-controller-kit`. Guide: [work queue](../../docs/workqueue.md).
 *
 * ```ts
 * import { RateLimitingQueue, runWorkers } from 'kube-controller-kit';
 *
 * const queue = new RateLimitingQueue<string>({ name: 'example' });
 * queue.add('default/web');
 * queue.add('default/web'); // deduplicated: the key waits once
 *
 * const stop = new AbortController();
 * let attempts = 0;
 * await runWorkers(
 *   queue,
 *   2,
 *   async (key) => {
 *     attempts++;
 *     if (attempts < 3) {
 *       queue.addRateLimited(key); // failed: back again after 5 ms, then 10 ms, …
 *       return;
 *     }
 *     queue.forget(key); // succeeded: its backoff starts over
 *     console.log(`${key} done after ${attempts} attempts`);
 *     stop.abort();
 *   },
 *   stop.signal,
 * );
 * queue.shutDown();
 * ```
 *
 * @module workqueue
 */
export { Queue } from './queue.js';
export type { QueueOptions, QueueGetResult } from './queue.js';
export type { RateLimitingWorkQueue, WorkQueue } from './interface.js';
export { LowPriority, PriorityQueue } from './priority_queue.js';
export type {
  PriorityAddOptions,
  PriorityQueueGetResult,
  PriorityQueueOptions,
} from './priority_queue.js';
export { DelayingQueue } from './delaying_queue.js';
export type { DelayingQueueOptions } from './delaying_queue.js';
export { RateLimitingQueue } from './rate_limiting_queue.js';
export type { RateLimitingQueueOptions } from './rate_limiting_queue.js';
export {
  BucketRateLimiter,
  InvalidRateLimiterError,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from './rate_limiters.js';
export type { RateLimiter } from './rate_limiters.js';
export { InvalidWorkerCountError, runWorkers } from './workers.js';
export type { RunWorkersOptions, WorkHandler } from './workers.js';
export {
  MAX_PRIORITY_LABELS,
  PRIORITY_CARDINALITY_EXCEEDED,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
  getDefaultMetricsProvider,
  setDefaultMetricsProvider,
  workqueueMetricNames,
} from './metrics.js';
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from './metrics.js';
