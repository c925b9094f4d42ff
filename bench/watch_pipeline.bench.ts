// The client side of the warm watch alone, in one process: the same pre-serialized watch
// bytes (3.9 KB pods, one MODIFIED event per HTTP chunk, 16 chunks per simulated socket
// read) are fed to the lower bound (split lines, JSON.parse, Map.set) and to the
// informer's pipeline (watch decoder → reflector → RealFIFO → indexer → processor → one
// counting handler), alternating, round after round. No sockets and no server process:
// a quick before/after of the pipeline (BENCH_BASE_SRC) without bench/watch.bench.ts's
// processes. It is not steadier on a loaded machine (see docs/performance.md), and which
// lower bound is cheaper depends on how it splits (BENCH_LB=buffer splits on bytes).
//
// Usage: node --expose-gc --import tsx bench/watch_pipeline.bench.ts
// Environment: BENCH_REPS (default 8 measured rounds after 2 warm-up rounds), BENCH_N
// (events per round, default 20000), BENCH_PER_READ (events per read, default 16),
// BENCH_BASE_SRC (a src/ of another revision: adds 'ours-base' to the rounds).
import { Readable } from 'node:stream';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type * as SharedInformerModule from '../src/cache/shared_informer.js';
import type * as DecoderModule from '../src/client/watch_decoder.js';
import type * as LoggerModule from '../src/util/logger.js';
import type { ListerWatcher } from '../src/cache/listwatch.js';
import type { ObjectList, WatchEvent } from '../src/client/types.js';
import { fmt, heapUsedAfterGc, printTable, summarize } from './lib/report.js';
import { makeBenchPod } from './lib/pods.js';

const REPS = Number(process.env.BENCH_REPS ?? 8);
const WARMUP = 2;
const N = Number(process.env.BENCH_N ?? 20000);
const PER_READ = Number(process.env.BENCH_PER_READ ?? 16);
const BASE_SRC = process.env.BENCH_BASE_SRC;

interface Pod {
  metadata: { name: string; namespace: string; resourceVersion: string };
}

function harnessPod(i: number, rv: string, tag: string): object {
  const p = makeBenchPod(i, rv);
  const { conditions: _dropped, ...status } = p.status;
  return {
    ...p,
    metadata: { ...p.metadata, annotations: { ...p.metadata.annotations, 'bench/burst': tag } },
    status,
  };
}

let rv = 1000 + N;
/** One round's bytes: one Buffer per event, grouped PER_READ to a simulated socket read. */
function makeRound(tag: string): Buffer[][] {
  const reads: Buffer[][] = [];
  let read: Buffer[] = [];
  for (let i = 0; i < N; i++) {
    rv++;
    read.push(
      Buffer.from(
        `{"type":"MODIFIED","object":${JSON.stringify(harnessPod(i, String(rv), tag))}}\n`,
      ),
    );
    if (read.length === PER_READ) {
      reads.push(read);
      read = [];
    }
  }
  if (read.length > 0) reads.push(read);
  return reads;
}

const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

interface Impl {
  name: string;
  /** Feeds a round and resolves once its N updates were seen. */
  feed(reads: Buffer[][]): Promise<void>;
}

function lowerBound(): Impl {
  const map = new Map<string, unknown>();
  let pending = '';
  let seen = 0;
  const onDataBuffer = (chunk: Buffer): void => {
    // The same work with the split done on bytes (BENCH_LB=buffer), as the decoder does.
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      const ev = JSON.parse(chunk.toString('utf8', from, nl)) as WatchEvent<Pod>;
      const o = ev.object as Pod;
      map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      if (ev.type === 'MODIFIED') seen++;
      from = nl + 1;
    }
  };
  const onDataString = (chunk: Buffer): void => {
    const text = pending + chunk.toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const ev = JSON.parse(text.slice(from, nl)) as WatchEvent<Pod>;
      const o = ev.object as Pod;
      map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      if (ev.type === 'MODIFIED') seen++;
      from = nl + 1;
    }
    pending = text.slice(from);
  };
  // Every chunk here is one whole line, so the byte splitter needs no carry-over.
  const onData = process.env.BENCH_LB === 'buffer' ? onDataBuffer : onDataString;
  return {
    name: `lower bound (split lines${process.env.BENCH_LB === 'buffer' ? ' on bytes' : ''}, JSON.parse, Map.set)`,
    async feed(reads) {
      const target = seen + N;
      for (const read of reads) {
        for (const c of read) onData(c);
        await turn();
      }
      if (seen !== target) throw new Error(`lower bound saw ${seen - (target - N)} of ${N}`);
    },
  };
}

