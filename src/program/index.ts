/**
 * A small controller program's outer shell: its command line (declared flags, `--help`,
 * usage errors), {@link runProgram} (a logger, Ctrl-C / SIGTERM as an AbortSignal, every
 * failure logged with its causes), and the cluster it runs against ({@link openCluster}: a
 * real cluster from a kubeconfig, or the in-memory API server of the development dependency
 * `@kube-controller-kit/testing`), with manifests applied by server-side apply.
 *
 * @module
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
