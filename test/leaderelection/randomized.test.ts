// Randomized failovers on a fake clock: 3–5 candidates share one in-memory Lease store;
// leaders are killed without release, cancelled with release, partitioned (requests fail
// or hang) and hit by concurrent writes (409s). Every leadership interval is recorded and
// no two may overlap. Reproduce a failure with LE_SEED=<seed>.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { LeaderElectedRunner, LeaseLock } from '../../src/leaderelection/index.js';
import { FakeLeaseStore } from './fake_lease_store.js';
import { mulberry32 } from '../support/random.js';
import type { FakeLeaseClient } from './fake_lease_store.js';

interface Interval {
  who: string;
  start: number;
  end: number | undefined;
}

interface Instance {
  id: string;
  client: FakeLeaseClient;
  runner: LeaderElectedRunner;
  controller: AbortController;
  done: Promise<unknown>;
  healAt: number | undefined;
}

const timings = [
  { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
  { leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 200 },
  // tight: the renew deadline leaves little room before the lease expires
  { leaseDurationMs: 2_000, renewDeadlineMs: 1_900, retryPeriodMs: 1_500 },
];

async function scenario(
  seed: number,
  steps: number,
): Promise<{ intervals: Interval[]; failovers: number }> {
  const random = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const store = new FakeLeaseStore(clock);
  const timing = pick(timings);
  const maxLatency = timing.retryPeriodMs / 4;
  const intervals: Interval[] = [];
  const instances: Instance[] = [];
  let generation = 0;

  const spawn = (): void => {
    const id = `c${generation++}`;
    const client = store.client(id);
    client.random = random;
    client.latency = () => (random() < 0.5 ? 0 : Math.floor(random() * maxLatency));
    const runner = new LeaderElectedRunner({
      lock: new LeaseLock(client, { namespace: 'ns', name: 'lease', identity: id }),
      ...timing,
      clock,
      logger: noopLogger,
      random,
      releaseOnCancel: random() < 0.5,
      onLost: 'rejoin',
      run: async (signal) => {
        const interval: Interval = { who: id, start: clock.now(), end: undefined };
        intervals.push(interval);
        await new Promise<void>((resolve) =>
          signal.addEventListener(
            'abort',
            () => {
              interval.end = clock.now();
              resolve();
            },
            { once: true },
          ),
        );
      },
    });
    const controller = new AbortController();
    const instance: Instance = {
      id,
      client,
      runner,
      controller,
      done: runner.run(controller.signal),
      healAt: undefined,
    };
    instances.push(instance);
  };

  const n = 3 + Math.floor(random() * 3);
  for (let i = 0; i < n; i++) spawn();

  for (let step = 0; step < steps; step++) {
    await clock.advance(Math.floor(random() * timing.leaseDurationMs * 2));
    for (const inst of instances) {
      if (inst.healAt !== undefined && clock.now() >= inst.healAt) {
        inst.client.partition = 'none';
        inst.client.conflictRate = 0;
        inst.healAt = undefined;
      }
    }
    const leader = instances.find((i) => i.runner.elector.isLeader());
    const target = leader !== undefined && random() < 0.8 ? leader : pick(instances);
    const action = random();
    if (action < 0.3) {
      // kill (or cancel, releasing when configured) and replace with a new process
      target.controller.abort();
      instances.splice(instances.indexOf(target), 1);
      await settle(clock, target.done, seed);
      spawn();
    } else if (action < 0.8) {
      target.client.partition = random() < 0.5 ? 'fail' : 'hang';
      target.healAt = clock.now() + Math.floor(random() * timing.leaseDurationMs * 3);
    } else {
      for (const inst of instances) inst.client.conflictRate = random() * 0.5;
      target.healAt = clock.now() + Math.floor(random() * timing.leaseDurationMs * 2);
    }
  }

  for (const inst of instances) {
    inst.client.partition = 'none';
    inst.controller.abort();
  }
  await settle(clock, Promise.all(instances.map((i) => i.done)), seed);
  assert.equal(clock.pendingTimers(), 0, `seed ${seed}: timers left running`);
  let failovers = 0;
  const sorted = [...intervals].sort((x, y) => x.start - y.start);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.who !== sorted[i - 1]!.who) failovers++;
  return { intervals: sorted, failovers };
}

/** Advances the fake clock in small steps until `promise` settles (a release may wait on a timeout). */
async function settle(clock: FakeClock, promise: Promise<unknown>, seed: number): Promise<void> {
  let done = false;
  const watched = promise.then(
    () => (done = true),
    (err: unknown) => {
      done = true;
      throw err;
    },
  );
  for (let i = 0; i < 10_000 && !done; i++) await clock.advance(50);
  assert.ok(done, `seed ${seed}: run() did not settle`);
  await watched;
}

function overlap(intervals: Interval[]): string | undefined {
  let last: Interval | undefined;
  for (const cur of intervals) {
    if (cur.end === undefined) return `${cur.who}'s interval starting at ${cur.start} never ended`;
    if (last !== undefined && cur.start < last.end!) {
      return `${last.who} led [${last.start}, ${last.end}) and ${cur.who} started at ${cur.start}`;
    }
    if (last === undefined || cur.end > last.end!) last = cur;
  }
  return undefined;
}

describe('leader election under randomized failovers', () => {
  test('no two leadership intervals overlap across at least 200 failovers (kill, release, partitions, 409s)', async () => {
    const fixed = process.env.LE_SEED;
    const first = fixed !== undefined ? Number(fixed) : 1;
    let total = 0;
    let seeds = 0;
    for (let seed = first; total < 200 || seeds < 8; seed++) {
      const { intervals, failovers } = await scenario(seed, 60);
      const problem = overlap(intervals);
      assert.equal(problem, undefined, `seed ${seed} (rerun with LE_SEED=${seed}): ${problem}`);
      total += failovers;
      seeds++;
      if (fixed !== undefined) break;
    }
    console.log(`randomized leader election: ${total} failovers over ${seeds} seeds, no overlap`);
    if (fixed === undefined) assert.ok(total >= 200);
  });
});
