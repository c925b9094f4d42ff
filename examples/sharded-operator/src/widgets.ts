/**
 * The Widget resource, the ring's names, and one replica's controller: a Widget's reconcile
 * writes which shard handled it into its status, and prints one JSON line per reconcile.
 */
import { Controller, ResourceClient, SharedInformerFactory } from 'kube-controller-kit';
import type { ApiResource, KubeConfigLike, Logger, Reconciler, Shard } from 'kube-controller-kit';

/** The ring's name: the shard label is `shard.kube-controller-kit.dev/widgets`. */
export const RING = 'widgets';

/** Widgets (`example.com/v1`, namespaced; see crd.yaml). */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
  spec?: { size?: number };
  status?: { shard?: string; observedGeneration?: number };
}

/** The Widget resource. */
export const widgetsResource: ApiResource<Widget> = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

/** One reconcile, as printed: shard, key, and start and end in ms since the epoch. */
export interface ReconcileLine {
  shard: string;
  key: string;
  start: number;
  end: number;
}

/**
 * Which Widgets a replica sees: in `labels` mode the sharder's label (and the shard wraps the
 * reconcile for drains); in `server` mode a `shardSelector` for the hash ranges the replica
 * holds (the API server filters; no labels, no drains to honour).
 */
export type ShardScope =
  { mode: 'labels'; shard: Shard } | { mode: 'server'; name: string; shardSelector: string };

/**
 * Runs one replica's controller until `signal` aborts: an informer that sees only this
 * shard's Widgets, and a reconcile that records the shard in the Widget's status.
 */
export async function runWidgetController(
  kubeConfig: KubeConfigLike,
  scope: ShardScope,
  namespace: string,
  signal: AbortSignal,
  options: { logger: Logger; onReconcile: (line: ReconcileLine) => void },
): Promise<void> {
  const shardName = scope.mode === 'labels' ? scope.shard.name : scope.name;
  const factory = new SharedInformerFactory(kubeConfig, {
    ...(scope.mode === 'labels'
      ? { labelSelector: scope.shard.labelSelector }
      : { shardSelector: scope.shardSelector }),
    logger: options.logger,
  });
  const informer = factory.forResource(widgetsResource, { namespace });
  const client = new ResourceClient(kubeConfig, widgetsResource);
  const reconcile = async (key: string, s: AbortSignal): Promise<void> => {
    const start = Date.now();
    const cached = informer.getIndexer().getByKey(key);
    if (cached !== undefined) {
      const widget = JSON.parse(JSON.stringify(cached)) as Widget; // a mutable copy
      const generation = widget.metadata?.generation;
      if (widget.status?.shard !== shardName || widget.status.observedGeneration !== generation) {
        widget.status = {
          shard: shardName,
          ...(generation === undefined ? {} : { observedGeneration: generation }),
        };
        await client
          .namespace(widget.metadata?.namespace ?? namespace)
          .updateStatus(widget, { signal: s });
      }
    }
    options.onReconcile({ shard: shardName, key, start, end: Date.now() });
  };
  const wrapped: Reconciler =
    scope.mode === 'labels'
      ? scope.shard.reconciler({ store: informer.getIndexer(), client, reconcile })
      : reconcile;
  const controller = new Controller({
    name: `widgets-${shardName}`,
    workers: 2,
    logger: options.logger,
    reconcile: wrapped,
  }).for(informer);
  factory.start(signal);
  try {
    await controller.run(signal, { shutdown: 'abort' });
  } finally {
    await factory.shutdown();
  }
}
