// The API reference is grouped by area: typedoc documents one module per entry point of
// typedoc.json (src/<area>/index.ts), while users import everything from
// `kube-controller-kit` (src/index.ts). So that nothing the package exports is missing from
// the reference, every export of src/index.ts must be exported by an area's entry point, or
// be marked `@internal` (exported for @kube-controller-kit/testing or the CLI, hidden from
// the reference); every area the entry points name must be re-exported by src/index.ts; and
// docs/README.md's table of areas (the reference's map on GitHub and in the site) lists them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve('.');
const { entryPoints } = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as {
  entryPoints: string[];
};
/** The entry points that are areas of the runtime's one import path (not subpaths, not the test server). */
const runtimeAreas = entryPoints.filter(
  (e) => /^src\/[^/]+\/index\.ts$/.test(e) && !/^src\/(metrics|codegen)\//.test(e),
);

function exportsOf(program: ts.Program, file: string): Map<string, ts.Symbol> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(root, file));
  assert.ok(source, `${file} is in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  assert.ok(moduleSymbol, `${file} is a module`);
  const out = new Map<string, ts.Symbol>();
  for (const exp of checker.getExportsOfModule(moduleSymbol)) {
    const target = exp.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exp) : exp;
    out.set(exp.name, target);
  }
  return out;
}

function isInternal(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((d) =>
    ts.getJSDocTags(d).some((t) => t.tagName.text === 'internal'),
  );
}

describe('the API reference covers the package', () => {
  test('every export of kube-controller-kit is in an area of the reference (an entry point of typedoc.json) or marked @internal', () => {
    const program = ts.createProgram(
      [join(root, 'src/index.ts'), ...runtimeAreas.map((e) => join(root, e))],
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        noEmit: true,
        skipLibCheck: true,
        strict: true,
      },
    );
    const documented = new Set<ts.Symbol>();
    for (const area of runtimeAreas) {
      for (const symbol of exportsOf(program, area).values()) documented.add(symbol);
    }
    const missing = [...exportsOf(program, 'src/index.ts')]
      .filter(([, symbol]) => !documented.has(symbol) && !isInternal(symbol))
      .map(([name]) => name);
    assert.deepEqual(
      missing,
      [],
      'export these from an area (add a new area\'s src/<area>/index.ts to "entryPoints" in typedoc.json) or mark them @internal',
    );
  });

  test("docs/README.md's table of areas links every entry point of typedoc.json, in its order", () => {
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    const linked = [...index.matchAll(/^\| \[\w+\]\(\.\.\/([^)\s]+\/index\.ts)\)/gm)].map(
      (m) => m[1],
    );
    assert.deepEqual(
      linked,
      entryPoints,
      'a new area: add its row to "The API reference, by area" in docs/README.md',
    );
  });

  test('every runtime area of the reference is exported by kube-controller-kit (src/index.ts)', () => {
    const index = readFileSync(join(root, 'src/index.ts'), 'utf8');
    for (const area of runtimeAreas) {
      const dir = area.slice('src/'.length, -'/index.ts'.length);
      assert.match(index, new RegExp(`export \\* from '\\./${dir}/index\\.js'`), area);
    }
  });
});
