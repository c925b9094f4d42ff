/**
 * The read-only view of cached objects, and its inverse for copies.
 *
 * @module
 */

/**
 * `T` with every property, array, map and set read-only at every depth. Listers and
 * readers hand out cached objects typed this way: they are shared with the cache and every
 * other reader, so mutating one would corrupt the cache silently. Copy an object with
 * `deepCopy` (which returns a {@link DeepMutable}) before changing it. Functions and
 * `Date`s are left as they are.
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends Date
    ? T
    : T extends ReadonlyMap<infer K, infer V>
      ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
      : T extends ReadonlySet<infer U>
        ? ReadonlySet<DeepReadonly<U>>
        : T extends object
          ? { readonly [P in keyof T]: DeepReadonly<T[P]> }
          : T;

/**
 * The inverse of {@link DeepReadonly}: `T` with `readonly` removed at every depth (read-only
 * arrays, maps and sets become mutable ones). `DeepMutable<DeepReadonly<V1Pod>>` is a
 * mutable `V1Pod`; it is what `deepCopy` returns. Functions and `Date`s are left as they are.
 */
export type DeepMutable<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends Date
    ? T
    : T extends ReadonlyMap<infer K, infer V>
      ? Map<DeepMutable<K>, DeepMutable<V>>
      : T extends ReadonlySet<infer U>
        ? Set<DeepMutable<U>>
        : T extends object
          ? { -readonly [P in keyof T]: DeepMutable<T[P]> }
          : T;
