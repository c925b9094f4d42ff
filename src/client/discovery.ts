/**
 * Discovery: which resources the API server serves, from its discovery documents
 * (`/api`, `/apis`, and `/api/v1` or `/apis/<group>/<version>` per group-version).
 *
 * {@link Discovery} resolves a kind (group/version/kind) or a resource name, singular
 * name or short name (`deploy`, `deployments.apps`) to an {@link ApiResource} with its
 * plural name and scope. Documents are cached; a miss refreshes them once before failing
 * with a {@link NoMatchError} (a CRD installed a moment ago is found); {@link
 * Discovery.invalidate} drops the cache.
 *
 * Looking through every group (a resource name without a group, or
 * {@link Discovery.preferredResources}) asks for one document per group-version; at most
 * {@link DiscoveryOptions.concurrency} of those requests are in flight at once (p-limit),
 * so a cluster with a hundred API groups is not sent a hundred requests in one burst.
 *
 * @module
 */
import pLimit from 'p-limit';
import type { LimitFunction } from 'p-limit';
import { NoMatchError, isNotFound } from './errors.js';
import type { Transport } from './transport.js';
import type { ApiResource } from './types.js';

/** A group, version and kind. */
export interface GroupVersionKind {
  /** API group; `''` for the core group. */
  group: string;
  /** API version, such as `v1`. */
  version: string;
  /** The kind, such as `Deployment`. */
  kind: string;
}

/** One resource of a group-version, as discovery describes it. */
export interface DiscoveredResource extends ApiResource {
  /** Singular name, such as `deployment` (may be empty on old servers). */
  singularName: string;
  /** Short names, such as `deploy`. */
  shortNames: string[];
  /** The verbs the resource supports (`get`, `list`, `watch`, …). */
  verbs: string[];
}

/** A group and the versions it serves, preferred version first. */
export interface DiscoveredGroup {
  /** API group; `''` for the core group. */
  name: string;
  /** Versions served, the preferred one first. */
  versions: string[];
}

interface ApiVersionsDoc {
  versions?: string[];
}
interface ApiGroupListDoc {
  groups?: {
    name: string;
    versions?: { groupVersion: string; version: string }[];
    preferredVersion?: { version: string };
  }[];
}
interface ApiResourceListDoc {
  resources?: {
    name: string;
    singularName?: string;
    namespaced: boolean;
    kind: string;
    shortNames?: string[];
    verbs?: string[];
  }[];
}

/** Options of {@link Discovery}. */
export interface DiscoveryOptions {
  /**
   * At most this many group-version documents are requested at once (default
   * {@link DEFAULT_DISCOVERY_CONCURRENCY}).
   */
  concurrency?: number;
}

/** Group-version documents requested at once by default. */
export const DEFAULT_DISCOVERY_CONCURRENCY = 8;

