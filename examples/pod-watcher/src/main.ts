/**
 * `npm start`: watches pods and prints each change with its node.
 * Default: the in-memory API server, seeded with two pods, then one added and one deleted;
 * exits by itself. `--kubeconfig [PATH]`: a real cluster, until Ctrl-C.
 */
import { clusterFlags, openCluster, runProgram } from 'kube-controller-kit';
import { runPodWatcher } from './pod_watcher.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

const pod = (name: string, node: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx:1.27' }] },
  status: { phase: 'Running' },
});

await runProgram(
  {
    name: 'pod-watcher',
    summary:
      'Prints every pod change with its node and how many pods share that node (informer, index, lister, work queue, workers).',
    flags: {
      ...clusterFlags,
      namespace: { value: 'NAME', description: 'watch one namespace (default: all)' },
    },
  },
  async ({ flags, signal, logger }) => {
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      logger,
      signal,
    });
    try {
      const server = cluster.server;
      if (server !== undefined) {
        server.create('pods', pod('web-1', 'node-a'));
        server.create('pods', pod('web-2', 'node-a'));
      }
      const stop = new AbortController();
      let sawAdd = false;
      let sawDelete = false;
      signal.addEventListener('abort', () => stop.abort(), { once: true });
      await runPodWatcher(cluster.kubeConfig, stop.signal, {
        logger,
        ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
        onSynced: () => {
          console.log('✓ cache synced');
          if (server === undefined) return; // a real cluster: run until Ctrl-C
          // On the in-memory server, play a little story and stop.
          server.create('pods', pod('db-1', 'node-b'));
          server.delete('pods', 'web-2', 'default');
        },
        onReport: (r) => {
          console.log(
            r.deleted
              ? `pod ${r.key} deleted`
              : `pod ${r.key} phase=${r.terminating ? 'Terminating' : (r.phase ?? '?')} node=${r.node ?? '(unscheduled)'} podsOnNode=${r.podsOnNode}`,
          );
          if (r.key === 'default/db-1') sawAdd = true;
          // Pods on a node delete gracefully: Terminating until the kubelet confirms, and
          // the in-memory server runs no kubelet.
          if (r.key === 'default/web-2' && (r.deleted || r.terminating)) sawDelete = true;
          if (server !== undefined && sawAdd && sawDelete) stop.abort();
        },
      });
    } finally {
      await cluster.close();
    }
  },
);
