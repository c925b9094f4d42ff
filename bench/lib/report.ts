import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

// Shared helpers for the benchmarks: repeated measurement, medians, and a printed table.
// Every table printed here is followed by the machine it was measured on: the Node version
// of the measured processes, the CPU model and count, and the load average at that moment.

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

let measuredNode: string | undefined;

/**
 * Names the Node version the measured processes run on, when it is not this process's own
 * (a bench whose children run on another binary, e.g. BENCH_NODE): {@link machine} and
 * every table then report it.
 */
export function setMeasuredNode(version: string): void {
  measuredNode = version;
}

/**
 * What a figure was measured on: `node v24.22.3, 2 × AMD EPYC 7B13, load average 1.2 0.9
 * 0.7` (the Node of the measured processes, the CPU model and count, the load averages over
 * 1, 5 and 15 minutes). Compare figures taken on the same line only.
 */
export function machine(): string {
  const cpu = cpus();
  return `node ${measuredNode ?? process.version}, ${cpu.length} × ${cpuModel()}, ${machineLoad()}`;
}

/**
 * The CPU's model name; where a hypervisor reports only a family name (`AMD EPYC`), Linux's
 * CPU family and model numbers tell the generation apart.
 */
function cpuModel(): string {
  const name = (cpus()[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim();
  if (/\d/.test(name)) return name;
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const family = /^cpu family\s*:\s*(\d+)/m.exec(info)?.[1];
    const model = /^model\s*:\s*(\d+)/m.exec(info)?.[1];
    return family === undefined ? name : `${name} (family ${family}, model ${model ?? '?'})`;
  } catch {
    return name;
  }
}

/** Prints a table with a title, then the {@link machine} it was measured on; the first row is the header. */
export function printTable(title: string, header: string[], rows: string[][]): void {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    '| ' + r.map((c, i) => (c ?? '').padEnd(widths[i]!)).join(' | ') + ' |';
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log('| ' + widths.map((w) => '-'.repeat(w)).join(' | ') + ' |');
  for (const r of rows) console.log(line(r));
  console.log(`\n(${machine()})\n`);
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
