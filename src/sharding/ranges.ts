/**
 * Sets of hash ranges for server-side sharding (KEP-5866): the ranges of the 64-bit
 * FNV-1a space a shard owns on the {@link HashRing}, set operations on them, and the
 * `shardSelector` that asks the API server for exactly those objects.
 *
 * Rules:
 *
 * - **Same ring, wider hash.** A ring point with 32-bit token `t` owns the keys whose hash
 *   is in `(previous token, t]`; the 64-bit hash `h` of an object's field maps onto the
 *   ring by its top 32 bits, so that point owns `[(previous + 1)·2^32, (t + 1)·2^32)`, and
 *   the first point also owns the top of the space up to 2^64. Every 64-bit hash has
 *   exactly one owner, the shard that the ring gives its top 32 bits to.
 * - A range set is sorted, disjoint and coalesced: equal sets have equal text.
 *
 * @module
 */
import type { ShardField, ShardRange } from '../apimachinery/shard_selector.js';
import {
  formatShardBound,
  formatShardSelector,
  hashSpaceSize,
} from '../apimachinery/shard_selector.js';
import type { HashRing } from './ring.js';

/** A half-open range `[start, end)` of the 64-bit hash space. */
export interface HashRange {
  /** Inclusive lower bound. */
  readonly start: bigint;
  /** Exclusive upper bound (at most 2^64). */
  readonly end: bigint;
}

/** A sorted, disjoint, coalesced list of ranges. */
export type HashRangeSet = readonly HashRange[];

/** Sorts, drops empty ranges and merges touching ones. */
export function normalizeRanges(ranges: Iterable<HashRange>): HashRangeSet {
  const sorted = [...ranges]
    .filter((r) => r.start < r.end)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: HashRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && r.start <= last.end) {
      if (r.end > last.end) out[out.length - 1] = { start: last.start, end: r.end };
    } else out.push(r);
  }
  return out;
}

/** The ranges of the 64-bit space that `shard` owns on `ring` (empty when not on it). */
export function hashRanges(ring: HashRing, shard: string): HashRangeSet {
  const points = ring.points();
  if (points.length === 0) return [];
  const out: HashRange[] = [];
  const scale = 1n << 32n;
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as { token: number; owner: string };
    if (p.owner !== shard) continue;
    const end = (BigInt(p.token) + 1n) * scale;
    const start = i === 0 ? 0n : (BigInt((points[i - 1] as { token: number }).token) + 1n) * scale;
    out.push({ start, end });
    if (i === 0) {
      const last = points[points.length - 1] as { token: number };
      out.push({ start: (BigInt(last.token) + 1n) * scale, end: hashSpaceSize });
    }
  }
  return normalizeRanges(out);
}

/** `a ∪ b`. */
export function unionRanges(a: HashRangeSet, b: HashRangeSet): HashRangeSet {
  return normalizeRanges([...a, ...b]);
}

/** `a ∩ b`. */
export function intersectRanges(a: HashRangeSet, b: HashRangeSet): HashRangeSet {
  const out: HashRange[] = [];
  for (const x of a)
    for (const y of b) {
      const start = x.start > y.start ? x.start : y.start;
      const end = x.end < y.end ? x.end : y.end;
      if (start < end) out.push({ start, end });
    }
  return normalizeRanges(out);
}

/** `a − b`. */
export function subtractRanges(a: HashRangeSet, b: HashRangeSet): HashRangeSet {
  let rest: HashRange[] = [...a];
  for (const y of b) {
    const next: HashRange[] = [];
    for (const x of rest) {
      if (y.end <= x.start || y.start >= x.end) {
        next.push(x);
        continue;
      }
      if (x.start < y.start) next.push({ start: x.start, end: y.start });
      if (y.end < x.end) next.push({ start: y.end, end: x.end });
    }
    rest = next;
  }
  return normalizeRanges(rest);
}

/** True when both sets cover the same hashes. */
export function rangesEqual(a: HashRangeSet, b: HashRangeSet): boolean {
  const x = normalizeRanges(a);
  const y = normalizeRanges(b);
  return x.length === y.length && x.every((r, i) => r.start === y[i]?.start && r.end === y[i]?.end);
}

/** The fraction of the hash space a set covers, in [0, 1]. */
export function rangesShare(ranges: HashRangeSet): number {
  let total = 0n;
  for (const r of ranges) total += r.end - r.start;
  return Number((total * 1_000_000n) / hashSpaceSize) / 1_000_000;
}

/**
 * The `shardSelector` for a set of ranges on `field` (`undefined` for the empty set: a
 * shard that owns nothing must not list at all, as an empty selector means everything).
 */
export function rangesSelector(
  ranges: HashRangeSet,
  field: ShardField = 'object.metadata.uid',
): string | undefined {
  if (ranges.length === 0) return undefined;
  const terms: ShardRange[] = ranges.map((r) => ({ field, start: r.start, end: r.end }));
  return formatShardSelector(terms);
}

/** Compact text of a set, `0x…-0x…,…` (for a Lease annotation and logs). */
export function formatRanges(ranges: HashRangeSet): string {
  return ranges.map((r) => `${formatShardBound(r.start)}-${formatShardBound(r.end)}`).join(',');
}

/** Reads {@link formatRanges}' text; anything malformed reads as the empty set. */
export function parseRanges(text: string | undefined): HashRangeSet {
  if (text === undefined || text === '') return [];
  const out: HashRange[] = [];
  for (const part of text.split(',')) {
    const m = /^(0x[0-9a-f]{1,17})-(0x[0-9a-f]{1,17})$/i.exec(part.trim());
    if (m === null) return [];
    out.push({ start: BigInt(m[1] as string), end: BigInt(m[2] as string) });
  }
  return normalizeRanges(out);
}
