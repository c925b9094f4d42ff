// What an operator's production install costs: `npm install kube-controller-kit` (packed from
// this checkout) beside `@kubernetes/client-node` alone, the floor every operator pays anyway.
// Reports the size on disk of node_modules, the number of packages, the size of the kit's
// own folder, and the cold import time (a fresh `node` that imports the package and exits,
// median of BENCH_RUNS). With BENCH_BASELINE_TARBALL=path/to/kube-controller-kit-x.tgz, a
// third column installs that tarball (an older build) for a before/after in one run.
//
// Needs the npm registry (or a warm npm cache). Usage:
//   node --import tsx bench/install.bench.ts
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable, repeat } from './lib/report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 10);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const clientNode = '@kubernetes/client-node@~1.4.0';

/** Bytes of every file under `dir` (what `du --apparent-size -b` counts). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Packages installed under a node_modules tree (each folder with a package.json, nested too). */
function packagesUnder(nodeModules: string): number {
  let count = 0;
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(nodeModules, entry.name);
    if (entry.name.startsWith('@')) {
      count += packagesUnder(path);
      continue;
    }
    count++;
    try {
      count += packagesUnder(join(path, 'node_modules'));
    } catch {
      // no nested node_modules
    }
  }
  return count;
}

interface Install {
  label: string;
  dir: string;
  importName: string;
}

function install(label: string, specs: string[], importName: string): Install {
  const dir = mkdtempSync(join(tmpdir(), 'kck-install-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"consumer","private":true,"type":"module"}');
  execFileSync(
    npm,
    [
      'install',
      '--omit=dev',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...specs,
    ],
    { cwd: dir, stdio: 'inherit' },
  );
  return { label, dir, importName };
}

function coldImportMs(i: Install): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `await import('${i.importName}')`],
    {
      cwd: i.dir,
    },
  );
  if (r.status !== 0) throw new Error(`${i.label}: import failed\n${String(r.stderr)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

console.log(
  `# install footprint\n\nnode ${process.version}, ${cpus()[0]?.model ?? '?'}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const work = mkdtempSync(join(tmpdir(), 'kck-pack-'));
// The packages as published: built, then packed (the API reference is left out: it does not
// change what is installed or imported, only the package's size on disk).
execFileSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const packed = execFileSync(
  process.execPath,
  [join(root, 'scripts/pack.mjs'), work, '--ignore-scripts'],
  {
    cwd: root,
    encoding: 'utf8',
  },
);
const tarball = packed.trim().split('\n')[0]!;
const installs: Install[] = [
  install('client-node alone (floor)', [clientNode], '@kubernetes/client-node'),
  install('kube-controller-kit (this checkout)', [tarball, clientNode], 'kube-controller-kit'),
];
const baseline = process.env.BENCH_BASELINE_TARBALL;
if (baseline !== undefined && baseline !== '') {
  installs.push(
    install(
      'kube-controller-kit (baseline tarball)',
      [baseline, clientNode],
      'kube-controller-kit',
    ),
  );
}
try {
  const rows: string[][] = [];
  const floor = installs[0]!;
  const floorBytes = bytesUnder(join(floor.dir, 'node_modules'));
  const floorPackages = packagesUnder(join(floor.dir, 'node_modules'));
  const floorImport = await repeat(runs, () => coldImportMs(floor));
  for (const i of installs) {
    const nm = join(i.dir, 'node_modules');
    const bytes = bytesUnder(nm);
    const packages = packagesUnder(nm);
    const own =
      i.importName === 'kube-controller-kit' ? bytesUnder(join(nm, 'kube-controller-kit')) : 0;
    const cold = i === floor ? floorImport : await repeat(runs, () => coldImportMs(i));
    rows.push([
      i.label,
      `${(bytes / 1e6).toFixed(1)} MB`,
      i === floor ? '—' : `+${((bytes - floorBytes) / 1e6).toFixed(1)} MB`,
      String(packages),
      i === floor ? '—' : `+${packages - floorPackages}`,
      own === 0 ? '—' : `${(own / 1e6).toFixed(2)} MB`,
      `${cold.median.toFixed(0)} ms (${cold.min.toFixed(0)}–${cold.max.toFixed(0)})`,
      (cold.median / floorImport.median).toFixed(2) + '×',
    ]);
  }
  printTable(
    `production install (npm install --omit=dev) with ${clientNode}; cold import, median of ${runs}`,
    [
      'install',
      'node_modules',
      'over floor',
      'packages',
      'over floor',
      'kit folder',
      'cold import',
      '×floor',
    ],
    rows,
  );
} finally {
  for (const i of installs) rmSync(i.dir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
