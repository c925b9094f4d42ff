/**
 * A controller under leader election: run this program as several replicas; only the one
 * holding the Lease reconciles, and when it stops (releasing the Lease) a standby takes
 * over at once.
 *
 * The controller's work is small on purpose: every ConfigMap labelled
 * `example.com/stamp=true` in the namespace gets the annotation
 * `example.com/stamped-by: <identity of the leader>`, so which replica did the work is
 * visible with `kubectl get configmap -o yaml`. Replace it with your own reconcile.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  Controller,
  LeaderElectedRunner,
  LeaseLock,
  ResourceClient,
  SharedInformerFactory,
  configMapsResource,
  splitMetaNamespaceKey,
} from 'kube-controller-kit';
import type {
  KubeConfigLike,
  LeaderElectedRunOutcome,
  Logger,
  Serialized,
} from 'kube-controller-kit';

/** The label that selects the ConfigMaps the controller stamps. */
export const STAMP_LABEL = 'example.com/stamp';
/** The annotation the leader writes: its identity. */
export const STAMPED_BY = 'example.com/stamped-by';

/** Options of {@link runReplica}. */
export interface ReplicaOptions {
  /** This replica's identity (unique per process; e.g. the pod name). */
  identity: string;
  /** Namespace of the Lease and of the ConfigMaps (default `default`). */
  namespace?: string;
  /** Name of the Lease (default `leader-elected-example`). */
  leaseName?: string;
  /** Lease duration, renew deadline and retry period (ms); client-go's 15 s / 10 s / 2 s by default. */
  timing?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Where to log. */
  logger?: Logger;
  /** Called when this replica starts or stops leading, sees a new leader, or stamps. */
  onEvent?: (event: ReplicaEvent) => void;
}

/** What a replica reports. */
export type ReplicaEvent =
  | { type: 'leading'; identity: string }
  | { type: 'stopped-leading'; identity: string }
  | { type: 'new-leader'; identity: string; leader: string }
  | { type: 'stamped'; identity: string; key: string };

/**
 * Runs one replica until `signal` aborts: campaigns for the Lease, runs the controller
 * while leading, and releases the Lease on the way out so a standby takes over at once.
 */
export async function runReplica(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  options: ReplicaOptions,
): Promise<LeaderElectedRunOutcome> {
  const { identity } = options;
  const namespace = options.namespace ?? 'default';
  const emit = options.onEvent ?? (() => undefined);
  const logging = options.logger !== undefined ? { logger: options.logger } : {};
  const lock = LeaseLock.fromKubeConfig(kubeConfig, {
    namespace,
    name: options.leaseName ?? 'leader-elected-example',
    identity,
  });
  const runner = new LeaderElectedRunner({
    lock,
    name: 'leader-elected-example',
    releaseOnCancel: true,
    onLost: 'rejoin',
    ...(options.timing ?? {}),
    ...logging,
    run: async (leading) => {
      emit({ type: 'leading', identity });
      await runStamper(kubeConfig, leading, namespace, identity, options.logger, (key) =>
        emit({ type: 'stamped', identity, key }),
      );
    },
    onStoppedLeading: () => emit({ type: 'stopped-leading', identity }),
    onNewLeader: (leader) => {
      if (leader !== identity) emit({ type: 'new-leader', identity, leader });
    },
  });
  try {
    return await runner.run(signal);
  } finally {
    lock.close();
  }
}

/** The leader's work: stamp every selected ConfigMap with this identity, until `signal` aborts. */
async function runStamper(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  namespace: string,
  identity: string,
  logger: Logger | undefined,
  stamped: (key: string) => void,
): Promise<void> {
  const factory = new SharedInformerFactory(kubeConfig, {
    namespace,
    labelSelector: `${STAMP_LABEL}=true`,
    ...(logger !== undefined ? { logger } : {}),
  });
  const informer = factory.forResource(configMapsResource);
  const lister = informer.lister();
  const client = new ResourceClient<Serialized<V1ConfigMap>>(factory.transport, configMapsResource);
  const controller = new Controller({
    name: 'stamper',
    workers: 1,
    ...(logger !== undefined ? { logger } : {}),
    reconcile: async (key, rsignal) => {
      const [ns, name] = splitMetaNamespaceKey(key);
      const cm = lister.byNamespace(ns).tryGet(name);
      if (cm === undefined || cm.metadata?.annotations?.[STAMPED_BY] === identity) return;
      await client
        .namespace(ns)
        .patch(
          name,
          { metadata: { annotations: { [STAMPED_BY]: identity } } },
          { signal: rsignal, fieldManager: 'leader-elected-example' },
        );
      stamped(key);
    },
  }).for(informer);
  factory.start(signal);
  try {
    await controller.run(signal);
  } finally {
    await factory.shutdown();
  }
}
