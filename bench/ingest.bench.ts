// The ingest path: watch-stream decoding + Reflector + store, against the lower bound (read
// the same bytes, split lines, JSON.parse each into a Map) in the same run; 10k and 50k
// realistic ~4.4 KB pods. Then peak RSS of a 50k-pod initial sync against the in-memory
// API server: paged (500/page) through ResourceClient + Reflector, vs one unpaged list +
// JSON.parse. Each RSS figure is measured in a fresh child process.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DeltaFIFO, FIFOClosedError } from '../src/cache/delta_fifo.js';
import { Indexer } from '../src/cache/indexer.js';
import type { ListerWatcher } from '../src/cache/listwatch.js';
import { listWatchFromClient } from '../src/cache/listwatch.js';
import { RealFIFO } from '../src/cache/real_fifo.js';
import { Reflector } from '../src/cache/reflector.js';
import type { ReflectorStore } from '../src/cache/reflector.js';
import { podsResource } from '../src/client/builtins.js';
import { ResourceClient } from '../src/client/resource_client.js';
import type { WatchEvent } from '../src/client/types.js';
import { decodeWatchStream } from '../src/client/watch_decoder.js';
import { noopLogger } from '../src/util/logger.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { fmt, printTable, repeat } from './lib/report.js';
import type { Summary } from './lib/report.js';
import { kubeConfigFor } from './lib/kubeconfig.js';
import { makeBenchPod } from './lib/pods.js';
import type { BenchPod } from './lib/pods.js';

const CHUNK = 64 * 1024;