async function informer(name: string, src: string, items: Pod[]): Promise<Impl> {
  const { SharedIndexInformer } = (await import(
    `${src}/cache/shared_informer.js`
  )) as typeof SharedInformerModule;
  const { decodeWatchStream } = (await import(
    `${src}/client/watch_decoder.js`
  )) as typeof DecoderModule;
  const { noopLogger } = (await import(`${src}/util/logger.js`)) as typeof LoggerModule;
  let body: Readable | undefined;
  let opened: () => void = () => {};
  const open = new Promise<void>((r) => (opened = r));
  const lw: ListerWatcher<Pod> = {
    list: async (): Promise<ObjectList<Pod>> => ({
      metadata: { resourceVersion: String(1000 + N) },
      items: items.map((o) => structuredClone(o)),
    }),
    watch: async (_options, signal): Promise<AsyncIterable<WatchEvent<Pod>>> => {
      const b = new Readable({ read() {} });
      body = b;
      signal.addEventListener('abort', () => b.destroy(), { once: true });
      opened();
      return decodeWatchStream<Pod>(b, () => b.destroy(), 'GET /api/v1/pods?watch=1', signal);
    },
  };
  const inf = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    logger: noopLogger,
    watchList: false,
  });
  let adds = 0;
  let updates = 0;
  let waiter: { target: number; resolve: () => void } | undefined;
  inf.addEventHandler({
    onAdd: () => void adds++,
    onUpdate: () => {
      updates++;
      if (waiter !== undefined && updates >= waiter.target) {
        const w = waiter;
        waiter = undefined;
        w.resolve();
      }
    },
  });
  const ac = new AbortController();
  void inf.run(ac.signal);
  await open;
  while (adds < N) await turn();
  process.once('exit', () => ac.abort());
  return {
    name,
    async feed(reads) {
      const done = new Promise<void>((resolve) => (waiter = { target: updates + N, resolve }));
      for (const read of reads) {
        for (const c of read) body!.push(c);
        await turn();
      }
      await done;
    },
  };
}

async function main(): Promise<void> {
  const items = Array.from(
    { length: N },
    (_, i) => JSON.parse(JSON.stringify(harnessPod(i, String(1000 + i), 'b0'))) as Pod,
  );
  const impls: Impl[] = [lowerBound()];
  if (BASE_SRC !== undefined) {
    impls.push(
      await informer(
        'SharedIndexInformer, base (BENCH_BASE_SRC)',
        pathToFileURL(BASE_SRC).href,
        items,
      ),
    );
  }
  impls.push(await informer('SharedIndexInformer, one counting handler', '../src', items));
  // The lower bound's cache starts full too.
  await impls[0]!.feed(makeRound('b0'));
  console.log(
    `\n## Watch pipeline benchmark (in process)\n\nnode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )}; ${N} MODIFIED per round, ${PER_READ} per read; ${REPS} rounds after ${WARMUP} warm-up, implementations interleaved`,
  );
  const perEvent = new Map<string, number[]>(impls.map((i) => [i.name, []]));
  for (let r = 0; r < WARMUP + REPS; r++) {
    const reads = makeRound(`b${r + 1}`);
    for (const impl of impls) {
      heapUsedAfterGc();
      const c0 = process.cpuUsage();
      await impl.feed(reads);
      const d = process.cpuUsage(c0);
      if (r >= WARMUP) perEvent.get(impl.name)!.push((d.user + d.system) / N);
    }
  }
  const lb = perEvent.get(impls[0]!.name)!;
  const rows = impls.map((impl) => {
    const xs = perEvent.get(impl.name)!;
    const s = summarize(xs);
    return [
      impl.name,
      `${fmt(s, 1)} µs`,
      (s.median / summarize(lb).median).toFixed(2) + '×',
      fmt(summarize(xs.map((x, i) => x / lb[i]!)), 2) + '×',
    ];
  });
  printTable(
    `client side of the watch, ${N / 1000}k MODIFIED per round — median (min–max) of ${REPS} rounds`,
    ['implementation', 'CPU / event', '×LB (medians)', '×LB per round, median (min–max)'],
    rows,
  );
  process.exit(0);
}

await main();
