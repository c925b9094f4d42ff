// The README's quick start, as a program: a pod informer from a factory, a controller that
// logs each pod's phase, and the in-memory API server standing in for a cluster.
// Run: npm start
import {
  Controller,
  SharedInformerFactory,
  ResourceClient,
  podsResource,
  splitMetaNamespaceKey,
} from 'kube-controller-kit';
import { startTestApiServer } from 'kube-controller-kit/testing';

const server = await startTestApiServer(); // or: new KubeConfig().loadFromDefault()
const kubeConfig = server.kubeConfig();
const stop = new AbortController();

const factory = new SharedInformerFactory(kubeConfig, { resyncPeriodMs: 0 });
const pods = factory.pods(); // SharedIndexInformer<Serialized<V1Pod>>
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

factory.start(stop.signal);
const client = new ResourceClient(kubeConfig, podsResource).namespace('default');
for (const name of ['a', 'b', 'c']) {
  await client.create({
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
}
await controller.run(stop.signal); // resolves once stopped
await factory.shutdown();
await server.close();
