// Multicluster: what one more engaged cluster costs a MultiClusterController, in memory and
// CPU, at 1, 10 and 50 member clusters, against the lower bound of one plain informer per
// cluster, and beside one single-cluster Controller per cluster (what a program without the
// multicluster module would run).
//
// Processes:
// - one server process (through tsx): a hub and max(BENCH_CLUSTERS) in-memory API servers
//   (@kube-controller-kit/testing, HTTPS, client certificates), each member seeded with
//   BENCH_OBJECTS ConfigMaps (a label, 200 bytes of data). It writes every server's
//   kubeconfig to a file, then on `touch <n>` (stdin) updates every ConfigMap of the first
//   n members once.
// - one fresh child per measurement, bundled to plain JavaScript as a deployed controller
//   runs (lib/bundle.ts), over the first N members:
//   - floor: per cluster a Transport, a SharedInformerFactory and its ConfigMaps informer
//     with one handler counting the objects it saw: what watching N clusters costs at
//     least, with no queue, no controller, no per-cluster handle;
//   - controllers: the same, with a Controller (one worker) per cluster on that informer
//     instead of the handler, its reconcile counting the keys it was given;
//   - multicluster: a Manager on the hub (no probe or metrics server, no leader election),
//     a MultiClusterManager over a StaticClusterProvider of the N members, and one
//     MultiClusterController `for(configMapsResource)` (default options: one worker, the
//     fair queue) whose reconcile counts the requests it was given.
//   Measured in the child: heap after forced GC once every object of every cluster was
//   seen (floor) or reconciled, minus the heap before anything was built; the process's
//   CPU (user + system) from building to that point (engaging, the initial lists, their
//   reconciles); then, after the server changed every object once, the CPU until every
//   change was seen or reconciled, per change.
// Reported per cluster (heap, engaging CPU) and per change (CPU), median (min–max) of
// BENCH_RUNS, each as a ratio to the floor of the same N; and the marginal heap of one more
// cluster between the smallest and the largest N.
//
// Usage: node --expose-gc --import tsx bench/multicluster.bench.ts   (or: npm run bench -- multicluster)
// Environment: BENCH_CLUSTERS (1,10,50), BENCH_OBJECTS (300 per member), BENCH_RUNS (3),
// BENCH_TIMEOUT_S (300 per child).
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import {
  Controller,
  Manager,
  MultiClusterController,
  MultiClusterManager,
  SharedInformerFactory,
  StaticClusterProvider,
  Transport,
  configMapsResource,
  noopLogger,
} from '../src/index.js';
import type { UnstructuredObject } from '../src/index.js';
import type * as Testing from '@kube-controller-kit/testing';
import { bundleForNode } from './lib/bundle.js';
import { fmt, heapUsedAfterGc, machineLoad, printTable, summarize } from './lib/report.js';
import type { Summary } from './lib/report.js';

type TestingModule = typeof Testing;

const self = fileURLToPath(import.meta.url);
const list = (v: string | undefined, d: string): number[] =>
  (v ?? d)
    .split(',')
    .filter((s) => s !== '')
    .map(Number);
const CLUSTERS = list(process.env.BENCH_CLUSTERS, '1,10,50');
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 300);
const MAX_CLUSTERS = Math.max(...CLUSTERS);
type Variant = 'floor' | 'controllers' | 'multicluster';
const VARIANTS: Variant[] = ['floor', 'controllers', 'multicluster'];
const LABEL: Record<Variant, string> = {
  floor: 'lower bound: one informer per cluster',
  controllers: 'one Controller per cluster',
  multicluster: 'MultiClusterController',
};

/** The kubeconfigs the server process writes: the hub's and each member's, exported. */
interface Fleet {
  hub: string;
  members: string[];
}

// ── server process ────────────────────────────────────────────────────────────────────

