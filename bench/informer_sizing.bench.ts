// How many pods one informer can cache: sync time, peak RSS and heap per object at up to
// 200k realistic pods, and the largest count that a 512 MiB, 1 GiB and 2 GiB container can
// cache, found by bisection over counts.
//
// Processes:
// - one server process: a plain node:http server answering the informer's streaming list
//   (a watch with sendInitialEvents=true) with N bench pods (bench/lib/pods.ts: 4.2 KB of
//   JSON each, managedFields included, 20 namespaces) as ADDED events in ~64 KB writes,
//   then the initial-events-end bookmark, then holding the watch open. The pods are
//   serialized once and kept, so the server is not what a sync waits for. The parent sets N
//   before each child (stdin `n <count>`).
// - one fresh child per measurement: a default SharedIndexInformer over /api/v1/pods (one
//   counting handler, the namespace index), with or without `transform: stripManagedFields`
//   (or `compactForControllers()`, variant compact).
//   It reports the wall time from run() until the handler saw N adds, the heap per object
//   (heapUsed after forced GC once synced minus before starting, / N), the process's peak
//   RSS (getrusage's maxRSS, so nothing between samples is missed) and its RSS before
//   starting. A child that runs out of heap dies; that count did not fit.
//
// Container sizing: for a container of C MiB the child runs with
// --max-old-space-size = HEAP_SHARE × C (0.75 by default: Node's documentation suggests 1536
// on a 2 GiB machine, leaving a quarter for the young generation, code, buffers and sockets).
// A count fits when the child syncs within that heap AND its peak RSS stays within C MiB.
// The largest fitting count is found by bisection (start from an estimate, widen until one
// count fits and one does not, halve until the gap is below BENCH_PRECISION of the count).
//
// Usage: node --expose-gc --import tsx bench/informer_sizing.bench.ts
// Environment: BENCH_COUNTS (50000,100000,200000: the default-heap table), BENCH_RUNS (2),
// BENCH_CONTAINERS (512,1024,2048 MiB; empty to skip), BENCH_HEAP_SHARE (0.75),
// BENCH_PRECISION (0.02), BENCH_VARIANTS (full,strip; also compact: compactForControllers()), BENCH_TIMEOUT_S (300 per child).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from './lib/bundle.js';
import { kubeConfigFor } from './lib/kubeconfig.js';
import { makeBenchPod } from './lib/pods.js';
import { fmt, heapUsedAfterGc, machineLoad, printTable, summarize } from './lib/report.js';

const self = fileURLToPath(import.meta.url);
const list = (v: string | undefined, d: string): string[] =>
  (v ?? d).split(',').filter((s) => s !== '');
const COUNTS = list(process.env.BENCH_COUNTS, '50000,100000,200000').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const CONTAINERS = list(process.env.BENCH_CONTAINERS, '512,1024,2048').map(Number);
const HEAP_SHARE = Number(process.env.BENCH_HEAP_SHARE ?? 0.75);
const PRECISION = Number(process.env.BENCH_PRECISION ?? 0.02);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 300);
type Variant = 'full' | 'strip' | 'compact';
const VARIANTS = list(process.env.BENCH_VARIANTS, 'full,strip') as Variant[];
const LABEL: Record<Variant, string> = {
  full: 'SharedIndexInformer (default: streaming list)',
  strip: 'SharedIndexInformer + stripManagedFields',
  compact: 'SharedIndexInformer + compactForControllers()',
};

// ── server process ────────────────────────────────────────────────────────────────────

