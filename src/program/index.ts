/**
 * A small controller program's outer shell: its command line (declared flags, `--help`,
 * usage errors), {@link runProgram} (a logger, Ctrl-C / SIGTERM as an AbortSignal, every
 * failure logged with its causes, the exit code), and the cluster it runs against
 * ({@link openCluster}: a real cluster from a kubeconfig, or the in-memory API server of the
 * development dependency `@kube-controller-kit/testing`), with manifests applied by
 * server-side apply. Every example program is built on it.
 *
 * Imported from `kube-controller-kit`. See the [examples](../../examples/README.md).
 *
 * ```ts
 * import { Transport, clusterFlags, namespaces, openCluster, runProgram } from 'kube-controller-kit';
 *
 * await runProgram(
 *   {
 *     name: 'namespaces',
 *     summary: 'Lists the namespaces of a cluster (the in-memory one unless --kubeconfig is given).',
 *     flags: clusterFlags, // --kubeconfig[=PATH]
 *   },
 *   async ({ flags, signal, logger }) => {
 *     const cluster = await openCluster({ kubeconfig: flags.kubeconfig, logger, signal });
 *     const transport = new Transport(cluster.kubeConfig);
 *     try {
 *       for await (const ns of namespaces(transport).listAll({}, { signal })) {
 *         console.log(ns.metadata?.name);
 *       }
 *     } finally {
 *       transport.close();
 *       await cluster.close();
 *     }
 *   },
 * ); // exits 0; 2 on a usage error (with the usage), 1 on a failure (with its causes)
 * ```
 *
 * @module program
 */
export {
  ClusterConfigError,
  ManifestError,
  applyManifests,
  loadKubeConfig,
  openCluster,
  packageFile,
  readManifests,
} from './cluster.js';
export type {
  ApplyManifestsOptions,
  Cluster,
  InMemoryApiServer,
  LoadedKubeConfig,
  OpenClusterOptions,
} from './cluster.js';
export {
  UsageError,
  clusterFlags,
  describeError,
  parseCommandLine,
  runProgram,
  usage,
} from './command_line.js';
export type {
  ClusterFlagSpecs,
  CommandSpec,
  FlagSpec,
  FlagSpecs,
  ParsedCommandLine,
  ParsedFlags,
  ProgramContext,
  ValuedFlag,
} from './command_line.js';
