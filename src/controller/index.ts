/**
 * The reconcile loop: a {@link Controller} that wires informers to a rate-limited work
 * queue and workers, and the helpers every controller needs — owner references, status
 * conditions, createOrUpdate/createOrPatch, conversion to and from client-node's model
 * objects, retry on conflict, a finalizer helper, and update-event predicates.
 *
 * @module
 */
export {
  Controller,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
  DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS,
  ControllerAlreadyRunningError,
  ControllerStartedError,
  ReconcileTimeoutError,
  InvalidControllerOptionsError,
} from './controller.js';
export type {
  ControllerInformer,
  ControllerOptions,
  ControllerRunOptions,
  EnqueueOptions,
  ForOptions,
  OwnsOptions,
  ReconcileResult,
  Reconciler,
  WatchOptions,
} from './controller.js';
export {
  AlreadyOwnedError,
  getControllerOf,
  hasOwnerReference,
  InvalidOwnerError,
  ownerKeys,
  OwnerReferenceScopeError,
  referSameObject,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owner.js';
export type { OwnerKeysOptions, SetControllerReferenceOptions } from './owner.js';
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
  findStatusCondition,
  formatConditionTime,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions.js';
export type {
  Condition,
  ConditionInput,
  ConditionLike,
  ConditionStatus,
  SetStatusConditionOptions,
} from './conditions.js';
export {
  createMergePatch,
  createOrPatch,
  createOrUpdate,
  jsonEqual,
  MissingObjectNameError,
  MutateIdentityError,
} from './create_or_update.js';
export type { CreateOrUpdateResult, MutateFn, OperationResult } from './create_or_update.js';
export { fromWire, toWire, UnknownModelError } from './wire.js';
export type { ModelAttribute, ModelClass } from './wire.js';
export {
  controllerMetricNames,
  controllerStates,
  getDefaultControllerMetricsProvider,
  reconcileResultLabels,
  reconcileTimeBuckets,
  setDefaultControllerMetricsProvider,
} from './metrics.js';
export type {
  ControllerMetricsProvider,
  ControllerState,
  ReconcileResultLabel,
} from './metrics.js';