function gvKey(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Resolves kinds and resource names to ApiResources, caching the server's discovery documents. */
export class Discovery {
  readonly #transport: Transport;
  #groups: Promise<DiscoveredGroup[]> | undefined;
  readonly #resources = new Map<string, Promise<DiscoveredResource[]>>();
  readonly #limit: LimitFunction;

  /**
   * @param transport - the transport of the API server to ask.
   * @param options - how many documents to request at once.
   * @throws RangeError when `concurrency` is not a positive integer.
   */
  constructor(transport: Transport, options: DiscoveryOptions = {}) {
    this.#transport = transport;
    const concurrency = options.concurrency ?? DEFAULT_DISCOVERY_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(
        `Discovery concurrency must be a positive integer, got ${String(concurrency)}`,
      );
    }
    this.#limit = pLimit(concurrency);
  }

  /**
   * The resources of the preferred version of every group the server serves (client-go's
   * `ServerPreferredResources`), core group first, in the server's order. The group-version
   * documents are requested in parallel, at most `concurrency` at once.
   */
  async preferredResources(signal?: AbortSignal): Promise<DiscoveredResource[]> {
    const groups = await this.groups(signal);
    const lists = await Promise.all(
      groups.map((g) => {
        const preferred = g.versions[0];
        return preferred === undefined
          ? Promise.resolve([])
          : this.resources(g.name, preferred, signal);
      }),
    );
    return lists.flat();
  }

  /** Drops every cached document; the next lookup asks the server again. */
  invalidate(): void {
    this.#groups = undefined;
    this.#resources.clear();
  }

  /** The groups the server serves (the core group is named `''`), preferred version first. */
  groups(signal?: AbortSignal): Promise<DiscoveredGroup[]> {
    if (this.#groups === undefined) {
      const loading = this.#loadGroups(signal);
      this.#groups = loading;
      loading.catch(() => {
        if (this.#groups === loading) this.#groups = undefined;
      });
    }
    return this.#groups;
  }

  /**
   * The resources of one group-version (subresources such as `pods/status` left out). An
   * unknown group-version resolves to an empty list.
   */
  resources(group: string, version: string, signal?: AbortSignal): Promise<DiscoveredResource[]> {
    const key = gvKey(group, version);
    let cached = this.#resources.get(key);
    if (cached === undefined) {
      cached = this.#loadResources(group, version, signal);
      const loading = cached;
      this.#resources.set(key, loading);
      loading.catch(() => {
        if (this.#resources.get(key) === loading) this.#resources.delete(key);
      });
    }
    return cached;
  }

  /**
   * The resource that serves a kind, e.g. `{ group: 'apps', version: 'v1', kind: 'Deployment' }`.
   *
   * @throws NoMatchError when the server does not serve it (after one refresh).
   */
  async resolveKind(gvk: GroupVersionKind, signal?: AbortSignal): Promise<DiscoveredResource> {
    const find = async (): Promise<DiscoveredResource | undefined> =>
      (await this.resources(gvk.group, gvk.version, signal)).find((r) => r.kind === gvk.kind);
    let found = await find();
    if (found === undefined) {
      this.#resources.delete(gvKey(gvk.group, gvk.version));
      found = await find();
    }
    if (found === undefined) {
      const query = `${gvKey(gvk.group, gvk.version)}, Kind=${gvk.kind}`;
      throw new NoMatchError(
        query,
        `no resource on the server serves ${query}; check the apiVersion and kind, or install its CustomResourceDefinition`,
      );
    }
    return found;
  }

  /**
   * The resource named `name`: a plural (`deployments`), singular (`deployment`) or short
   * name (`deploy`), a kind (`Deployment`, case-insensitive), optionally qualified by group
   * (`deployments.apps`) or restricted with `group`. The preferred version of the group wins.
   *
   * @throws NoMatchError when nothing matches (after one refresh).
   */
  async resolveResource(
    name: string,
    options: { group?: string; signal?: AbortSignal } = {},
  ): Promise<DiscoveredResource> {
    let found = await this.#findResource(name, options.group, options.signal);
    if (found === undefined) {
      this.invalidate();
      found = await this.#findResource(name, options.group, options.signal);
    }
    if (found === undefined) {
      throw new NoMatchError(
        name,
        `the server has no resource named "${name}"${options.group === undefined ? '' : ` in group "${options.group}"`}; ` +
          `check the name (plural, singular, short name or kind) or install its CustomResourceDefinition`,
      );
    }
    return found;
  }

  async #findResource(
    name: string,
    group: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<DiscoveredResource | undefined> {
    const lower = name.toLowerCase();
    const candidates: { resource: string; group: string | undefined }[] = [
      { resource: lower, group },
    ];
    const dot = lower.indexOf('.');
    if (group === undefined && dot > 0) {
      candidates.push({ resource: lower.slice(0, dot), group: lower.slice(dot + 1) });
    }
    const groups = await this.groups(signal);
    for (const candidate of candidates) {
      const wanted = groups.filter(
        (g) => candidate.group === undefined || g.name === candidate.group,
      );
      const lists = await Promise.all(
        wanted.map(async (g) => {
          const preferred = g.versions[0];
          return preferred === undefined ? [] : this.resources(g.name, preferred, signal);
        }),
      );
      for (const list of lists) {
        const hit = list.find(
          (r) =>
            r.resource === candidate.resource ||
            r.singularName === candidate.resource ||
            r.shortNames.includes(candidate.resource) ||
            r.kind.toLowerCase() === candidate.resource,
        );
        if (hit !== undefined) return hit;
      }
    }
    return undefined;
  }

  async #loadGroups(signal: AbortSignal | undefined): Promise<DiscoveredGroup[]> {
    const [core, named] = await Promise.all([
      this.#transport.request<ApiVersionsDoc>({ method: 'GET', path: '/api', signal }),
      this.#transport.request<ApiGroupListDoc>({ method: 'GET', path: '/apis', signal }),
    ]);
    const out: DiscoveredGroup[] = [{ name: '', versions: core.versions ?? [] }];
    for (const g of named.groups ?? []) {
      const versions = (g.versions ?? []).map((v) => v.version);
      const preferred = g.preferredVersion?.version;
      if (preferred !== undefined && versions.includes(preferred)) {
        versions.splice(versions.indexOf(preferred), 1);
        versions.unshift(preferred);
      }
      out.push({ name: g.name, versions });
    }
    return out;
  }

  async #loadResources(
    group: string,
    version: string,
    signal: AbortSignal | undefined,
  ): Promise<DiscoveredResource[]> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let doc: ApiResourceListDoc;
    try {
      doc = await this.#limit(() =>
        this.#transport.request<ApiResourceListDoc>({ method: 'GET', path, signal }),
      );
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    return (doc.resources ?? [])
      .filter((r) => !r.name.includes('/'))
      .map((r) => ({
        group,
        version,
        resource: r.name,
        kind: r.kind,
        namespaced: r.namespaced,
        singularName: r.singularName ?? '',
        shortNames: r.shortNames ?? [],
        verbs: r.verbs ?? [],
      }));
  }
}
