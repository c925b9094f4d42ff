#!/usr/bin/env node
// Runs every benchmark (bench/*.bench.ts), each in a fresh Node process with --expose-gc,
// and prints their tables. Usage: npm run bench [-- name-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';

const filters = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
// Each table a bench prints is followed by the same line for the moment it was measured
// (bench/lib/report.ts machine()).
console.log(
  `# kube-controller-kit benchmarks\n\nnode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
let failed = 0;
for (const f of files) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${f}`], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error(`benchmark ${f} failed (exit ${r.status})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
