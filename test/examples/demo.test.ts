// `npm run demo` in CI: the demo as a child process exits 0 on its own, with a summary.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('demo', () => {
  test('npm run demo (tsx examples/demo.ts) exits 0 by itself and prints a summary', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '/nonexistent-the-demo-must-not-read-it' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, `demo exited ${code}\n${out}\n${err}`);
    assert.match(out, /in-memory API server/);
    assert.match(out, /caches synced/);
    assert.match(out, /all Applications Ready/);
    assert.match(out, /cleanup\s+default\/worker/);
    assert.match(out, /done in \d+ ms: \d+ reconciles, \d+ status updates, \d+ cleanup/);
  });
});
