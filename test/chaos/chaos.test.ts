// The seeded chaos suite (issue #9): random fault schedules against the in-memory API
// server while a writer changes objects; after the faults stop, every cache, handler view
// and reconcile must match the server. See test/chaos/harness.ts for what is injected and
// checked, and `npm run chaos -- --runs 1000` for longer runs.
//
// CHAOS_RUNS (default 300) schedules from seed CHAOS_SEED (default 20261202): seeds
// CHAOS_SEED, CHAOS_SEED+1, … A failure names each failing seed and its replay command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { replayCommand, runSchedule } from './harness.js';
import type { ChaosResult, ChaosSabotage, ChaosStep } from './harness.js';

const runs = Number(process.env.CHAOS_RUNS ?? 300);
const baseSeed = Number(process.env.CHAOS_SEED ?? 20_261_202);
const batchSize = 25;

function report(failed: readonly ChaosResult[]): string {
  return failed
    .map(
      (r) =>
        `seed ${r.seed} failed (replay: ${replayCommand(r.seed)}):\n    ${r.failures.slice(0, 8).join('\n    ')}`,
    )
    .join('\n');
}

describe('chaos: seeded fault schedules converge', () => {
  assert.ok(Number.isInteger(runs) && runs >= 0, `CHAOS_RUNS must be an integer ≥ 0, got ${runs}`);
  assert.ok(Number.isInteger(baseSeed) && baseSeed >= 0, `CHAOS_SEED must be an integer ≥ 0`);

  for (let from = 0; from < runs; from += batchSize) {
    const first = baseSeed + from;
    const last = baseSeed + Math.min(runs, from + batchSize) - 1;
    test(`seeds ${first}..${last}: caches, handler views and reconciles equal the server after the faults stop; every delete delivered; no error escapes`, async (t) => {
      if (from === 0)
        t.diagnostic(`chaos base seed ${baseSeed} (CHAOS_SEED), ${runs} runs (CHAOS_RUNS)`);
      const failed: ChaosResult[] = [];
      let slowest = 0;
      for (let seed = first; seed <= last; seed++) {
        const r = await runSchedule(seed);
        slowest = Math.max(slowest, r.durationMs);
        if (!r.ok) failed.push(r);
      }
      t.diagnostic(`slowest schedule ${Math.round(slowest)} ms`);
      assert.equal(failed.length, 0, `\n${report(failed)}`);
    });
  }
});

// A hand-written schedule whose outcome does not depend on timing: objects are created and
// seen by everyone (settle), then changed and deleted. The sabotaged consumers must fail
// the checks on it; the honest ones must pass.
const knownSchedule: ChaosStep[] = [
  { kind: 'create', resource: 'configmaps', namespace: 'default', name: 'cm-0', selected: true },
  { kind: 'create', resource: 'pods', namespace: 'default', name: 'pod-0', selected: true },
  { kind: 'settle' },
  { kind: 'update', resource: 'configmaps', namespace: 'default', name: 'cm-0' }, // stale-cache snapshot here
  { kind: 'destroyWatches', resource: undefined },
  { kind: 'delete', resource: 'configmaps', namespace: 'default', name: 'cm-0' },
  { kind: 'delete', resource: 'pods', namespace: 'default', name: 'pod-0' },
  { kind: 'compact' },
  { kind: 'create', resource: 'configmaps', namespace: 'default', name: 'cm-1', selected: true },
];

async function sabotaged(sabotage: ChaosSabotage | undefined): Promise<ChaosResult> {
  return runSchedule(1, {
    schedule: knownSchedule,
    quietTimeoutMs: 500,
    ...(sabotage ? { sabotage } : {}),
  });
}

function assertCaught(r: ChaosResult, pattern: RegExp): void {
  assert.equal(r.ok, false, 'the sabotaged run passed the checks: the checker is vacuous');
  assert.ok(
    r.failures.some((f) => pattern.test(f)),
    `expected a failure matching ${pattern}, got:\n${r.failures.join('\n')}`,
  );
}

describe('chaos: the checker catches broken consumers', () => {
  test('control: the known schedule converges with honest consumers (deletes arrive as tombstones after the compaction)', async () => {
    const r = await sabotaged(undefined);
    assert.deepEqual(r.failures, []);
    assert.ok(
      r.observed.tombstones >= 2,
      `expected tombstones for cm-0 and pod-0, saw ${r.observed.tombstones}`,
    );
  });

  test('a handler that drops deletes is caught: its view keeps objects the server deleted', async () => {
    const r = await sabotaged('drop-deletes');
    assertCaught(
      r,
      /handler configmaps record: holds default\/cm-0 .*which the server does not have/,
    );
    assertCaught(r, /handler pods record: holds default\/pod-0 .*which the server does not have/);
  });

  test('a cache that missed events is caught by the cache comparison', async () => {
    const r = await sabotaged('stale-cache');
    assertCaught(r, /configmaps cache: holds default\/cm-0 .*which the server does not have/);
    assertCaught(r, /configmaps cache: missing default\/cm-1/);
  });

  test("a reconcile that never records an object's absence is caught by the controller check", async () => {
    const r = await sabotaged('ignore-absent');
    assertCaught(
      r,
      /controller: last reconcile of deleted default\/cm-0 saw rv \d+, not its absence/,
    );
  });
});
