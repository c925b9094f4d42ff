import { loadavg } from 'node:os';

// Shared helpers for the benchmarks: repeated measurement, medians, and a printed table.

/** Median, minimum and maximum of a set of samples. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export function summarize(samples: number[]): Summary {
  if (samples.length === 0) throw new Error('summarize: no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, samples };
}

/** Runs `fn` `runs` times (after `warmup` unmeasured runs) and summarizes what it returns. */
export async function repeat(
  runs: number,
  fn: () => number | Promise<number>,
  warmup = 1,
): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await fn());
  return summarize(samples);
}

/** Formats a summary as `median (min–max)` with a unit. */
export function fmt(s: Summary, digits = 2, unit = ''): string {
  const f = (n: number): string => n.toFixed(digits);
  return `${f(s.median)}${unit} (${f(s.min)}–${f(s.max)})`;
}

/** Prints a table with a title; the first row is the header. */
export function printTable(title: string, header: string[], rows: string[][]): void {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    '| ' + r.map((c, i) => (c ?? '').padEnd(widths[i]!)).join(' | ') + ' |';
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log('| ' + widths.map((w) => '-'.repeat(w)).join(' | ') + ' |');
  for (const r of rows) console.log(line(r));
  console.log('');
}

/** Forces a full garbage collection (needs node --expose-gc) and returns heap used in bytes. */
export function heapUsedAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run the benchmark with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** The machine's load averages (1, 5 and 15 minutes), for the report. */
export function machineLoad(): string {
  return `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}
