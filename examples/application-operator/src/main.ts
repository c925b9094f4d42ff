/**
 * `npm start`: runs the Application operator until Ctrl-C.
 * Default: the in-memory API server, with the CRD applied and one sample Application.
 * `--kubeconfig [PATH]`: a real cluster (apply crd.yaml and rbac.yaml there first).
 */
import { clusterFlags, openCluster, packageFile, runProgram } from 'kube-controller-kit/testing';
import { runOperator } from './operator.js';

await runProgram(
  {
    name: 'application-operator',
    summary:
      'Keeps a Deployment and a Service for every Application (example.com/v1), writes its status, and cleans up through a finalizer.',
    flags: {
      ...clusterFlags,
      namespace: { value: 'NAME', description: 'watch one namespace (default: all)' },
    },
  },
  async ({ flags, signal, logger }) => {
    // Found from src/main.ts under tsx and from dist/main.js after tsc alike.
    const crd = packageFile(import.meta.url, 'crd.yaml');
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      manifests: [crd],
      fieldManager: 'application-operator',
      logger,
      signal,
    });
    try {
      if (cluster.server !== undefined) {
        cluster.server.create(
          { group: 'example.com', resource: 'applications' },
          {
            apiVersion: 'example.com/v1',
            kind: 'Application',
            metadata: { name: 'sample', namespace: 'default' },
            spec: { image: 'nginx:1.27', replicas: 2, port: 8080 },
          },
        );
        logger.info('created Application default/sample; Ctrl-C to stop');
      }
      await runOperator(cluster.kubeConfig, signal, {
        logger,
        ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
        onEvent: (e) => console.log(JSON.stringify(e)),
      });
    } finally {
      await cluster.close();
    }
  },
);
