// The quickstart example (the README's program) as a child process: it exits 0 by itself
// after logging its three pods (nothing keeps the process alive once the Manager stopped),
// `--help` prints the usage and exits 0, and an unknown flag is an error with the usage
// (exit 2), like every other example (runProgram from kube-controller-kit).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const main = 'examples/quickstart/src/main.ts';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

function runQuickstart(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '/nonexistent-the-quickstart-must-not-read-it' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  // A process that does not exit by itself (a timer or socket left) is killed and fails.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, out, err });
    }),
  );
}

describe('quickstart example', () => {
  test('runs on the in-memory server, logs the three pods it created, and exits 0 by itself', async () => {
    const run = await runQuickstart(['--log-level', 'warn']);
    assert.equal(run.signal, null, `killed: the process did not exit by itself\n${run.err}`);
    assert.equal(run.code, 0, `${run.out}\n${run.err}`);
    const logged = run.out
      .split('\n')
      .filter((l) => l !== '')
      .sort();
    assert.deepEqual(logged, ['default/a: Pending', 'default/b: Pending', 'default/c: Pending']);
  });

  test('--help prints the usage and exits 0; an unknown flag is an error with the usage (exit 2)', async () => {
    const help = await runQuickstart(['--help']);
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^Usage: quickstart \[flags\]/);
    assert.match(help.out, /--kubeconfig\[=PATH\]/);
    assert.match(help.out, /--log-level LEVEL/);
    const bad = await runQuickstart(['--kubconfig']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^error: unknown flag --kubconfig\n\nUsage: quickstart/);
    assert.equal(bad.out, '', 'nothing ran');
  });
});
