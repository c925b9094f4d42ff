// The seeded webhook chaos suite (issue #34): the operator's admission webhooks, served by
// the kit's WebhookServer and called by the in-memory API server, go down, turn slow past
// their timeout, flap and rotate their certificates (a new leaf, a new CA learnt later),
// under both failure policies, while a writer creates, replaces and deletes the objects
// they guard and an informer watches. Nothing refused may be stored, nothing admitted
// lost, every admitted write must reach the informer, and nothing may escape. See
// test/chaos/webhook_harness.ts for the schedule and the checks.
//
// CHAOS_RUNS schedules (default 12 here; each slow window costs real webhook timeouts)
// from seed CHAOS_SEED (default 20261215), as the fault-schedule suite reads them; a
// failure names each failing seed and its replay command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runWebhookSchedule, webhookReplayCommand } from './webhook_harness.js';
import type { WebhookChaosResult, WebhookChaosStep } from './webhook_harness.js';

const runs = Number(process.env.CHAOS_RUNS ?? 12);
const baseSeed = Number(process.env.CHAOS_SEED ?? 20_261_215);
const batchSize = 6;

function report(failed: readonly WebhookChaosResult[]): string {
  return failed
    .map(
      (r) =>
        `seed ${r.seed} failed (replay: ${webhookReplayCommand(r.seed)}):\n    ${r.failures.slice(0, 8).join('\n    ')}`,
    )
    .join('\n');
}

describe('chaos: webhooks down, slow, flapping and rotating, under Fail and Ignore', () => {
  assert.ok(Number.isInteger(runs) && runs >= 0, `CHAOS_RUNS must be an integer ≥ 0, got ${runs}`);
  assert.ok(Number.isInteger(baseSeed) && baseSeed >= 0, `CHAOS_SEED must be an integer ≥ 0`);

  for (let from = 0; from < runs; from += batchSize) {
    const first = baseSeed + from;
    const last = baseSeed + Math.min(runs, from + batchSize) - 1;
    test(`seeds ${first}..${last}: nothing refused is stored, nothing admitted is lost, every admitted write reaches the informer, the policies hold, nothing escapes`, async (t) => {
      if (from === 0)
        t.diagnostic(`webhook chaos base seed ${baseSeed} (CHAOS_SEED), ${runs} runs (CHAOS_RUNS)`);
      const failed: WebhookChaosResult[] = [];
      const totals = {
        admitted: 0,
        denied: 0,
        failedClosed: 0,
        failedOpen: 0,
        webhookCalls: 0,
        certReadRaces: 0,
      };
      let slowest = 0;
      for (let seed = first; seed <= last; seed++) {
        const r = await runWebhookSchedule(seed);
        slowest = Math.max(slowest, r.durationMs);
        for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r.observed[k];
        if (!r.ok) failed.push(r);
      }
      t.diagnostic(`slowest schedule ${Math.round(slowest)} ms; writes: ${JSON.stringify(totals)}`);
      assert.equal(failed.length, 0, `\n${report(failed)}`);
    });
  }
});

// A hand-written schedule whose outcome does not depend on timing: the webhooks are down
// while an `ignore` object is denied-by-content (admitted, failing open) and a `fail`
// object is written (refused, failing closed).
const known: WebhookChaosStep[] = [
  { kind: 'put', name: 'fail-0', policy: 'fail', verdict: 'allow' },
  { kind: 'put', name: 'ignore-0', policy: 'ignore', verdict: 'allow' },
  { kind: 'put', name: 'fail-0', policy: 'fail', verdict: 'deny' },
  { kind: 'down' },
  { kind: 'put', name: 'fail-1', policy: 'fail', verdict: 'allow' },
  { kind: 'put', name: 'ignore-1', policy: 'ignore', verdict: 'deny' },
  { kind: 'up' },
  { kind: 'rotateCA' },
  { kind: 'put', name: 'fail-2', policy: 'fail', verdict: 'allow' },
  { kind: 'updateBundle' },
  { kind: 'put', name: 'fail-2', policy: 'fail', verdict: 'allow' },
  { kind: 'settle' },
];

describe('chaos: the webhook checker is not vacuous', () => {
  test('control: the known schedule passes, with writes admitted, denied, refused closed and admitted open', async () => {
    const r = await runWebhookSchedule(1, { schedule: known });
    assert.deepEqual(r.failures, []);
    assert.equal(r.observed.denied, 1, 'fail-0 with verdict deny');
    assert.equal(r.observed.failedClosed, 2, 'fail-1 while down, fail-2 before the bundle');
    assert.equal(r.observed.failedOpen, 1, 'ignore-1 while down');
    assert.equal(r.observed.admitted, 4);
  });

  test('an Ignore webhook installed as Fail is caught: a failed call refused the write', async () => {
    const r = await runWebhookSchedule(1, { schedule: known, sabotage: 'ignore-as-fail' });
    assert.equal(r.ok, false);
    assert.ok(
      r.failures.some((f) => /failurePolicy Ignore refused a write because a call failed/.test(f)),
      r.failures.join('\n'),
    );
  });
});
