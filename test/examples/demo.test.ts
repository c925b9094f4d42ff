// `npm run demo` in CI: the demo as a child process exits 0 on its own, with a summary; and
// when interrupted (Ctrl-C) or timed out it leaves nothing behind with a finalizer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { installApplicationCrd } from './support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const demo = 'examples/application-operator/src/demo.ts';

interface Run {
  code: number | null;
  out: string;
  err: string;
}

function runDemo(args: string[], onLine?: (line: string, kill: () => void) => void): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', demo, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '/nonexistent-the-demo-must-not-read-it' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => {
    const text = b.toString();
    out += text;
    for (const line of text.split('\n')) onLine?.(line, () => child.kill('SIGINT'));
  });
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

describe('demo', () => {
  test('npm run demo (tsx examples/application-operator/src/demo.ts) exits 0 by itself and prints a summary', async () => {
    const { code, out, err } = await runDemo([]);
    assert.equal(code, 0, `demo exited ${code}\n${out}\n${err}`);
    assert.match(out, /in-memory API server/);
    assert.match(out, /caches synced/);
    assert.match(out, /all Applications Ready/);
    assert.match(out, /cleanup\s+default\/worker/);
    assert.match(out, /done in \d+ ms: \d+ reconciles, \d+ status updates, \d+ cleanup/);
    // Logs go to stderr at info: what it connected to and sync progress.
    assert.match(err, /INFO \[demo\] started the in-memory API server/);
    assert.match(err, /caches synced/);
  });

  test('--help prints the usage and exits 0; an unknown flag is an error with the usage (exit 2)', async () => {
    const help = await runDemo(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: demo \[flags\]/);
    assert.match(help.out, /--kubeconfig\[=PATH\]/);
    const bad = await runDemo(['--kubconfig']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^error: unknown flag --kubconfig\n\nUsage: demo/);
  });

  describe('against a cluster it does not own (a server reached by kubeconfig)', () => {
    let server: TestApiServer;
    let dir: string;
    let kubeconfig: string;
    const appsRef = { group: 'example.com', resource: 'applications' };
    before(async () => {
      server = await startTestApiServer();
      await installApplicationCrd(server);
      dir = mkdtempSync(join(tmpdir(), 'kck-demo-'));
      kubeconfig = join(dir, 'kubeconfig.yaml');
      writeFileSync(kubeconfig, server.kubeConfig().exportConfig());
    });
    after(async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const leftovers = () => ({
      applications: server.list(appsRef).map((o) => o.metadata?.name),
      deployments: server
        .list({ group: 'apps', resource: 'deployments' })
        .map((o) => o.metadata?.name),
    });

    test('Ctrl-C: the demo deletes what it created while the operator still runs; no Application is left with a finalizer', async () => {
      // No Deployment controller runs here, so the demo waits for Ready until interrupted.
      let sent = false;
      const run = await runDemo(['--kubeconfig', kubeconfig], (line, kill) => {
        if (!sent && line.includes('created Application default/worker')) {
          sent = true;
          kill();
        }
      });
      assert.ok(sent, `never reached the point to interrupt\n${run.out}\n${run.err}`);
      assert.equal(run.code, 130, `${run.out}\n${run.err}`);
      assert.match(run.err, /cleaning up the Applications the demo created/);
      assert.match(run.out, /removed frontend, backend, worker/);
      assert.deepEqual(leftovers(), { applications: [], deployments: [] });
    });

    test('a timeout: the same cleanup, and the failure says what it was waiting for (exit 1)', async () => {
      const run = await runDemo(['--kubeconfig', kubeconfig, '--timeout', '2']);
      assert.equal(run.code, 1, `${run.out}\n${run.err}`);
      assert.match(run.err, /failed: timed out waiting for: every Application Ready/);
      assert.deepEqual(leftovers(), { applications: [], deployments: [] });
    });
  });
});
