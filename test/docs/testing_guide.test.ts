// docs/testing.md "Testing a CRD controller, from an empty folder" works as written: its
// three files (the CRD's YAML, the operator, the test) are copied out of the page into an
// empty folder whose tsconfig.json maps the two packages to this checkout's sources (tsx
// honours `paths`), and the guide's own test runs there with `node --import tsx --test`,
// passing and exiting by itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The blocks of `markdown` preceded by `<!-- snippet: file PATH -->`, by PATH. */
function guideFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>();
  const re = /<!-- snippet: file (\S+) -->\s*\n```\w+\n([\s\S]*?)```/g;
  for (const m of markdown.matchAll(re)) files.set(m[1]!, m[2]!);
  return files;
}

/** This process's environment without node:test's marker, so the child runs its own tests. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

describe('docs/testing.md: the CRD controller recipe', () => {
  test('its crd.yaml, operator and test, copied into an empty folder, pass with node --import tsx --test', async () => {
    const doc = await readFile('docs/testing.md', 'utf8');
    const section = doc.slice(doc.indexOf('## Testing a CRD controller, from an empty folder'));
    const files = guideFiles(section);
    assert.deepEqual([...files.keys()].sort(), [
      'crd.yaml',
      'src/backup_controller.ts',
      'test/backup_controller.test.ts',
    ]);
    const dir = await mkdtemp(join(tmpdir(), 'kck-guide-'));
    try {
      // The folder after the guide's `npm install`: its package.json and node_modules.
      await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
      await symlink(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            paths: {
              'kube-controller-kit': [resolve('src/index.ts')],
              '@kube-controller-kit/testing': [resolve('packages/testing/src/index.ts')],
            },
          },
        }),
      );
      for (const [path, text] of files) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      // The guide's command, with the reporter named: with stdout a pipe, node:test's
      // default reporter is TAP up to Node 22 and spec from Node 23 on (whose summary reads
      // `ℹ pass 1`). The reporter formats the results only; TAP's summary is the same on
      // every Node major.
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/backup_controller.test.ts'],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
      // A test that never finishes, or a process kept alive by a handle, is killed: a failure.
      const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
        child.on('close', (c, s) => r([c, s])),
      );
      clearTimeout(killer);
      assert.equal(signal, null, `killed: it did not exit by itself\n${out}`);
      assert.equal(code, 0, out);
      assert.match(out, /^# tests 1$/m);
      assert.match(out, /^# pass 1$/m);
      assert.match(out, /^# fail 0$/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
