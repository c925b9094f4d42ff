/**
 * The fleet-sync operator: ConfigMaps labelled `fleet.example.com/sync=true` in the hub
 * cluster are copied into every member cluster — same namespace and name, created when the
 * namespace exists there, updated when the hub copy changes, deleted when it is deleted or
 * loses the label — and the hub object's annotation `fleet.example.com/synced-to` lists the
 * members that hold an up-to-date copy. Members come and go with the files of a directory of
 * kubeconfigs (one file one member).
 *
 * One `MultiClusterController` over three watches:
 * - the hub's labelled ConfigMaps (the local cluster): a change is one request per member,
 *   and one request of the hub itself for the status annotation;
 * - each member's copies (label `fleet.example.com/synced-from`): someone edited or deleted
 *   a copy, so it is put back;
 * - each member's Namespaces: a namespace that appears gets the copies that belong in it.
 * A request of a member makes that member's copy right; a request of the hub writes the
 * annotation from what the members' caches hold.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  KubeconfigDirectoryProvider,
  LOCAL_CLUSTER,
  Manager,
  MultiClusterController,
  MultiClusterManager,
  configMapsResource,
  isAlreadyExists,
  isConflict,
  isNotFound,
  namespacesResource,
} from 'kube-controller-kit';
import type {
  ClusterHandle,
  ClusterRequest,
  DeepReadonly,
  Logger,
  ManagerLeaderElectionOptions,
  ReconcileResult,
  Serialized,
} from 'kube-controller-kit';
import type { V1ConfigMap } from '@kubernetes/client-node';

/** The label that asks for a hub ConfigMap to be copied (value `true`). */
export const SYNC_LABEL = 'fleet.example.com/sync';
/** The label on every copy in a member (value `hub`): only labelled copies are ever touched. */
export const COPY_LABEL = 'fleet.example.com/synced-from';
/** The annotation on the hub ConfigMap: the members holding an up-to-date copy, sorted, comma-separated. */
export const STATUS_ANNOTATION = 'fleet.example.com/synced-to';

type ConfigMap = Serialized<V1ConfigMap>;

/** What the operator did, for a demo to print. */
export type FleetSyncEvent =
  | { type: 'copied' | 'updated' | 'deleted'; member: string; namespace: string; name: string }
  | { type: 'status'; namespace: string; name: string; members: string[] };

/** Options of {@link runFleetSync}. */
export interface FleetSyncOptions {
  /** Where it logs. */
  logger?: Logger;
  /** Leader election on the hub (default off). */
  leaderElection?: ManagerLeaderElectionOptions;
  /** Probe and metrics addresses (default `'0'`: off). */
  healthProbeBindAddress?: string;
  /** The metrics address (default `'0'`: off). */
  metricsBindAddress?: string;
  /** Quiet time after a change in the member directory before it is read (default 500 ms). */
  debounceMs?: number;
  /** Concurrent reconciles across members (default 4). */
  workers?: number;
  /** Called after each write. */
  onEvent?: (event: FleetSyncEvent) => void;
}

const wanted = (cm: DeepReadonly<ConfigMap> | undefined): cm is DeepReadonly<ConfigMap> =>
  cm !== undefined &&
  cm.metadata?.labels?.[SYNC_LABEL] === 'true' &&
  cm.metadata.deletionTimestamp === undefined;

const sameContent = (a: DeepReadonly<ConfigMap>, b: DeepReadonly<ConfigMap>): boolean =>
  JSON.stringify(a.data ?? {}) === JSON.stringify(b.data ?? {}) &&
  JSON.stringify(a.binaryData ?? {}) === JSON.stringify(b.binaryData ?? {});

/**
 * Run the operator until `signal` aborts: the hub from `hub`, the members from the
 * kubeconfig files of `memberDirectory`.
 */
