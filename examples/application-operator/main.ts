/**
 * `npm run example:application-operator`: runs the operator until Ctrl-C.
 * Default: the in-memory API server, with the CRD applied and one sample Application.
 * `--kubeconfig [path]`: a real cluster (apply crd.yaml and rbac.yaml there first).
 */
import { fileURLToPath } from 'node:url';
import { openCluster, parseClusterArgs, signalController, runAsMain } from '../shared/cluster.js';
import { runOperator } from './src/operator.js';

const crdPath = fileURLToPath(new URL('./crd.yaml', import.meta.url));

/** Runs the example with command-line arguments; resolves after Ctrl-C and shutdown. */
export async function main(argv: readonly string[] = []): Promise<void> {
  const cluster = await openCluster(parseClusterArgs(argv), [crdPath]);
  console.log(`▶ ${cluster.description}; Ctrl-C to stop`);
  cluster.server?.create(
    { group: 'example.com', resource: 'applications' },
    {
      apiVersion: 'example.com/v1',
      kind: 'Application',
      metadata: { name: 'sample', namespace: 'default' },
      spec: { image: 'nginx:1.27', replicas: 2, port: 8080 },
    },
  );
  const { controller, dispose } = signalController();
  try {
    await runOperator(cluster.kubeConfig, controller.signal, {
      onEvent: (e) => console.log(JSON.stringify(e)),
    });
  } finally {
    dispose();
    await cluster.close();
  }
}

runAsMain(import.meta.url, main);
