/**
 * Where an example or a local tool runs: the in-memory API server by default, a real
 * cluster only when asked for one by a kubeconfig. Manifests (a CRD, sample objects) are
 * applied through the API with server-side apply, their kinds mapped to resources by
 * discovery, so the same code path serves both.
 *
 * A real cluster is never chosen silently: `kubeconfig: ''` follows `$KUBECONFIG`, the
 * Pod's service account, then `~/.kube/config`, and fails in words when none exists
 * (client-node alone would fall back to `http://localhost:8080`).
 *
 * The in-memory API server is not part of this package: it is the development dependency
 * `@kube-controller-kit/testing`, loaded only when no kubeconfig is given, so a production
 * image that always runs with `--kubeconfig` carries none of it.
 *
 * @module
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type * as YamlTypes from 'yaml';
import { Discovery } from '../client/discovery.js';
import { ResourceClient } from '../client/resource_client.js';
import { Transport } from '../client/transport.js';
import type { UnstructuredObject } from '../client/types.js';
import { KubeControllerKitError, errorMessage } from '../util/errors.js';
import { noopLogger } from '../util/logger.js';
import type { Logger } from '../util/logger.js';

type YamlModule = typeof YamlTypes;

/** The cluster could not be chosen or reached: no kubeconfig, a bad one, a closed port. */
export class ClusterConfigError extends KubeControllerKitError {}

/** A manifest could not be read, parsed or applied. */
export class ManifestError extends KubeControllerKitError {}

/**
 * What {@link openCluster} needs of an in-memory API server: the `TestApiServer` of
 * `@kube-controller-kit/testing` is one, with much more besides.
 */
