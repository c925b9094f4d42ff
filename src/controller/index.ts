/**
 * The reconcile loop: a {@link Controller} that wires informers to a rate-limited work
 * queue and workers, and the helpers every controller needs — owner-reference mapping,
 * retry on conflict, a finalizer helper, and update-event predicates.
 *
 * @module
 */
export {
  Controller,
  DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS,
  ControllerAlreadyRunningError,
  ControllerStartedError,
  InvalidControllerOptionsError,
} from './controller.js';
export type {
  ControllerInformer,
  ControllerOptions,
  ControllerRunOptions,
  OwnsOptions,
  ReconcileResult,
  Reconciler,
  WatchOptions,
} from './controller.js';
export { ownerKeys } from './owner.js';
export type { OwnerKeysOptions } from './owner.js';
export { DefaultBackoff, DefaultRetry, onError, retryOnConflict } from './retry.js';
export type { RetryOptions } from './retry.js';
export { applyFinalizer, FinalizerConflictError, InvalidFinalizerError } from './finalizer.js';
export type { ApplyFinalizerOptions, FinalizerHandlers } from './finalizer.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  not,
  or,
} from './predicates.js';
export type { UpdatePredicate } from './predicates.js';
export {
  controllerMetricNames,
  getDefaultControllerMetricsProvider,
  reconcileResultLabels,
  reconcileTimeBuckets,
  setDefaultControllerMetricsProvider,
} from './metrics.js';
export type { ControllerMetricsProvider, ReconcileResultLabel } from './metrics.js';
