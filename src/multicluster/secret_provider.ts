/**
 * Kubeconfig Secrets in a hub cluster, as Cluster API writes them (multicluster-runtime's
 * `providers/cluster-api` and `providers/kubeconfig`, reading the Secrets directly): a
 * Secret `<cluster>-kubeconfig` labelled `cluster.x-k8s.io/cluster-name: <cluster>` holds
 * the cluster's kubeconfig under the key `value`. One informer follows them on the hub.
 *
 * Rules:
 *
 * - **Which Secrets.** Those carrying the cluster-name label (`clusterNameLabel`), named
 *   `<label value><nameSuffix>` (default `-kubeconfig`; `''` accepts any name), in
 *   `namespace` (default every namespace). The informer selects on the label, so other
 *   Secrets are never cached.
 * - **Names.** The cluster is `<namespace>/<label value>` (as multicluster-runtime's Cluster
 *   API provider names it: the Cluster object's namespaced name), or what `clusterName`
 *   returns. A second Secret for a name already taken is logged once and skipped.
 * - **Reading.** The key's value is hostile input: its size is checked before it is decoded
 *   (at most `maxBytes`, default 1 MiB), and it is parsed under the {@link parseKubeconfig}
 *   rules (no exec plugins, no file references unless allowed). A bad Secret is logged once
 *   per content, naming the Secret, and skipped; a Secret that was good and turns bad keeps
 *   its last good cluster engaged.
 * - **Changes.** A new Secret is engaged; a changed kubeconfig (another SHA-256) re-engages
 *   its cluster; a deleted Secret, or one whose label was removed, disengages it.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { secretsResource } from '../client/builtins.js';
import type { Serialized } from '../client/types.js';
import type { DeepReadonly } from '../cache/deep_readonly.js';
import { DeletedFinalStateUnknown } from '../cache/keys.js';
import type { ResourceEventHandlerRegistration } from '../cache/shared_informer.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { ClusterHandle, KubeconfigClusterOptions } from './cluster.js';
import { KubeconfigCluster } from './cluster.js';
import { Clusters } from './clusters.js';
import { InvalidKubeconfigError, InvalidMultiClusterOptionsError } from './errors.js';
import type { KubeconfigPolicy } from './kubeconfig.js';
import { DEFAULT_MAX_KUBECONFIG_BYTES, parseKubeconfig } from './kubeconfig.js';
import type { ClusterAware, ClusterProvider } from './provider.js';
import { isValidClusterName } from './request.js';

/** The label Cluster API puts on a cluster's kubeconfig Secret: the Cluster's name. */
export const CLUSTER_API_CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** The key of the kubeconfig in a Cluster API kubeconfig Secret. */
export const CLUSTER_API_KUBECONFIG_KEY = 'value';
/** The suffix of a Cluster API kubeconfig Secret's name (`<cluster>-kubeconfig`). */
export const CLUSTER_API_KUBECONFIG_SUFFIX = '-kubeconfig';

/** A kubeconfig Secret as the provider reads it. */
export type KubeconfigSecret = DeepReadonly<Serialized<V1Secret>>;

/** Options of a {@link KubeconfigSecretProvider}. */
export interface KubeconfigSecretProviderOptions extends KubeconfigPolicy {
  /** The hub cluster holding the Secrets (e.g. `localCluster(manager)`). */
  hub: ClusterHandle;
  /** Only Secrets of this namespace (default every namespace). */
  namespace?: string;
  /** The label naming the cluster (default `cluster.x-k8s.io/cluster-name`). */
  clusterNameLabel?: string;
  /** The data key of the kubeconfig (default `value`). */
  key?: string;
  /** The Secret's name is the label's value and this suffix (default `-kubeconfig`; `''`: any name). */
  nameSuffix?: string;
  /** The cluster name of a Secret (default `<namespace>/<label value>`). */
  clusterName?: (secret: KubeconfigSecret) => string;
  /** Options of every cluster made (cache defaults, transport options, clock). */
  clusterOptions?: Omit<KubeconfigClusterOptions, 'logger'>;
  /** Where engaging, removing and bad Secrets are logged (default: warnings and errors to stderr). */
  logger?: Logger;
}