export interface InMemoryApiServer {
  /** Base URL, e.g. `https://127.0.0.1:40123`. */
  readonly url: string;
  /** A KubeConfig pointing at the server. */
  kubeConfig(namespace?: string): KubeConfig;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Where a program runs, from {@link openCluster}. */
export interface Cluster<S extends InMemoryApiServer = InMemoryApiServer> {
  /** The KubeConfig to build clients, informers and factories from. */
  readonly kubeConfig: KubeConfig;
  /** The in-memory server, when running without a real cluster. */
  readonly server: S | undefined;
  /** One line saying what this is connected to (URL, context, server version). */
  readonly description: string;
  /** Stops the in-memory server, if any; a real cluster is left as it is. */
  close(): Promise<void>;
}

/** Options of {@link openCluster}. */
export interface OpenClusterOptions<S extends InMemoryApiServer = InMemoryApiServer> {
  /**
   * `undefined` (default): start the in-memory API server (see `inMemory`). `''`: a real
   * cluster from the default kubeconfig chain ({@link loadKubeConfig}). Otherwise: the path
   * of a kubeconfig.
   */
  kubeconfig?: string | undefined;
  /**
   * YAML files (paths) applied in order once the cluster is open: on the in-memory server
   * always, on a real cluster only with `applyToRealCluster` (there they usually need more
   * rights than the program has, and belong to `kubectl apply`).
   */
  manifests?: readonly string[];
  /** Apply `manifests` to a real cluster too (default false). */
  applyToRealCluster?: boolean;
  /** Field manager of the apply requests (default `kube-controller-kit`). */
  fieldManager?: string;
  /**
   * Starts the in-memory API server when no kubeconfig is given. Default: the
   * `startTestApiServer()` of `@kube-controller-kit/testing`, imported only then, which
   * fails with a {@link ClusterConfigError} saying what to install when that development
   * dependency is missing. Pass your own to choose the server's options and to get its
   * full type back in {@link Cluster.server}:
   *
   * ```ts
   * const cluster = await openCluster({
   *   kubeconfig: flags.kubeconfig,
   *   inMemory: async () => (await import('@kube-controller-kit/testing')).startTestApiServer(),
   * });
   * ```
   */
  inMemory?: () => Promise<S>;
  /** Where progress goes: what it connected to, what it applied (default silent). */
  logger?: Logger;
  /** Aborts connecting and applying. */
  signal?: AbortSignal;
}

/** Where {@link loadKubeConfig} found a configuration. */
export interface LoadedKubeConfig {
  /** The loaded configuration. */
  kubeConfig: KubeConfig;
  /** Where it came from, in words: a path, `$KUBECONFIG`, or the Pod's service account. */
  source: string;
}

const serviceAccountToken = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Loads a kubeconfig. `path` names a file; `''` follows the default chain: the files of
 * `$KUBECONFIG`, the Pod's service account (in a cluster), then `~/.kube/config`.
 *
 * @throws ClusterConfigError when nothing is found, the file is missing or unreadable, or
 *   it names no current cluster.
 */
export function loadKubeConfig(path: string): LoadedKubeConfig {
  const kubeConfig = new KubeConfig();
  let source: string;
  try {
    if (path !== '') {
      if (!existsSync(path)) {
        throw new ClusterConfigError(`kubeconfig ${path} does not exist`);
      }
      kubeConfig.loadFromFile(path);
      source = path;
    } else {
      const env = (process.env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
      const home = join(homedir(), '.kube', 'config');
      if (env.length > 0) {
        const present = env.filter((p) => existsSync(p));
        if (present.length === 0) {
          throw new ClusterConfigError(
            `no kubeconfig found: $KUBECONFIG names ${env.join(delimiter)}, and none of it exists`,
          );
        }
        kubeConfig.loadFromDefault();
        source = `$KUBECONFIG (${present.join(delimiter)})`;
      } else if (
        process.env.KUBERNETES_SERVICE_HOST !== undefined &&
        existsSync(serviceAccountToken)
      ) {
        kubeConfig.loadFromCluster();
        source = 'the Pod service account';
      } else if (existsSync(home) && statSync(home).isFile()) {
        kubeConfig.loadFromFile(home);
        source = home;
      } else {
        throw new ClusterConfigError(
          `no kubeconfig found: $KUBECONFIG is not set, this is not a Pod (no service account), and ${home} does not exist; ` +
            `pass --kubeconfig PATH, or leave --kubeconfig out to use the in-memory API server`,
        );
      }
    }
  } catch (err) {
    if (err instanceof ClusterConfigError) throw err;
    throw new ClusterConfigError(
      `cannot load kubeconfig ${path === '' ? '(default chain)' : path}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  if (kubeConfig.getCurrentCluster() === null) {
    throw new ClusterConfigError(
      `kubeconfig ${source} has no current cluster (current context "${kubeConfig.getCurrentContext()}"); set one with kubectl config use-context`,
    );
  }
  return { kubeConfig, source };
}

/**
 * Opens the cluster the options name and applies the manifests; see {@link OpenClusterOptions}.
 * A real cluster is asked for its version first, so a closed port or bad credentials fail
 * here with the cause rather than as a cache that never syncs.
 *
 * @throws ClusterConfigError when no kubeconfig is found or the server cannot be reached.
 * @throws ManifestError when a manifest cannot be read or applied.
 */
export async function openCluster<S extends InMemoryApiServer = InMemoryApiServer>(
  options: OpenClusterOptions<S> = {},
): Promise<Cluster<S>> {
  const logger = options.logger ?? noopLogger;
  const fieldManager = options.fieldManager ?? 'kube-controller-kit';
  const applyOptions = {
    fieldManager,
    logger,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  };
  if (options.kubeconfig === undefined) {
    const server = await startInMemory(
      options.inMemory ?? (startPackagedTestApiServer as () => Promise<S>),
    );
    try {
      const kubeConfig = server.kubeConfig();
      logger.info('started the in-memory API server (pass --kubeconfig to use a real cluster)', {
        url: server.url,
      });
      for (const path of options.manifests ?? []) {
        await applyManifests(kubeConfig, await readManifests(path), applyOptions);
      }
      return {
        kubeConfig,
        server,
        description: `in-memory API server at ${server.url}`,
        close: () => server.close(),
      };
    } catch (err) {
      await server.close();
      throw err;
    }
  }
  const { kubeConfig, source } = loadKubeConfig(options.kubeconfig);
  const url = kubeConfig.getCurrentCluster()?.server ?? '?';
  const transport = new Transport(kubeConfig);
  let version: string;
  try {
    const info = await transport.request<{ gitVersion?: string }>({
      method: 'GET',
      path: '/version',
      signal: options.signal,
    });
    version = info.gitVersion ?? 'unknown version';
  } catch (err) {
    throw new ClusterConfigError(
      `cannot reach the API server at ${url} (kubeconfig ${source}, context "${kubeConfig.getCurrentContext()}"): ${errorMessage(err)}`,
      { cause: err },
    );
  }
  const description = `cluster at ${url} (Kubernetes ${version}, context "${kubeConfig.getCurrentContext()}", kubeconfig ${source})`;
  logger.info('connected to a real cluster', {
    url,
    version,
    context: kubeConfig.getCurrentContext(),
    kubeconfig: source,
  });
  if (options.applyToRealCluster === true) {
    for (const path of options.manifests ?? []) {
      await applyManifests(kubeConfig, await readManifests(path), applyOptions);
    }
  }
  return { kubeConfig, server: undefined, description, close: () => Promise.resolve() };
}

/** The package that holds the in-memory API server (a development dependency). */
const testingPackage = '@kube-controller-kit/testing';

/** `startTestApiServer()` of `@kube-controller-kit/testing`, imported on first use. */
async function startPackagedTestApiServer(): Promise<InMemoryApiServer> {
  // A name in a variable: the package is optional, and neither TypeScript nor a bundler
  // should try to resolve it when this module is compiled.
  const testing = (await import(testingPackage)) as { startTestApiServer?: unknown };
  if (typeof testing.startTestApiServer !== 'function') {
    throw new ClusterConfigError(
      `${testingPackage} has no startTestApiServer(): is it the version that goes with this kube-controller-kit?`,
    );
  }
  return (testing.startTestApiServer as () => Promise<InMemoryApiServer>)();
}

/**
 * Starts the in-memory server; a missing `@kube-controller-kit/testing` (the usual case in a
 * production image, which installs no development dependency) becomes a
 * {@link ClusterConfigError} that says what to do.
 */
async function startInMemory<S>(start: () => Promise<S>): Promise<S> {
  try {
    return await start();
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      errorMessage(err).includes(testingPackage)
    ) {
      throw new ClusterConfigError(
        `no kubeconfig given, and the in-memory API server is not installed: ` +
          `npm install --save-dev ${testingPackage}, or pass --kubeconfig PATH`,
        { cause: err },
      );
    }
    throw err;
  }
}

/**
 * The objects of a YAML file (several documents allowed; empty ones skipped). Needs the
 * optional peer dependency `yaml`.
 *
 * @throws ManifestError when the file cannot be read or parsed, or a document is not an object.
 */
export async function readManifests(path: string): Promise<UnstructuredObject[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ManifestError(`cannot read manifest ${path}: ${errorMessage(err)}`, { cause: err });
  }
  let yaml: YamlModule;
  try {
    yaml = await import('yaml');
  } catch (err) {
    throw new ManifestError(
      `reading ${path} needs the "yaml" package: npm install yaml (${errorMessage(err)})`,
      { cause: err },
    );
  }
  const out: UnstructuredObject[] = [];
  for (const [i, doc] of yaml.parseAllDocuments(text).entries()) {
    if (doc.errors.length > 0) {
      throw new ManifestError(
        `manifest ${path}, document ${i + 1}: ${doc.errors.map((e) => e.message).join('; ')}`,
      );
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new ManifestError(`manifest ${path}, document ${i + 1}: not an object`);
    }
    out.push(value as UnstructuredObject);
  }
  return out;
}

/** Options of {@link applyManifests}. */
export interface ApplyManifestsOptions {
  /** Field manager of the apply requests. */
  fieldManager: string;
  /** Namespace of namespaced objects that name none (default `default`). */
  defaultNamespace?: string;
  /** Where each applied object is logged (default silent). */
  logger?: Logger;
  /** Aborts the requests. */
  signal?: AbortSignal;
}

/**
 * Applies objects in order with server-side apply (`force`), as `kubectl apply
 * --server-side` does. Each kind is mapped to its resource by discovery; a
 * CustomResourceDefinition is waited for until it is Established, so objects of its kind
 * may follow it in the same list. Resolves with the objects as the server returned them.
 *
 * @throws ManifestError naming the object when its kind is not served or the server refuses it.
 */
export async function applyManifests(
  kubeConfig: KubeConfig,
  objects: readonly UnstructuredObject[],
  options: ApplyManifestsOptions,
): Promise<UnstructuredObject[]> {
  const logger = options.logger ?? noopLogger;
  const transport = new Transport(kubeConfig);
  const discovery = new Discovery(transport);
  const applied: UnstructuredObject[] = [];
  for (const obj of objects) {
    const apiVersion = obj.apiVersion ?? '';
    const kind = obj.kind ?? '';
    const name = obj.metadata?.name ?? '';
    const what = `${kind || '(no kind)'} ${name || '(no name)'}`;
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (version === '' || kind === '' || name === '') {
      throw new ManifestError(
        `cannot apply ${what}: apiVersion, kind and metadata.name are required`,
      );
    }
    try {
      const resource = await discovery.resolveKind({ group, version, kind }, options.signal);
      let client = new ResourceClient<UnstructuredObject>(transport, resource);
      const namespace = resource.namespaced
        ? (obj.metadata?.namespace ?? options.defaultNamespace ?? 'default')
        : undefined;
      if (namespace !== undefined) client = client.namespace(namespace);
      const body = {
        ...obj,
        apiVersion,
        kind,
        metadata: { ...obj.metadata, name, ...(namespace !== undefined ? { namespace } : {}) },
      };
      const result = await client.apply(body, {
        fieldManager: options.fieldManager,
        force: true,
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
      applied.push(result);
      logger.info('applied', {
        object: `${resource.resource}${group === '' ? '' : `.${group}`}/${name}`,
        ...(namespace !== undefined ? { namespace } : {}),
      });
      if (kind === 'CustomResourceDefinition' && group === 'apiextensions.k8s.io') {
        await waitEstablished(client, name, options.signal);
        discovery.invalidate();
      }
    } catch (err) {
      if (err instanceof ManifestError) throw err;
      throw new ManifestError(`cannot apply ${apiVersion} ${what}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }
  return applied;
}

async function waitEstablished(
  client: ResourceClient<UnstructuredObject>,
  name: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const crd = await client.get(name, signal !== undefined ? { signal } : {});
    const conditions = (crd.status as { conditions?: { type?: string; status?: string }[] })
      ?.conditions;
    if (conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true) return;
    if (Date.now() > deadline) {
      throw new ManifestError(`CustomResourceDefinition ${name} was not Established within 30 s`);
    }
    signal?.throwIfAborted();
    await new Promise<void>((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The path of `relative` inside the package that holds the module `moduleUrl` (pass
 * `import.meta.url`): the nearest directory above the module with a `package.json`. The
 * same call finds an asset from `src/main.ts` under tsx and from `dist/main.js` after `tsc`.
 *
 * @throws ManifestError when no `package.json` is found above the module.
 */
export function packageFile(moduleUrl: string | URL, relative: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        JSON.parse(readFileSync(candidate, 'utf8'));
        return join(dir, relative);
      } catch {
        // not a package.json we can read: keep looking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new ManifestError(
        `no package.json above ${fileURLToPath(moduleUrl)}: cannot find ${relative}`,
      );
    }
    dir = parent;
  }
}