async function serverMain(file: string): Promise<void> {
  // Not a literal import: the bundled child must not carry the test server.
  const testingModule = '@kube-controller-kit/testing';
  const { startTestApiServer } = (await import(testingModule)) as TestingModule;
  const hub = await startTestApiServer();
  const members = await Promise.all(
    Array.from({ length: MAX_CLUSTERS }, () => startTestApiServer()),
  );
  const objects = (generation: number): UnstructuredObject[] =>
    Array.from({ length: OBJECTS }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'default', labels: { app: 'bench' } },
      data: { generation: String(generation), value: 'x'.repeat(200) },
    }));
  for (const m of members) m.seed(configMapsResource, objects(0));
  const fleet: Fleet = {
    hub: hub.kubeConfig().exportConfig(),
    members: members.map((m) => m.kubeConfig().exportConfig()),
  };
  writeFileSync(file, JSON.stringify(fleet));
  process.stdout.write('ready\n');
  let generation = 0;
  for await (const line of createInterface({ input: process.stdin })) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'touch') {
      generation++;
      for (const m of members.slice(0, Number(arg))) {
        for (const o of objects(generation)) m.update(configMapsResource, o);
      }
      process.stdout.write('ok\n');
    } else if (cmd === 'exit') break;
  }
  await Promise.all([hub.close(), ...members.map((m) => m.close())]);
  process.exit(0);
}

// ── child process: N clusters watched ─────────────────────────────────────────────────

