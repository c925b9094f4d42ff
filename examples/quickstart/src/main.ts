// The README's quick start, as a program: a Manager with a pod informer from its cache and a
// controller that logs each pod's phase, the in-memory API server standing in for a
// cluster. Run: npm start (`--help` for the flags; `--kubeconfig` for a real cluster).
import {
  clusterFlags,
  Controller,
  Manager,
  openCluster,
  podsResource,
  runProgram,
  splitMetaNamespaceKey,
} from 'kube-controller-kit';

await runProgram(
  {
    name: 'quickstart',
    summary:
      "The README's quick start: a Manager, a pod informer from its cache and a Controller that logs each pod's phase. On the in-memory server it creates three pods and stops after logging them; on a real cluster it runs until Ctrl-C.",
    flags: clusterFlags,
  },
  async ({ flags, signal, logger }) => {
    // The in-memory API server by default; --kubeconfig for a real cluster.
    const cluster = await openCluster({ kubeconfig: flags.kubeconfig, logger, signal });
    try {
      const stop = new AbortController(); // start() also stops on Ctrl-C / SIGTERM
      signal.addEventListener('abort', () => stop.abort(), { once: true });

      const manager = new Manager({
        kubeConfig: cluster.kubeConfig,
        healthProbeBindAddress: '127.0.0.1:0', // default ':8081' (/healthz, /readyz)
        metricsBindAddress: '0', // default ':8080' (/metrics, with prom-client installed)
        logger,
        // leaderElection: { id: 'pod-logger', namespace: 'default' },
      });
      const pods = manager.cache.pods(); // SharedIndexInformer<Serialized<V1Pod>>
      const lister = pods.lister();

      const seen = new Set<string>();
      const controller = new Controller({
        name: 'pod-logger',
        workers: 2,
        reconcile: async (key) => {
          const [namespace, name] = splitMetaNamespaceKey(key);
          const pod = lister.byNamespace(namespace).tryGet(name);
          console.log(pod ? `${key}: ${pod.status?.phase ?? 'Pending'}` : `${key}: deleted`);
          seen.add(key);
          if (cluster.server !== undefined && seen.size === 3) stop.abort();
        },
      }).for(pods);
      manager.add(controller);

      if (cluster.server !== undefined) {
        const client = manager.client(podsResource); // reads from the cache, writes to the server
        for (const name of ['a', 'b', 'c']) {
          await client.create({
            metadata: { name, namespace: 'default' },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          });
        }
      }
      await manager.start(stop.signal); // resolves once everything stopped
    } finally {
      await cluster.close();
    }
  },
);
