#!/usr/bin/env node
// Type-checks every TypeScript code block of README.md and docs/*.md under the strictest
// settings a user may set: strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess.
//
// Each ```ts block becomes one module (top-level await allowed) in .tmp/doc-snippets/, with
// `kube-controller-kit` and its subpaths mapped to the sources, and tsc checks them together.
// A block that is deliberately partial is skipped when the line before its fence is
// `<!-- snippet: skip -->`; a block may assume names declared by the line
// `<!-- snippet: declare const app: Application; … -->` before it (TypeScript, inserted at
// its top). Names the guides assume from their text (`kc`, `signal`, `app`, …) are declared
// in scripts/doc-snippets-context.d.ts.txt. Usage: node scripts/check-doc-snippets.mjs   (exit 1 on a type error)
//
// As a consumer: `node scripts/check-doc-snippets.mjs --consumer DIR [--tsc PATH]` writes the
// same blocks into DIR/snippets/ (DIR has the packed library and its peers installed in
// node_modules, as test/examples/standalone.slow.test.ts does) and type-checks them against
// the published declarations, which are checked too (skipLibCheck off for the library),
// with the compiler at PATH (default this checkout's TypeScript), e.g. TypeScript 7.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const out = join(root, '.tmp', 'doc-snippets');

/** The ```ts blocks of one Markdown file: { line, code, declare, skip }. */
export function extractBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i]);
    if (open === null) continue;
    const indent = open[1].length;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++)
      body.push(lines[j].slice(indent));
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const before = k >= 0 ? lines[k].trim() : '';
    const directive = /^<!--\s*snippet:\s*(.*?)\s*-->$/.exec(before)?.[1] ?? '';
    blocks.push({
      line: i + 1,
      code: body.join('\n'),
      skip: directive === 'skip',
      file: directive.startsWith('file ') ? directive.slice(5).trim() : '',
      declare: directive.startsWith('declare ') || directive.startsWith('import ') ? directive : '',
    });
    i = j;
  }
  return blocks;
}

/** The flags every block is checked under: the strictest a user may set. */
const strictest = {
  target: 'ES2022',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  types: ['node'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  skipLibCheck: true,
  noEmit: true,
  moduleDetection: 'force',
  allowImportingTsExtensions: true,
};

/**
 * Writes every TypeScript block of README.md and docs/*.md into `out` (one module each, or
 * a guide's file at its path), the names the guides assume as context.d.ts, and a
 * tsconfig.json of the strictest flags plus `compilerOptions`. Returns the blocks written and
 * the number skipped.
 */
function writeSnippetProject(out, compilerOptions) {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => `docs/${n}`),
  ];
  const written = [];
  let skipped = 0;
  for (const file of files) {
    const blocks = extractBlocks(readFileSync(join(root, file), 'utf8'));
    for (const b of blocks) {
      if (b.skip) {
        skipped++;
        continue;
      }
      const doc = file.replace(/[/.]/g, '_');
      // A block that is a file of a guide's project keeps its path (its relative imports
      // resolve); any other block is a module of its own.
      const name = b.file !== '' ? join(doc, b.file) : `${doc}_L${b.line}.ts`;
      if (!name.endsWith('.ts')) continue;
      mkdirSync(dirname(join(out, name)), { recursive: true });
      const header = `// ${file}:${b.line}\n${b.declare}\n`;
      writeFileSync(join(out, name), `${header}${b.code}\nexport {};\n`);
      written.push({ name, file, line: b.line });
    }
  }
  const tsconfig = {
    compilerOptions: { ...strictest, ...compilerOptions },
    include: ['**/*.ts'],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  copyFileSync(join(root, 'scripts', 'doc-snippets-context.d.ts.txt'), join(out, 'context.d.ts'));
  return { written, skipped };
}

/** Runs the compiler `tsc` (a JavaScript entry point) on the project in `dir`. */
function typeCheck(tsc, dir) {
  return spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], {
    cwd: dir,
    encoding: 'utf8',
  });
}

/**
 * The blocks compiled as a consumer compiles them: `kube-controller-kit` from
 * `consumer`/node_modules (the packed library), its declarations checked under the same
 * flags. The context's one import of an example's generated type is copied beside.
 */
function checkAsConsumer(consumer, tsc) {
  const out = join(consumer, 'snippets', 'check');
  rmSync(join(consumer, 'snippets'), { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // skipLibCheck off: the library's declarations are checked under the same flags. Errors
  // in other packages' declarations are theirs to answer for: counted, not failed on.
  const { written, skipped } = writeSnippetProject(out, { skipLibCheck: false });
  // context.d.ts imports ../../examples/application-operator/src/generated/application_v1.js.
  const generated = 'examples/application-operator/src/generated/application_v1.ts';
  mkdirSync(dirname(join(consumer, generated)), { recursive: true });
  copyFileSync(join(root, generated), join(consumer, generated));
  const r = typeCheck(tsc, out);
  const version = spawnSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' });
  // A diagnostic starts a line with its file (relative to `out`) and `error TS<code>`;
  // continuation lines are indented; tsc's summary lines are not diagnostics.
  const diagnostics = (r.stdout + r.stderr)
    .split(/\n(?=\S)/)
    .filter((d) => /^[^\n]*error TS\d+/.test(d));
  const others = diagnostics.filter(
    (d) =>
      /^[^(]*node_modules\//.test(d) &&
      !/^[^(]*node_modules\/(kube-controller-kit|@kube-controller-kit\/testing)\//.test(d),
  );
  const ours = diagnostics.filter((d) => !others.includes(d));
  if (others.length > 0)
    console.log(
      `doc snippets as a consumer: ${others.length} diagnostics in other packages' declarations, not this library's (first: ${others[0].split('\n')[0]})`,
    );
  if (r.error !== undefined || (r.status !== 0 && others.length === 0) || ours.length > 0) {
    process.stderr.write(`${r.stdout}${r.stderr}${r.error?.message ?? ''}\n`);
    process.stderr.write(
      `\ndoc snippets as a consumer (${version.stdout.trim()}): type errors above\n`,
    );
    process.exit(1);
  }
  console.log(
    `doc snippets as a consumer (${version.stdout.trim()}): ${written.length} TypeScript blocks ` +
      `and the published declarations type-check (${skipped} marked skip)`,
  );
}

function main() {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const tsc = resolve(flag('--tsc') ?? join(root, 'node_modules', 'typescript', 'bin', 'tsc'));
  const consumer = flag('--consumer');
  if (consumer !== undefined) return checkAsConsumer(resolve(consumer), tsc);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const { written, skipped } = writeSnippetProject(out, {
    baseUrl: '.',
    paths: {
      'kube-controller-kit': [relative(out, join(root, 'src/index.ts'))],
      '@kube-controller-kit/testing': [relative(out, join(root, 'packages/testing/src/index.ts'))],
      'kube-controller-kit/metrics': [relative(out, join(root, 'src/metrics/index.ts'))],
      'kube-controller-kit/codegen': [relative(out, join(root, 'src/codegen/index.ts'))],
    },
  });
  const r = typeCheck(tsc, out);
  const report = (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => !l.startsWith('../../src/') && !l.startsWith('../../packages/'))
    .join('\n');
  rmSync(out, { recursive: true, force: true });
  if (r.status !== 0) {
    process.stderr.write(report);
    process.stderr.write(
      `\ndoc snippets: type errors above (each file is named <doc>_L<line of its fence>, or <doc>/<path> for a guide's file)\n`,
    );
    process.exit(1);
  }
  console.log(
    `doc snippets: ${written.length} TypeScript blocks type-check (${skipped} marked skip)`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main();
