/**
 * The informer's cache (client-go's `tools/cache`): {@link SharedIndexInformer} keeps an
 * indexed local copy of one resource in step with the server and tells handlers what
 * changed; {@link SharedInformerFactory} shares one informer per resource among every
 * caller; {@link Lister}s read the cache; beneath them the {@link Reflector} (list and
 * watch, relist on 410, backoff), {@link DeltaFIFO} and {@link RealFIFO}, the
 * {@link Indexer}, key functions and label and field selectors. {@link watcher} gives the
 * same list-and-watch as an async iterable, with stream combinators.
 *
 * Imported from `kube-controller-kit`. Guides: [reflector](../../docs/reflector.md),
 * [informer](../../docs/informer.md), [factories](../../docs/factories.md),
 * [streams](../../docs/streams.md).
 *
 * ```ts
 * import { SharedInformerFactory, Transport, configMaps } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const transport = new Transport(server.kubeConfig());
 * const factory = new SharedInformerFactory(transport, { namespace: 'default' });
 * const informer = factory.configMaps(); // SharedIndexInformer<Serialized<V1ConfigMap>>
 * const added = new Promise<string>((resolve) => {
 *   informer.addEventHandler({ onAdd: (cm) => resolve(cm.metadata?.name ?? '') });
 * });
 *
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 * await configMaps(transport).namespace('default').create({ metadata: { name: 'settings' } });
 * console.log('added', await added);
 * const cached = informer.lister().byNamespace('default').get('settings'); // from the cache
 * console.log('uid', cached.metadata?.uid);
 *
 * await factory.shutdown(); // stops every informer; resolves once all have stopped
 * transport.close();
 * await server.close();
 * ```
 *
 * @module cache
 */
