// The `kube-controller-kit` command: --version prints the package's version; each
// subcommand loads only what it needs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const root = fileURLToPath(new URL('../../', import.meta.url));

function cli(
  args: string[],
  nodeArgs: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, '--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: root },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : Number(err.code ?? 1), stdout, stderr }),
    );
  });
}

test('kube-controller-kit --version (and -v) prints the version of package.json and exits 0', async () => {
  const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
    version: string;
  };
  for (const flag of ['--version', '-v']) {
    const r = await cli([flag]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `kube-controller-kit ${version}\n`);
  }
});

test('init runs without @kubernetes/client-node (npx may install a major this Node.js cannot load)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kck-init-'));
  try {
    const refuse = join(root, 'test/cli/support/refuse_client_node.mjs');
    const r = await cli(
      ['init', join(dir, 'op'), '--skip-install', '--group', 'a', '--version', 'v1', '--kind', 'A'],
      ['--import', refuse],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /wrote \d+ files of the op operator/);
    // The hook does refuse it: a command that needs client-node fails under it.
    const kubeconfig = await cli(
      ['kubeconfig', 'x', '--kubeconfig', join(dir, 'none')],
      ['--import', refuse],
    );
    assert.notEqual(kubeconfig.code, 0);
    assert.match(kubeconfig.stderr, /@kubernetes\/client-node was loaded/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
