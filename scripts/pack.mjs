#!/usr/bin/env node
// Packs the two packages of this repository as npm publishes them: kube-controller-kit (the
// runtime) and @kube-controller-kit/testing (the in-memory API server, packages/testing).
// Usage: node scripts/pack.mjs [destination] [--ignore-scripts]
//   destination: where the tarballs go (default: .tmp/pack); the paths are printed, one a line,
//   runtime first. Without --ignore-scripts, each `npm pack` runs the package's `prepack`
//   (the build, and for the runtime the API reference), exactly as `npm publish` would.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const ignoreScripts = args.includes('--ignore-scripts');
const dest = resolve(args.find((a) => !a.startsWith('--')) ?? join(root, '.tmp', 'pack'));
mkdirSync(dest, { recursive: true });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const flags = [
  '--silent',
  '--pack-destination',
  dest,
  ...(ignoreScripts ? ['--ignore-scripts'] : []),
];
for (const dir of [root, join(root, 'packages', 'testing')]) {
  const out = execFileSync(npm, ['pack', ...flags], { cwd: dir, encoding: 'utf8' });
  const name = out.trim().split('\n').pop();
  process.stdout.write(join(dest, name) + '\n');
}
