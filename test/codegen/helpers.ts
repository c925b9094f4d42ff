// Shared helpers of the codegen tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type GeneratedFile, generateTypes } from '../../src/codegen/index.js';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Reads a fixture of test/codegen/fixtures. */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Generates from the widgets fixture (three Widget versions and a cluster-scoped Gadget). */
export async function generateWidgets(importFrom?: string): Promise<GeneratedFile[]> {
  return generateTypes(
    [{ file: 'test/codegen/fixtures/widgets.yaml', text: fixture('widgets.yaml') }],
    importFrom === undefined ? {} : { importFrom },
  );
}

/** The file with the given name, or a failed assertion. */
export function file(files: GeneratedFile[], name: string): string {
  const found = files.find((f) => f.fileName === name);
  if (found === undefined) {
    throw new Error(`no ${name} among ${files.map((f) => f.fileName).join(', ')}`);
  }
  return found.contents;
}

/** The body of `export interface <name> … { … }` in a generated file, whitespace collapsed. */
export function interfaceBody(contents: string, name: string): string {
  const start = contents.search(new RegExp(`export interface ${name}\\b[^{]*\\{`));
  if (start < 0) throw new Error(`interface ${name} not found`);
  const open = contents.indexOf('{', start);
  let depth = 0;
  for (let i = open; i < contents.length; i++) {
    if (contents[i] === '{') depth++;
    if (contents[i] === '}' && --depth === 0) {
      return contents
        .slice(open + 1, i)
        .replace(/\/\*\*[\s\S]*?\*\//g, '')
        .replace(/\s+/g, ' ')
        .trim();
    }
  }
  throw new Error(`interface ${name} is not closed`);
}

/** A minimal CRD manifest as JSON text, with one served version whose schema is `schema`. */
export function crdJson(schema: unknown, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind: 'Thing', plural: 'things' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      ...overrides,
    },
  });
}
