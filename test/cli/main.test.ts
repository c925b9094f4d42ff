// The `kube-controller-kit` command: --version prints the package's version.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const root = fileURLToPath(new URL('../../', import.meta.url));

function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: root },
      (err, stdout) => resolve({ code: err === null ? 0 : Number(err.code ?? 1), stdout }),
    );
  });
}

test('kube-controller-kit --version (and -v) prints the version of package.json and exits 0', async () => {
  const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
    version: string;
  };
  for (const flag of ['--version', '-v']) {
    const r = await cli(flag);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `kube-controller-kit ${version}\n`);
  }
});
