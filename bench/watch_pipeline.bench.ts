// The client side of the warm watch alone: the same pre-serialized watch bytes (one
// MODIFIED event per HTTP chunk, 16 chunks per simulated socket read) are fed to the lower
// bound (split lines, JSON.parse, Map.set) and to the informer's pipeline (watch decoder →
// reflector → RealFIFO → indexer → processor → one counting handler). No sockets and no
// server process: a quick before/after of the pipeline against other source revisions
// (BENCH_BASE_SRC) without bench/watch.bench.ts's processes. Two ways to count:
//
// - CPU time (the default): in one process, round after round, in an order that rotates
//   every round; `process.cpuUsage` per round. It is not steadier on a loaded machine (see
//   docs/performance.md), and which lower bound is cheaper depends on how it splits
//   (BENCH_LB=buffer splits on bytes).
// - Instructions (BENCH_COUNT=instructions): each implementation alone in a child process
//   under valgrind's cachegrind (plain bundled JavaScript, `node --single-threaded`), run
//   twice with different round counts; instructions per event = the difference of the two
//   totals / the difference of the events fed, so start-up, set-up and warm-up cancel out.
//   A child that only takes the bytes (the harness alone) is subtracted from every other.
//   Independent of the machine's load, so a change of a few per cent shows; it counts
//   instructions, not time (cache misses and the collector's pauses are not in it, and
//   cachegrind runs JIT code about 50× slower: expect minutes). Needs `valgrind`.
//
// Usage: node --expose-gc --import tsx bench/watch_pipeline.bench.ts
// Environment: BENCH_REPS (default 8 measured rounds after 2 warm-up rounds), BENCH_N
// (events per round, default 20000; 2000 for instructions), BENCH_PER_READ (events per read,
// default 16), BENCH_BASE_SRC (a src/ of another revision, or several as
// `label=path,label=path`: each adds an informer from that source), BENCH_POD (`bench`, the
// default: the 3.9 KB harness pod; `tiny`: a 0.2 KB pod, see lib/watch_pipeline.ts),
// BENCH_COUNT (`cpu`, the default, or `instructions`), BENCH_ROUNDS (instructions: the
// smaller round count, default 4; the larger is twice it).
import { execFile } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type * as SharedInformerModule from '../src/cache/shared_informer.js';
import type * as DecoderModule from '../src/client/watch_decoder.js';
import type * as LoggerModule from '../src/util/logger.js';
import { fmt, heapUsedAfterGc, printTable, summarize } from './lib/report.js';
import type { Impl, PipelineModules, PodShape } from './lib/watch_pipeline.js';
import { informer, initialPods, lowerBound, roundMaker } from './lib/watch_pipeline.js';

const COUNT = process.env.BENCH_COUNT ?? 'cpu';
const REPS = Number(process.env.BENCH_REPS ?? 8);
const WARMUP = 2;
const N = Number(process.env.BENCH_N ?? (COUNT === 'instructions' ? 2000 : 20000));
const PER_READ = Number(process.env.BENCH_PER_READ ?? 16);
const POD = (process.env.BENCH_POD ?? 'bench') as PodShape;
const SPLIT_ON_BYTES = process.env.BENCH_LB === 'buffer';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const here = fileURLToPath(new URL('.', import.meta.url));
const ourSrc = resolve(here, '..', 'src');

/** The sources to compare: BENCH_BASE_SRC's, then this checkout's. */
function sources(): { label: string; src: string }[] {
  const out: { label: string; src: string }[] = [];
  for (const entry of (process.env.BENCH_BASE_SRC ?? '').split(',')) {
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    out.push({
      label: eq < 0 ? 'base (BENCH_BASE_SRC)' : entry.slice(0, eq),
      src: resolve(eq < 0 ? entry : entry.slice(eq + 1)),
    });
  }
  out.push({ label: 'this checkout', src: ourSrc });
  return out;
}

function header(what: string): string {
  return `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${N} MODIFIED per round (${POD} pods), ${PER_READ} per read; ${what}`;
}

async function modulesOf(src: string): Promise<PipelineModules> {
  const url = pathToFileURL(src).href;
  const { SharedIndexInformer } = (await import(
    `${url}/cache/shared_informer.js`
  )) as typeof SharedInformerModule;
  const { decodeWatchStream } = (await import(
    `${url}/client/watch_decoder.js`
  )) as typeof DecoderModule;
  const { noopLogger } = (await import(`${url}/util/logger.js`)) as typeof LoggerModule;
  return { SharedIndexInformer, decodeWatchStream, noopLogger };
}

