// Failover: from the leader's death to the standby's first reconcile, warm against cold.
//
// Two Managers with leader election over one in-memory API server holding N ConfigMaps. The
// leader dies (its signal aborts with releaseOnCancel: false, so its Lease must expire);
// the standby takes the Lease and reconciles.
// - warm: the standby's Controller is built at setup on the manager's informer, which the
//   caches group runs on every replica: when it leads, the cache is synced and the queue
//   full (controller-runtime's EnableWarmup; the kit's Manager works this way always);
// - cold: the standby builds its informer and Controller only once elected (a leader-only
//   runnable; controller-runtime's default without warmup): a full list first.
// Reported, median (min–max) of the runs: leader death → Lease taken (the same Lease
// timing for both), Lease taken → first reconcile, and death → first reconcile.
//
// Usage: BENCH_FAILOVER_N=50000 BENCH_RUNS=3 node --import tsx bench/failover.bench.ts
import { performance } from 'node:perf_hooks';
import { configMapsResource } from '../src/client/builtins.js';
import { Controller } from '../src/controller/index.js';
import { Manager } from '../src/manager/index.js';
import type { ManagerOptions } from '../src/manager/index.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { noopLogger } from '../src/util/logger.js';
import { fmt, machineLoad, printTable, summarize } from './lib/report.js';

const N = Number(process.env.BENCH_FAILOVER_N ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const server = await startTestApiServer();
for (let i = 0; i < N; i++) {
  server.create('configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default' },
    data: { i: String(i) },
  });
}

let leaseSeq = 0;
function options(lease: string, identity: string): ManagerOptions {
  return {
    kubeConfig: server.kubeConfig(),
    healthProbeBindAddress: '0',
    metricsBindAddress: '0',
    logger: noopLogger,
    leaderElection: {
      id: lease,
      namespace: 'default',
      identity,
      leaseDurationMs: 1000,
      renewDeadlineMs: 600,
      retryPeriodMs: 50,
      releaseOnCancel: false,
    },
  };
}

async function until(cond: () => boolean, timeoutMs = 600_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error('failover bench: timed out');
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** [death → elected, elected → first reconcile, death → first reconcile] in ms. */
async function failover(mode: 'warm' | 'cold'): Promise<[number, number, number]> {
  const lease = `failover-${leaseSeq++}`;
  const leader = new Manager(options(lease, 'leader'));
  const stopLeader = new AbortController();
  const leaderRun = leader.start(stopLeader.signal);
  await leader.elected();

  const standby = new Manager(options(lease, 'standby'));
  let firstReconcile = 0;
  const reconcile = (): void => {
    if (firstReconcile === 0) firstReconcile = performance.now();
  };
  if (mode === 'warm') {
    standby.add(
      new Controller({ name: `warm-${lease}`, logger: noopLogger, reconcile }).for(
        standby.informer(configMapsResource),
      ),
    );
  } else {
    standby.add({
      name: 'cold controller',
      start: async (signal: AbortSignal) => {
        // A distinct informer (same objects), created only now: a full list first.
        const informer = standby.informer(configMapsResource, { labelSelector: '!failover-cold' });
        await new Controller({ name: `cold-${lease}`, logger: noopLogger, reconcile })
          .for(informer)
          .run(signal);
      },
    });
  }
  const stopStandby = new AbortController();
  const standbyRun = standby.start(stopStandby.signal);
  if (mode === 'warm') {
    const informer = standby.cache.forResource(configMapsResource);
    await until(() => informer.hasSynced());
  }
  let electedAt = 0;
  void standby.elected().then(() => (electedAt = performance.now()));

  const died = performance.now();
  stopLeader.abort();
  await leaderRun.catch(() => {});
  await until(() => firstReconcile > 0);
  stopStandby.abort();
  await standbyRun.catch(() => {});
  return [electedAt - died, firstReconcile - electedAt, firstReconcile - died];
}

const samples = { warm: [[], [], []] as number[][], cold: [[], [], []] as number[][] };
for (let run = 0; run < RUNS; run++) {
  for (const mode of ['warm', 'cold'] as const) {
    const r = await failover(mode);
    for (let i = 0; i < 3; i++) samples[mode][i]!.push(r[i]!);
  }
}
await server.close();

const row = (mode: 'warm' | 'cold'): string[] => [
  mode === 'warm' ? 'warm standby (informers + queue ready)' : 'cold standby (list after election)',
  fmt(summarize(samples[mode][0]!), 0),
  fmt(summarize(samples[mode][1]!), 0),
  fmt(summarize(samples[mode][2]!), 0),
];
printTable(
  `Failover, ${N.toLocaleString('en')} ConfigMaps, Lease 1 s / retry 50 ms (median of ${RUNS} runs (min–max), wall ms) — ${machineLoad()}`,
  ['standby', 'death → Lease taken', 'Lease taken → first reconcile', 'death → first reconcile'],
  [row('warm'), row('cold')],
);
const warmTotal = summarize(samples.warm[1]!).median;
const coldTotal = summarize(samples.cold[1]!).median;
console.log(
  `cold / warm, Lease taken → first reconcile: ${(coldTotal / Math.max(warmTotal, 0.001)).toFixed(0)}×`,
);
