/**
 * The informer's cache: objects by key plus any number of named indexes (client-go's
 * `ThreadSafeStore` and `Indexer`, `tools/cache/thread_safe_store.go` and `index.go`).
 *
 * An index is a function from an object to the list of values it is filed under (the
 * built-in {@link metaNamespaceIndexFunc} files an object under its namespace). For each
 * index the cache keeps `value → set of keys`, updated on every write from the object's old
 * and new values, so {@link Indexer.byIndex} costs in proportion to its result, never to the
 * size of the store. A value whose set becomes empty is dropped.
 *
 * Store rules, as client-go's:
 * - `add` and `update` are the same overwrite; `delete` of a missing key does nothing;
 * - `replace(list, resourceVersion)` swaps in the whole content and rebuilds every index;
 * - `resync` does nothing; `list` order is unspecified;
 * - `addIndexers` rejects a name that exists and indexes the items already present.
 *
 * **Where this differs from client-go:** client-go panics when an index function fails. Here
 * every write computes the key and all index values first; if the key function or any
 * index function throws (or returns something that is not an array of strings), the write
 * is rejected with a {@link KeyError} or {@link IndexFuncError} and the store and every
 * index are exactly as they were before the call. This holds for `add`, `update`,
 * `replace` (all or nothing, or per object when given an `onReject` callback, as the
 * informer does) and `addIndexers` (all or nothing).
 *
 * **Writer and reader.** Only the informer should write. Hand listers and user code
 * {@link Indexer.reader}, a view with only the read methods whose objects are typed
 * {@link DeepReadonly}: cached objects are shared, never copied, and must not be mutated.
 *
 * @module
 */
import { KubeControllerKitError, errorMessage } from '../util/errors.js';
import type { DeepReadonly } from './deep_readonly.js';
import {
  KeyError,
  deletionHandlingMetaNamespaceKeyFunc,
  describe,
  metaNamespaceKeyFunc,
  type KeyFunc,
} from './keys.js';

/**
 * Files an object under zero or more values of one index. Must be pure: no writes to the
 * cache, no mutation of the object, the same answer for the same object.
 */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Named index functions. */
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/** The name under which informers register {@link metaNamespaceIndexFunc}. */
export const namespaceIndex = 'namespace';

/**
 * Files an object under its namespace (`""` for cluster-scoped objects), as client-go's
 * `MetaNamespaceIndexFunc`.
 *
 * @throws {@link KeyError} when the object has no metadata or a non-string namespace
 *   (client-go returns `[""]` and an error, which makes its store panic).
 */
export function metaNamespaceIndexFunc(obj: unknown): string[] {
  if (obj === null || typeof obj !== 'object') {
    throw new KeyError(obj, 'object has no meta: not an object');
  }
  const meta = (obj as { metadata?: unknown }).metadata;
  if (meta === null || typeof meta !== 'object') {
    throw new KeyError(obj, 'object has no meta: metadata is missing');
  }
  const ns = (meta as { namespace?: unknown }).namespace;
  if (ns === undefined || ns === null) return [''];
  if (typeof ns !== 'string') {
    throw new KeyError(obj, `metadata.namespace is a ${typeof ns}, not a string`);
  }
  return [ns];
}

/** A query named an index that was never registered. */
export class IndexNotFoundError extends KubeControllerKitError {
  /** The unknown index name. */
  readonly indexName: string;

  /** @param indexName - the unknown name. */
  constructor(indexName: string) {
    super(
      `Index with name ${indexName} does not exist; register it with addIndexers (or the informer's indexers option) before querying it`,
    );
    this.indexName = indexName;
  }
}

/** `addIndexers` was given a name that is already registered. */
export class IndexerConflictError extends KubeControllerKitError {
  /** The names that already exist. */
  readonly names: readonly string[];

  /** @param names - the conflicting names. */
  constructor(names: readonly string[]) {
    super(
      `indexer conflict: ${names.join(', ')}; an index with that name already exists, choose another name (no index was added)`,
    );
    this.names = names;
  }
}

/**
 * An index function threw or returned something other than an array of strings. The write
 * that called it was rejected; the store and every index are unchanged.
 */
export class IndexFuncError extends KubeControllerKitError {
  /** The index whose function failed. */
  readonly indexName: string;
  /** The key of the object being written (or its description for queries). */
  readonly key: string;
  /** The object the function failed on. */
  readonly obj: unknown;

