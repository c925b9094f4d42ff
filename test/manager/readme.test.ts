// The README's "controller in 40 lines" runs as written: its code block, with the package
// imports pointed at the sources, is executed in a child process.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

describe('README', () => {
  test('the "controller in 40 lines" block runs on the Manager, reconciles three pods and exits 0', async () => {
    const readme = await readFile('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## A controller in 40 lines'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(code, 'the section has a ts block');
    assert.ok(code.split('\n').length <= 45, 'about 40 lines');
    assert.match(code, /new Manager\(/, 'it uses the Manager');
    const src = resolve('src');
    const runnable = code
      .replace(/'kube-controller-kit\/testing'/g, `'${join(src, 'testing/index.ts')}'`)
      .replace(/'kube-controller-kit'/g, `'${join(src, 'index.ts')}'`);
    const dir = await mkdtemp(join(tmpdir(), 'kck-readme-'));
    try {
      const file = join(dir, 'readme.mts');
      await writeFile(file, runnable);
      const child = spawn(process.execPath, ['--import', 'tsx', file], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      clearTimeout(killer);
      assert.equal(code, 0, err);
      const lines = out.trim().split('\n').sort();
      assert.deepEqual(lines, ['default/a: Pending', 'default/b: Pending', 'default/c: Pending']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
