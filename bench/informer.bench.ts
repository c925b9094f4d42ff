// The headline benchmark: a full informer against a local API server process, compared
// with the lower bound and with @kubernetes/client-node's makeInformer, in the same run.
//
// Processes:
// - one server process per size: the in-memory API server, seeded in-process with ~4 KB
//   pods (bench/lib/pods.ts, managedFields included); it applies bursts of MODIFIED events
//   on command (stdin);
// - one fresh child process per measurement (node --expose-gc --import tsx), running one
//   implementation: it syncs, reports sync time, heap per cached object (heap used after
//   a forced GC, minus the same before starting, over the object count) and peak RSS
//   increase during the sync; then, at 50k, CPU (process.cpuUsage) for two bursts of one
//   MODIFIED event per pod.
//
// Implementations:
// - lower bound: GET the list unpaged, JSON.parse, Map keyed namespace/name; a raw watch
//   request, split lines, JSON.parse, Map.set;
// - this informer (list+watch, paged 500 per page; the default), with the managedFields
//   transform, metadata-only, and with the streaming list (watchList);
// - client-node 1.4 makeInformer over listPodForAllNamespaces.
//
// Usage: node --expose-gc --import tsx bench/informer.bench.ts   (or: npm run bench -- informer)
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { heapUsedAfterGc, fmt, printTable, summarize } from './lib/report.js';
import type { Summary } from './lib/report.js';
import { kubeConfigFor } from './lib/kubeconfig.js';
import { makeBenchPod } from './lib/pods.js';
import { rawWatchLines } from './lib/raw_watch.js';

const self = fileURLToPath(import.meta.url);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

type Impl =
  'lower' | 'ours' | 'ours-list' | 'ours-strip' | 'ours-meta' | 'ours-meta-strip' | 'client-node';

/** `size:impl,impl,…:bursts` per table, `;`-separated (BENCH_PLAN overrides). */
const PLAN = (
  process.env.BENCH_PLAN ??
  '10000:lower,ours,ours-list,ours-strip,ours-meta,ours-meta-strip,client-node:0;' +
    '50000:lower,ours,ours-list,client-node:2'
)
  .split(';')
  .map((part) => {
    const [size, impls, bursts] = part.split(':');
    return {
      n: Number(size),
      impls: (impls ?? '').split(',') as Impl[],
      bursts: Number(bursts ?? 0),
    };
  });

interface SyncResult {
  syncMs: number;
  syncCpuMs: number;
  heapPerObjectBytes: number;
  peakRssMb: number;
}

// ── server process ────────────────────────────────────────────────────────────────────

async function serverMain(n: number): Promise<void> {
  const { startTestApiServer } = await import('../packages/testing/src/index.js');
  const server = await startTestApiServer({
    // Children watch from the list they just got: no long history is needed, and keeping
    // every burst's objects would exhaust the server's heap.
    historySize: 1000,
    namespaces: Array.from({ length: 20 }, (_, i) => `ns-${i}`),
  });
  // Seeded with the annotation a burst sets last, so every child lists the same bytes.
  for (let i = 0; i < n; i++) {
    const p = makeBenchPod(i);
    server.create('pods', {
      ...p,
      metadata: {
        ...p.metadata,
        resourceVersion: undefined,
        annotations: { ...p.metadata.annotations, 'bench/burst': 'b2' },
      },
    } as never);
  }
  process.stdout.write(JSON.stringify({ url: server.url }) + '\n');
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'burst') {
      for (const p of server.list('pods')) {
        const meta = p.metadata!;
        server.update('pods', {
          ...p,
          metadata: {
            ...meta,
            resourceVersion: undefined,
            annotations: { ...meta.annotations, 'bench/burst': arg ?? 'b1' },
          },
        } as never);
      }
      process.stdout.write('done\n');
    } else if (cmd === 'exit') {
      break;
    }
  }
  await server.close();
  process.exit(0);
}

// ── child process: one implementation ─────────────────────────────────────────────────

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

interface Harness {
  /** Resolves once `n` objects are cached. */
  sync(): Promise<void>;
  /** Resolves once `n` more updates were seen. */
  updates(n: number): Promise<void>;
  /** Keeps the cache alive until the end (heap is measured with it reachable). */
  size(): number;
  stop(): Promise<void>;
}