  /**
   * @param indexName - the index.
   * @param key - the object's key.
   * @param obj - the object.
   * @param problem - what went wrong.
   */
  constructor(
    indexName: string,
    key: string,
    obj: unknown,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(
      `index function ${JSON.stringify(indexName)} failed for object ${JSON.stringify(key)}: ${problem}; the operation was rejected and the cache is unchanged — fix the index function to handle this object`,
      options,
    );
    this.indexName = indexName;
    this.key = key;
    this.obj = obj;
  }
}

/**
 * The read side of an {@link Indexer}: what listers and user code get. Every object is the
 * cached instance itself, typed {@link DeepReadonly}; do not mutate it (copy first). The
 * cache may be behind the server; a controller that must not act on stale data checks
 * resourceVersions or re-reads from the API.
 */
export interface ReadonlyIndexer<T> {
  /** The stored object with the same key as `obj`, or undefined. @throws {@link KeyError} */
  get(obj: T | DeepReadonly<T>): DeepReadonly<T> | undefined;
  /** The stored object under `key` (`ns/name` or `name`), or undefined. */
  getByKey(key: string): DeepReadonly<T> | undefined;
  /** Whether an object is stored under `key`. */
  hasKey(key: string): boolean;
  /** Every stored object, in unspecified order (a new array each call). */
  list(): DeepReadonly<T>[];
  /** Every key, in unspecified order. */
  listKeys(): string[];
  /** How many objects are stored. */
  readonly size: number;
  /**
   * The objects sharing any of `obj`'s values in index `indexName`.
   *
   * @throws {@link IndexNotFoundError} for an unknown index; {@link IndexFuncError} if the function throws.
   */
  index(indexName: string, obj: T | DeepReadonly<T>): DeepReadonly<T>[];
  /** The objects filed under `value` in index `indexName`. @throws {@link IndexNotFoundError} */
  byIndex(indexName: string, value: string): DeepReadonly<T>[];
  /** The keys filed under `value` in index `indexName`. @throws {@link IndexNotFoundError} */
  indexKeys(indexName: string, value: string): string[];
  /** Every value present in index `indexName`; empty (no error) for an unknown index. */
  listIndexFuncValues(indexName: string): string[];
  /** Whether an index named `indexName` is registered. */
  hasIndex(indexName: string): boolean;
  /** The registered index functions, by name. */
  getIndexers(): Indexers<T>;
  /** The resourceVersion of the last `replace` or `bookmark`, or `""` before any. */
  lastSyncResourceVersion(): string;
}

/** Options of an {@link Indexer}. */
export interface IndexerOptions<T> {
  /** Names objects; defaults to {@link deletionHandlingMetaNamespaceKeyFunc}. */
  keyFunc?: KeyFunc;
  /** Initial index functions; defaults to none. Informers pass `{ namespace: metaNamespaceIndexFunc }`. */
  indexers?: Indexers<T>;
}

interface Entry<T> {
  obj: T;
  /** The index values of `obj`, one slot per registered index. */
  values: (readonly string[])[];
}

/**
 * The indexed cache. See the module documentation for the rules and for how a failing
 * index function is handled.
 *
 * @typeParam T - the cached object type, e.g. `V1Pod`.
 */
export class Indexer<T> {
  readonly #keyFunc: KeyFunc;
  readonly #defaultKeyFunc: boolean;
  #items = new Map<string, Entry<T>>();
  readonly #names: string[];
  readonly #funcs: IndexFunc<T>[];
  #indices: Map<string, Set<string>>[];
  readonly #scratch: (readonly string[])[] = [];
  #resourceVersion = '';
  #reader: ReadonlyIndexer<T> | undefined;

  /** @param options - key function and initial indexes. */
  constructor(options: IndexerOptions<T> = {}) {
    this.#keyFunc = options.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc;
    this.#defaultKeyFunc =
      this.#keyFunc === deletionHandlingMetaNamespaceKeyFunc ||
      this.#keyFunc === metaNamespaceKeyFunc;
    // Arrays of the exact length (pushing onto [] reserves 17 slots each: 0.4 KB an informer).
    const initial = options.indexers === undefined ? [] : Object.entries(options.indexers);
    this.#names = initial.map(([name]) => name);
    this.#funcs = initial.map(([, fn]) => fn);
    this.#indices = initial.map(() => new Map<string, Set<string>>());
  }

