// Server-side sharding's ranges: the ring's points become ranges of the 64-bit FNV-1a space
// that partition it exactly (every hash has one owner, the one the ring gives its top 32
// bits to), set operations, and the selector text the server reads.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fnv1a64,
  hashSpaceSize,
  parseShardSelector,
  shardSelectorMatcher,
} from '../../src/apimachinery/shard_selector.js';
import {
  formatRanges,
  hashRanges,
  intersectRanges,
  parseRanges,
  rangesEqual,
  rangesSelector,
  rangesShare,
  subtractRanges,
  unionRanges,
} from '../../src/sharding/ranges.js';
import { HashRing } from '../../src/sharding/ring.js';

const total = (rs: readonly { start: bigint; end: bigint }[]): bigint =>
  rs.reduce((t, r) => t + (r.end - r.start), 0n);

describe('hash ranges of a ring', () => {
  test('one shard owns the whole space as one range [0, 2^64)', () => {
    assert.deepEqual(hashRanges(new HashRing(['a'], 16), 'a'), [{ start: 0n, end: hashSpaceSize }]);
  });

  test('the shards of a ring partition the space: disjoint, and together all of it', () => {
    const ring = new HashRing(['a', 'b', 'c', 'd'], 16);
    const sets = ring.shards.map((s) => hashRanges(ring, s));
    assert.equal(total(sets.flat()), hashSpaceSize);
    for (let i = 0; i < sets.length; i++)
      for (let j = i + 1; j < sets.length; j++)
        assert.equal(intersectRanges(sets[i]!, sets[j]!).length, 0);
  });

  test("an object's hash lies in the ranges of the shard the ring gives its top 32 bits to", () => {
    const ring = new HashRing(['a', 'b', 'c'], 16);
    const points = ring.points();
    const ownerOfTop = (h: bigint): string => {
      const top = Number(h >> 32n);
      const p = points.find((x) => x.token >= top) ?? points[0]!;
      return p.owner;
    };
    for (let i = 0; i < 200; i++) {
      const uid = `uid-${i}`;
      const h = fnv1a64(uid);
      const owner = ownerOfTop(h);
      for (const s of ring.shards) {
        const sel = rangesSelector(hashRanges(ring, s));
        assert.equal(
          shardSelectorMatcher(sel!)({ metadata: { uid } }),
          s === owner,
          `${uid} on ${s}`,
        );
      }
    }
  });

  test('adding a shard moves ranges only to the new shard', () => {
    const before = new HashRing(['a', 'b'], 16);
    const after = new HashRing(['a', 'b', 'c'], 16);
    for (const s of ['a', 'b']) {
      const lost = subtractRanges(hashRanges(before, s), hashRanges(after, s));
      assert.ok(rangesEqual(intersectRanges(lost, hashRanges(after, 'c')), lost));
      assert.equal(subtractRanges(hashRanges(after, s), hashRanges(before, s)).length, 0);
    }
  });

  test('set operations, share, text round trip and selector', () => {
    const a = [{ start: 0n, end: 10n }];
    const b = [{ start: 5n, end: 20n }];
    assert.deepEqual(unionRanges(a, b), [{ start: 0n, end: 20n }]);
    assert.deepEqual(intersectRanges(a, b), [{ start: 5n, end: 10n }]);
    assert.deepEqual(subtractRanges(b, a), [{ start: 10n, end: 20n }]);
    const ring = new HashRing(['a', 'b'], 16);
    const r = hashRanges(ring, 'a');
    assert.ok(rangesEqual(parseRanges(formatRanges(r)), r));
    assert.ok(rangesShare(r) > 0.2 && rangesShare(r) < 0.8);
    assert.equal(parseShardSelector(rangesSelector(r)!).length, r.length);
    assert.equal(rangesSelector([]), undefined, 'owning nothing is no selector, not an empty one');
  });
});