interface Result {
  heapBytes: number;
  engageCpuMs: number;
  changeCpuUs: number;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function childMain(variant: Variant, n: number, file: string): Promise<void> {
  const fleet = JSON.parse(readFileSync(file, 'utf8')) as Fleet;
  const load = (text: string): KubeConfig => {
    const kc = new KubeConfig();
    kc.loadFromString(text);
    return kc;
  };
  const members = fleet.members.slice(0, n).map(load);
  const total = n * OBJECTS;
  // Phase 0: the initial lists; phase 1: the changes. A key counts once per phase.
  let phase = 0;
  const seen = [new Set<string>(), new Set<string>()];
  let reached: (() => void) | undefined;
  const see = (key: string): void => {
    const set = seen[phase]!;
    set.add(key);
    if (set.size === total) reached?.();
  };
  const all = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (seen[phase]!.size === total) resolve();
      else reached = resolve;
    });
  const stop = new AbortController();
  const heap0 = heapUsedAfterGc();
  const cpu0 = cpuMs();
  let stopped: Promise<unknown>;
  if (variant === 'floor' || variant === 'controllers') {
    // Each factory's start (and each controller's run) listens on the one signal: no leak.
    setMaxListeners(0, stop.signal);
    const runs = members.map((kc, i) => {
      const factory = new SharedInformerFactory(new Transport(kc, { logger: noopLogger }), {
        logger: noopLogger,
      });
      const informer = factory.forResource(configMapsResource);
      let running: Promise<void> = Promise.resolve();
      if (variant === 'floor') {
        const key = (obj: { metadata?: { name?: string } }): string =>
          `${i}/${obj.metadata?.name ?? ''}`;
        informer.addEventHandler({
          onAdd: (obj) => see(key(obj)),
          onUpdate: (_, obj) => see(key(obj)),
        });
      } else {
        const controller = new Controller({
          name: `bench-${i}`,
          logger: noopLogger,
          reconcile: (key) => see(`${i}/${key}`),
        }).for(informer);
        running = controller.run(stop.signal);
      }
      factory.start(stop.signal);
      return { factory, running };
    });
    stopped = Promise.resolve().then(async () => {
      await new Promise((r) => stop.signal.addEventListener('abort', r, { once: true }));
      await Promise.all(runs.map((r) => r.running));
      await Promise.all(runs.map((r) => r.factory.shutdown()));
    });
  } else {
    const manager = new Manager({
      kubeConfig: load(fleet.hub),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    const provider = new StaticClusterProvider({
      clusters: Object.fromEntries(members.map((kc, i) => [`member-${i}`, kc])),
      logger: noopLogger,
    });
    const controller = new MultiClusterController({
      name: 'bench',
      logger: noopLogger,
      reconcile: ({ cluster, name }) => see(`${cluster}/${name}`),
    }).for(configMapsResource);
    const mc = new MultiClusterManager(manager, provider, { logger: noopLogger });
    mc.add(controller);
    stopped = mc.start(stop.signal);
  }
  await all();
  const engageCpuMs = cpuMs() - cpu0;
  const heapBytes = heapUsedAfterGc() - heap0;
  phase = 1;
  const cpu1 = cpuMs();
  process.stdout.write('synced\n');
  await all();
  const changeCpuUs = ((cpuMs() - cpu1) * 1000) / total;
  const result: Result = { heapBytes, engageCpuMs, changeCpuUs };
  process.stdout.write(JSON.stringify(result) + '\n');
  stop.abort();
  await stopped;
  process.exit(0);
}

// ── parent ─────────────────────────────────────────────────────────────────────────────

interface Lines {
  next(): Promise<string>;
}

function lines(proc: ChildProcess, what: string): Lines {
  const it = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  return {
    async next() {
      const r = await it.next();
      if (r.done === true) throw new Error(`${what} ended early (exit ${proc.exitCode})`);
      return String(r.value);
    },
  };
}

async function measure(
  childScript: string,
  server: { proc: ChildProcess; out: Lines },
  variant: Variant,
  n: number,
  file: string,
): Promise<Result> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', childScript, 'child', variant, String(n), file],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_S * 1000);
  try {
    const out = lines(child, `child ${variant} ${n}`);
    if ((await out.next()) !== 'synced') throw new Error('child: expected "synced"');
    server.proc.stdin!.write(`touch ${n}\n`);
    if ((await server.out.next()) !== 'ok') throw new Error('server: expected "ok"');
    return JSON.parse(await out.next()) as Result;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
}

async function parent(): Promise<void> {
  const loadStart = machineLoad();
  const childScript = await bundleForNode(self, 'multicluster_child');
  const dir = mkdtempSync(join(tmpdir(), 'kck-mc-bench-'));
  const file = join(dir, 'fleet.json');
  const proc = spawn(process.execPath, ['--import', 'tsx', self, 'server', file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const server = { proc, out: lines(proc, 'server') };
  const results = new Map<string, Result[]>();
  try {
    if ((await server.out.next()) !== 'ready') throw new Error('server: expected "ready"');
    for (let r = 0; r < RUNS; r++) {
      for (const n of CLUSTERS) {
        for (const v of VARIANTS) {
          const res = await measure(childScript, server, v, n, file);
          const k = `${v} ${n}`;
          results.set(k, [...(results.get(k) ?? []), res]);
        }
      }
    }
  } finally {
    proc.stdin?.write('exit\n');
    await new Promise((r) => (proc.exitCode === null ? proc.once('exit', r) : r(undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
  const get = (v: Variant, n: number): Result[] => results.get(`${v} ${n}`) ?? [];
  const sum = (v: Variant, n: number, f: (r: Result) => number): Summary =>
    summarize(get(v, n).map(f));
  const ratio = (v: Variant, n: number, f: (r: Result) => number): string =>
    (sum(v, n, f).median / sum('floor', n, f).median).toFixed(2) + 'x';
  const heapKb = (n: number) => (r: Result) => r.heapBytes / 1024 / n;
  const cpuPer = (n: number) => (r: Result) => r.engageCpuMs / n;
  const rows: string[][] = [];
  for (const n of CLUSTERS) {
    for (const v of VARIANTS) {
      rows.push([
        String(n),
        LABEL[v],
        fmt(sum(v, n, heapKb(n)), 0, ' KB'),
        ratio(v, n, heapKb(n)),
        fmt(sum(v, n, cpuPer(n)), 1, ' ms'),
        ratio(v, n, cpuPer(n)),
        fmt(
          sum(v, n, (r) => r.changeCpuUs),
          1,
          ' µs',
        ),
        ratio(v, n, (r) => r.changeCpuUs),
      ]);
    }
  }
  console.log(
    `\n${OBJECTS} ConfigMaps per member, ${RUNS} runs, a fresh bundled child each; ` +
      `${loadStart} at start`,
  );
  printTable(
    'Per engaged cluster — median (min–max); ratios to the lower bound of the same N',
    [
      'clusters',
      'what',
      'heap / cluster',
      '× lower bound',
      'CPU to engage / cluster',
      '× lower bound',
      'CPU / change',
      '× lower bound',
    ],
    rows,
  );
  const lo = Math.min(...CLUSTERS);
  const hi = Math.max(...CLUSTERS);
  if (hi > lo) {
    const marginal = (v: Variant): number =>
      (summarize(get(v, hi).map((r) => r.heapBytes)).median -
        summarize(get(v, lo).map((r) => r.heapBytes)).median) /
      (hi - lo) /
      1024;
    printTable(
      `One more cluster: heap between ${lo} and ${hi} clusters (medians), per cluster`,
      ['what', 'heap / cluster, marginal', '× lower bound'],
      VARIANTS.map((v) => [
        LABEL[v],
        `${marginal(v).toFixed(0)} KB`,
        (marginal(v) / marginal('floor')).toFixed(2) + 'x',
      ]),
    );
  }
}

const [mode, a1, a2, a3] = process.argv.slice(2);
if (mode === 'server') await serverMain(a1!);
else if (mode === 'child') await childMain(a1 as Variant, Number(a2), a3!);
else await parent();
