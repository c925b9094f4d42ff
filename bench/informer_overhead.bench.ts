// The audit case's per-informer overhead: BENCH_INFORMERS (60) metadata-only informers, one
// per namespace of configmaps (the same per-informer machinery as one per kind), over
// HTTP/1.1 and over HTTP/2, against the in-memory API server over TLS in its own process
// (`kube-controller-kit apiserver --https`). Each measurement is a fresh child: heap after
// forced GC once every informer synced, minus before; the timers and sockets the informers
// hold open (process.getActiveResourcesInfo); all per informer. The child is bundled to
// plain JavaScript first (lib/bundle.ts): run through tsx it measured 7-8 KB more per
// informer (esbuild's keepNames gives every closure a property array; more JIT code).
//
// Two figures per informer: the average over the first BENCH_INFORMERS (heap after them
// minus before the first: it includes what the first informer pays once, code compiled on
// first use and module state), and the marginal one (BENCH_INFORMERS more started on the
// same factory and transport: heap after the 2N minus after the N, divided by N).
// BENCH_SNAPSHOT=1 also writes a heap snapshot after the N and after the 2N (in the first
// run of each transport) and prints their difference per informer, grouped by type and
// constructor (lib/heap_snapshot.ts): what one more informer holds.
//
// Usage: node --expose-gc --import tsx bench/informer_overhead.bench.ts
// Environment: BENCH_INFORMERS (60), BENCH_RUNS (3), BENCH_SNAPSHOT (off), BENCH_HANDLER
// (off; 1: each informer also gets one event handler and a lister, as a controller's would).
import { spawn } from 'node:child_process';
import { writeHeapSnapshot } from 'node:v8';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '../src/client/transport.js';
import { MetadataSharedInformerFactory } from '../src/dynamic/dynamic_factory.js';
import { configMapsResource } from '../src/client/builtins.js';
import { noopLogger } from '../src/util/logger.js';
import { bundleForNode } from './lib/bundle.js';
import { diffGroups, snapshotGroups } from './lib/heap_snapshot.js';
import { fmt, heapUsedAfterGc, printTable, summarize } from './lib/report.js';

const self = fileURLToPath(import.meta.url);
const INFORMERS = Number(process.env.BENCH_INFORMERS ?? 60);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Each informer also gets one event handler and a lister, as a controller's would. */
const HANDLER = process.env.BENCH_HANDLER === '1';

interface Result {
  /** Average over the first N informers (includes first-use costs), bytes. */
  heap: number;
  /** Marginal: the N informers after the first N, bytes each. */
  marginal: number;
  timers: number;
  sockets: number;
  /** Heap snapshots after N and after 2N informers, when asked for. */
  snapshots?: [string, string];
}

function count(kinds: string[]): number {
  return process.getActiveResourcesInfo().filter((r) => kinds.includes(r)).length;
}

async function child(kubeconfig: string, http2: boolean, snapshotDir: string): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const transport = new Transport(kc, { http2, logger: noopLogger });
  await transport.request({ method: 'GET', path: '/version' });
  const sockets0 = count(['TLSWrap', 'TCPSocketWrap']);
  const timers0 = count(['Timeout']);
  const before = heapUsedAfterGc();
  const factory = new MetadataSharedInformerFactory(transport, { logger: noopLogger });
  const ac = new AbortController();
  const startMore = async (from: number): Promise<void> => {
    for (let i = from; i < from + INFORMERS; i++) {
      const informer = factory.forResource(configMapsResource, { namespace: `ns-${i}` });
      if (HANDLER) {
        informer.addEventHandler({ onAdd: () => undefined });
        informer.lister();
      }
    }
    factory.start(ac.signal);
    await factory.waitForCacheSync(ac.signal);
    await new Promise((r) => setTimeout(r, 500)); // every reflector on to its watch
  };
  const snapshot = (n: number): string =>
    writeHeapSnapshot(join(snapshotDir, `${http2 ? 'h2' : 'h1'}-${n}.heapsnapshot`));
  await startMore(0);
  const mid = heapUsedAfterGc();
  const timers = count(['Timeout']) - timers0;
  const sockets = count(['TLSWrap', 'TCPSocketWrap']) - sockets0;
  const first = snapshotDir === '' ? undefined : snapshot(INFORMERS);
  await startMore(INFORMERS);
  const after = heapUsedAfterGc();
  const second = snapshotDir === '' ? undefined : snapshot(2 * INFORMERS);
  const result: Result = {
    heap: (mid - before) / INFORMERS,
    marginal: (after - mid) / INFORMERS,
    timers: timers / INFORMERS,
    sockets: sockets / INFORMERS,
    ...(first !== undefined && second !== undefined ? { snapshots: [first, second] } : {}),
  };
  console.log(JSON.stringify(result));
  ac.abort();
  await factory.shutdown();
  transport.close();
  process.exit(0);
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