async function serverMain(): Promise<void> {
  const items: string[] = [];
  let n = 0;
  const ensure = (k: number): void => {
    for (let i = items.length; i < k; i++) items.push(JSON.stringify(makeBenchPod(i)));
  };
  const server = createServer((req, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v1/pods') {
      res.writeHead(404).end();
      return;
    }
    const rv = String(1000 + n);
    const watch = url.searchParams.get('watch');
    const streaming = url.searchParams.get('sendInitialEvents') === 'true';
    res.writeHead(200, { 'content-type': 'application/json' });
    const count = n;
    const write = async (chunks: Iterable<string>): Promise<void> => {
      let batch = '';
      for (const c of chunks) {
        batch += c;
        if (batch.length >= 65536) {
          if (!res.write(batch)) await new Promise((r) => res.once('drain', r));
          batch = '';
        }
      }
      if (batch !== '') res.write(batch);
    };
    if (watch === '1' || watch === 'true') {
      if (!streaming) return; // held open; nothing changes
      void write(
        (function* () {
          for (let i = 0; i < count; i++) yield `{"type":"ADDED","object":${items[i]}}\n`;
          yield `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"${rv}","annotations":{"k8s.io/initial-events-end":"true"}}}}\n`;
        })(),
      );
      return;
    }
    // A plain list (only if the informer falls back from the streaming list): all at once.
    void write(
      (function* () {
        yield `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"},"items":[`;
        for (let i = 0; i < count; i++) yield (i === 0 ? '' : ',') + items[i];
        yield ']}';
      })(),
    ).then(() => res.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'n') {
      n = Number(arg);
      ensure(n);
      process.stdout.write('ok\n');
    } else if (cmd === 'exit') break;
  }
  server.closeAllConnections();
  server.close();
  process.exit(0);
}

// ── child process: one informer ─────────────────────────────────────────────────────────

interface Result {
  ok: boolean;
  n: number;
  syncMs: number;
  /** CPU time of the sync (µs, the whole process) / pods; absent when it failed. */
  syncCpuUsPerObject?: number;
  heapPerObject: number;
  heapMb: number;
  rss0Mb: number;
  peakRssMb: number;
  heapLimitMb: number;
  why?: string;
}

