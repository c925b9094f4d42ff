#!/usr/bin/env node
// Runs the test suite with Node's own test runner (node:test), TypeScript through tsx.
// Usage: node scripts/run-tests.mjs [file-or-directory ...]   (default: test/)
// Every test file runs in its own process; test/support/setup.ts fails a file that
// leaves a handle (socket, server, timer) open after its tests finish.
// Files named *.slow.test.ts (minutes, need the npm registry) run only when named
// explicitly, e.g. by `npm run test:examples`, which .ci/run calls after `npm test`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

function collect(path, out, explicit = true) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) collect(join(path, name), out, false);
  } else if (path.endsWith('.test.ts') && (explicit || !path.endsWith('.slow.test.ts'))) {
    out.push(path);
  }
}

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const targets = args.filter((a) => !a.startsWith('--'));
const files = [];
for (const target of targets.length > 0 ? targets : ['test']) collect(target, files);
if (files.length === 0) {
  console.error(`no test files found under ${targets.join(' ') || 'test'}`);
  process.exit(1);
}

const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    resolve('test/support/setup.ts'),
    '--test',
    '--test-reporter=spec',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
    '--test-timeout=120000',
    ...flags,
    ...files,
  ],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