async function parent(): Promise<void> {
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadStart = load();
  // The child runs as plain JavaScript, as a deployed controller does (see lib/bundle.ts).
  const childScript = await bundleForNode(self, 'informer_overhead_child');
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kck-bench-')), 'kubeconfig.yaml');
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'apiserver', '--https', '--kubeconfig', kubeconfig],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  while (!existsSync(kubeconfig) || readFileSync(kubeconfig, 'utf8') === '') {
    await new Promise((r) => setTimeout(r, 200));
  }
  const results: Record<'h1' | 'h2', Result[]> = { h1: [], h2: [] };
  const snapshotDir =
    process.env.BENCH_SNAPSHOT === '1' ? mkdtempSync(join(tmpdir(), 'kck-heap-')) : '';
  try {
    for (let r = 0; r < RUNS; r++) {
      for (const proto of ['h1', 'h2'] as const) {
        const dir = r === 0 ? snapshotDir : '';
        const out = await run([childScript, 'child', kubeconfig, proto, dir]);
        results[proto].push(JSON.parse(out.trim().split('\n').pop()!) as Result);
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
  const row = (label: string, rs: Result[]): string[] => [
    label,
    fmt(summarize(rs.map((x) => x.marginal / 1024)), 1, ' KB'),
    fmt(summarize(rs.map((x) => x.heap / 1024)), 1, ' KB'),
    fmt(summarize(rs.map((x) => x.timers)), 2),
    fmt(summarize(rs.map((x) => x.sockets)), 3),
  ];
  console.log(
    `\nnode ${process.version}; load average ${loadStart} at start, ${load()} at end; ` +
      `${INFORMERS} metadata-only informers (empty namespaces)${HANDLER ? ', one handler and a lister each' : ''}, ${RUNS} runs, fresh child each`,
  );
  printTable(
    `Per-informer overhead, ${INFORMERS} informers — median (min–max)`,
    [
      'transport',
      'heap / informer, marginal',
      `heap / informer, average of the first ${INFORMERS}`,
      'timers / informer',
      'sockets / informer',
    ],
    [row('HTTP/1.1 (http2: false)', results.h1), row('HTTP/2 (default over TLS)', results.h2)],
  );
  for (const proto of ['h1', 'h2'] as const) {
    const files = results[proto][0]?.snapshots;
    if (files === undefined) continue;
    const rows = diffGroups(snapshotGroups(files[0]), snapshotGroups(files[1]), INFORMERS);
    const total = rows.reduce((sum, r) => sum + r.bytes, 0);
    printTable(
      `Heap snapshot, ${2 * INFORMERS} minus ${INFORMERS} informers, per informer (${proto}): ` +
        `${(total / 1024).toFixed(1)} KB in groups of 16 B or more`,
      ['type: constructor', 'count', 'bytes'],
      rows.map((r) => [r.key, r.count.toFixed(1), r.bytes.toFixed(0)]),
    );
  }
}

const [mode, kubeconfig, proto, snapshotDir] = process.argv.slice(2);
if (mode === 'child') await child(kubeconfig!, proto === 'h2', snapshotDir ?? '');
else await parent();
