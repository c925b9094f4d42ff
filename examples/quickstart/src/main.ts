// The README's quick start, as a program: a Manager with a pod informer from its cache and a
// controller that logs each pod's phase, the in-memory API server standing in for a
// cluster. Run: npm start
import { Controller, Manager, podsResource, splitMetaNamespaceKey } from 'kube-controller-kit';
import { startTestApiServer } from 'kube-controller-kit/testing';

const server = await startTestApiServer(); // or: new KubeConfig().loadFromDefault()
const stop = new AbortController(); // without a signal, start() stops on SIGTERM/SIGINT

const manager = new Manager({
  kubeConfig: server.kubeConfig(),
  healthProbeBindAddress: '127.0.0.1:0', // default ':8081' (/healthz, /readyz)
  metricsBindAddress: '0', // default ':8080' (/metrics, with prom-client installed)
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
    if (seen.size === 3) stop.abort();
  },
}).for(pods);
manager.add(controller);

const client = manager.client(podsResource); // reads from the cache, writes to the server
for (const name of ['a', 'b', 'c']) {
  await client.create({
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
}
await manager.start(stop.signal); // resolves once everything stopped
await server.close();