export async function runFleetSync(
  hub: KubeConfig,
  memberDirectory: string,
  signal: AbortSignal,
  options: FleetSyncOptions = {},
): Promise<void> {
  const logger = options.logger;
  const manager = new Manager({
    kubeConfig: hub,
    healthProbeBindAddress: options.healthProbeBindAddress ?? '0',
    metricsBindAddress: options.metricsBindAddress ?? '0',
    ...(logger !== undefined ? { logger } : {}),
    ...(options.leaderElection !== undefined ? { leaderElection: options.leaderElection } : {}),
  });
  const fleet = new MultiClusterManager(
    manager,
    new KubeconfigDirectoryProvider({
      directory: memberDirectory,
      debounceMs: options.debounceMs ?? 500,
      ...(logger !== undefined ? { logger } : {}),
    }),
    logger !== undefined ? { logger } : {},
  );
  // The hub's labelled ConfigMaps (one informer, shared by the watch and the reconcile).
  const hubConfigMaps = () =>
    manager.informer(configMapsResource, { labelSelector: `${SYNC_LABEL}=true` });
  // A member's copies: only ConfigMaps this operator made are ever cached or touched.
  const copies = (cluster: ClusterHandle) =>
    cluster.informer(configMapsResource, { labelSelector: `${COPY_LABEL}=hub` });
  const request = (cluster: string, namespace: string, name: string): ClusterRequest => ({
    cluster,
    namespace,
    name,
  });

  const syncMember = async (
    req: ClusterRequest,
    member: ClusterHandle,
  ): Promise<ReconcileResult | undefined> => {
    const { namespace, name } = req;
    const source = hubConfigMaps().lister().byNamespace(namespace).tryGet(name);
    const copy = copies(member).lister().byNamespace(namespace).tryGet(name);
    const client = member.client(configMapsResource).direct.namespace(namespace);
    if (wanted(source)) {
      if (member.informer(namespacesResource).lister().tryGet(namespace) === undefined) {
        return undefined;
      }
      if (copy === undefined) {
        try {
          await client.create({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace, labels: { [COPY_LABEL]: 'hub' } },
            ...(source.data !== undefined ? { data: { ...source.data } } : {}),
            ...(source.binaryData !== undefined ? { binaryData: { ...source.binaryData } } : {}),
          });
        } catch (err) {
          // A ConfigMap of the member's own, not labelled as a copy: left alone.
          if (!isAlreadyExists(err)) throw err;
          logger?.warn(
            `member ${req.cluster} has its own ConfigMap ${namespace}/${name}; not overwritten`,
          );
          return undefined;
        }
        options.onEvent?.({ type: 'copied', member: req.cluster, namespace, name });
      } else if (!sameContent(copy, source)) {
        const { data, binaryData, ...rest } = structuredClone(copy) as ConfigMap;
        void data;
        void binaryData;
        try {
          await client.update({
            ...rest,
            ...(source.data !== undefined ? { data: { ...source.data } } : {}),
            ...(source.binaryData !== undefined ? { binaryData: { ...source.binaryData } } : {}),
          });
        } catch (err) {
          // The cache had not seen this copy's last write yet: try again once it has.
          if (isConflict(err)) return { requeue: true };
          throw err;
        }
        options.onEvent?.({ type: 'updated', member: req.cluster, namespace, name });
      }
    } else if (copy !== undefined) {
      try {
        await client.delete(name, { preconditions: { uid: copy.metadata?.uid ?? '' } });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      options.onEvent?.({ type: 'deleted', member: req.cluster, namespace, name });
    }
    return undefined;
  };

  const writeStatus = async (req: ClusterRequest): Promise<void> => {
    const { namespace, name } = req;
    const hubClient = manager.client(configMapsResource).direct.namespace(namespace);
    const source = hubConfigMaps().lister().byNamespace(namespace).tryGet(name);
    if (!wanted(source)) {
      // No longer selected (label removed): take the annotation away if it is still there.
      let current: ConfigMap;
      try {
        current = await hubClient.get(name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (current.metadata?.annotations?.[STATUS_ANNOTATION] === undefined) return;
      await hubClient.patch(name, { metadata: { annotations: { [STATUS_ANNOTATION]: null } } });
      return;
    }
    const members = controller.engagedClusters().filter((member) => {
      const copy = copies(fleet.getCluster(member)).lister().byNamespace(namespace).tryGet(name);
      return copy !== undefined && sameContent(copy, source);
    });
    const value = members.join(',');
    if (source.metadata?.annotations?.[STATUS_ANNOTATION] === value) return;
    await hubClient.patch(name, { metadata: { annotations: { [STATUS_ANNOTATION]: value } } });
    options.onEvent?.({ type: 'status', namespace, name, members });
  };

  const controller: MultiClusterController = new MultiClusterController({
    name: 'fleet-sync',
    workers: options.workers ?? 4,
    ...(logger !== undefined ? { logger } : {}),
    reconcile: async (req, { cluster }) => {
      if (req.cluster === LOCAL_CLUSTER) {
        await writeStatus(req);
        return;
      }
      const result = await syncMember(req, cluster);
      controller.enqueue(request(LOCAL_CLUSTER, req.namespace, req.name));
      return result;
    },
  })
    // Hub: every labelled ConfigMap, to every member and to its own status. The
    // annotation this operator writes changes nothing to copy: such updates are skipped.
    .watches(
      (cluster) => cluster.informer(configMapsResource, { labelSelector: `${SYNC_LABEL}=true` }),
      (cm) => {
        const { namespace = '', name = '' } = cm.metadata ?? {};
        return [
          ...controller.engagedClusters().map((member) => request(member, namespace, name)),
          request(LOCAL_CLUSTER, namespace, name),
        ];
      },
      {
        engageWithLocalCluster: true,
        engageWithProviderClusters: false,
        predicate: (oldCm, newCm) => !sameContent(oldCm, newCm),
      },
    )
    // Members: their copies (put back when edited or deleted by someone else).
    .for(configMapsResource, { informerOptions: { labelSelector: `${COPY_LABEL}=hub` } })
    // Members: a namespace that appears gets the copies that belong in it.
    .watches(namespacesResource, (ns, member) =>
      hubConfigMaps()
        .lister()
        .byNamespace(ns.metadata?.name ?? '')
        .list()
        .map((cm) => request(member, cm.metadata?.namespace ?? '', cm.metadata?.name ?? '')),
    );
  fleet.add(controller);
  // A member that leaves is no longer reached: rewrite every status then.
  fleet.add({
    name: 'status-on-leave',
    start: (s) =>
      new Promise<void>((resolve) => s.addEventListener('abort', () => resolve(), { once: true })),
    engage: (clusterSignal) => {
      clusterSignal.addEventListener(
        'abort',
        () => {
          for (const cm of hubConfigMaps().lister().list()) {
            controller.enqueue(
              request(LOCAL_CLUSTER, cm.metadata?.namespace ?? '', cm.metadata?.name ?? ''),
            );
          }
        },
        { once: true },
      );
    },
  });
  await fleet.start(signal);
}