/**
 * Engages one cluster per kubeconfig Secret in a hub cluster and follows their changes; see
 * the module documentation.
 *
 * @example
 * ```ts
 * const provider = new KubeconfigSecretProvider({ hub: localCluster(manager), namespace: 'fleet' });
 * ```
 */
export class KubeconfigSecretProvider implements ClusterProvider {
  readonly #options: KubeconfigSecretProviderOptions;
  readonly #logger: Logger;
  readonly #clusters: Clusters<KubeconfigCluster>;
  /** Secret key (`namespace/name`) → the cluster it engaged. */
  readonly #owners = new Map<string, string>();
  /** Secret key → what was last reported about it (logged once until it changes). */
  readonly #reported = new Map<string, string>();
  /** Secret key → its work so far (one Secret's events are handled in order). */
  readonly #work = new Map<string, Promise<void>>();
  #started = false;

  /** @throws {@link InvalidMultiClusterOptionsError} without a hub. */
  constructor(options: KubeconfigSecretProviderOptions) {
    if (options?.hub === undefined) {
      throw new InvalidMultiClusterOptionsError(
        'KubeconfigSecretProvider needs options.hub (the cluster holding the kubeconfig Secrets)',
      );
    }
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger;
    this.#clusters = new Clusters({
      logger: this.#logger,
      description: `kubeconfig Secrets${options.namespace !== undefined ? ` in ${options.namespace}` : ''}`,
    });
  }

  /** {@inheritDoc ClusterProvider.get} */
  get(name: string): ClusterHandle {
    return this.#clusters.get(name);
  }

  /** {@inheritDoc ClusterProvider.clusterNames} */
  clusterNames(): string[] {
    return this.#clusters.names();
  }

  /** {@inheritDoc ClusterProvider.start} */
  async start(signal: AbortSignal, aware: ClusterAware): Promise<void> {
    if (this.#started) {
      throw new InvalidMultiClusterOptionsError(
        'KubeconfigSecretProvider.start() was already called',
      );
    }
    this.#started = true;
    const label = this.#options.clusterNameLabel ?? CLUSTER_API_CLUSTER_NAME_LABEL;
    const hub = this.#options.hub;
    const informer = hub.cache.forResource(secretsResource, {
      labelSelector: label,
      ...(this.#options.namespace !== undefined ? { namespace: this.#options.namespace } : {}),
    });
    hub.startInformers();
    let registration: ResourceEventHandlerRegistration | undefined;
    try {
      registration = informer.addEventHandler(
        {
          onAdd: (secret) => this.#schedule(secret, aware),
          onUpdate: (_old, secret) => this.#schedule(secret, aware),
          onDelete: (obj) => {
            const secret = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
            this.#enqueue(secretKey(secret), () => this.#forget(secretKey(secret)));
          },
        },
        { name: 'kubeconfig secret provider' },
      );
      if (!signal.aborted) {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      }
    } finally {
      if (registration !== undefined) informer.removeEventHandler(registration);
      await Promise.all([...this.#work.values()]);
      await this.#clusters.removeAll();
    }
  }

  #schedule(secret: KubeconfigSecret, aware: ClusterAware): void {
    this.#enqueue(secretKey(secret), () => this.#apply(secret, aware));
  }

  #enqueue(key: string, fn: () => Promise<void>): void {
    const previous = this.#work.get(key) ?? Promise.resolve();
    const next = previous.then(fn).catch((err: unknown) => {
      this.#logger.error(`kubeconfig Secret ${key} failed`, { error: err });
    });
    this.#work.set(key, next);
    void next.then(() => {
      if (this.#work.get(key) === next) this.#work.delete(key);
    });
  }

  #reportOnce(
    key: string,
    signature: string,
    message: string,
    fields?: Record<string, unknown>,
  ): void {
    if (this.#reported.get(key) === signature) return;
    this.#reported.set(key, signature);
    this.#logger.error(message, { secret: key, ...fields });
  }

  /** The Secret went (deleted, or its label removed): its cluster goes too. */
  async #forget(key: string): Promise<void> {
    this.#reported.delete(key);
    const cluster = this.#owners.get(key);
    if (cluster === undefined) return;
    this.#owners.delete(key);
    await this.#clusters.remove(cluster);
  }

  async #apply(secret: KubeconfigSecret, aware: ClusterAware): Promise<void> {
    const key = secretKey(secret);
    const what = `Secret ${key}`;
    const label = this.#options.clusterNameLabel ?? CLUSTER_API_CLUSTER_NAME_LABEL;
    const labelValue = secret.metadata?.labels?.[label] ?? '';
    const suffix = this.#options.nameSuffix ?? CLUSTER_API_KUBECONFIG_SUFFIX;
    if (
      labelValue === '' ||
      (suffix !== '' && secret.metadata?.name !== `${labelValue}${suffix}`)
    ) {
      // Not a kubeconfig Secret of this provider (e.g. Cluster API's `<cluster>-ca`).
      await this.#forget(key);
      return;
    }
    let cluster: string;
    try {
      cluster =
        this.#options.clusterName?.(secret) ?? `${secret.metadata?.namespace ?? ''}/${labelValue}`;
    } catch (err) {
      this.#reportOnce(
        key,
        'name-fn',
        `kubeconfig ${what}: clusterName threw: ${errorMessage(err)}`,
      );
      return;
    }
    if (!isValidClusterName(cluster)) {
      this.#reportOnce(
        key,
        `name:${cluster}`,
        `kubeconfig ${what} is skipped: ${JSON.stringify(cluster)} is not a valid cluster name`,
      );
      return;
    }
    const previous = this.#owners.get(key);
    if (previous !== undefined && previous !== cluster) await this.#forget(key);
    for (const [other, name] of this.#owners) {
      if (other !== key && name === cluster) {
        this.#reportOnce(
          key,
          `duplicate:${other}`,
          `kubeconfig ${what} is skipped: cluster ${cluster} is already engaged from Secret ${other}`,
        );
        return;
      }
    }
    const dataKey = this.#options.key ?? CLUSTER_API_KUBECONFIG_KEY;
    const encoded = secret.data?.[dataKey];
    const maxBytes = this.#options.maxBytes ?? DEFAULT_MAX_KUBECONFIG_BYTES;
    if (typeof encoded !== 'string' || encoded === '') {
      this.#reportOnce(
        key,
        'no-key',
        `kubeconfig ${what} is skipped: it has no data key ${dataKey}`,
      );
      return;
    }
    // Base64 holds 3 bytes in 4 characters: refuse before decoding what cannot fit.
    if (encoded.length > Math.ceil(maxBytes / 3) * 4 + 4) {
      this.#reportOnce(
        key,
        `size:${encoded.length}`,
        `kubeconfig ${what} is skipped: its ${dataKey} is more than the limit of ${maxBytes} bytes`,
      );
      return;
    }
    const bytes = Buffer.from(encoded, 'base64');
    const fingerprint = createHash('sha256').update(bytes).digest('hex');
    if (this.#owners.get(key) === cluster && this.#clusters.fingerprint(cluster) === fingerprint) {
      return;
    }
    if (this.#reported.get(key) === fingerprint) return;
    let kubeConfig;
    try {
      kubeConfig = await parseKubeconfig(bytes, { ...this.#options, source: what });
    } catch (err) {
      const message =
        err instanceof InvalidKubeconfigError
          ? err.message
          : `kubeconfig ${what}: ${errorMessage(err)}`;
      const kept = this.#clusters.has(cluster)
        ? `; cluster ${cluster} keeps its last good one`
        : '';
      this.#reportOnce(key, fingerprint, `${message} (skipped${kept})`, { error: err });
      return;
    }
    this.#reported.delete(key);
    this.#owners.set(key, cluster);
    const engaged = await this.#clusters.addOrReplace(
      cluster,
      new KubeconfigCluster(cluster, kubeConfig, {
        ...this.#options.clusterOptions,
        logger: this.#logger,
      }),
      aware,
      fingerprint,
    );
    if (!engaged && !this.#clusters.has(cluster)) {
      this.#owners.delete(key);
      this.#reported.set(key, fingerprint);
    }
  }
}

function secretKey(secret: KubeconfigSecret): string {
  return `${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`;
}
