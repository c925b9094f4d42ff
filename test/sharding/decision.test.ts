// The sharder's decision as a pure function (decideShard), tested as a table over what it
// looks at: the current shard label, the drain label, the shard the ring wants, whether the
// current shard is live, and whether the object is of a controlled resource. The rules are
// kubernetes-controller-sharding's: objects of a dead shard (or none) move at once; objects
// of a live shard are drained first, except controlled objects, which move with their
// controller and are never drained.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideShard } from '../../src/sharding/index.js';
import type { ShardDecision, ShardDecisionInput } from '../../src/sharding/index.js';

type Row = [
  name: string,
  current: string | undefined,
  draining: boolean,
  desired: string | undefined,
  currentAlive: boolean,
  controlled: boolean,
  expected: ShardDecision,
];

const rows: Row[] = [
  // unassigned objects
  ['new object gets its shard', undefined, false, 'b', false, false, { action: 'assign', to: 'b' }],
  ['new child gets its shard', undefined, false, 'b', false, true, { action: 'assign', to: 'b' }],
  [
    'released after a drain: assigned, drain label cleared',
    undefined,
    true,
    'b',
    false,
    false,
    { action: 'assign', to: 'b' },
  ],
  [
    'no live shard, nothing to clear',
    undefined,
    false,
    undefined,
    false,
    false,
    { action: 'none' },
  ],
  [
    'no live shard, a stray drain label is cleared',
    undefined,
    true,
    undefined,
    false,
    false,
    { action: 'unassign' },
  ],
  // the current shard is dead
  [
    'dead shard: moved at once',
    'a',
    false,
    'b',
    false,
    false,
    { action: 'move', from: 'a', to: 'b' },
  ],
  [
    'dead shard while draining: moved at once',
    'a',
    true,
    'b',
    false,
    false,
    { action: 'move', from: 'a', to: 'b' },
  ],
  [
    'dead shard, child: moved at once',
    'a',
    false,
    'b',
    false,
    true,
    { action: 'move', from: 'a', to: 'b' },
  ],
  [
    'dead shard and no live one: unassigned',
    'a',
    false,
    undefined,
    false,
    false,
    { action: 'unassign' },
  ],
  // the current shard is live and wanted
  ['in place', 'a', false, 'a', true, false, { action: 'none' }],
  ['in place, child', 'a', false, 'a', true, true, { action: 'none' }],
  [
    'ring changed back before the release: drain cancelled',
    'a',
    true,
    'a',
    true,
    false,
    { action: 'cancelDrain' },
  ],
  [
    'child with a stray drain label in place: drain cancelled',
    'a',
    true,
    'a',
    true,
    true,
    { action: 'cancelDrain' },
  ],
  // the current shard is live but the ring wants another
  [
    'live shard: drained first',
    'a',
    false,
    'b',
    true,
    false,
    { action: 'drain', from: 'a', to: 'b' },
  ],
  [
    'live shard, drain requested: wait for the release',
    'a',
    true,
    'b',
    true,
    false,
    { action: 'wait', from: 'a' },
  ],
  [
    'live shard, child: moved at once, never drained',
    'a',
    false,
    'b',
    true,
    true,
    { action: 'move', from: 'a', to: 'b' },
  ],
  [
    'live shard, child left draining by an older sharder: moved at once',
    'a',
    true,
    'b',
    true,
    true,
    { action: 'move', from: 'a', to: 'b' },
  ],
];

describe('decideShard', () => {
  for (const [name, current, draining, desired, currentAlive, controlled, expected] of rows) {
    test(name, () => {
      const input: ShardDecisionInput = { current, draining, desired, currentAlive, controlled };
      assert.deepEqual(decideShard(input), expected);
    });
  }
});
