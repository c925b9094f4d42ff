// Seeded, randomized sharding: each seed plays a schedule of replicas joining, leaving
// cleanly, being partitioned from the server, bursts of new objects, failed label writes
// (409/500 on patches), and dropped watches, against one in-memory server. After every
// step the ring must settle (every object on a working shard, reconciled by it), and over
// the whole run no object may be reconciled by two shards at overlapping times.
//
// Both modes run every schedule: `labels` (a sharder labels objects, failed label writes
// matter) and `server` (KEP-5866: RangeShards watch their hash ranges with a shardSelector;
// no label writes, so the patch faults find nothing to fail).
//
// SHARDING_CHAOS_RUNS (default 3) schedules from seed SHARDING_CHAOS_SEED (default 20261203).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { mulberry32 } from '../support/random.js';
import { Ring, timing } from '../sharding/harness.js';

const runs = Number(process.env.SHARDING_CHAOS_RUNS ?? 3);
const baseSeed = Number(process.env.SHARDING_CHAOS_SEED ?? 20_261_203);
const STEPS = 6;

type Step = 'join' | 'leave' | 'partition' | 'burst' | 'patch-faults' | 'drop-watches';

async function play(seed: number, mode: 'labels' | 'server'): Promise<string[]> {
  const random = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const server = await startTestApiServer(
    mode === 'server' ? { featureGates: { ShardedListAndWatch: true } } : {},
  );
  const ring = new Ring(server, { mode });
  const played: string[] = [];
  let next = 0;
  try {
    ring.startSharder();
    ring.add(`s${next++}`);
    await ring.createObjects('seed', 40);
    await ring.settled();
    for (let i = 0; i < STEPS; i++) {
      const working = [...ring.replicas.keys()];
      const options: Step[] = ['join', 'burst', 'patch-faults', 'drop-watches'];
      if (working.length > 1) options.push('leave', 'partition');
      const step = pick(options);
      played.push(step);
      switch (step) {
        case 'join':
          ring.add(`s${next++}`);
          break;
        case 'leave':
          await ring.remove(pick(working));
          break;
        case 'partition': {
          assert.equal(await ring.partition(pick(working)), 'lease-lost');
          break;
        }
        case 'patch-faults':
          server.faults.failNext(1 + Math.floor(random() * 5), {
            verb: 'patch',
            resource: 'configmaps',
            code: pick([409, 500]),
          });
          break;
        case 'drop-watches':
          server.faults.closeWatches({ resource: 'configmaps' });
          break;
        case 'burst':
          break;
      }
      await ring.createObjects(`step${i}`, 5 + Math.floor(random() * 15));
      await ring.settled(timing.leaseDurationMs + 15_000);
    }
    ring.assertNoOverlap();
    return played;
  } finally {
    await ring.close();
    await server.close();
  }
}

for (const mode of ['labels', 'server'] as const) {
  describe(`chaos: seeded sharding schedules (${mode} mode)`, { timeout: 600_000 }, () => {
    for (let seed = baseSeed; seed < baseSeed + runs; seed++) {
      test(`seed ${seed}: every step settles on working shards and no object is reconciled by two shards at once`, async (t) => {
        const played = await play(seed, mode);
        t.diagnostic(`${mode} seed ${seed}: ${played.join(', ')}`);
      });
    }
  });
}
