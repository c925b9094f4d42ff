/**
 * The Manager (controller-runtime's `manager`): one object that runs an operator process —
 * a shared cache, the controllers and other runnables, leader election, `/healthz` and
 * `/readyz` probes, a `/metrics` endpoint, webhooks — and shuts them down in order on
 * SIGTERM/SIGINT; with it, a client that reads from the cache and writes to the server.
 *
 * Imported from `kube-controller-kit`. Guide: [manager](../../docs/manager.md).
 *
 * ```ts
 * import { Controller, Manager, configMapsResource } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const stop = new AbortController(); // without a signal, start() stops on SIGTERM/SIGINT
 * const manager = new Manager({
 *   kubeConfig: server.kubeConfig(),
 *   healthProbeBindAddress: '127.0.0.1:0', // default ':8081'
 *   metricsBindAddress: '0', // off; default ':8080'
 *   // leaderElection: { id: 'settings-operator', namespace: 'default' },
 * });
 * const configMaps = manager.cache.configMaps();
 * manager.add(
 *   new Controller({
 *     name: 'settings',
 *     reconcile: async (key) => {
 *       console.log('reconcile', key);
 *       stop.abort();
 *     },
 *   }).for(configMaps),
 * );
 *
 * await manager.client(configMapsResource).create({
 *   metadata: { name: 'settings', namespace: 'default' },
 * });
 * await manager.start(stop.signal); // resolves once everything stopped
 * await server.close();
 * ```
 *
 * @module manager
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
