/**
 * The work queue family: a deduplicating queue, a priority queue where an item is never processed by two
 * workers at once, a delaying queue, a rate-limiting queue, client-go's rate limiters,
 * a worker runner and metrics hooks.
 *
 * @module
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
