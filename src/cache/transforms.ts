/**
 * Ready-made informer transforms.
 *
 * @module
 */
import type { KubeObject } from '../client/types.js';

/**
 * Drops `metadata.managedFields` (server-side-apply bookkeeping, often a third of a
 * pod's JSON) before the object is cached. Changes the object in place and returns it;
 * idempotent, as informer transforms must be. Use it when no handler reads managedFields.
 *
 * @example
 * ```ts
 * new SharedIndexInformer(lw, { transform: stripManagedFields });
 * ```
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta !== undefined && meta.managedFields !== undefined) delete meta.managedFields;
  return obj;
}

/** Options of {@link compactForControllers}. */
export interface CompactOptions {
  /**
   * Annotations to drop besides `kubectl.kubernetes.io/last-applied-configuration`
   * (default none).
   */
  dropAnnotations?: readonly string[];
  /**
   * How many distinct subtrees (`maxShared`, default 4096) and strings (`maxStrings`,
   * default 65536) the transform shares. Past that it shares what it holds and adds nothing
   * more; the first sightings it remembers (as many, at least 1024 subtrees) are forgotten
   * when full. So its own memory stays bounded whatever the objects.
   */
  maxShared?: number;
  /** See {@link CompactOptions.maxShared}. */
  maxStrings?: number;
}

/** The annotation `kubectl apply` writes: a copy of the whole object as JSON. */
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
/** Subtrees with more values than this are not shared (nor their parents). */
const maxSharedSize = 48;
/** Strings longer than this are not shared (they are seldom repeated: IDs, hashes). */
const maxInternedLength = 256;
/** Nesting below this is left as it is (no recursion without a bound). */
const maxDepth = 32;

/**
 * A transform preset for a controller that reads its objects' metadata, spec and status:
 * the objects it caches keep every field a reconcile reads, in less memory.
 *
 * - **Drops** `metadata.managedFields` (server-side apply's bookkeeping, as
 *   {@link stripManagedFields}) and the `kubectl.kubernetes.io/last-applied-configuration`
 *   annotation (a copy of the object `kubectl apply` last sent), plus any annotation named
 *   in `dropAnnotations`. A controller that reads either must not use this preset.
 * - **Shares what repeats between objects**: a small subtree (a toleration list, a volume,
 *   a container's ports, env, resources and probes, a status condition list, an owner
 *   reference) equal to one seen in an earlier object is replaced by that earlier one, and
 *   a repeated string (label keys and values, images, node names) by one copy. A string or
 *   subtree is shared from the second time it is seen (the first sighting is remembered
 *   while the transform's bounded tables have room: it keeps its own copy).
 *
 * Shared subtrees are frozen (`Object.freeze`): the cache's objects are read-only (client-go's
 * rule for informer caches), and a handler that writes to one throws a `TypeError` instead
 * of silently changing every object that shares it. Copy an object (`structuredClone`)
 * before changing it, as with any cached object.
 *
 * It returns a function with its own tables: give one to each informer, or the same one to
 * informers whose objects share parts. Idempotent (a second pass changes nothing), as
 * informer transforms must be. It walks every object it is given, so it costs CPU per
 * event; docs/performance.md gives the memory it saves and what it costs.
 *
 * @param options - annotations to drop too, and the bounds of the shared tables.
 * @returns an informer transform.
 *
 * @example
 * ```ts
 * new SharedIndexInformer(lw, { transform: compactForControllers() });
 * ```
 */
