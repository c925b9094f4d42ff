/**
 * Listers: typed read-only queries over an informer's cache (client-go's
 * `tools/cache/listers.go` and `GenericLister`).
 *
 * - `list(selector)`: a selector that matches nothing returns `[]` at once; an empty (or
 *   absent) selector returns every object; otherwise objects whose labels match.
 * - `byNamespace(ns)`: a {@link NamespaceLister}; its `list` uses the `namespace` index, or
 *   a full scan (logged once) when the cache has no such index. `byNamespace('')` lists
 *   every namespace.
 * - `get(name)` looks up `name` (cluster-scoped) or `namespace/name`; a miss throws
 *   {@link client!NotFoundError} with the API server's message (`pods "x" not found`).
 *
 * Returned objects are the cached instances, shared with every reader and typed
 * {@link DeepReadonly}: copy before changing them. The cache may lag the server.
 *
 * @module
 */
import { NotFoundError } from '../client/errors.js';
import type { GroupResource } from '../client/types.js';
import { defaultLogger, type Logger } from '../util/logger.js';
import type { DeepReadonly } from './deep_readonly.js';
import type { ReadonlyIndexer } from './indexer.js';
import { namespaceIndex } from './indexer.js';
import type { LabelSelector } from '../apimachinery/labels.js';

/** Options of a {@link Lister}. */
export interface ListerOptions {
  /** Where the one-time "namespace index missing" warning goes; defaults to the library logger. */
  logger?: Logger;
}

/** The labels of a cached object, or undefined when it has none (or no metadata). */
function labelsOf(obj: unknown): Readonly<Record<string, string>> | undefined {
  const meta = (obj as { metadata?: { labels?: Record<string, string> } } | null)?.metadata;
  return meta?.labels;
}

function namespaceOf(obj: unknown): string {
  const ns = (obj as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' ? ns : '';
}

function filter<T>(
  objs: DeepReadonly<T>[],
  selector: LabelSelector | undefined,
): DeepReadonly<T>[] {
  if (selector === undefined || selector.isEmpty()) return objs;
  const out: DeepReadonly<T>[] = [];
  for (const o of objs) if (selector.matches(labelsOf(o))) out.push(o);
  return out;
}

/** Lists and gets objects of one namespace. */
export interface NamespaceLister<T> {
  /** The namespace; `""` means all namespaces for `list`. */
  readonly namespace: string;
  /** The objects of this namespace whose labels match `selector` (absent = all). */
  list(selector?: LabelSelector): DeepReadonly<T>[];
  /** The object `namespace/name`. @throws {@link client!NotFoundError} when it is not cached. */
  get(name: string): DeepReadonly<T>;
  /** The object `namespace/name`, or undefined when it is not cached. */
  tryGet(name: string): DeepReadonly<T> | undefined;
}

/**
 * Typed queries over a cache reader for one resource.
 *
 * @typeParam T - the object type; `Lister<V1Pod>.get` returns `DeepReadonly<V1Pod>`.
 */
export class Lister<T> {
  readonly #reader: ReadonlyIndexer<T>;
  readonly #groupResource: GroupResource;
  readonly #logger: Logger;
  #warned = false;

  /**
   * @param reader - the cache, usually `informer.getIndexer().reader()`.
   * @param groupResource - names the resource in NotFound errors (`{ group: '', resource: 'pods' }`).
   */
  constructor(
    reader: ReadonlyIndexer<T>,
    groupResource: GroupResource,
    options: ListerOptions = {},
  ) {
    this.#reader = reader;
    this.#groupResource = groupResource;
    this.#logger = options.logger ?? defaultLogger;
  }

  /** The resource this lister serves. */
  get groupResource(): GroupResource {
    return this.#groupResource;
  }

  /** Every cached object whose labels match `selector` (absent or empty = all). */
  list(selector?: LabelSelector): DeepReadonly<T>[] {
    if (selector?.matchesNothing() === true) return [];
    return filter<T>(this.#reader.list(), selector);
  }

  /**
   * The cluster-scoped object `name` (key `name`). For namespaced objects use
   * `byNamespace(ns).get(name)`.
   *
   * @throws {@link client!NotFoundError} when it is not cached.
   */
  get(name: string): DeepReadonly<T> {
    const obj = this.#reader.getByKey(name);
    if (obj === undefined) throw new NotFoundError(this.#groupResource, name);
    return obj;
  }

  /** The cluster-scoped object `name`, or undefined. */
  tryGet(name: string): DeepReadonly<T> | undefined {
    return this.#reader.getByKey(name);
  }

  /** A lister for one namespace (`""` = all namespaces for `list`). */
  byNamespace(namespace: string): NamespaceLister<T> {
    return {
      namespace,
      list: (selector) => this.#listNamespace(namespace, selector),
      get: (name) => {
        const obj = this.#reader.getByKey(namespace === '' ? name : `${namespace}/${name}`);
        if (obj === undefined) throw new NotFoundError(this.#groupResource, name);
        return obj;
      },
      tryGet: (name) => this.#reader.getByKey(namespace === '' ? name : `${namespace}/${name}`),
    };
  }

  #listNamespace(namespace: string, selector: LabelSelector | undefined): DeepReadonly<T>[] {
    if (selector?.matchesNothing() === true) return [];
    if (namespace === '') return this.list(selector);
    let objs: DeepReadonly<T>[];
    if (this.#reader.hasIndex(namespaceIndex)) {
      objs = this.#reader.byIndex(namespaceIndex, namespace);
    } else {
      if (!this.#warned) {
        this.#warned = true;
        this.#logger.warn(
          'the cache has no namespace index; listing by namespace scans every object. Register { namespace: metaNamespaceIndexFunc } as an indexer.',
          {
            group: this.#groupResource.group,
            resource: this.#groupResource.resource,
          },
        );
      }
      objs = this.#reader.list().filter((o) => namespaceOf(o) === namespace);
    }
    return filter<T>(objs, selector);
  }
}