function counter(): { count: number; wait(target: number): Promise<void>; bump(): void } {
  let waiter: { target: number; resolve: () => void } | undefined;
  const c = {
    count: 0,
    wait(target: number): Promise<void> {
      if (c.count >= target) return Promise.resolve();
      return new Promise<void>((resolve) => (waiter = { target, resolve }));
    },
    bump(): void {
      c.count++;
      if (waiter !== undefined && c.count >= waiter.target) {
        const w = waiter;
        waiter = undefined;
        w.resolve();
      }
    },
  };
  return c;
}

const kubeConfig = kubeConfigFor;

function httpGetBody(url: string): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    request(url, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts)));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

async function lowerBoundHarness(url: string, n: number): Promise<Harness> {
  const map = new Map<string, unknown>();
  const updates = counter();
  let rv = '';
  let req: ReturnType<typeof request> | undefined;
  return {
    async sync() {
      const body = await httpGetBody(`${url}/api/v1/pods`);
      const list = JSON.parse(body.toString('utf8')) as {
        metadata: { resourceVersion: string };
        items: { metadata: { namespace: string; name: string } }[];
      };
      for (const o of list.items) map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      rv = list.metadata.resourceVersion;
      if (map.size !== n) throw new Error(`lower bound listed ${map.size} of ${n}`);
      // The watch, from the list's resourceVersion.
      await new Promise<void>((resolve, reject) => {
        req = request(`${url}/api/v1/pods?watch=1&resourceVersion=${rv}`, (res) => {
          res.on(
            'data',
            rawWatchLines(map, () => updates.bump()),
          );
          res.on('error', () => {});
          resolve();
        });
        req.on('error', reject);
        req.end();
      });
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => map.size,
    async stop() {
      req?.destroy();
    },
  };
}

async function oursHarness(url: string, n: number, impl: Impl): Promise<Harness> {
  const { SharedIndexInformer } = await import('../src/cache/shared_informer.js');
  const { stripManagedFields } = await import('../src/cache/transforms.js');
  const { listWatchFromClient } = await import('../src/cache/listwatch.js');
  const { ResourceClient } = await import('../src/client/resource_client.js');
  const { podsResource } = await import('../src/client/builtins.js');
  const { noopLogger } = await import('../src/util/logger.js');
  const kc = await kubeConfig(url);
  const base = new ResourceClient(kc, podsResource);
  const lw =
    impl === 'ours-meta' || impl === 'ours-meta-strip'
      ? listWatchFromClient(base.metadata())
      : listWatchFromClient(base);
  const informer = new SharedIndexInformer(lw, {
    name: 'pods',
    logger: noopLogger,
    ...(impl === 'ours-strip' || impl === 'ours-meta-strip'
      ? { transform: stripManagedFields }
      : {}),
    ...(impl === 'ours-list' ? { watchList: false } : {}),
  });
  const adds = counter();
  const updates = counter();
  informer.addEventHandler({
    onAdd: () => adds.bump(),
    onUpdate: () => updates.bump(),
  });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  return {
    async sync() {
      running = informer.run(ac.signal);
      await adds.wait(n);
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => informer.getIndexer().size,
    async stop() {
      ac.abort();
      await running;
    },
  };
}

async function clientNodeHarness(url: string, n: number): Promise<Harness> {
  const k8s = await import('@kubernetes/client-node');
  const kc = await kubeConfig(url);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
  const adds = counter();
  const updates = counter();
  informer.on('add', () => adds.bump());
  informer.on('update', () => updates.bump());
  let stopping = false;
  informer.on('error', (err: unknown) => {
    if (!stopping) process.stderr.write(`client-node informer error: ${String(err)}\n`);
  });
  return {
    async sync() {
      await informer.start();
      await adds.wait(n);
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => informer.list().length,
    async stop() {
      stopping = true;
      await informer.stop();
    },
  };
}

async function childMain(impl: Impl, url: string, n: number, bursts: number): Promise<void> {
  const make =
    impl === 'lower'
      ? lowerBoundHarness
      : impl === 'client-node'
        ? clientNodeHarness
        : (u: string, k: number) => oursHarness(u, k, impl);
  const h = await make(url, n);
  const heap0 = heapUsedAfterGc();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await h.sync();
  const syncMs = performance.now() - t0;
  const syncCpuMs = cpuMs(c0);
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  const heap = heapUsedAfterGc() - heap0;
  const result: SyncResult = {
    syncMs,
    syncCpuMs,
    heapPerObjectBytes: heap / h.size(),
    peakRssMb: (peak - rss0) / 2 ** 20,
  };
  process.stdout.write(JSON.stringify({ phase: 'synced', ...result }) + '\n');
  const rl = createInterface({ input: process.stdin });
  const lines = rl[Symbol.asyncIterator]();
  for (let b = 0; b < bursts; b++) {
    heapUsedAfterGc();
    const cpu0 = process.cpuUsage();
    const seen = h.updates(n);
    process.stdout.write(JSON.stringify({ phase: 'ready' }) + '\n');
    await seen;
    const ms = cpuMs(cpu0);
    process.stdout.write(JSON.stringify({ phase: 'burst', cpuMs: ms }) + '\n');
    await lines.next(); // the parent acknowledges before the next burst
  }
  rl.close();
  await h.stop();
  process.stdout.write(JSON.stringify({ phase: 'end', size: h.size() }) + '\n');
  process.exit(0);
}

// ── orchestrator ──────────────────────────────────────────────────────────────────────

/** Line reader over a child's stdout. */
function lineQueue(proc: ChildProcess): () => Promise<string> {
  const rl = createInterface({ input: proc.stdout! });
  const it = rl[Symbol.asyncIterator]();
  return async () => {
    const r = await it.next();
    if (r.done === true) throw new Error('process ended early');
    return r.value;
  };
}

interface ServerProc {
  url: string;
  burst(tag: string): Promise<void>;
  close(): Promise<void>;
}

async function startServerProc(n: number): Promise<ServerProc> {
  const proc = spawn(
    process.execPath,
    ['--max-old-space-size=8192', '--import', 'tsx', self, 'server', String(n)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const next = lineQueue(proc);
  const { url } = JSON.parse(await next()) as { url: string };
  return {
    url,
    async burst(tag) {
      proc.stdin.write(`burst ${tag}\n`);
      const l = await next();
      if (l !== 'done') throw new Error(`server said ${l}`);
    },
    async close() {
      proc.stdin.write('exit\n');
      await new Promise<void>((r) => proc.on('exit', () => r()));
    },
  };
}

interface RunResult extends SyncResult {
  burstCpuUsPerEvent: number[];
}

async function runChild(
  server: ServerProc,
  impl: Impl,
  n: number,
  bursts: number,
): Promise<RunResult> {
  const proc = spawn(
    process.execPath,
    [
      '--expose-gc',
      ...(process.env.BENCH_CHILD_FLAGS ?? '').split(' ').filter((f) => f !== ''),
      '--import',
      'tsx',
      self,
      'child',
      impl,
      server.url,
      String(n),
      String(bursts),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const next = lineQueue(proc);
  const synced = JSON.parse(await next()) as SyncResult;
  const burstCpuUsPerEvent: number[] = [];
  for (let b = 0; b < bursts; b++) {
    const ready = JSON.parse(await next()) as { phase: string };
    if (ready.phase !== 'ready') throw new Error(`expected ready, got ${ready.phase}`);
    const done = server.burst(b % 2 === 0 ? 'b1' : 'b2');
    const r = JSON.parse(await next()) as { cpuMs: number };
    await done;
    burstCpuUsPerEvent.push((r.cpuMs * 1000) / n);
    proc.stdin.write('next\n');
  }
  const end = JSON.parse(await next()) as { phase: string; size: number };
  if (end.size !== n) throw new Error(`${impl} ended with ${end.size} of ${n} objects`);
  const code = await exited;
  if (code !== 0) throw new Error(`${impl} child exited ${code}`);
  return { ...synced, burstCpuUsPerEvent };
}

/** A child that dies (e.g. a connection reset under heavy machine load) is run again, at most twice. */
async function runChildWithRetry(
  server: ServerProc,
  impl: Impl,
  n: number,
  bursts: number,
): Promise<RunResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runChild(server, impl, n, bursts);
    } catch (err) {
      if (attempt >= 3) throw err;
      console.error(`${impl} at ${n}: run failed (${String(err)}); running it again`);
    }
  }
}

const labels: Record<Impl, string> = {
  lower: 'lower bound (unpaged GET + JSON.parse + Map; raw watch)',
  ours: 'SharedIndexInformer (default: streaming list + watch)',
  'ours-list': 'SharedIndexInformer, watchList: false (list + watch)',
  'ours-strip': 'SharedIndexInformer + stripManagedFields',
  'ours-meta': 'SharedIndexInformer, metadata-only',
  'ours-meta-strip': 'SharedIndexInformer, metadata-only + stripManagedFields',
  'client-node': '@kubernetes/client-node 1.4 makeInformer',
};

function ratio(s: Summary, base: Summary): string {
  return (s.median / base.median).toFixed(2) + '×';
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === 'server') return serverMain(Number(process.argv[3]));
  if (mode === 'child') {
    return childMain(
      process.argv[3] as Impl,
      process.argv[4]!,
      Number(process.argv[5]),
      Number(process.argv[6]),
    );
  }
  const pod = JSON.stringify(makeBenchPod(1));
  console.log(
    `\n## Informer benchmark\n\nnode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )}; pod JSON ${(pod.length / 1024).toFixed(1)} KB; ${RUNS} runs per cell, each in a fresh process`,
  );
  for (const { n, impls: IMPLS, bursts } of PLAN) {
    const server = await startServerProc(n);
    const results = new Map<Impl, RunResult[]>(IMPLS.map((i) => [i, []]));
    try {
      for (let r = 0; r < RUNS; r++) {
        for (const impl of IMPLS) {
          results.get(impl)!.push(await runChildWithRetry(server, impl, n, bursts));
        }
      }
    } finally {
      await server.close();
    }
    const pick = (impl: Impl, f: (r: RunResult) => number): Summary =>
      summarize(results.get(impl)!.map(f));
    const has = (impl: Impl): boolean => results.has(impl);
    // Ratios are to the lower bound; a plan without it (e.g. 'ours,ours-strip', where the
    // unpaged 50k GET is not wanted) gives them to its first implementation.
    const base: Impl = has('lower') ? 'lower' : IMPLS[0]!;
    const lb = {
      sync: pick(base, (r) => r.syncMs),
      syncCpu: pick(base, (r) => r.syncCpuMs),
      heap: pick(base, (r) => r.heapPerObjectBytes),
      rss: pick(base, (r) => r.peakRssMb),
      cpu: bursts > 0 ? pick(base, (r) => median(r.burstCpuUsPerEvent)) : undefined,
    };
    const rows: string[][] = [];
    for (const impl of IMPLS) {
      if (!has(impl)) continue;
      const sync = pick(impl, (r) => r.syncMs);
      const syncCpu = pick(impl, (r) => r.syncCpuMs);
      const heap = pick(impl, (r) => r.heapPerObjectBytes / 1024);
      const rss = pick(impl, (r) => r.peakRssMb);
      const row = [
        labels[impl],
        `${fmt(sync, 0)} ms`,
        ratio(sync, lb.sync),
        `${fmt(syncCpu, 0)} ms`,
        ratio(syncCpu, lb.syncCpu),
        `${fmt(heap, 2)} KB`,
        (heap.median / (lb.heap.median / 1024)).toFixed(2) + '×',
        `${fmt(rss, 0)} MB`,
        ratio(rss, lb.rss),
      ];
      if (lb.cpu !== undefined) {
        const cpu = pick(impl, (r) => median(r.burstCpuUsPerEvent));
        row.push(`${fmt(cpu, 1)} µs`, ratio(cpu, lb.cpu));
      }
      rows.push(row);
    }
    const x = base === 'lower' ? '×LB' : `×${base}`;
    const header = [
      'implementation',
      'initial sync (wall)',
      x,
      'sync CPU',
      x,
      'heap / object',
      x,
      'peak RSS Δ (sync)',
      x,
    ];
    if (lb.cpu !== undefined) header.push('watch CPU / event', x);
    printTable(
      `${n / 1000}k pods${bursts > 0 ? `, then ${bursts} bursts of ${n / 1000}k MODIFIED` : ''} — median (min–max) of ${RUNS}`,
      header,
      rows,
    );
  }
  console.log(
    `load average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

function median(xs: number[]): number {
  return summarize(xs).median;
}

await main();
