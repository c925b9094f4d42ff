// One implementation of bench/watch_pipeline.bench.ts alone in a process, for counting its
// instructions under cachegrind (BENCH_COUNT=instructions there): set up, feed the warm-up
// rounds, then BENCH_ROUNDS rounds, exit. The parent runs it with two round counts and takes
// the difference, so start-up, set-up and warm-up cancel out. Bundled per source revision
// (the parent points the `../../src/` imports at that revision's tree).
//
// Environment: BENCH_CHILD_IMPL (sink | lower | ours), BENCH_POD, BENCH_N, BENCH_PER_READ,
// BENCH_WARMUP, BENCH_ROUNDS, BENCH_LB (buffer: the lower bound splits on bytes).
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import { decodeWatchStream } from '../../src/client/watch_decoder.js';
import { noopLogger } from '../../src/util/logger.js';
import type { Impl, PodShape } from './watch_pipeline.js';
import { informer, initialPods, lowerBound, roundMaker, sink } from './watch_pipeline.js';

const IMPL = process.env.BENCH_CHILD_IMPL ?? 'ours';
const POD = (process.env.BENCH_POD ?? 'bench') as PodShape;
const N = Number(process.env.BENCH_N ?? 2000);
const PER_READ = Number(process.env.BENCH_PER_READ ?? 16);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

const makeRound = roundMaker(POD, N, PER_READ);
let impl: Impl;
if (IMPL === 'sink') impl = sink();
else if (IMPL === 'lower') {
  impl = lowerBound(N, process.env.BENCH_LB === 'buffer');
  await impl.feed(makeRound('b0')); // its cache starts full too
} else {
  impl = await informer(
    IMPL,
    { SharedIndexInformer, decodeWatchStream, noopLogger },
    initialPods(POD, N),
    String(1000 + N),
  );
}
for (let r = 0; r < WARMUP + ROUNDS; r++) await impl.feed(makeRound(`b${r + 1}`));
process.exit(0);
