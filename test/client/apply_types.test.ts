// Compiles test/client/apply_types.typecheck.ts under the repository's strict settings: apply
// takes a deep-partial object whose identity is required, and toWire/fromWire are typed both
// ways. Every `@ts-expect-error` there must be used, so a looser type fails this test.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import ts from 'typescript';

const file = fileURLToPath(new URL('./apply_types.typecheck.ts', import.meta.url));

describe('typed server-side apply and wire conversion (type level)', () => {
  it('apply accepts a partial object with identity and rejects one without; toWire/fromWire keep Date vs string apart', () => {
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    };
    const program = ts.createProgram([file], options);
    const source = program.getSourceFile(file);
    assert.ok(source);
    const problems = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((d) => {
      const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: -1 };
      return `${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    assert.deepEqual(problems, []);
  });
});
