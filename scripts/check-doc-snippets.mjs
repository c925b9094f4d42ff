#!/usr/bin/env node
// Type-checks every TypeScript code block of README.md and docs/*.md, and the example of each
// area of the API reference (the ```ts block in the `@module` comment of each entry point
// in typedoc.json), under the strictest settings a user may set: strict,
// exactOptionalPropertyTypes, noUncheckedIndexedAccess.
//
// Each ```ts block becomes one module (top-level await allowed) in .tmp/doc-snippets/, with
// `kube-controller-kit` and its subpaths mapped to the sources, and tsc checks them together.
// A block that is deliberately partial is skipped when the line before its fence is
// `<!-- snippet: skip -->`; a block may assume names declared by the line
// `<!-- snippet: declare const app: Application; … -->` before it (TypeScript, inserted at
// its top). Names the guides assume from their text (`kc`, `signal`, `app`, …) are declared
// in scripts/doc-snippets-context.d.ts.txt. Usage: node scripts/check-doc-snippets.mjs   (exit 1 on a type error)
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

/** The text of the first doc comment of a TypeScript file, without its ` * ` margins. */
export function moduleComment(source) {
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source);
  if (m === null) return '';
  return m[1]
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join('\n');
}

/**
 * The ```ts examples of the areas of the API reference: for each entry point of
 * typedoc.json, the blocks of its module comment, as { file, line, code } (line: of the
 * comment's text, from 1).
 */
export function moduleExamples(rootDir = root) {
  const { entryPoints } = JSON.parse(readFileSync(join(rootDir, 'typedoc.json'), 'utf8'));
  const out = [];
  for (const file of entryPoints) {
    const comment = moduleComment(readFileSync(join(rootDir, file), 'utf8'));
    for (const b of extractBlocks(comment)) out.push({ file, line: b.line, code: b.code });
  }
  return out;
}

function main() {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => `docs/${n}`),
  ];
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
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
  for (const ex of moduleExamples()) {
    const name = `${ex.file.replace(/[/.]/g, '_')}_L${ex.line}.ts`;
    writeFileSync(
      join(out, name),
      `// ${ex.file} (module comment):${ex.line}\n${ex.code}\nexport {};\n`,
    );
    written.push({ name, file: ex.file, line: ex.line });
  }
  const tsconfig = {
    compilerOptions: {
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
      baseUrl: '.',
      paths: {
        'kube-controller-kit': [relative(out, join(root, 'src/index.ts'))],
        '@kube-controller-kit/testing': [
          relative(out, join(root, 'packages/testing/src/index.ts')),
        ],
        'kube-controller-kit/metrics': [relative(out, join(root, 'src/metrics/index.ts'))],
        'kube-controller-kit/codegen': [relative(out, join(root, 'src/codegen/index.ts'))],
      },
    },
    include: ['**/*.ts'],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  copyFileSync(join(root, 'scripts', 'doc-snippets-context.d.ts.txt'), join(out, 'context.d.ts'));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(out, 'tsconfig.json')], {
    cwd: out,
    encoding: 'utf8',
  });
  const report = (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => !l.startsWith('../../src/'))
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
