// An error is said once in a log line (issue #36, item 5): a logger call that passes an
// error as a field (`{ error: err }`, `{ err: errorMessage(err) }`) must not also put that
// error's text in its message, since every adapter writes the field (the console logger on
// the line, pino and winston as a field). Read from the source of the runtime, the test
// server package and the examples with the TypeScript parser, so that a new call breaking
// the rule fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const LEVELS = new Set(['debug', 'info', 'warn', 'error']);
const ERROR_FIELDS = new Set(['error', 'err']);

/** The identifiers an expression reads (`errorMessage(err)` → errorMessage, err). */
function identifiers(node: ts.Node, out = new Set<string>()): Set<string> {
  if (ts.isIdentifier(node)) out.add(node.text);
  node.forEachChild((child) => void identifiers(child, out));
  return out;
}

/** Each `<…log…>.<level>(message, { error: x })` whose message interpolates `x` again. */
function violations(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      LEVELS.has(node.expression.name.text) &&
      /log/i.test(node.expression.expression.getText(source)) &&
      node.arguments.length >= 2
    ) {
      const [message, fields] = node.arguments;
      if (fields !== undefined && ts.isObjectLiteralExpression(fields)) {
        for (const property of fields.properties) {
          const name = property.name !== undefined ? property.name.getText(source) : '';
          if (!ERROR_FIELDS.has(name)) continue;
          const value = ts.isPropertyAssignment(property)
            ? property.initializer
            : ts.isShorthandPropertyAssignment(property)
              ? property.name
              : undefined;
          if (value === undefined) continue;
          // The variable holding the error: the identifiers of the field's value that are
          // not functions called on it (`errorMessage`, `String`).
          const errorVars = [...identifiers(value)].filter(
            (id) => !['errorMessage', 'String', 'message', 'instanceof', 'Error'].includes(id),
          );
          const spans =
            message !== undefined && ts.isTemplateExpression(message)
              ? message.templateSpans.map((s) => s.expression)
              : [];
          for (const span of spans) {
            const used = identifiers(span);
            const repeated = errorVars.filter((v) => used.has(v));
            if (repeated.length > 0) {
              const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
              found.push(`${file}:${line + 1}: the message repeats ${repeated.join(', ')}`);
            }
          }
        }
      }
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** The TypeScript sources under `root` (not declarations, not node_modules or dist). */
function sources(root: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .filter((f) => !/(^|[\\/])(node_modules|dist)[\\/]/.test(f))
    .map((f) => join(root, f));
}

test('no log call puts the error of its error field in its message too (the error is said once)', () => {
  // Walked from the file system, not `git ls-files`: the runtime legs run the suite in a copy
  // of the tree that is not a git repository.
  const roots = [
    'src',
    'examples',
    ...readdirSync('packages').map((p) => join('packages', p, 'src')),
  ];
  const files = roots.flatMap((root) => sources(root));
  assert.ok(files.length > 100, `read the sources (${files.length} files)`);
  const found = files.flatMap(violations);
  assert.deepEqual(found, [], found.join('\n'));
});

test('the checker finds a message that repeats its error field', () => {
  const probe = 'test/util/fixtures/log_repeats.ts';
  assert.deepEqual(violations(probe), [
    `${probe}:5: the message repeats err`,
    `${probe}:6: the message repeats err`,
  ]);
});
