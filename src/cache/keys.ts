/**
 * Key functions: how the cache names an object (`namespace/name`, or `name` when
 * cluster-scoped), the tombstone a deletion leaves when the final state is unknown, and
 * explicit keys.
 *
 * The rules are client-go's (`tools/cache/store.go`, `object-names.go`,
 * `controller.go`):
 * - {@link metaNamespaceKeyFunc}: an explicit key (any string) is returned unchanged;
 *   otherwise `ns/name`, or `name` when the namespace is empty or absent.
 * - {@link deletionHandlingMetaNamespaceKeyFunc}: a {@link DeletedFinalStateUnknown} gives
 *   its stored key; anything else as above. Informer stores use it.
 * - {@link splitMetaNamespaceKey}: one part is a name (`""` gives `["", ""]`), two parts are
 *   namespace and name (`/x` gives `["", "x"]`), anything else is an error.
 *
 * Where client-go would read a name from an object of any shape, this port checks: an
 * object without `metadata`, or whose `metadata.name` or `metadata.namespace` is not a
 * string, gets a {@link KeyError} that names it.
 *
 * @module
 */
import { KubeControllerKitError, errorMessage } from '../util/errors.js';

/**
 * A key that is already computed, as client-go's `ExplicitKey`. At runtime it is a plain
 * string: every key function here returns a string argument unchanged, so a caller may
 * enqueue or delete by key. The brand only documents intent in signatures; build one with
 * {@link explicitKey}.
 */
export type ExplicitKey = string & {
  /** Type-level brand only; never present at runtime. */
  readonly __explicitKey?: never;
};

/** Marks a string as an {@link ExplicitKey} (no runtime change). */
export function explicitKey(key: string): ExplicitKey {
  return key;
}

/** A function that names an object in a store. Throws {@link KeyError} when it cannot. */
export type KeyFunc = (obj: unknown) => string;

/**
 * The key function could not name an object: it has no metadata, or its name or namespace
 * is not a string. The object is attached so a handler can log it.
 */
export class KeyError extends KubeControllerKitError {
  /** The object that could not be named. */
  readonly obj: unknown;

  /**
   * @param obj - the object.
   * @param problem - why it has no key.
   */
  constructor(obj: unknown, problem: string, options?: ErrorOptions) {
    super(
      `couldn't create key for object ${describe(obj)}: ${problem}; cached objects need metadata.name (and metadata.namespace when namespaced) as strings`,
      options,
    );
    this.obj = obj;
  }
}

/** JSON of a value for a message; never throws (BigInt, a throwing `toJSON`, cycles). */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch (err) {
    return `<${errorMessage(err)}>`;
  }
}

/** A short description of an object for error messages (kind, name, or its JSON start). */
export function describe(obj: unknown): string {
  if (obj === null) return 'null';
  if (typeof obj === 'function') return 'function';
  if (typeof obj === 'bigint') return `bigint ${obj}`;
  if (typeof obj !== 'object') return `${typeof obj} ${safeJson(obj)}`;
  const o = obj as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const kind = typeof o.kind === 'string' ? o.kind : 'object';
  const meta = o.metadata;
  if (meta !== null && typeof meta === 'object') {
    const name = typeof meta.name === 'string' ? meta.name : safeJson(meta.name ?? null);
    const ns =
      typeof meta.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/` : '';
    return `${kind} ${ns}${name}`;
  }
  const json = safeJson(obj);
  return `${kind} ${json.length > 100 ? json.slice(0, 100) + '…' : json}`;
}

/**
 * The tombstone for an object deleted while the watch was down: its last known state
 * (possibly stale) and its key. DeltaFIFO's `replace` emits these; delete handlers must
 * expect them.
 */
export class DeletedFinalStateUnknown<T> {
  /** The object's key. */
  readonly key: string;
  /** The last state the cache knew; may be stale. */
  readonly obj: T;

  /**
   * @param key - the object's key.
   * @param obj - the last known state.
   */
  constructor(key: string, obj: T) {
    this.key = key;
    this.obj = obj;
  }
}

/** The key of an object's name and namespace: `ns/name`, or `name` for an empty namespace. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

/**
 * client-go's `MetaNamespaceKeyFunc`: a string is an explicit key and is returned unchanged;
 * otherwise `namespace/name`, or `name` when the namespace is empty or absent.
 *
 * @throws {@link KeyError} when the object has no metadata or a non-string name/namespace.
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (typeof obj === 'string') return obj;
  if (obj === null || typeof obj !== 'object') {
    throw new KeyError(obj, 'object has no meta: not an object');
  }
  const meta = (obj as { metadata?: unknown }).metadata;
  if (meta === null || typeof meta !== 'object') {
    throw new KeyError(obj, 'object has no meta: metadata is missing');
  }
  const { name, namespace } = meta as { name?: unknown; namespace?: unknown };
  if (typeof name !== 'string') {
    throw new KeyError(
      obj,
      name === undefined
        ? 'metadata.name is missing'
        : `metadata.name is a ${typeof name}, not a string`,
    );
  }
  if (namespace === undefined || namespace === null || namespace === '') return name;
  if (typeof namespace !== 'string') {
    throw new KeyError(obj, `metadata.namespace is a ${typeof namespace}, not a string`);
  }
  return `${namespace}/${name}`;
}

/**
 * client-go's `DeletionHandlingMetaNamespaceKeyFunc`: the stored key of a
 * {@link DeletedFinalStateUnknown}, otherwise {@link metaNamespaceKeyFunc}.
 *
 * @throws {@link KeyError} as {@link metaNamespaceKeyFunc}.
 */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  return metaNamespaceKeyFunc(obj);
}

/** A key that is not `name` or `namespace/name`. */
export class UnexpectedKeyFormatError extends KubeControllerKitError {
  /** The key that could not be split. */
  readonly key: string;

  /** @param key - the key. */
  constructor(key: string) {
    super(`unexpected key format: ${JSON.stringify(key)}; expected "name" or "namespace/name"`);
    this.key = key;
  }
}

/**
 * client-go's `SplitMetaNamespaceKey`: `[namespace, name]`. One part is a cluster-scoped
 * name (`""` gives `["", ""]`); two parts are namespace and name (`"/x"` gives `["", "x"]`).
 *
 * @throws {@link UnexpectedKeyFormatError} for more than one `/` (`a/b/c`).
 */
export function splitMetaNamespaceKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  if (slash < 0) return ['', key];
  if (key.indexOf('/', slash + 1) >= 0) throw new UnexpectedKeyFormatError(key);
  return [key.slice(0, slash), key.slice(slash + 1)];
}
