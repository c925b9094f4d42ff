// Each area of the API reference opens with one runnable example (the ```ts block of the
// `@module` comment of each entry point in typedoc.json; scripts/check-doc-snippets.mjs
// type-checks them under the strictest flags). Here each one runs as a program of its own,
// as a user who pastes it would run it (`node --import tsx`, the repository's tsconfig
// mapping the two packages to their sources), and must exit 0 by itself, having printed
// what its comments say it prints.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { moduleExamples } from '../../scripts/check-doc-snippets.mjs';

const root = resolve('.');
const dir = join(root, '.tmp', 'module-examples');

/** What each area's example prints (a line each), by entry point. */
const expected: Record<string, RegExp[]> = {
  'src/client/index.ts': [/^settings safe$/m],
  'src/cache/index.ts': [/^added settings$/m, /^uid [0-9a-f-]{36}$/m],
  'src/dynamic/index.ts': [/^settings mode fast$/m],
  'src/workqueue/index.ts': [/^default\/web done after 3 attempts$/m],
  'src/controller/index.ts': [/^default\/settings \{ mode: 'fast' \}$/m],
  'src/manager/index.ts': [/^reconcile default\/settings$/m],
  'src/webhook/index.ts': [/denied the request: a ConfigMap needs an owner label$/m],
  'src/leaderelection/index.ts': [/^leader is replica-1$/m, /^leading;/m, /^stopped leading$/m],
  'src/record/index.ts': [/^Configured mode set to fast$/m],
  'src/sharding/index.ts': [/^default\/web replica-\w \(stays\)$/m, /replica-c → replica-[ab]$/m],
  'src/multicluster/index.ts': [
    /^member-a default\/settings mode=fast$/m,
    /^member-b default\/settings mode=safe$/m,
  ],
  'src/program/index.ts': [/^default\nkube-public\nkube-system$/m],
  'src/util/index.ts': [
    /attempt=1 delayMs=800 /,
    /attempt=2 delayMs=1600 /,
    /attempt=3 delayMs=3200 /,
  ],
  'src/metrics/index.ts': [/workqueue_adds_total\{name="example"\} 1/],
  'src/codegen/index.ts': [/^\/\/ widget_v1\.ts$/m, /export interface Widget\b/],
  'packages/testing/src/index.ts': [/^injected: true$/m, /^stored at resourceVersion \d+$/m],
};

interface Outcome {
  /** Whether its module evaluated without throwing; the error if not. */
  error: string | undefined;
  stdout: string;
  stderr: string;
}

/**
 * Runs the examples one after another in one Node process with tsx (started once: under
 * tsx most of a run is compiling the library), each imported as a module of its own, and
 * splits the output by example. Resolves with each one's outcome and the process's exit
 * code: the process must exit by itself, so no example may leave anything running.
 */
async function runAll(
  examples: readonly { file: string; code: string }[],
): Promise<{ exitCode: number | null; outcomes: Map<string, Outcome> }> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const ex of examples) {
    const file = join(dir, `${ex.file.replace(/[/.]/g, '_')}.ts`);
    await writeFile(file, `${ex.code}\nexport {};\n`);
    files.push(file);
  }
  const runner = join(dir, 'run.mjs');
  await writeFile(
    runner,
    [
      "import { pathToFileURL } from 'node:url';",
      'for (const [i, file] of JSON.parse(process.env.MODULE_EXAMPLES).entries()) {',
      '  const mark = `\\n@@example ${i}@@\\n`;',
      '  process.stdout.write(mark);',
      '  process.stderr.write(mark);',
      '  try {',
      '    await import(pathToFileURL(file).href);',
      '  } catch (err) {',
      '    process.stderr.write(`\\n@@threw@@${err?.stack ?? err}\\n`);',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  // The files come by the environment: the program example parses its command line.
  const env: NodeJS.ProcessEnv = { ...process.env, MODULE_EXAMPLES: JSON.stringify(files) };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--import', 'tsx', runner], { cwd: root, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exitCode = await new Promise<number | null>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', resolvePromise);
  });
  await rm(dir, { recursive: true, force: true });
  const split = (text: string): string[] => text.split(/\n@@example \d+@@\n/).slice(1);
  const outs = split(stdout);
  const errs = split(stderr);
  const outcomes = new Map<string, Outcome>();
  examples.forEach((ex, i) => {
    const err = errs[i] ?? '';
    const threw = err.indexOf('\n@@threw@@');
    outcomes.set(ex.file, {
      error: threw >= 0 ? err.slice(threw + 11) : i < errs.length ? undefined : 'never ran',
      stdout: outs[i] ?? '',
      stderr: threw >= 0 ? err.slice(0, threw) : err,
    });
  });
  return { exitCode, outcomes };
}

describe('the example that opens each area of the API reference', () => {
  const examples = moduleExamples(root);
  const { entryPoints } = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as {
    entryPoints: string[];
  };

  test('every entry point of typedoc.json opens with exactly one example, and each is listed here', () => {
    assert.deepEqual(
      examples.map((e) => e.file),
      entryPoints,
      'one ```ts block in the module comment of each entry point, in order',
    );
    assert.deepEqual(
      Object.keys(expected).sort(),
      [...entryPoints].sort(),
      'a new entry point of typedoc.json: add to `expected` above what its example prints',
    );
  });

  const run = runAll(examples);
  for (const ex of examples) {
    test(`${ex.file}: runs and prints what it says`, async () => {
      const { error, stdout, stderr } = (await run).outcomes.get(ex.file)!;
      assert.equal(error, undefined, `${ex.file} threw`);
      for (const re of expected[ex.file] ?? []) {
        assert.match(`${stdout}${stderr}`, re, `${ex.file} prints ${re}`);
      }
    });
  }

  test('having run them all, the process exits 0 by itself: no example leaves a server, socket or timer behind', async () => {
    assert.equal((await run).exitCode, 0);
  });
});
