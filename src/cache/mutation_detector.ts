/**
 * client-go's cache mutation detector: keeps a private copy of every cached object and
 * reports, naming the object and the field path, when a cached object no longer equals
 * its copy — someone mutated a shared object instead of copying it first.
 *
 * Opt in per informer (`detectCacheMutations: true`, also through a factory's
 * `informerOptions`) or for the whole process with `KUBE_CACHE_MUTATION_DETECTOR=true`,
 * as client-go. It costs a deep copy of every cached object and a deep comparison per
 * check: for tests and debugging, not production.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';
import type { DeepMutable } from './deep_readonly.js';

/** A cached object was mutated in place. */
export class CacheMutationError extends KubeControllerKitError {
  /** The informer. */
  readonly informer: string;
  /** The key of the mutated object. */
  readonly key: string;
  /** The first field path that differs from the copy taken when it was cached, e.g. `spec.containers[0].image`. */
  readonly path: string;

  /**
   * @param informer - the informer's name.
   * @param key - the object's key.
   * @param path - the first differing field path.
   */
  constructor(informer: string, key: string, path: string) {
    super(
      `${informer}: cached object ${key} was mutated at ${path === '' ? '(the object itself)' : path}; cached objects are shared with every handler and lister — deepCopy(obj) before changing it`,
    );
    this.informer = informer;
    this.key = key;
    this.path = path;
  }
}

/** True when `KUBE_CACHE_MUTATION_DETECTOR=true` is set in the environment. */
export function cacheMutationDetectorFromEnv(): boolean {
  return typeof process !== 'undefined' && process.env['KUBE_CACHE_MUTATION_DETECTOR'] === 'true';
}

/**
 * A mutable deep copy of a (typically cached, read-only) object: change the copy, never the
 * cached object. Plain JSON data (what the API server sends) copies exactly. The result is
 * typed {@link DeepMutable}: given a handler's or lister's `DeepReadonly<V1Pod>` it is a
 * mutable `V1Pod` (`structuredClone` alone keeps the read-only type).
 *
 * @example
 * ```ts
 * onUpdate: (_old, pod) => {
 *   const mine = deepCopy(pod); // V1Pod, mutable
 *   mine.metadata!.labels = { ...mine.metadata!.labels, seen: 'true' };
 * }
 * ```
 */
export function deepCopy<T>(obj: T): DeepMutable<T> {
  return structuredClone(obj) as DeepMutable<T>;
}

function describeValue(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

/**
 * The first path where `a` and `b` differ, or undefined when they are deeply equal.
 *
 * @internal
 */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    describeValue(a) !== describeValue(b)
  ) {
    return path;
  }
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return `${path}.length`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], bb[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const join = (k: string): string => (path === '' ? k : `${path}.${k}`);
  for (const k of Object.keys(ao)) {
    if (!(k in bo)) return join(k);
    const d = firstDifference(ao[k], bo[k], join(k));
    if (d !== undefined) return d;
  }
  for (const k of Object.keys(bo)) if (!(k in ao)) return join(k);
  return undefined;
}

/** Copies of cached objects, by key; see the module documentation. */
export class CacheMutationDetector {
  readonly #name: string;
  readonly #entries = new Map<string, { obj: unknown; copy: unknown }>();

  /** @param name - the informer, for errors. */
  constructor(name: string) {
    this.#name = name;
  }

  /** Remember `obj` as cached under `key` (a deep copy is taken now). */
  record(key: string, obj: unknown): void {
    this.#entries.set(key, { obj, copy: structuredClone(obj) });
  }

  /** Forget `key` (it left the cache). */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  /** Forget everything. */
  clear(): void {
    this.#entries.clear();
  }

  /** Check one key; a mutation is returned once (the copy is then refreshed). */
  checkKey(key: string): CacheMutationError | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    const path = firstDifference(e.obj, e.copy);
    if (path === undefined) return undefined;
    e.copy = structuredClone(e.obj);
    return new CacheMutationError(this.#name, key, path);
  }

  /** Check every key; each mutation is returned once. */
  checkAll(): CacheMutationError[] {
    const out: CacheMutationError[] = [];
    for (const key of this.#entries.keys()) {
      const err = this.checkKey(key);
      if (err !== undefined) out.push(err);
    }
    return out;
  }
}
