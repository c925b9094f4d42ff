/**
 * `npm run example:dynamic-watcher`: logs every event of every custom resource of a group
 * (default `example.com`; `--group NAME` to change). On the in-memory server (default) it
 * applies the Application CRD and a few objects, then a second CRD, and exits; with
 * `--kubeconfig [path]` it follows a real cluster until Ctrl-C.
 */
import { fileURLToPath } from 'node:url';
import {
  openCluster,
  parseClusterArgs,
  readManifests,
  signalController,
  runAsMain,
} from '../shared/cluster.js';
import { runDynamicWatcher } from './src/dynamic_watcher.js';

const crdPath = fileURLToPath(new URL('../application-operator/crd.yaml', import.meta.url));
const crdRef = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };

/** Runs the example with command-line arguments. */
export async function main(argv: readonly string[] = []): Promise<void> {
  const args = parseClusterArgs(argv);
  const groupAt = args.rest.indexOf('--group');
  const group = (groupAt >= 0 ? args.rest[groupAt + 1] : undefined) ?? 'example.com';
  const cluster = await openCluster(args);
  console.log(`▶ ${cluster.description}; following CRDs of ${group}`);
  const { controller, dispose } = signalController();
  try {
    const running = runDynamicWatcher(cluster.kubeConfig, controller.signal, { group });
    const server = cluster.server;
    if (server !== undefined) {
      const pause = () => new Promise((r) => setTimeout(r, 200));
      for (const crd of await readManifests(crdPath)) server.create(crdRef, crd);
      await pause();
      const apps = { group: 'example.com', resource: 'applications' };
      for (const name of ['web', 'api']) {
        server.create(apps, {
          apiVersion: 'example.com/v1',
          kind: 'Application',
          metadata: { name, namespace: 'default' },
          spec: { image: 'nginx', replicas: 1 },
        });
      }
      server.delete(apps, 'api', 'default');
      await pause();
      controller.abort();
    }
    await running;
  } finally {
    dispose();
    await cluster.close();
  }
}

runAsMain(import.meta.url, main);
