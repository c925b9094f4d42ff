/**
 * The read-only view of cached objects.
 *
 * @module
 */

/**
 * `T` with every property, array, map and set read-only at every depth. Listers and
 * readers hand out cached objects typed this way: they are shared with the cache and every
 * other reader, so mutating one would corrupt the cache silently. Copy an object
 * (`structuredClone`) before changing it. Functions and `Date`s are left as they are.
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