export function compactForControllers<T extends KubeObject>(
  options: CompactOptions = {},
): (obj: T) => T {
  const drop = [lastApplied, ...(options.dropAnnotations ?? [])];
  const maxShared = Math.max(1, options.maxShared ?? 4096);
  const maxStrings = Math.max(1, options.maxStrings ?? 65536);
  const maxCandidates = Math.max(1024, maxShared);
  /** Strings seen at least twice: their ids and the copy to keep. */
  const strings = new Map<string, { id: number; copy: string }>();
  /** Strings seen once, and their ids; cleared when full. */
  const stringCandidates = new Map<string, number>();
  let nextId = 1;
  /** The copy of the last string {@link idOf} named, to keep in its place. */
  let copy = '';
  /** Subtrees seen at least twice, by hash: shared and frozen. */
  const shared = new Map<number, object[]>();
  let sharedCount = 0;
  /** Subtrees seen once, by hash; cleared when full. */
  const candidates = new Map<number, object>();
  // What the walk says of the value it returns: `hash` describes it, `size` counts its
  // values; size 0 means it cannot be shared (too large, unknown, or not plain JSON data).
  let hash = 0;
  let size = 0;

  /**
   * The string's id (the same for equal strings while the tables hold them), or 0 when it
   * is not shared; sets `copy` to the copy to keep in its place (the second one seen).
   */
  const idOf = (s: string): number => {
    const known = strings.get(s);
    if (known !== undefined) {
      copy = known.copy;
      return known.id;
    }
    copy = s;
    if (s.length > maxInternedLength) return 0;
    const seen = stringCandidates.get(s);
    if (seen !== undefined) {
      stringCandidates.delete(s);
      if (strings.size < maxStrings) strings.set(s, { id: seen, copy: s });
      return seen;
    }
    if (stringCandidates.size >= maxStrings) stringCandidates.clear();
    const fresh = nextId++;
    stringCandidates.set(s, fresh);
    return fresh;
  };

  /** `node`, or an equal subtree seen before; remembers `node` on its first sighting. */
  const share = (node: object, h: number): object => {
    const known = shared.get(h);
    if (known !== undefined) {
      for (const k of known) if (jsonEqual(k, node)) return k;
    }
    const first = candidates.get(h);
    if (first !== undefined && first !== node && jsonEqual(first, node)) {
      candidates.delete(h);
      if (sharedCount >= maxShared) return node;
      sharedCount++;
      deepFreeze(first);
      if (known !== undefined) known.push(first);
      else shared.set(h, [first]);
      return first;
    }
    if (candidates.size >= maxCandidates) candidates.clear();
    candidates.set(h, node);
    return node;
  };

  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') {
      const id = idOf(value);
      if (id === 0) {
        size = 0;
        return value;
      }
      hash = id;
      size = 1;
      return copy;
    }
    if (typeof value === 'number') {
      hash = (value * 2654435761) | 0 || 7;
      size = 1;
      return value;
    }
    if (typeof value === 'boolean') {
      hash = value ? 11 : 13;
      size = 1;
      return value;
    }
    if (value === null) {
      hash = 17;
      size = 1;
      return value;
    }
    if (typeof value !== 'object' || depth >= maxDepth || Object.isFrozen(value)) {
      size = 0;
      return value;
    }
    let h = 0;
    let n = 1;
    if (Array.isArray(value)) {
      const arr = value as unknown[];
      h = 19;
      for (let i = 0; i < arr.length; i++) {
        const before = arr[i];
        const v = walk(before, depth + 1);
        if (v !== before) arr[i] = v;
        if (n !== 0 && size !== 0) {
          h = (Math.imul(h, 31) + hash) | 0;
          n += size;
          if (n > maxSharedSize) n = 0;
        } else n = 0;
      }
    } else if (Object.getPrototypeOf(value) === Object.prototype) {
      const rec = value as Record<string, unknown>;
      h = 23;
      for (const p in rec) {
        const before = rec[p];
        const v = walk(before, depth + 1);
        if (v !== before) rec[p] = v;
        if (n !== 0 && size !== 0) {
          const name = idOf(p);
          if (name === 0) n = 0;
          else {
            h = (Math.imul(Math.imul(h, 31) + name, 31) + hash) | 0;
            n += size;
            if (n > maxSharedSize) n = 0;
          }
        } else n = 0;
      }
    } else {
      size = 0;
      return value;
    }
    hash = h;
    size = n;
    return n === 0 || depth === 0 ? value : share(value, h);
  };

  return (obj: T): T => {
    const meta = obj.metadata as Record<string, unknown> | undefined;
    if (meta !== undefined && meta !== null && !Object.isFrozen(meta)) {
      if (meta.managedFields !== undefined) delete meta.managedFields;
      const annotations = meta.annotations as Record<string, string> | undefined;
      if (annotations !== undefined && annotations !== null && !Object.isFrozen(annotations)) {
        for (const a of drop) if (a in annotations) delete annotations[a];
      }
    }
    walk(obj, 0);
    return obj;
  };
}

/** Whether two values parsed from JSON are equal (same keys in the same order, same values). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i]) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/** Freezes `node` and everything under it; returns it. */
function deepFreeze<N extends object>(node: N): N {
  if (Object.isFrozen(node)) return node;
  Object.freeze(node);
  for (const v of Object.values(node)) {
    if (typeof v === 'object' && v !== null) deepFreeze(v);
  }
  return node;
}
