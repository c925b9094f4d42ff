// The consistent-hash ring and the ring's label names: pure rules, no server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HashRing,
  HashRingError,
  ShardingNameError,
  hash32,
  objectHashKey,
  ringLabels,
} from '../../src/sharding/index.js';

const keys = Array.from({ length: 10_000 }, (_, i) =>
  objectHashKey('example.com', 'Widget', `ns-${i % 37}`, `w-${i}`),
);

function owners(ring: HashRing): Map<string, string | undefined> {
  return new Map(keys.map((k) => [k, ring.get(k)]));
}

describe('HashRing', () => {
  test('an empty ring owns nothing', () => {
    assert.equal(new HashRing([]).get('a'), undefined);
  });

  test('the owner depends only on the set of shards, not on their order or on the instance', () => {
    const a = new HashRing(['s1', 's2', 's3']);
    const b = new HashRing(['s3', 's1', 's2', 's1']);
    for (const k of keys.slice(0, 2000)) assert.equal(a.get(k), b.get(k));
    assert.deepEqual(b.shards, ['s1', 's2', 's3']);
    assert.ok(a.equals(b));
    assert.ok(!a.equals(new HashRing(['s1', 's2'])));
  });

  test('every key goes to a shard on the ring, and each shard gets close to its share', () => {
    const ring = new HashRing(['a', 'b', 'c', 'd']);
    const counts = new Map<string, number>();
    for (const k of keys) {
      const o = ring.get(k);
      assert.ok(o !== undefined && ring.has(o));
      counts.set(o, (counts.get(o) ?? 0) + 1);
    }
    for (const n of counts.values()) {
      // 100 virtual nodes: each of 4 shards within ±30 % of 2500.
      assert.ok(n > 1750 && n < 3250, `share ${n} of ${keys.length}`);
    }
  });

  for (const n of [1, 2, 3, 4, 7]) {
    test(`scaling out from ${n} to ${n + 1} shards moves about 1/${n + 1} of the keys, all to the new shard`, () => {
      const names = Array.from({ length: n }, (_, i) => `shard-${i}`);
      const before = owners(new HashRing(names));
      const after = owners(new HashRing([...names, 'shard-new']));
      let moved = 0;
      for (const [k, o] of before) {
        const now = after.get(k);
        if (now !== o) {
          moved++;
          assert.equal(now, 'shard-new', `key ${k} moved from ${String(o)} to ${String(now)}`);
        }
      }
      const share = moved / keys.length;
      const ideal = 1 / (n + 1);
      assert.ok(
        Math.abs(share - ideal) < ideal * 0.35,
        `moved ${share.toFixed(3)}, ideal ${ideal.toFixed(3)}`,
      );
    });
  }

  test('removing a shard moves only the keys it owned', () => {
    const before = owners(new HashRing(['a', 'b', 'c', 'd']));
    const after = owners(new HashRing(['a', 'b', 'd']));
    for (const [k, o] of before) {
      if (o !== 'c') assert.equal(after.get(k), o);
      else assert.notEqual(after.get(k), 'c');
    }
  });

  test('bad options are typed errors that say what to give', () => {
    assert.throws(() => new HashRing(['a'], 0), HashRingError);
    assert.throws(() => new HashRing(['a'], 1.5), /positive integer/);
    assert.throws(() => new HashRing(['a', '']), /shard name is empty/);
  });

  test('hash32 spreads names that differ in one character', () => {
    const a = hash32('shard-1#0');
    const b = hash32('shard-2#0');
    let diff = a ^ b;
    let bits = 0;
    while (diff !== 0) {
      bits += diff & 1;
      diff >>>= 1;
    }
    assert.ok(bits >= 8, `only ${bits} bits differ`);
    assert.equal(hash32('x'), hash32('x'));
  });
});

describe('ringLabels', () => {
  test('derive the shard, drain and Lease label keys from the ring and the domain', () => {
    assert.deepEqual(ringLabels('widgets', 'example.com'), {
      ring: 'widgets',
      shard: 'shard.example.com/widgets',
      drain: 'drain.example.com/widgets',
      leaseRing: 'sharding.example.com/ring',
      leaseShard: 'sharding.example.com/shard',
    });
    assert.equal(ringLabels('w').shard, 'shard.kube-controller-kit.dev/w');
  });

  test('a ring name or domain that cannot form a label key is refused with a typed error', () => {
    assert.throws(() => ringLabels('bad ring'), ShardingNameError);
    assert.throws(() => ringLabels('x'.repeat(64)), /1-63 characters/);
    assert.throws(() => ringLabels('ok', 'Not_A_Domain'), /DNS subdomain/);
  });
});
