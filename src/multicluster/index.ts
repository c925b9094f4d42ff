/**
 * One operator over many clusters (multicluster-runtime's shapes on this kit's Manager):
 * cluster providers find clusters — a static set ({@link StaticClusterProvider}), a
 * directory of kubeconfig files ({@link KubeconfigDirectoryProvider}), kubeconfig Secrets in
 * a hub ({@link KubeconfigSecretProvider}) — and engage each one on a
 * {@link MultiClusterManager}, whose {@link MultiClusterController}s watch it, reconcile
 * requests that carry their cluster, and share one work queue fair across clusters
 * ({@link FairQueue}); a cluster that goes away is disengaged, nothing of it left running.
 *
 * Imported from `kube-controller-kit`. Guide: [multicluster](../../docs/multicluster.md);
 * a complete program: [fleet-sync](../../examples/fleet-sync/README.md).
 *
 * ```ts
 * import {
 *   Manager,
 *   MultiClusterController,
 *   MultiClusterManager,
 *   StaticClusterProvider,
 *   configMapsResource,
 * } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const [hub, a, b] = await Promise.all([
 *   startTestApiServer(),
 *   startTestApiServer(),
 *   startTestApiServer(),
 * ]);
 * for (const [member, mode] of [[a, 'fast'], [b, 'safe']] as const) {
 *   member.create('configmaps', {
 *     apiVersion: 'v1',
 *     kind: 'ConfigMap',
 *     metadata: { name: 'settings', namespace: 'default' },
 *     data: { mode },
 *   });
 * }
 * const stop = new AbortController(); // without a signal, start() stops on SIGTERM/SIGINT
 * const seen = new Set<string>();
 * const fleet = new MultiClusterManager(
 *   // The hub: leader election, probes and metrics run here.
 *   new Manager({
 *     kubeConfig: hub.kubeConfig(),
 *     healthProbeBindAddress: '0', // off; default ':8081'
 *     metricsBindAddress: '0', // off; default ':8080'
 *   }),
 *   new StaticClusterProvider({
 *     clusters: { 'member-a': a.kubeConfig(), 'member-b': b.kubeConfig() },
 *   }),
 * );
 * fleet.add(
 *   new MultiClusterController({
 *     name: 'settings',
 *     // A request carries its cluster; the reconcile gets that cluster's handle.
 *     reconcile: async ({ cluster, namespace, name }, { cluster: member, signal }) => {
 *       const cm = await member.client(configMapsResource).get(name, { namespace, signal });
 *       console.log(`${cluster} ${namespace}/${name} mode=${cm.data?.mode}`);
 *       seen.add(cluster);
 *       if (seen.size === 2) stop.abort();
 *     },
 *   }).for(configMapsResource, { filter: (cm) => cm.metadata?.name === 'settings' }),
 * );
 * await fleet.start(stop.signal); // resolves once every cluster was disengaged
 * await Promise.all([hub.close(), a.close(), b.close()]);
 * ```
 *
 * @module multicluster
 */
export {
  ClusterNotFoundError,
  InvalidClusterNameError,
  InvalidClusterRequestError,
  InvalidKubeconfigError,
  InvalidMultiClusterOptionsError,
} from './errors.js';
export {
  LOCAL_CLUSTER,
  checkClusterName,
  clusterOfKey,
  isValidClusterName,
  parseRequestKey,
  requestKey,
} from './request.js';
export type { ClusterRequest } from './request.js';
export {
  DEFAULT_MAX_KUBECONFIG_BYTES,
  MAX_KUBECONFIG_ENTRIES,
  parseKubeconfig,
} from './kubeconfig.js';
export type { KubeconfigPolicy, ParseKubeconfigOptions } from './kubeconfig.js';
export { ClusterAlreadyStartedError, KubeconfigCluster, localCluster } from './cluster.js';
export type { ClusterHandle, KubeconfigClusterOptions } from './cluster.js';
export type { ClusterAware, ClusterProvider } from './provider.js';
export { Clusters } from './clusters.js';
export type { ClustersOptions, RunnableCluster } from './clusters.js';
export { StaticClusterProvider } from './static_provider.js';
export type { StaticClusterProviderOptions } from './static_provider.js';
export { KubeconfigDirectoryProvider, clusterNameOfFile } from './directory_provider.js';
export type { KubeconfigDirectoryProviderOptions } from './directory_provider.js';
export {
  CLUSTER_API_CLUSTER_NAME_LABEL,
  CLUSTER_API_KUBECONFIG_KEY,
  CLUSTER_API_KUBECONFIG_SUFFIX,
  KubeconfigSecretProvider,
} from './secret_provider.js';
export type { KubeconfigSecret, KubeconfigSecretProviderOptions } from './secret_provider.js';
export { FairQueue } from './fair_queue.js';
export type { AddClusterOptions, FairQueueOptions } from './fair_queue.js';
export {
  getDefaultMultiClusterMetricsProvider,
  multiClusterMetricNames,
  setDefaultMultiClusterMetricsProvider,
} from './metrics.js';
export type { MultiClusterMetricsProvider } from './metrics.js';
export { MultiClusterController } from './controller.js';
export type {
  ClusterOwnsOptions,
  ClusterSyncStatus,
  ClusterSource,
  ClusterWatchOptions,
  EngageOptions,
  MultiClusterControllerOptions,
  MultiClusterReconcileContext,
  MultiClusterReconciler,
} from './controller.js';
export { MultiClusterManager } from './manager.js';
export type { ClusterAwareRunnable, MultiClusterManagerOptions } from './manager.js';
