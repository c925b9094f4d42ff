/**
 * `npm run example:pod-watcher`: watches pods and logs each change with its node.
 * Default: the in-memory API server, seeded with a few pods that are then changed.
 * `--kubeconfig [path]`: a real cluster, until Ctrl-C.
 */
import { openCluster, parseClusterArgs, signalController, runAsMain } from '../shared/cluster.js';
import { runPodWatcher } from './src/pod_watcher.js';

/** Runs the example with command-line arguments. */
export async function main(argv: readonly string[] = []): Promise<void> {
  const cluster = await openCluster(parseClusterArgs(argv));
  console.log(`▶ ${cluster.description}`);
  const { controller, dispose } = signalController();
  try {
    const server = cluster.server;
    if (server === undefined) {
      await runPodWatcher(cluster.kubeConfig, controller.signal);
      return;
    }
    const pod = (name: string, node: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] },
      status: { phase: 'Running' },
    });
    server.create('pods', pod('web-1', 'node-a'));
    server.create('pods', pod('web-2', 'node-a'));
    const running = runPodWatcher(cluster.kubeConfig, controller.signal, {
      onSynced: () => {
        console.log('✓ cache synced');
        server.create('pods', pod('db-1', 'node-b'));
        server.delete('pods', 'web-2', 'default');
        setTimeout(() => controller.abort(), 300);
      },
    });
    await running;
  } finally {
    dispose();
    await cluster.close();
  }
}

runAsMain(import.meta.url, main);
