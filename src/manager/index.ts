/**
 * The Manager: one object that runs an operator process — a shared cache, controllers
 * and other runnables, leader election, `/healthz` and `/readyz` probes, a `/metrics`
 * endpoint, and graceful shutdown on SIGTERM/SIGINT (controller-runtime's `manager`).
 *
 * @module
 */
export {
  DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
  DEFAULT_METRICS_BIND_ADDRESS,
  IN_CLUSTER_NAMESPACE_FILE,
  Manager,
  RUNNABLE_GROUP_ORDER,
  controllerCheckName,
} from './manager.js';
export type {
  AddRunnableOptions,
  ManagerCacheOptions,
  ManagerControllerOptions,
  ManagerLeaderElectionOptions,
  ManagerOptions,
  MetricsRegistry,
  Runnable,
  RunnableGroupName,
} from './manager.js';
export {
  BindError,
  InvalidManagerOptionsError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerStoppingError,
  RunnableFailedError,
} from './errors.js';
export { HealthCheckSet, ping } from './healthz.js';
export type { HealthCheck } from './healthz.js';
export { parseBindAddress } from './servers.js';
export type { BindAddress, RequestHandler, ServingCertificate, TlsSource } from './servers.js';
export { certDirSource, servingCertificateSource, ServingCertificateError } from './cert_dir.js';
export type { CertDirOptions } from './cert_dir.js';
export { withAuthenticationAndAuthorization } from './metrics_auth.js';
export type { MetricsAuthOptions } from './metrics_auth.js';
export { setupSignalHandler } from './signals.js';
export type { SignalHandler, SignalHandlerOptions } from './signals.js';
export {
  MultiNamespaceInformer,
  MultiNamespaceLister,
  NamespaceNotCachedError,
} from './multi_namespace.js';
export type { CacheInformer, CacheLister, InformerHandler } from './multi_namespace.js';
export {
  CachedClient,
  CacheNotStartedError,
  FieldIndexNotRegisteredError,
  UnsupportedFieldSelectorError,
  fieldIndexName,
  DEFAULT_CONSISTENCY_TIMEOUT_MS,
} from './cached_client.js';
export type { CachedGetOptions, CachedListOptions, FieldExtractor } from './cached_client.js';
