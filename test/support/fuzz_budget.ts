// The budget of a fuzz property (test/fuzz/): on every CI run a fixed-time, seeded run
// whose seed is printed; by hand, a longer run of a fixed number of inputs.
//
//   FUZZ_SEED     the seed (default: a new random one each process, printed with every
//                 property so that a CI failure replays: FUZZ_SEED=<seed>)
//   FUZZ_TIME_MS  how long each property runs in the CI mode, in ms (default: the
//                 property's own budget, 2 000 ms unless it says otherwise)
//   FUZZ_RUNS     run exactly this many inputs per property, with no time limit (the long
//                 run by hand): FUZZ_RUNS=200000 node scripts/run-tests.mjs
//                 --test-timeout=0 test/fuzz/<file>
//
// A failure throws fast-check's report: the seed, the path of the shrunk counterexample
// and the counterexample itself. Such an input becomes a pinned example (`examples`), run
// first on every later run.
import type { TestContext } from 'node:test';
import fc from 'fast-check';

function envInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be an integer ≥ 0, got ${JSON.stringify(raw)}`);
  return value;
}

/** The seed of this process's fuzz properties (FUZZ_SEED or random). */
export const fuzzSeed: number = envInteger('FUZZ_SEED') ?? (Math.random() * 0x7fff_ffff) | 0;
const fixedRuns = envInteger('FUZZ_RUNS');
const timeOverride = envInteger('FUZZ_TIME_MS');

/** How one property is budgeted when FUZZ_RUNS is not set. */
export interface FuzzBudget<Ts> {
  /** Time the property runs for, in ms (FUZZ_TIME_MS overrides). Default 2 000. */
  timeMs?: number;
  /** At most this many inputs even when time is left (for properties of costly inputs). */
  maxRuns?: number;
  /** Inputs found by earlier runs: always run first. */
  examples?: Ts[];
}

/**
 * Runs `property` within its budget, prints the seed and the number of inputs tried, and
 * throws fast-check's report (seed, path, counterexample) when it fails.
 */
export async function fuzz<Ts>(
  t: TestContext,
  property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>,
  budget: FuzzBudget<Ts> = {},
): Promise<void> {
  const parameters: fc.Parameters<Ts> = { seed: fuzzSeed };
  if (budget.examples !== undefined) parameters.examples = budget.examples;
  if (fixedRuns !== undefined) {
    parameters.numRuns = fixedRuns;
  } else {
    parameters.numRuns = budget.maxRuns ?? 1_000_000;
    parameters.interruptAfterTimeLimit = timeOverride ?? budget.timeMs ?? 2000;
    parameters.markInterruptAsFailure = false;
  }
  const startedAt = Date.now();
  const details = await fc.check(property, parameters);
  t.diagnostic(
    `fuzz: ${details.numRuns} inputs in ${Date.now() - startedAt} ms, seed ${details.seed} ` +
      `(replay: FUZZ_SEED=${details.seed}; longer: FUZZ_RUNS=<n>)`,
  );
  if (details.failed) throw new Error(fc.defaultReportMessage(details));
}