  /** The key of `obj` under this store's key function. @throws {@link KeyError} */
  keyOf(obj: unknown): string {
    if (this.#defaultKeyFunc) return this.#keyFunc(obj);
    let key: unknown;
    try {
      key = this.#keyFunc(obj);
    } catch (err) {
      if (err instanceof KeyError) throw err;
      throw new KeyError(obj, `the key function threw: ${errorMessage(err)}`, { cause: err });
    }
    if (typeof key !== 'string') {
      throw new KeyError(obj, `the key function returned a ${typeof key}, not a string`);
    }
    return key;
  }

  #compute(slot: number, obj: T, knownKey: string | undefined): readonly string[] {
    const fn = this.#funcs[slot] as IndexFunc<T>;
    let values: unknown;
    try {
      values = fn(obj);
    } catch (err) {
      throw new IndexFuncError(
        this.#names[slot] as string,
        knownKey ?? describe(obj),
        obj,
        errorMessage(err),
        {
          cause: err,
        },
      );
    }
    if (!Array.isArray(values)) {
      throw new IndexFuncError(
        this.#names[slot] as string,
        knownKey ?? describe(obj),
        obj,
        `it returned ${values === null ? 'null' : typeof values}, expected an array of strings`,
      );
    }
    for (let i = 0; i < values.length; i++) {
      if (typeof values[i] !== 'string') {
        throw new IndexFuncError(
          this.#names[slot] as string,
          knownKey ?? describe(obj),
          obj,
          `it returned an array holding a ${typeof values[i]}, expected only strings`,
        );
      }
    }
    return values as readonly string[];
  }