async function childMain(url: string, n: number, variant: Variant): Promise<void> {
  const v8 = await import('node:v8');
  const { SharedIndexInformer } = await import('../src/cache/shared_informer.js');
  const { stripManagedFields, compactForControllers } = await import('../src/cache/transforms.js');
  const { listWatchFromClient } = await import('../src/cache/listwatch.js');
  const { ResourceClient } = await import('../src/client/resource_client.js');
  const { podsResource } = await import('../src/client/builtins.js');
  const { noopLogger } = await import('../src/util/logger.js');
  const kc = await kubeConfigFor(url);
  const informer = new SharedIndexInformer(
    listWatchFromClient(new ResourceClient(kc, podsResource)),
    {
      name: 'pods',
      logger: noopLogger,
      ...(variant === 'strip' ? { transform: stripManagedFields } : {}),
      ...(variant === 'compact' ? { transform: compactForControllers() } : {}),
    },
  );
  let adds = 0;
  let done!: () => void;
  const synced = new Promise<void>((r) => (done = r));
  informer.addEventHandler({
    onAdd: () => {
      if (++adds === n) done();
    },
  });
  const heap0 = heapUsedAfterGc();
  const rss0 = process.memoryUsage().rss;
  const ac = new AbortController();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const running = informer.run(ac.signal);
  await synced;
  const syncMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const heap = heapUsedAfterGc() - heap0;
  const result: Result = {
    ok: true,
    n,
    syncMs,
    syncCpuUsPerObject: (cpu.user + cpu.system) / n,
    heapPerObject: heap / informer.getIndexer().size,
    heapMb: process.memoryUsage().heapUsed / 2 ** 20,
    rss0Mb: rss0 / 2 ** 20,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    heapLimitMb: v8.getHeapStatistics().heap_size_limit / 2 ** 20,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  ac.abort();
  await running;
  process.exit(0);
}

// ── parent ─────────────────────────────────────────────────────────────────────────────

function startServer(): Promise<{
  proc: ChildProcess;
  url: string;
  setN(n: number): Promise<void>;
}> {
  const proc = spawn(process.execPath, ['--import', 'tsx', self, 'server'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  return (async () => {
    const first = await lines.next();
    const { url } = JSON.parse(String(first.value)) as { url: string };
    return {
      proc,
      url,
      async setN(n: number): Promise<void> {
        proc.stdin.write(`n ${n}\n`);
        await lines.next();
      },
    };
  })();
}

let childScript = '';

function runChild(url: string, n: number, variant: Variant, heapMb?: number): Promise<Result> {
  const flags = [
    '--expose-gc',
    ...(heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`]),
  ];
  const p = spawn(process.execPath, [...flags, childScript, 'child', url, String(n), variant], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(0, 8000)));
  const timer = setTimeout(() => p.kill('SIGKILL'), TIMEOUT_S * 1000);
  return new Promise((resolve) => {
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      if (line.startsWith('{')) {
        resolve(JSON.parse(line) as Result);
        return;
      }
      const why = /heap limit|out of memory|allocation failed|invalid table size/i.test(err)
        ? 'out of heap'
        : signal === 'SIGKILL'
          ? `no sync within ${TIMEOUT_S} s`
          : `exit ${code ?? signal}: ${err.split('\n').slice(-3).join(' ')}`;
      resolve({
        ok: false,
        n,
        syncMs: 0,
        heapPerObject: 0,
        heapMb: 0,
        rss0Mb: 0,
        peakRssMb: 0,
        heapLimitMb: heapMb ?? 0,
        why,
      });
    });
  });
}

/** The result standing for "nothing fits". */
const r0 = (heapMb: number): Result => ({
  ok: false,
  n: 0,
  syncMs: 0,
  heapPerObject: 0,
  heapMb: 0,
  rss0Mb: 0,
  peakRssMb: 0,
  heapLimitMb: heapMb,
});

async function parent(): Promise<void> {
  const loadStart = machineLoad();
  childScript = await bundleForNode(self, 'informer_sizing_child');
  const server = await startServer();
  const run = async (n: number, v: Variant, heapMb?: number): Promise<Result> => {
    await server.setN(n);
    const r = await runChild(server.url, n, v, heapMb);
    process.stderr.write(
      `  ${v} n=${n} heap=${heapMb ?? 'default'}: ${r.ok ? `synced in ${r.syncMs.toFixed(0)} ms, peak RSS ${r.peakRssMb.toFixed(0)} MB, ${(r.heapPerObject / 1024).toFixed(2)} KB/object` : r.why}\n`,
    );
    return r;
  };
  const series: Record<Variant, Map<number, Result[]>> = {
    full: new Map(),
    strip: new Map(),
    compact: new Map(),
  };
  try {
    for (const n of COUNTS) {
      for (let i = 0; i < RUNS; i++) {
        for (const v of VARIANTS) {
          const r = await run(n, v);
          if (!r.ok) throw new Error(`${v} at ${n} on the default heap: ${r.why}`);
          series[v].set(n, [...(series[v].get(n) ?? []), r]);
        }
      }
    }
    const heapLimit = [
      ...series.full.values(),
      ...series.strip.values(),
      ...series.compact.values(),
    ][0]?.[0]?.heapLimitMb;
    console.log(
      `\nnode ${process.version}, ${cpus().length} cores, ${loadStart} at start, ${machineLoad()} at end of the first table; ` +
        `default heap limit ${heapLimit?.toFixed(0)} MB; ${RUNS} runs per cell, fresh child each`,
    );
    const rows: string[][] = [];
    for (const n of COUNTS) {
      for (const v of VARIANTS) {
        const rs = series[v].get(n);
        if (rs === undefined) continue;
        rows.push([
          String(n),
          LABEL[v],
          fmt(summarize(rs.map((r) => r.syncMs / 1000)), 1, ' s'),
          fmt(summarize(rs.map((r) => r.syncCpuUsPerObject ?? NaN)), 1, ' µs'),
          fmt(summarize(rs.map((r) => r.peakRssMb)), 0, ' MiB'),
          fmt(summarize(rs.map((r) => r.rss0Mb)), 0, ' MiB'),
          fmt(summarize(rs.map((r) => r.heapPerObject / 1024)), 2, ' KB'),
          fmt(summarize(rs.map((r) => (r.heapPerObject * n) / 2 ** 20)), 0, ' MiB'),
        ]);
      }
    }
    printTable(
      'One informer on the default heap — median (min–max)',
      [
        'pods',
        'informer',
        'initial sync (wall)',
        'sync CPU / pod',
        'peak RSS',
        'RSS before sync',
        'heap / object',
        'cache heap',
      ],
      rows,
    );
    if (CONTAINERS.length === 0) return;
    const sizing: string[][] = [];
    for (const v of VARIANTS) {
      const known = [...series[v].entries()].sort((a, b) => b[0] - a[0])[0];
      const perObject = known?.[1][0]?.heapPerObject ?? 7800;
      const base =
        known?.[1][0]?.heapMb !== undefined
          ? known[1][0].heapMb - (perObject * known[0]) / 2 ** 20
          : 40;
      for (const c of CONTAINERS) {
        const heapMb = Math.round(c * HEAP_SHARE);
        const fits = async (n: number): Promise<Result | undefined> => {
          const r = await run(n, v, heapMb);
          return r.ok && r.peakRssMb <= c ? r : undefined;
        };
        const round = (n: number): number => Math.max(500, Math.round(n / 500) * 500);
        // Start from what the default-heap table predicts: heap, and RSS fitted linearly.
        const pts = [...series[v].entries()].sort((a, b) => a[0] - b[0]);
        const med = (rs: Result[]): number => summarize(rs.map((r) => r.peakRssMb)).median;
        const byRss =
          pts.length >= 2
            ? (() => {
                const [n1, r1] = pts[0]!;
                const [n2, r2] = pts[pts.length - 1]!;
                const slope = (med(r2) - med(r1)) / (n2 - n1);
                return (c - (med(r1) - slope * n1)) / slope;
              })()
            : Infinity;
        let guess = round(Math.min(((heapMb - base) * 2 ** 20 * 0.9) / perObject, byRss));
        let lo: [number, Result] | undefined;
        let hi: number | undefined;
        while (lo === undefined || hi === undefined) {
          const r = await fits(guess);
          if (r !== undefined) {
            lo = [guess, r];
            guess = round(guess * 1.1);
          } else {
            hi = guess;
            if (guess <= 500) lo = [0, r0(heapMb)];
            guess = Math.min(guess - 500, round(guess / 1.1));
          }
          if (lo !== undefined && hi === undefined && guess <= lo[0]) guess = lo[0] + 500;
        }
        while (lo[0] > 0 && (hi - lo[0]) / lo[0] > PRECISION && hi - lo[0] > 500) {
          const mid = round((lo[0] + hi) / 2);
          if (mid === lo[0] || mid === hi) break;
          const r = await fits(mid);
          if (r !== undefined) lo = [mid, r];
          else hi = mid;
        }
        sizing.push([
          `${c} MiB`,
          `${heapMb}`,
          LABEL[v],
          String(lo[0]),
          String(hi),
          `${lo[1].peakRssMb.toFixed(0)} MiB`,
          `${(lo[1].syncMs / 1000).toFixed(1)} s`,
        ]);
      }
    }
    printTable(
      `Largest count that syncs in a container (heap = ${HEAP_SHARE} × container, peak RSS ≤ container; bisection to ${PRECISION * 100} %)`,
      [
        'container',
        '--max-old-space-size',
        'informer',
        'largest count that fits',
        'smallest that did not',
        'its peak RSS',
        'its sync',
      ],
      sizing,
    );
    console.log(`${machineLoad()} at the end`);
  } finally {
    server.proc.stdin!.write('exit\n');
  }
}

const [mode, a1, a2, a3] = process.argv.slice(2);
if (mode === 'server') await serverMain();
else if (mode === 'child') await childMain(a1!, Number(a2), a3 as Variant);
else await parent();
