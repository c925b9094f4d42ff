/**
 * The chaos runner: plays many seeded fault schedules (see test/chaos/harness.ts) and
 * prints a summary.
 *
 * Usage (`npm run chaos -- <flags>`, or `npx tsx scripts/chaos.ts <flags>`):
 *
 *   --runs N     schedules to play (default 1000; 1 when --seed is given alone)
 *   --seed S     replay seed S; with --runs > 1, the first seed of the run (S, S+1, …)
 *   --steps N    top-level steps per schedule (default 60)
 *   --time-scale X  speed-up of the informers' clock (default 10; 1 = real time)
 *   --webhooks   play the webhook schedules instead (test/chaos/webhook_harness.ts: the
 *                admission webhooks down, slow, flapping and rotating certificates under
 *                both failure policies; default seed 20261215, 24 steps)
 *   --verbose    print every step of every schedule as it is played
 *
 * Exits 1 when any schedule fails, printing each failing seed and how to replay it.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { describeStep, replayCommand, runSchedule } from '../test/chaos/harness.js';
import type { ChaosResult } from '../test/chaos/harness.js';
import {
  describeWebhookStep,
  runWebhookSchedule,
  webhookReplayCommand,
} from '../test/chaos/webhook_harness.js';
import type { WebhookChaosResult } from '../test/chaos/webhook_harness.js';

const defaultBaseSeed = 20_261_202;
const defaultWebhookBaseSeed = 20_261_215;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i] ?? 0;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) =>
      r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      steps: { type: 'string' },
      'time-scale': { type: 'string' },
      webhooks: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const seedGiven = values.seed !== undefined;
  const runs = Number(values.runs ?? (seedGiven ? 1 : 1000));
  const base = Number(values.seed ?? (values.webhooks ? defaultWebhookBaseSeed : defaultBaseSeed));
  const steps = values.steps !== undefined ? Number(values.steps) : undefined;
  const timeScale = values['time-scale'] !== undefined ? Number(values['time-scale']) : undefined;
  if (timeScale !== undefined && !(timeScale > 0))
    throw new Error(`--time-scale must be a number > 0, got ${values['time-scale']}`);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  if (!Number.isInteger(base) || base < 0)
    throw new Error(`--seed must be an integer ≥ 0, got ${values.seed}`);
  if (steps !== undefined && (!Number.isInteger(steps) || steps < 1))
    throw new Error(`--steps must be a positive integer, got ${values.steps}`);

  if (values.webhooks) {
    if (timeScale !== undefined) throw new Error('--time-scale does not apply to --webhooks');
    return webhookMain(runs, base, steps, values.verbose);
  }
  console.log(
    `chaos: ${runs} schedule(s) from seed ${base}${steps !== undefined ? `, ${steps} steps each` : ''}`,
  );
  const results: ChaosResult[] = [];
  const started = performance.now();
  let lastProgress = started;
  for (let i = 0; i < runs; i++) {
    const seed = (base + i) >>> 0;
    if (values.verbose) console.log(`── seed ${seed}`);
    const r = await runSchedule(seed, {
      ...(steps !== undefined ? { steps } : {}),
      ...(timeScale !== undefined ? { timeScale } : {}),
      ...(values.verbose
        ? { onStep: (s, n) => console.log(`  ${String(n).padStart(3)} ${describeStep(s)}`) }
        : {}),
    });
    results.push(r);
    if (!r.ok || values.verbose) {
      console.log(
        `seed ${seed}: ${r.ok ? 'ok' : 'FAILED'} in ${Math.round(r.durationMs)} ms (quiet after ${Math.round(r.quietMs)} ms)`,
      );
      for (const f of r.failures) console.log(`  ${f}`);
    }
    const now = performance.now();
    if (now - lastProgress > 5000 || i === runs - 1) {
      lastProgress = now;
      const failed = results.filter((x) => !x.ok).length;
      console.log(
        `  … ${i + 1}/${runs} run, ${failed} failed, ${((now - started) / 1000).toFixed(1)} s`,
      );
    }
  }

  const durations = results.map((r) => r.durationMs).sort((a, b) => a - b);
  const quiet = results.map((r) => r.quietMs).sort((a, b) => a - b);
  const failed = results.filter((r) => !r.ok);
  const ms = (v: number): string => `${Math.round(v)} ms`;
  console.log('\nsummary');
  console.log(
    table([
      ['runs', String(results.length)],
      ['failures', String(failed.length)],
      ['run time median', ms(percentile(durations, 0.5))],
      ['run time p95', ms(percentile(durations, 0.95))],
      ['run time max', ms(durations[durations.length - 1] ?? 0)],
      ['time to quiet median', ms(percentile(quiet, 0.5))],
      ['time to quiet p95', ms(percentile(quiet, 0.95))],
      ['wall time', `${((performance.now() - started) / 1000).toFixed(1)} s`],
    ]),
  );
  const counts = new Map<string, number>();
  for (const r of results)
    for (const [k, v] of Object.entries(r.counts)) counts.set(k, (counts.get(k) ?? 0) + v);
  const observed = { watchErrors: 0, handlerErrors: 0, tombstones: 0, reconciles: 0 };
  for (const r of results) {
    observed.watchErrors += r.observed.watchErrors;
    observed.handlerErrors += r.observed.handlerErrors;
    observed.tombstones += r.observed.tombstones;
    observed.reconciles += r.observed.reconciles;
  }
  console.log('\nsteps by kind (all runs)');
  console.log(
    table([...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, String(v)])),
  );
  console.log('\nobserved (all runs)');
  console.log(
    table([
      ['list/watch errors reported by reflectors', String(observed.watchErrors)],
      ['handler errors reported to onHandlerError', String(observed.handlerErrors)],
      ['tombstones delivered to recording handlers', String(observed.tombstones)],
      ['reconciles', String(observed.reconciles)],
    ]),
  );
  if (failed.length > 0) {
    console.log(`\n${failed.length} schedule(s) failed; replay with:`);
    for (const r of failed) console.log(`  ${replayCommand(r.seed)}   # ${r.failures[0] ?? ''}`);
    return 1;
  }
  return 0;
}

/** The webhook schedules: runs them and prints a summary of what the writes came to. */
async function webhookMain(
  runs: number,
  base: number,
  steps: number | undefined,
  verbose: boolean,
): Promise<number> {
  console.log(
    `webhook chaos: ${runs} schedule(s) from seed ${base}${steps !== undefined ? `, ${steps} steps each` : ''}`,
  );
  const results: WebhookChaosResult[] = [];
  const started = performance.now();
  let lastProgress = started;
  for (let i = 0; i < runs; i++) {
    const seed = (base + i) >>> 0;
    if (verbose) console.log(`── seed ${seed}`);
    const r = await runWebhookSchedule(seed, {
      ...(steps !== undefined ? { steps } : {}),
      ...(verbose
        ? { onStep: (s, n) => console.log(`  ${String(n).padStart(3)} ${describeWebhookStep(s)}`) }
        : {}),
    });
    results.push(r);
    if (!r.ok || verbose) {
      console.log(`seed ${seed}: ${r.ok ? 'ok' : 'FAILED'} in ${Math.round(r.durationMs)} ms`);
      for (const f of r.failures) console.log(`  ${f}`);
    }
    const now = performance.now();
    if (now - lastProgress > 5000 || i === runs - 1) {
      lastProgress = now;
      const failed = results.filter((x) => !x.ok).length;
      console.log(
        `  … ${i + 1}/${runs} run, ${failed} failed, ${((now - started) / 1000).toFixed(1)} s`,
      );
    }
  }
  const durations = results.map((r) => r.durationMs).sort((a, b) => a - b);
  const failed = results.filter((r) => !r.ok);
  const ms = (v: number): string => `${Math.round(v)} ms`;
  const totals = {
    admitted: 0,
    denied: 0,
    failedClosed: 0,
    failedOpen: 0,
    webhookCalls: 0,
    certReadRaces: 0,
  };
  const counts = new Map<string, number>();
  for (const r of results) {
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r.observed[k];
    for (const [k, v] of Object.entries(r.counts)) counts.set(k, (counts.get(k) ?? 0) + v);
  }
  console.log('\nsummary');
  console.log(
    table([
      ['runs', String(results.length)],
      ['failures', String(failed.length)],
      ['run time median', ms(percentile(durations, 0.5))],
      ['run time p95', ms(percentile(durations, 0.95))],
      ['run time max', ms(durations[durations.length - 1] ?? 0)],
      ['wall time', `${((performance.now() - started) / 1000).toFixed(1)} s`],
    ]),
  );
  console.log('\nsteps by kind (all runs)');
  console.log(
    table([...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, String(v)])),
  );
  console.log('\nwrites (all runs)');
  console.log(
    table([
      ['admitted', String(totals.admitted)],
      ['  of which failed open (Ignore, no mutation)', String(totals.failedOpen)],
      ['denied by a webhook', String(totals.denied)],
      ['refused: a call failed under Fail', String(totals.failedClosed)],
      ['webhook calls answered', String(totals.webhookCalls)],
      ['cert reads across a volume swap (logged, healed)', String(totals.certReadRaces)],
    ]),
  );
  if (failed.length > 0) {
    console.log(`\n${failed.length} schedule(s) failed; replay with:`);
    for (const r of failed)
      console.log(`  ${webhookReplayCommand(r.seed)}   # ${r.failures[0] ?? ''}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 2;
  },
);
