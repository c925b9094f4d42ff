// The audit case's per-informer overhead: BENCH_INFORMERS (60) metadata-only informers, one
// per namespace of configmaps (the same per-informer machinery as one per kind), over
// HTTP/1.1 and over HTTP/2, against the in-memory API server over TLS in its own process
// (`kube-controller-kit apiserver --https`). Each measurement is a fresh child: heap after
// forced GC once every informer synced, minus before; the timers and sockets the informers
// hold open (process.getActiveResourcesInfo); all per informer. The child is bundled to
// plain JavaScript first (lib/bundle.ts): run through tsx it measured 7-8 KB more per
// informer (esbuild's keepNames gives every closure a property array; more JIT code).
//
// Usage: node --expose-gc --import tsx bench/informer_overhead.bench.ts
// Environment: BENCH_INFORMERS (60), BENCH_RUNS (3).
import { spawn } from 'node:child_process';
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
import { fmt, heapUsedAfterGc, printTable, summarize } from './lib/report.js';

const self = fileURLToPath(import.meta.url);
const INFORMERS = Number(process.env.BENCH_INFORMERS ?? 60);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Result {
  heap: number;
  timers: number;
  sockets: number;
}

function count(kinds: string[]): number {
  return process.getActiveResourcesInfo().filter((r) => kinds.includes(r)).length;
}

async function child(kubeconfig: string, http2: boolean): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const transport = new Transport(kc, { http2, logger: noopLogger });
  await transport.request({ method: 'GET', path: '/version' });
  const sockets0 = count(['TLSWrap', 'TCPSocketWrap']);
  const timers0 = count(['Timeout']);
  const before = heapUsedAfterGc();
  const factory = new MetadataSharedInformerFactory(transport, { logger: noopLogger });
  for (let i = 0; i < INFORMERS; i++) {
    factory.forResource(configMapsResource, { namespace: `ns-${i}` });
  }
  const ac = new AbortController();
  factory.start(ac.signal);
  await factory.waitForCacheSync(ac.signal);
  await new Promise((r) => setTimeout(r, 500)); // every reflector on to its watch
  const result: Result = {
    heap: (heapUsedAfterGc() - before) / INFORMERS,
    timers: (count(['Timeout']) - timers0) / INFORMERS,
    sockets: (count(['TLSWrap', 'TCPSocketWrap']) - sockets0) / INFORMERS,
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
  try {
    for (let r = 0; r < RUNS; r++) {
      for (const proto of ['h1', 'h2'] as const) {
        const out = await run([childScript, 'child', kubeconfig, proto]);
        results[proto].push(JSON.parse(out.trim().split('\n').pop()!) as Result);
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
  const row = (label: string, rs: Result[]): string[] => [
    label,
    fmt(summarize(rs.map((x) => x.heap / 1024)), 1, ' KB'),
    fmt(summarize(rs.map((x) => x.timers)), 2),
    fmt(summarize(rs.map((x) => x.sockets)), 3),
  ];
  console.log(
    `\nnode ${process.version}; load average ${loadStart} at start, ${load()} at end; ` +
      `${INFORMERS} metadata-only informers (empty namespaces), ${RUNS} runs, fresh child each`,
  );
  printTable(
    `Per-informer overhead, ${INFORMERS} informers — median (min–max)`,
    ['transport', 'heap / informer', 'timers / informer', 'sockets / informer'],
    [row('HTTP/1.1 (http2: false)', results.h1), row('HTTP/2 (default over TLS)', results.h2)],
  );
}

const [mode, kubeconfig, proto] = process.argv.slice(2);
if (mode === 'child') await child(kubeconfig!, proto === 'h2');
else await parent();
