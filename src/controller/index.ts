/**
 * The reconcile loop (controller-runtime's `controller` and `controllerutil`): a
 * {@link Controller} wires informers to a rate-limited work queue and workers that call
 * your `reconcile(key, signal)`, with requeue, requeue-after, error backoff and graceful
 * shutdown; `for`/`owns`/`watches` map events to keys. Beside it, the helpers a reconcile
 * uses: status conditions, owner references, `createOrUpdate`/`createOrPatch`,
 * `retryOnConflict`, finalizers, update predicates, and `toWire`/`fromWire` between
 * client-node's model classes and the wire form.
 *
 * Imported from `kube-controller-kit`. Guide: [controller](../../docs/controller.md).
 *
 * ```ts
 * import {
 *   Controller,
 *   SharedInformerFactory,
 *   Transport,
 *   configMaps,
 *   splitMetaNamespaceKey,
 * } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const transport = new Transport(server.kubeConfig());
 * const factory = new SharedInformerFactory(transport);
 * const informer = factory.configMaps();
 * const stop = new AbortController();
 *
 * const controller = new Controller({
 *   name: 'configmap-printer',
 *   workers: 2,
 *   reconcile: async (key) => {
 *     const [namespace, name] = splitMetaNamespaceKey(key);
 *     const cm = informer.lister().byNamespace(namespace).tryGet(name);
 *     console.log(key, cm ? cm.data : '(deleted)');
 *     stop.abort(); // one is enough here
 *   },
 * }).for(informer); // every change of a ConfigMap enqueues its namespace/name
 *
 * factory.start(stop.signal); // informers are started by you or a factory
 * await configMaps(transport)
 *   .namespace('default')
 *   .create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
 * await controller.run(stop.signal); // resolves after shutdown
 * await factory.shutdown();
 * transport.close();
 * await server.close();
 * ```
 *
 * @module controller
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