  #file(index: Map<string, Set<string>>, key: string, values: readonly string[]): void {
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as string;
      let set = index.get(v);
      if (set === undefined) {
        set = new Set();
        index.set(v, set);
      }
      set.add(key);
    }
  }

  #unfile(index: Map<string, Set<string>>, key: string, values: readonly string[]): void {
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as string;
      const set = index.get(v);
      if (set === undefined) continue;
      set.delete(key);
      if (set.size === 0) index.delete(v);
    }
  }

  /**
   * Adds or replaces the object under its key and updates every index.
   *
   * @throws {@link KeyError} or {@link IndexFuncError}; the cache is then unchanged.
   */
  add(obj: T): void {
    this.upsert(this.keyOf(obj), obj);
  }

  /**
   * {@link Indexer.add} under a key the caller already computed with
   * {@link Indexer.keyOf} (the informer's hot path: the key is built and hashed once),
   * returning the object it replaced, if any.
   *
   * @throws {@link IndexFuncError}; the cache is then unchanged.
   */
  upsert(key: string, obj: T): T | undefined {
    const n = this.#funcs.length;
    const scratch = this.#scratch;
    for (let i = 0; i < n; i++) scratch[i] = this.#compute(i, obj, key);
    const old = this.#items.get(key);
    if (old === undefined) {
      const values = scratch.slice(0, n);
      this.#items.set(key, { obj, values });
      for (let i = 0; i < n; i++)
        this.#file(
          this.#indices[i] as Map<string, Set<string>>,
          key,
          values[i] as readonly string[],
        );
      return undefined;
    } else {
      const replaced = old.obj;
      old.obj = obj;
      for (let i = 0; i < n; i++) {
        const before = old.values[i] as readonly string[];
        const after = scratch[i] as readonly string[];
        old.values[i] = after;
        if (before.length === 1 && after.length === 1 && before[0] === after[0]) continue;
        const index = this.#indices[i] as Map<string, Set<string>>;
        this.#unfile(index, key, before);
        this.#file(index, key, after);
      }
      return replaced;
    }
  }

  /** Same as {@link Indexer.add} (client-go's `Update`). @throws {@link KeyError} or {@link IndexFuncError} */
  update(obj: T): void {
    this.add(obj);
  }

  /**
   * Removes the object with `obj`'s key, if present, from the store and every index. A
   * {@link DeletedFinalStateUnknown} or a plain key string is accepted with the default key
   * function.
   *
   * @throws {@link KeyError} when `obj` cannot be named.
   */
  delete(obj: unknown): void {
    this.deleteByKey(this.keyOf(obj));
  }

  /** Removes the object under `key`, if present. */
  deleteByKey(key: string): void {
    const old = this.#items.get(key);
    if (old === undefined) return;
    this.#items.delete(key);
    for (let i = 0; i < this.#funcs.length; i++) {
      this.#unfile(
        this.#indices[i] as Map<string, Set<string>>,
        key,
        old.values[i] as readonly string[],
      );
    }
  }

  /** The stored object with `obj`'s key, or undefined. @throws {@link KeyError} */
  get(obj: T | DeepReadonly<T>): T | undefined {
    return this.#items.get(this.keyOf(obj))?.obj;
  }

  /** The stored object under `key`, or undefined. */
  getByKey(key: string): T | undefined {
    return this.#items.get(key)?.obj;
  }

  /** Whether an object is stored under `key`. */
  hasKey(key: string): boolean {
    return this.#items.has(key);
  }

  /** Every stored object, in unspecified order. */
  list(): T[] {
    const out = new Array<T>(this.#items.size);
    let i = 0;
    for (const e of this.#items.values()) out[i++] = e.obj;
    return out;
  }

  /** Every key, in unspecified order. */
  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  /** How many objects are stored. */
  get size(): number {
    return this.#items.size;
  }

  /**
   * Replaces the whole content with `list` and rebuilds every index; remembers
   * `resourceVersion` (see {@link Indexer.lastSyncResourceVersion}). Later duplicates of a
   * key win.
   *
   * Without `onReject` it is all or nothing: the first object whose key or index function
   * fails rejects the whole call. With `onReject`, each such object is left out (it is not
   * stored under any key or index: the write of one object stays all or nothing), reported
   * to `onReject` with its error, and every other object is stored.
   *
   * @throws {@link KeyError} or {@link IndexFuncError} (only without `onReject`); the cache
   *   is then unchanged.
   */
  replace(
    list: Iterable<T>,
    resourceVersion: string,
    onReject?: (obj: T, error: KeyError | IndexFuncError) => void,
  ): void {
    const n = this.#funcs.length;
    const items = new Map<string, Entry<T>>();
    for (const obj of list) {
      let key: string;
      const values = new Array<readonly string[]>(n);
      try {
        key = this.keyOf(obj);
        for (let i = 0; i < n; i++) values[i] = this.#compute(i, obj, key);
      } catch (err) {
        if (onReject === undefined) throw err;
        onReject(obj, err as KeyError | IndexFuncError);
        continue;
      }
      items.set(key, { obj, values });
    }
    const indices = Array.from({ length: n }, () => new Map<string, Set<string>>());
    for (const [key, e] of items) {
      for (let i = 0; i < n; i++)
        this.#file(indices[i] as Map<string, Set<string>>, key, e.values[i] as readonly string[]);
    }
    this.#items = items;
    this.#indices = indices;
    this.#resourceVersion = resourceVersion;
  }

  /** Does nothing, as client-go's store `Resync`. */
  resync(): void {}

  /**
   * The cache is current up to `resourceVersion` (a watch bookmark): only
   * {@link Indexer.lastSyncResourceVersion} changes.
   */
  bookmark(resourceVersion: string): void {
    this.#resourceVersion = resourceVersion;
  }

  /** The resourceVersion of the last {@link Indexer.replace} or {@link Indexer.bookmark}, or `""`. */
  lastSyncResourceVersion(): string {
    return this.#resourceVersion;
  }

  /**
   * Registers more indexes and indexes the items already stored. All or nothing.
   *
   * @throws {@link IndexerConflictError} when a name is taken; {@link IndexFuncError} when a
   *   new function fails on a stored object (no index is then added).
   */
  addIndexers(indexers: Indexers<T>): void {
    const added = Object.entries(indexers);
    const conflicts = added.map(([name]) => name).filter((name) => this.#names.includes(name));
    if (conflicts.length > 0) throw new IndexerConflictError(conflicts);
    const base = this.#funcs.length;
    // Register provisionally so #compute can name the function; undo on failure.
    for (const [name, fn] of added) {
      this.#names.push(name);
      this.#funcs.push(fn);
    }
    const computed: (readonly string[])[][] = [];
    try {
      for (const [key, e] of this.#items) {
        const row: (readonly string[])[] = [];
        for (let j = 0; j < added.length; j++) row.push(this.#compute(base + j, e.obj, key));
        computed.push(row);
      }
    } catch (err) {
      this.#names.length = base;
      this.#funcs.length = base;
      throw err;
    }
    const fresh: Map<string, Set<string>>[] = added.map(() => new Map<string, Set<string>>());
    let r = 0;
    for (const [key, e] of this.#items) {
      const row = computed[r++] as (readonly string[])[];
      for (let j = 0; j < row.length; j++) {
        e.values.push(row[j] as readonly string[]);
        this.#file(fresh[j] as Map<string, Set<string>>, key, row[j] as readonly string[]);
      }
    }
    this.#indices.push(...fresh);
  }

  #slot(indexName: string): number {
    // A name's position in #names is its slot (a handful of names: no Map needed).
    const slot = this.#names.indexOf(indexName);
    if (slot < 0) throw new IndexNotFoundError(indexName);
    return slot;
  }

  #objects(keys: Iterable<string>, size: number): T[] {
    const out = new Array<T>(size);
    let i = 0;
    for (const k of keys) out[i++] = (this.#items.get(k) as Entry<T>).obj;
    return out;
  }

  /**
   * The objects sharing any of `obj`'s values in index `indexName`.
   *
   * @throws {@link IndexNotFoundError}, {@link IndexFuncError}
   */
  index(indexName: string, obj: T | DeepReadonly<T>): T[] {
    const slot = this.#slot(indexName);
    const values = this.#compute(slot, obj as T, undefined);
    const index = this.#indices[slot] as Map<string, Set<string>>;
    if (values.length === 1) {
      const set = index.get(values[0] as string);
      return set === undefined ? [] : this.#objects(set, set.size);
    }
    const keys = new Set<string>();
    for (const v of values) {
      const set = index.get(v);
      if (set !== undefined) for (const k of set) keys.add(k);
    }
    return this.#objects(keys, keys.size);
  }

  /** The objects filed under `value` in index `indexName`. @throws {@link IndexNotFoundError} */
  byIndex(indexName: string, value: string): T[] {
    const set = (this.#indices[this.#slot(indexName)] as Map<string, Set<string>>).get(value);
    return set === undefined ? [] : this.#objects(set, set.size);
  }

  /** The keys filed under `value` in index `indexName`. @throws {@link IndexNotFoundError} */
  indexKeys(indexName: string, value: string): string[] {
    const set = (this.#indices[this.#slot(indexName)] as Map<string, Set<string>>).get(value);
    return set === undefined ? [] : [...set];
  }

  /** Every value present in index `indexName`; empty for an unknown index. */
  listIndexFuncValues(indexName: string): string[] {
    const slot = this.#names.indexOf(indexName);
    if (slot < 0) return [];
    return [...(this.#indices[slot] as Map<string, Set<string>>).keys()];
  }

  /** Whether an index named `indexName` is registered. */
  hasIndex(indexName: string): boolean {
    return this.#names.includes(indexName);
  }

  /** The registered index functions, by name (a copy). */
  getIndexers(): Indexers<T> {
    const out: Record<string, IndexFunc<T>> = {};
    for (let i = 0; i < this.#names.length; i++)
      out[this.#names[i] as string] = this.#funcs[i] as IndexFunc<T>;
    return out;
  }

  /**
   * A read-only view of this cache for listers and user code: the read methods only, objects
   * typed {@link DeepReadonly}. Always the same view; it sees every later write.
   */
  reader(): ReadonlyIndexer<T> {
    if (this.#reader === undefined) {
      this.#reader = Object.freeze(new IndexerReader(this));
    }
    return this.#reader;
  }
}

/**
 * The view {@link Indexer.reader} hands out. A class rather than an object literal: a literal
 * with the `size` accessor among a dozen methods is a dictionary-mode object in V8 (about
 * 0.8 KB more per informer). The methods are arrow functions, so they work detached.
 */
class IndexerReader<T> implements ReadonlyIndexer<T> {
  readonly #ix: Indexer<T>;
  constructor(ix: Indexer<T>) {
    this.#ix = ix;
  }
  readonly get = (obj: T | DeepReadonly<T>): DeepReadonly<T> | undefined =>
    this.#ix.get(obj) as DeepReadonly<T> | undefined;
  readonly getByKey = (key: string): DeepReadonly<T> | undefined =>
    this.#ix.getByKey(key) as DeepReadonly<T> | undefined;
  readonly hasKey = (key: string): boolean => this.#ix.hasKey(key);
  readonly list = (): DeepReadonly<T>[] => this.#ix.list() as DeepReadonly<T>[];
  readonly listKeys = (): string[] => this.#ix.listKeys();
  get size(): number {
    return this.#ix.size;
  }
  readonly index = (name: string, obj: T | DeepReadonly<T>): DeepReadonly<T>[] =>
    this.#ix.index(name, obj) as DeepReadonly<T>[];
  readonly byIndex = (name: string, value: string): DeepReadonly<T>[] =>
    this.#ix.byIndex(name, value) as DeepReadonly<T>[];
  readonly indexKeys = (name: string, value: string): string[] => this.#ix.indexKeys(name, value);
  readonly listIndexFuncValues = (name: string): string[] => this.#ix.listIndexFuncValues(name);
  readonly hasIndex = (name: string): boolean => this.#ix.hasIndex(name);
  readonly getIndexers = (): Indexers<T> => this.#ix.getIndexers();
  readonly lastSyncResourceVersion = (): string => this.#ix.lastSyncResourceVersion();
}