function watchBody(n: number): Buffer[] {
  const parts: string[] = [];
  for (let i = 0; i < n; i++)
    parts.push(JSON.stringify({ type: 'ADDED', object: makeBenchPod(i) }) + '\n');
  const all = Buffer.from(parts.join(''));
  const chunks: Buffer[] = [];
  for (let off = 0; off < all.length; off += CHUNK) chunks.push(all.subarray(off, off + CHUNK));
  return chunks;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** Lower bound: the same bytes from the same kind of stream, lines split, JSON.parse, Map.set. */
async function lowerBound(chunks: Buffer[]): Promise<number> {
  const start = process.cpuUsage();
  const map = new Map<string, unknown>();
  let pending = '';
  for await (const chunk of Readable.from(chunks, { objectMode: false })) {
    const text = pending + (chunk as Buffer).toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const ev = JSON.parse(text.slice(from, nl)) as { object: BenchPod };
      map.set(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`, ev.object);
      from = nl + 1;
    }
    pending = text.slice(from);
  }
  const ms = cpuMs(start);
  if (map.size === 0) throw new Error('nothing parsed');
  return ms;
}

/** A ListerWatcher whose list is empty and whose first watch streams `chunks`; the second watch stops the run. */
function streamingLW(chunks: Buffer[], stop: AbortController): ListerWatcher<BenchPod> {
  let watches = 0;
  return {
    list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }),
    watch: async (_options, signal) => {
      if (watches++ > 0) {
        stop.abort();
        return (async function* (): AsyncGenerator<WatchEvent<BenchPod>> {})();
      }
      return decodeWatchStream<BenchPod>(Readable.from(chunks), () => {}, 'GET /bench', signal);
    },
  };
}

type Variant = 'indexer' | 'deltafifo' | 'realfifo';

async function ours(chunks: Buffer[], n: number, variant: Variant): Promise<number> {
  const start = process.cpuUsage();
  const cache = new Indexer<BenchPod>();
  const ac = new AbortController();
  const lw = streamingLW(chunks, ac);
  const opts = { logger: noopLogger, idleTimeoutMs: 0, watchListEnabled: false };
  let drain: Promise<void> = Promise.resolve();
  let store: ReflectorStore<BenchPod>;
  if (variant === 'indexer') {
    store = cache;
  } else if (variant === 'deltafifo') {
    const fifo = new DeltaFIFO<BenchPod>({ knownObjects: cache, emitDeltaTypeReplaced: true });
    store = fifo;
    drain = (async () => {
      for (;;) {
        try {
          await fifo.pop((ds) => {
            for (const d of ds) {
              if (d.type === 'Deleted') cache.delete(d.object);
              else if (cache.hasKey(fifo.keyOf(d.object))) cache.update(d.object as BenchPod);
              else cache.add(d.object as BenchPod);
            }
          });
        } catch (err) {
          if (err instanceof FIFOClosedError) return;
          throw err;
        }
      }
    })();
    const run = new Reflector(lw, store, opts).run(ac.signal);
    await run;
    fifo.close();
    await drain;
    return finish(start, cache, n);
  } else {
    const fifo = new RealFIFO<BenchPod>({ knownObjects: cache });
    store = fifo;
    drain = (async () => {
      for (;;) {
        try {
          await fifo.popBatch((ds) => {
            for (const d of ds) {
              if (!('object' in d)) continue;
              if (d.type === 'Deleted') cache.delete(d.object);
              else if (cache.hasKey(fifo.keyOf(d.object))) cache.update(d.object as BenchPod);
              else cache.add(d.object as BenchPod);
            }
          });
        } catch (err) {
          if (err instanceof FIFOClosedError) return;
          throw err;
        }
      }
    })();
    await new Reflector(lw, store, opts).run(ac.signal);
    fifo.close();
    await drain;
    return finish(start, cache, n);
  }
  await new Reflector(lw, store, opts).run(ac.signal);
  return finish(start, cache, n);
}

function finish(start: NodeJS.CpuUsage, cache: Indexer<BenchPod>, n: number): number {
  const ms = cpuMs(start);
  if (cache.listKeys().length !== n)
    throw new Error(`cache has ${cache.listKeys().length} of ${n}`);
  return ms;
}

// ── RSS child: one sync against a running server, reporting the peak RSS increase ──────

async function child(mode: string, url: string, n: number): Promise<void> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  if (mode === 'unpaged') {
    const body = await new Promise<string>((resolve, reject) => {
      request(`${url}/api/v1/pods`, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    peak = Math.max(peak, process.memoryUsage().rss);
    const list = JSON.parse(body) as { items: unknown[] };
    peak = Math.max(peak, process.memoryUsage().rss);
    if (list.items.length !== n) throw new Error(`got ${list.items.length}`);
  } else {
    const kc = await kubeConfigFor(url);
    const cache = new Indexer<BenchPod>();
    const ac = new AbortController();
    const store: ReflectorStore<BenchPod> = {
      add: (o) => cache.add(o),
      update: (o) => cache.update(o),
      delete: (o) => cache.delete(o),
      resync: () => {},
      replace: (items, rv) => {
        cache.replace(items, rv);
        ac.abort();
      },
    };
    const client = new ResourceClient(kc, podsResource);
    const lw = listWatchFromClient(client) as unknown as ListerWatcher<BenchPod>;
    await new Reflector<BenchPod>(lw, store, {
      logger: noopLogger,
      pageSize: 500,
      watchListEnabled: false,
    }).run(ac.signal);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (cache.listKeys().length !== n) throw new Error(`cache has ${cache.listKeys().length}`);
  }
  clearInterval(sampler);
  process.stdout.write(JSON.stringify({ peakDeltaMb: (peak - base) / 2 ** 20 }) + '\n');
  process.exit(0);
}

async function rss(n: number, runs: number): Promise<void> {
  // Without the watch cache model, a list at resourceVersion "0" honours `limit` (as
  // kube-apiserver with --watch-cache=false), so the reflector's pages are real pages.
  const server = await startTestApiServer({ watchCache: false });
  try {
    for (let i = 0; i < 20; i++) {
      if (server.get('namespaces', `ns-${i}`) === undefined) {
        server.create('namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `ns-${i}` },
        });
      }
    }
    for (let i = 0; i < n; i++) {
      const p = makeBenchPod(i);
      server.create('pods', {
        ...p,
        metadata: { ...p.metadata, resourceVersion: undefined },
      } as never);
    }
    const self = fileURLToPath(import.meta.url);
    const measure = async (mode: string): Promise<Summary> =>
      repeat(
        runs,
        async () => {
          // The server lives in this process, so the child is spawned asynchronously.
          const r = await new Promise<string>((resolve, reject) => {
            const c = spawn(
              process.execPath,
              ['--import', 'tsx', self, 'child', mode, server.url, String(n)],
              {
                stdio: ['ignore', 'pipe', 'inherit'],
              },
            );
            let out = '';
            c.stdout.on('data', (d: Buffer) => (out += d.toString()));
            c.on('error', reject);
            c.on('exit', (code) =>
              code === 0 ? resolve(out) : reject(new Error(`child ${mode} exit ${code}`)),
            );
          });
          return (JSON.parse(r.trim().split('\n').pop()!) as { peakDeltaMb: number }).peakDeltaMb;
        },
        0,
      );
    const unpaged = await measure('unpaged');
    const paged = await measure('paged');
    printTable(
      `Peak RSS increase during the initial sync of ${n / 1000}k pods (MB, median (min–max) of ${runs}, fresh process each)`,
      ['path', 'peak RSS increase', 'ratio'],
      [
        ['one unpaged list + JSON.parse (baseline)', fmt(unpaged, 0), '1.00'],
        [
          'Reflector, 500/page, into Indexer',
          fmt(paged, 0),
          (paged.median / unpaged.median).toFixed(2),
        ],
      ],
    );
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'child') {
    await child(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
    return;
  }
  const only = process.argv[2]; // 'cpu' or 'rss' runs one part
  for (const [n, runs] of only === 'rss'
    ? []
    : ([
        [10_000, 5],
        [50_000, 3],
      ] as const)) {
    const chunks = watchBody(n);
    const mb = chunks.reduce((s, c) => s + c.length, 0) / 2 ** 20;
    const lb = await repeat(runs, () => lowerBound(chunks));
    const rows: string[][] = [
      ['lower bound: split lines + JSON.parse + Map.set', fmt(lb, 0), '1.00'],
    ];
    for (const v of ['indexer', 'deltafifo', 'realfifo'] as const) {
      const s = await repeat(runs, () => ours(chunks, n, v));
      const label =
        v === 'indexer'
          ? 'decodeWatchStream + Reflector → Indexer'
          : v === 'deltafifo'
            ? 'decodeWatchStream + Reflector → DeltaFIFO → Indexer'
            : 'decodeWatchStream + Reflector → RealFIFO (popBatch) → Indexer';
      rows.push([label, fmt(s, 0), (s.median / lb.median).toFixed(2)]);
    }
    printTable(
      `Ingest CPU, ${n / 1000}k watch events (${mb.toFixed(0)} MB), ms CPU, median (min–max) of ${runs}`,
      ['path', 'CPU ms', 'ratio'],
      rows,
    );
  }
  if (only !== 'cpu') await rss(50_000, 5);
}

await main();