async function cpuRounds(): Promise<void> {
  const items = initialPods(POD, N);
  const makeRound = roundMaker(POD, N, PER_READ);
  const impls: Impl[] = [lowerBound(N, SPLIT_ON_BYTES)];
  for (const { label, src } of sources()) {
    impls.push(
      await informer(
        `SharedIndexInformer, ${label}`,
        await modulesOf(src),
        items,
        String(1000 + N),
      ),
    );
  }
  // The lower bound's cache starts full too.
  await impls[0]!.feed(makeRound('b0'));
  console.log(
    `\n## Watch pipeline benchmark (in process, CPU time)\n\n${header(`${REPS} rounds after ${WARMUP} warm-up, implementations interleaved in an order that rotates every round`)}`,
  );
  const perEvent = new Map<string, number[]>(impls.map((i) => [i.name, []]));
  for (let r = 0; r < WARMUP + REPS; r++) {
    const reads = makeRound(`b${r + 1}`);
    // Whoever runs first in a round reads its bytes cold: the order rotates.
    for (let k = 0; k < impls.length; k++) {
      const impl = impls[(r + k) % impls.length]!;
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
}

const run = promisify(execFile);

/** Bundles the child with its `src/` imports pointed at `src`. */
async function bundleChild(src: string, outfile: string): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(here, 'lib', 'watch_pipeline_child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    plugins: [
      {
        name: 'source-revision',
        setup(b) {
          if (src === ourSrc) return;
          b.onResolve({ filter: /^\.\.?\// }, async (args) => {
            if (args.pluginData === 'resolved') return undefined;
            const r = await b.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              importer: args.importer,
              pluginData: 'resolved',
            });
            if (r.errors.length > 0 || !r.path.startsWith(ourSrc + '/')) return r;
            return { path: src + r.path.slice(ourSrc.length) };
          });
        },
      },
    ],
  });
}

/** Instructions of one child run (cachegrind's total `I refs`). */
async function instructions(bundle: string, impl: string, rounds: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kck-cg-'));
  const out = join(dir, 'cachegrind.out');
  await run(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      `--cachegrind-out-file=${out}`,
      process.execPath,
      '--single-threaded',
      bundle,
    ],
    {
      env: {
        ...process.env,
        BENCH_CHILD_IMPL: impl,
        BENCH_POD: POD,
        BENCH_N: String(N),
        BENCH_PER_READ: String(PER_READ),
        BENCH_ROUNDS: String(rounds),
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const summary = /^summary: (\d+)/m.exec(readFileSync(out, 'utf8'));
  if (summary === null) throw new Error(`no summary in ${out}`);
  return Number(summary[1]);
}

async function instructionCounts(): Promise<void> {
  console.log(
    `\n## Watch pipeline benchmark (instructions under cachegrind)\n\n${header(`${ROUNDS} and ${2 * ROUNDS} rounds after 4 warm-up, each implementation alone in a child`)}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'kck-pipeline-'));
  const children: { name: string; bundle: string; impl: string }[] = [];
  const ours = join(dir, 'ours.mjs');
  await bundleChild(ourSrc, ours);
  children.push({ name: 'harness alone (bytes taken, nothing done)', bundle: ours, impl: 'sink' });
  children.push({
    name: `lower bound (split lines${SPLIT_ON_BYTES ? ' on bytes' : ''}, JSON.parse, Map.set)`,
    bundle: ours,
    impl: 'lower',
  });
  let i = 0;
  for (const { label, src } of sources()) {
    const bundle = src === ourSrc ? ours : join(dir, `base${i++}.mjs`);
    if (src !== ourSrc) await bundleChild(src, bundle);
    children.push({ name: `SharedIndexInformer, ${label}`, bundle, impl: 'ours' });
  }
  const perEvent: number[] = [];
  for (const c of children) {
    const small = await instructions(c.bundle, c.impl, ROUNDS);
    const large = await instructions(c.bundle, c.impl, 2 * ROUNDS);
    perEvent.push((large - small) / (ROUNDS * N));
    console.error(`${c.name}: ${(perEvent.at(-1)! / 1000).toFixed(2)} k instructions / event`);
  }
  const harness = perEvent[0]!;
  const lb = perEvent[1]! - harness;
  printTable(
    `instructions per event, ${N / 1000}k MODIFIED per round (the harness's own subtracted)`,
    ['implementation', 'instructions / event', '×LB'],
    children.map((c, k) => {
      const own = k === 0 ? perEvent[0]! : perEvent[k]! - harness;
      return [c.name, (own / 1000).toFixed(2) + ' k', k === 0 ? '—' : (own / lb).toFixed(3) + '×'];
    }),
  );
}

if (COUNT === 'instructions') await instructionCounts();
else await cpuRounds();
process.exit(0);