export type { ListerWatcher } from './listwatch.js';
export { ConsistencyStore, StaleCacheError, resourceVersionAtLeast } from './consistency.js';
export type { ConsistencyStoreOptions, WaitReadyOptions } from './consistency.js';
export {
  listWatchFromClient,
  shardFilteringListerWatcher,
  validateSelectors,
} from './listwatch.js';
export {
  watcher,
  watcherFromListerWatcher,
  defaultBackoff,
  defaultWatcherBufferSize,
  WatcherPermanentError,
} from './watcher.js';
export type {
  WatcherEvent,
  WatcherInitDoneEvent,
  WatcherInitEvent,
  WatcherObjectEvent,
  WatcherOptions,
} from './watcher.js';
export {
  appliedObjects,
  touchedObjects,
  predicateFilter,
  predicates,
  defaultPredicateTtlMs,
  reflect,
  shareWatcher,
  SharedWatcher,
} from './watcher_combinators.js';
export type {
  StreamPredicate,
  PredicateFilterOptions,
  ShareWatcherOptions,
} from './watcher_combinators.js';
export {
  fnv1a64,
  formatShardBound,
  formatShardSelector,
  hashSpaceSize,
  matchesShardRanges,
  parseShardSelector,
  shardFields,
  shardFieldValue,
  shardSelectorMatcher,
  ShardSelectorParseError,
} from '../apimachinery/shard_selector.js';
export type { ShardField, ShardRange } from '../apimachinery/shard_selector.js';
export type { ListWatchClient, ListWatchFromClientOptions } from './listwatch.js';
export { FIFOClosedError } from './fifo.js';
export type {
  Delta,
  Deltas,
  DeltaType,
  KeyFunction,
  KeyListerGetter,
  FIFOQueue,
  FIFOProcessFunc,
  TransformFunc,
} from './fifo.js';
export { DeltaFIFO, newestDelta, oldestDelta } from './delta_fifo.js';
export type { DeltaFIFOOptions, PopProcessFunc } from './delta_fifo.js';
export { RealFIFO, defaultMaxBatch } from './real_fifo.js';
export type {
  RealFIFODelta,
  RealFIFOOptions,
  RealFIFOProcessFunc,
  RealFIFOBatchProcessFunc,
  ReplacedAllDelta,
  SyncAllDelta,
  BookmarkDelta,
} from './real_fifo.js';
export {
  Reflector,
  VeryShortWatchError,
  WatchIdleTimeoutError,
  WatchListUnsupportedError,
  ReflectorAlreadyRunningError,
  defaultIdleTimeoutMs,
  defaultWatchListEnabled,
} from './reflector.js';
export type { LastError, ReflectorOptions, ReflectorStore, ReflectorTuning } from './reflector.js';
export { SelectorParseError } from '../apimachinery/selector_error.js';
export {
  parseLabelSelector,
  labelSelectorFromSet,
  labelSelectorFromLabelSelector,
  labelSelectorFromRequirements,
  labelRequirement,
  validateLabelKey,
  validateLabelValue,
  everything,
  nothing,
} from '../apimachinery/labels.js';
export type {
  LabelSelector,
  LabelRequirement,
  LabelOperator,
  LabelSelectorSpec,
  LabelSelectorRequirementSpec,
} from '../apimachinery/labels.js';
export {
  parseFieldSelector,
  fieldSelectorFromSet,
  everythingFields,
  escapeFieldValue,
} from '../apimachinery/fields.js';
export type { FieldSelector, FieldRequirement } from '../apimachinery/fields.js';
export type { DeepMutable, DeepReadonly } from './deep_readonly.js';
export {
  CacheMutationDetector,
  CacheMutationError,
  cacheMutationDetectorFromEnv,
  deepCopy,
  firstDifference,
} from './mutation_detector.js';
export {
  metaNamespaceKeyFunc,
  deletionHandlingMetaNamespaceKeyFunc,
  splitMetaNamespaceKey,
  objectKey,
  explicitKey,
  DeletedFinalStateUnknown,
  KeyError,
  UnexpectedKeyFormatError,
} from './keys.js';
export type { ExplicitKey, KeyFunc } from './keys.js';
export {
  Indexer,
  namespaceIndex,
  metaNamespaceIndexFunc,
  IndexNotFoundError,
  IndexerConflictError,
  IndexFuncError,
} from './indexer.js';
export type { IndexFunc, Indexers, IndexerOptions, ReadonlyIndexer } from './indexer.js';
export { Lister } from './listers.js';
export type { NamespaceLister, ListerOptions } from './listers.js';
export {
  SharedIndexInformer,
  InformerAlreadyStartedError,
  InformerStoppedError,
  InvalidRegistrationError,
  minimumResyncPeriodMs,
} from './shared_informer.js';
export type {
  SharedIndexInformerOptions,
  AddEventHandlerOptions,
  ResourceEventHandlerRegistration,
  WatchErrorHandler,
} from './shared_informer.js';
export { RingGrowing } from './processor.js';
export type { ResourceEventHandler, HandlerErrorHook } from './processor.js';
export {
  waitForCacheSync,
  waitForCacheSyncWithOptions,
  waitForInformersSync,
  cacheSyncPollIntervalMs,
  CacheSyncTimeoutError,
  describeNotSynced,
} from './wait.js';
export type {
  WaitForCacheSyncOptions,
  SyncSource,
  NotSynced,
  CacheSyncTimeoutErrorOptions,
} from './wait.js';
export {
  describeSyncFailure,
  rbacRuleFor,
  SyncFailureReporter,
  syncFailureReminderMs,
} from './sync_failure.js';
export type {
  SyncFailure,
  SyncFailureCause,
  SyncFailureReporterOptions,
  SyncTarget,
} from './sync_failure.js';
export { compactForControllers, stripManagedFields } from './transforms.js';
export type { CompactOptions } from './transforms.js';
export { SharedInformerFactory, informerKey } from './factory.js';
export type {
  SharedInformerFactoryOptions,
  InformerForOptions,
  InformerTuning,
  GenericTransform,
  TweakListOptionsFunc,
} from './factory.js';
