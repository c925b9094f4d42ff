/**
 * How every example chooses where to run: the embedded in-memory API server by default,
 * a real cluster only when asked with `--kubeconfig [path]` (the path, else $KUBECONFIG,
 * else ~/.kube/config). Never a real cluster the user did not name.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import type { UnstructuredObject } from '../../src/index.js';

/** Where an example runs. */
export interface Cluster {
  /** The KubeConfig to build clients and informers from. */
  kubeConfig: KubeConfig;
  /** The in-memory server, when running without a real cluster. */
  server: TestApiServer | undefined;
  /** One line saying where this is, for the program's first output. */
  description: string;
  /** Stops the in-memory server, if any. */
  close(): Promise<void>;
}

/** The parsed command line shared by the examples. */
export interface ClusterArgs {
  /** `undefined`: in-memory server; `''`: default kubeconfig; otherwise a path. */
  kubeconfig: string | undefined;
  /** Arguments the helper did not consume. */
  rest: string[];
}

/** Reads `--kubeconfig`, `--kubeconfig=path` and `--kubeconfig path` from `argv`. */
export function parseClusterArgs(argv: readonly string[]): ClusterArgs {
  let kubeconfig: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--kubeconfig' || a === '--cluster') {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        kubeconfig = next;
        i++;
      } else kubeconfig = '';
    } else if (a.startsWith('--kubeconfig=')) kubeconfig = a.slice('--kubeconfig='.length);
    else rest.push(a);
  }
  return { kubeconfig, rest };
}

/**
 * Opens the cluster the arguments name. With the in-memory server, `manifests` (paths of
 * YAML files, e.g. a CRD) are applied first; on a real cluster apply them with kubectl.
 */
export async function openCluster(args: ClusterArgs, manifests: string[] = []): Promise<Cluster> {
  if (args.kubeconfig !== undefined) {
    const kubeConfig = new KubeConfig();
    if (args.kubeconfig === '') kubeConfig.loadFromDefault();
    else kubeConfig.loadFromFile(args.kubeconfig);
    const cluster = kubeConfig.getCurrentCluster();
    return {
      kubeConfig,
      server: undefined,
      description: `real cluster ${cluster?.name ?? '?'} at ${cluster?.server ?? '?'} (context ${kubeConfig.getCurrentContext()})`,
      close: () => Promise.resolve(),
    };
  }
  const server = await startTestApiServer();
  for (const path of manifests) {
    for (const obj of await readManifests(path)) server.create(resourceOf(obj), obj);
  }
  return {
    kubeConfig: server.kubeConfig(),
    server,
    description: `in-memory API server at ${server.url} (pass --kubeconfig to use a real cluster)`,
    close: () => server.close(),
  };
}

/** The objects in a multi-document YAML file. */
export async function readManifests(path: string): Promise<UnstructuredObject[]> {
  const text = await readFile(path, 'utf8');
  return parseAllDocuments(text)
    .map((d) => d.toJS() as UnstructuredObject | null)
    .filter((o): o is UnstructuredObject => o !== null);
}

function resourceOf(obj: UnstructuredObject): { group: string; resource: string } {
  const group = obj.apiVersion?.includes('/') ? obj.apiVersion.split('/')[0]! : '';
  if (obj.kind === 'CustomResourceDefinition')
    return { group, resource: 'customresourcedefinitions' };
  return { group, resource: `${(obj.kind ?? '').toLowerCase()}s` };
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** An AbortController aborted by Ctrl-C / SIGTERM; `dispose` removes the handlers. */
export function signalController(): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    controller,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/**
 * Runs `main(argv)` when the module at `moduleUrl` is the program Node started (not when a
 * test imports it); a failure prints its message and sets exit code 1.
 */
export function runAsMain(moduleUrl: string, main: (argv: string[]) => Promise<unknown>): void {
  if (process.argv[1] === undefined || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  });
}
