/**
 * A small least-recently-used map (client-go's `lru.Cache`): the correlator's caches keep
 * at most `capacity` keys, dropping the least recently used.
 *
 * @module
 */

/** An LRU map; `get` and `set` both count as a use. */
export class LruCache<V> {
  readonly #capacity: number;
  readonly #map = new Map<string, V>();

  /** @param capacity - the most keys kept (at least 1). */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, Math.floor(capacity));
  }

  /** The value of `key`, marking it used. */
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, v);
    return v;
  }

  /** Sets `key`, evicting the least recently used key when full. */
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#capacity) {
      const oldest = this.#map.keys().next();
      if (oldest.done !== true) this.#map.delete(oldest.value);
    }
  }

  /** Number of keys held. */
  get size(): number {
    return this.#map.size;
  }
}
