/**
 * The consistent-hash ring: which shard owns a hash key.
 *
 * Rules:
 *
 * - Every shard is placed on a 32-bit ring at `virtualNodes` points (the hash of
 *   `shard#i`); a key belongs to the first point at or after its own hash, wrapping around.
 * - The assignment depends only on the set of shard names and the key: every replica and
 *   every sharder computes the same owner without talking to each other.
 * - Adding a shard to a ring of N moves only the keys the new shard's points take over —
 *   about 1/(N+1) of them — and every moved key moves to the new shard; removing a shard
 *   moves only that shard's keys. More virtual nodes spread keys more evenly (the default
 *   100 keeps each shard within roughly ±10 % of its share).
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/** Default number of points per shard on the ring. */
export const DEFAULT_VIRTUAL_NODES = 100;

/** One point of a {@link HashRing}: a token on the ring and the shard that owns it. */
export interface RingPoint {
  /** The point's position on the 32-bit ring. */
  readonly token: number;
  /** The shard that owns the arc ending at this point. */
  readonly owner: string;
}

/** The ring's options were invalid. */
export class HashRingError extends KubeControllerKitError {}

/**
 * A 32-bit hash of a string with good avalanche (FNV-1a over UTF-16 code units, then
 * murmur3's finalizer), so that names differing in one character land far apart.
 */
export function hash32(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * An immutable consistent-hash ring over a set of shard names.
 *
 * @example
 * ```ts
 * const ring = new HashRing(['shard-a', 'shard-b']);
 * ring.get('apps/Deployment/default/web'); // 'shard-a' or 'shard-b', the same everywhere
 * ```
 */
export class HashRing {
  /** The shard names on the ring, sorted. */
  readonly shards: readonly string[];
  /** Points per shard. */
  readonly virtualNodes: number;
  readonly #tokens: Uint32Array;
  readonly #owners: string[];

  /**
   * @param shards - the live shards (duplicates are ignored; empty names are refused).
   * @param virtualNodes - points per shard (a positive integer, default 100).
   * @throws {@link HashRingError} for an empty shard name or a bad `virtualNodes`.
   */
  constructor(shards: Iterable<string>, virtualNodes = DEFAULT_VIRTUAL_NODES) {
    if (!Number.isInteger(virtualNodes) || virtualNodes < 1) {
      throw new HashRingError(
        `virtualNodes is ${virtualNodes}; give a positive integer (default ${DEFAULT_VIRTUAL_NODES})`,
      );
    }
    const names = [...new Set(shards)].sort();
    for (const name of names) {
      if (name === '') throw new HashRingError('a shard name is empty; every shard needs a name');
    }
    this.shards = names;
    this.virtualNodes = virtualNodes;
    const points: { token: number; owner: string }[] = [];
    for (const name of names) {
      for (let i = 0; i < virtualNodes; i++)
        points.push({ token: hash32(`${name}#${i}`), owner: name });
    }
    // Ties (two shards on one point) break by name, so every process agrees.
    points.sort(
      (a, b) => a.token - b.token || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0),
    );
    this.#tokens = Uint32Array.from(points, (p) => p.token);
    this.#owners = points.map((p) => p.owner);
  }

  /** Number of shards on the ring. */
  get size(): number {
    return this.shards.length;
  }

  /** True when `shard` is on the ring. */
  has(shard: string): boolean {
    return this.shards.includes(shard);
  }

  /** The shard that owns `key`, or `undefined` when the ring is empty. */
  get(key: string): string | undefined {
    const tokens = this.#tokens;
    if (tokens.length === 0) return undefined;
    const h = hash32(key);
    let lo = 0;
    let hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((tokens[mid] ?? 0) < h) lo = mid + 1;
      else hi = mid;
    }
    return this.#owners[lo === tokens.length ? 0 : lo];
  }

  /**
   * The ring's points in order: a key whose hash is `h` belongs to the owner of the first
   * point whose token is ≥ `h`, wrapping to the first point. For server-side sharding
   * (`hashRanges`), which turns each point into a range of the 64-bit hash space.
   */
  points(): RingPoint[] {
    return Array.from(this.#tokens, (token, i) => ({ token, owner: this.#owners[i] as string }));
  }

  /** True when both rings hold the same shards with the same number of points. */
  equals(other: HashRing): boolean {
    return (
      this.virtualNodes === other.virtualNodes &&
      this.shards.length === other.shards.length &&
      this.shards.every((s, i) => s === other.shards[i])
    );
  }
}
