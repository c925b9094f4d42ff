/**
 * The building blocks without the Controller class: a pods informer with an index by node
 * (`spec.nodeName`), a lister, a rate-limiting work queue, workers, and a reconcile that
 * logs each pod and how many pods share its node.
 */
import type { V1Pod } from '@kubernetes/client-node';
import {
  RateLimitingQueue,
  SharedInformerFactory,
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceIndexFunc,
  namespaceIndex,
  runWorkers,
  splitMetaNamespaceKey,
  waitForCacheSync,
} from 'kube-controller-kit';
import type { DeepReadonly, KubeConfigLike, Logger, Serialized } from 'kube-controller-kit';

type Pod = Serialized<V1Pod>;

/** The name of the index of pods by node. */
export const byNode = 'byNode';

/** Index function: a pod's node name, none while it is unscheduled. */
export function nodeNameIndexFunc(pod: DeepReadonly<Pod>): string[] {
  const node = pod.spec?.nodeName;
  return node === undefined || node === '' ? [] : [node];
}

/** One line of the watcher's output. */
export interface PodReport {
  /** `namespace/name`. */
  key: string;
  /** The pod's node, if scheduled; undefined when the pod is gone. */
  node: string | undefined;
  /** The pod's phase; undefined when the pod is gone. */
  phase: string | undefined;
  /** Pods on the same node, from the index. */
  podsOnNode: number;
  /** True when the pod was deleted. */
  deleted: boolean;
  /** True while a deleted pod is shutting down (graceful deletion: deletionTimestamp set). */
  terminating: boolean;
}

/** Options of {@link runPodWatcher}. */
export interface PodWatcherOptions {
  /** Watch one namespace; default all. */
  namespace?: string;
  /** Parallel workers (default 2). */
  workers?: number;
  /** Receives each report (default: printed with console.log). */
  onReport?: (report: PodReport) => void;
  /** Called once the cache has synced. */
  onSynced?: () => void;
  /** Where the informer and the queue log (default: the library's default, warnings only). */
  logger?: Logger;
}

/** Runs the watcher until `signal` aborts; resolves after everything has stopped. */
export async function runPodWatcher(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  options: PodWatcherOptions = {},
): Promise<void> {
  const report =
    options.onReport ??
    ((r: PodReport) =>
      console.log(
        r.deleted
          ? `pod ${r.key} deleted`
          : `pod ${r.key} phase=${r.terminating ? 'Terminating' : (r.phase ?? '?')} node=${r.node ?? '(unscheduled)'} podsOnNode=${r.podsOnNode}`,
      ));
  const factory = new SharedInformerFactory(kubeConfig, {
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  const informer = factory.pods({
    indexers: { [namespaceIndex]: metaNamespaceIndexFunc, [byNode]: nodeNameIndexFunc },
  });
  const lister = informer.lister();
  const indexer = informer.getIndexer();
  const queue = new RateLimitingQueue<string>({ name: 'pod-watcher' });
  const enqueue = (obj: unknown) => queue.add(deletionHandlingMetaNamespaceKeyFunc(obj));
  const registration = informer.addEventHandler({
    onAdd: enqueue,
    onUpdate: (_old, obj) => enqueue(obj),
    onDelete: enqueue,
  });

  const reconcile = (key: string): void => {
    const [ns, name] = splitMetaNamespaceKey(key);
    const pod = lister.byNamespace(ns).tryGet(name);
    if (pod === undefined) {
      report({
        key,
        node: undefined,
        phase: undefined,
        podsOnNode: 0,
        deleted: true,
        terminating: false,
      });
      return;
    }
    const node = pod.spec?.nodeName;
    const podsOnNode = node === undefined ? 0 : indexer.byIndex(byNode, node).length;
    report({
      key,
      node,
      phase: pod.status?.phase,
      podsOnNode,
      deleted: false,
      terminating: pod.metadata?.deletionTimestamp !== undefined,
    });
  };

  factory.start(signal);
  try {
    options.logger?.info('waiting for the pods cache to sync');
    if (await waitForCacheSync(signal, () => registration.hasSynced())) {
      options.logger?.info('pods cache synced', { pods: indexer.list().length });
      options.onSynced?.();
    }
    await runWorkers(
      queue,
      options.workers ?? 2,
      (key) => {
        try {
          reconcile(key);
          queue.forget(key);
        } catch (err) {
          options.logger?.error('reconcile failed; retrying with backoff', { key, error: err });
          queue.addRateLimited(key); // retried with backoff
          throw err;
        }
      },
      signal,
    );
  } finally {
    queue.shutDown();
    informer.removeEventHandler(registration);
    await factory.shutdown();
  }
}
