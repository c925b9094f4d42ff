#!/usr/bin/env node
// Type-checks every TypeScript code block of README.md and docs/*.md under the strictest
// settings a user may set: strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess.
//
// Each ```ts block becomes one module (top-level await allowed) in .tmp/doc-snippets/, with
// `kube-controller-kit` and its subpaths mapped to the sources, and tsc checks them together.
// A block that is deliberately partial is skipped when the line before its fence is
// `<!-- snippet: skip -->`; a block may assume names declared by the line
// `<!-- snippet: declare const app: Application; … -->` before it (TypeScript, inserted at
// its top). Usage: node scripts/check-doc-snippets.mjs   (exit 1 on a type error)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
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
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(indent));
    const before = i > 0 ? lines[i - 1].trim() : '';
    const directive = /^<!--\s*snippet:\s*(.*?)\s*-->$/.exec(before)?.[1] ?? '';
    blocks.push({
      line: i + 1,
      code: body.join('\n'),
      skip: directive === 'skip',
      declare: directive.startsWith('declare ') || directive.startsWith('import ') ? directive : '',
    });
    i = j;
  }
  return blocks;
}

function main() {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];
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
      const name = `${file.replace(/[/.]/g, '_')}_L${b.line}.ts`;
      // The directive goes on the first line so that reported lines stay close to the block's.
      const header = `// ${file}:${b.line}\n${b.declare}\n`;
      writeFileSync(join(out, name), `${header}${b.code}\nexport {};\n`);
      written.push({ name, file, line: b.line });
    }
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
        'kube-controller-kit/testing': [relative(out, join(root, 'src/testing/index.ts'))],
        'kube-controller-kit/metrics': [relative(out, join(root, 'src/metrics/index.ts'))],
        'kube-controller-kit/codegen': [relative(out, join(root, 'src/codegen/index.ts'))],
      },
    },
    include: ['*.ts'],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(out, 'tsconfig.json')], {
    cwd: out,
    encoding: 'utf8',
  });
  const report = (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => !l.startsWith('../../src/'))
    .join('\n');
  if (r.status !== 0) {
    process.stderr.write(report);
    process.stderr.write(
      `\ndoc snippets: type errors above (files in ${relative(root, out)}/ are named <doc>_L<line of the fence>)\n`,
    );
    process.exit(1);
  }
  console.log(`doc snippets: ${written.length} TypeScript blocks type-check (${skipped} marked skip)`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
