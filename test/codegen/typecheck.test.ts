// The generated files must compile under the repository's strict settings and mean what they
// say: a `@ts-expect-error` below fails the check when a type is looser than the schema.
// Two versions of one kind import side by side as namespaces (a module per version, as Go
// has a package per version), and the library's typed APIs take the generated interfaces
// as they are: `registerConversion<v1.Widget>` (was TS2344, "does not satisfy the
// constraint 'KubeObject & Record<string, unknown>'"), `registerFor<v1.Widget>`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { generateWidgets, repoRoot } from './helpers.js';

const dir = join(repoRoot, 'test', 'codegen', '__virtual__');

const usage = `
import type { ApiResource, KubeObject } from '../../../src/client/types.js';
import { type Widget, type WidgetList, widgetResource } from './widget_v1.js';
import { type Gadget, gadgetResource } from './gadget_v2.js';
import type * as v1 from './widget_v1.js';
import type * as v1beta1 from './widget_v1beta1.js';
import type { SpokeConverter } from '../../../src/webhook/conversion.js';
import { WebhookServer } from '../../../src/webhook/server.js';

const widget: Widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', labels: { app: 'w' } },
  spec: {
    image: 'nginx',
    replicas: 2,
    mode: 'Slow',
    level: 3,
    port: 'http',
    template: { containers: [{ name: 'c', ports: [80] }] },
    config: { anything: { nested: true } },
    raw: [1, 'two'],
    extras: { known: 'k', unknown: 1 },
    labels: { a: 'b' },
    servers: { main: { host: 'h' } },
    note: null,
    child: null,
    embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
    'dash-name': { inner: 'i' },
    empty: {},
  },
  status: { phase: null },
};
const asKube: KubeObject = widget;
const resource: ApiResource<Widget> = widgetResource;
const list: WidgetList = { metadata: {}, items: [widget] };
const gadget: Gadget = { spec: { color: 'red' } };
const cluster: ApiResource<Gadget> = gadgetResource;
const intPort: Widget['spec']['port'] = 8080;
// exactOptionalPropertyTypes: an optional field takes a value that may be undefined (was TS2412)
const maybeMode: 'Slow' | undefined = widget.spec.mode === 'Slow' ? 'Slow' : undefined;
const explicitUndefined: Widget = { spec: { image: 'x', replicas: 1, mode: maybeMode, port: undefined } };
explicitUndefined.status = { phase: undefined };

// @ts-expect-error replicas is required
const noReplicas: Widget = { spec: { image: 'x' } };
// @ts-expect-error spec is required at the root
const noSpec: Widget = {};
// @ts-expect-error mode is an enum
const badMode: Widget = { spec: { image: 'x', replicas: 1, mode: 'Medium' } };
// @ts-expect-error level is an integer enum
const badLevel: Widget = { spec: { image: 'x', replicas: 1, level: 4 } };
// @ts-expect-error apiVersion is a literal
const badVersion: Widget = { apiVersion: 'example.com/v2', spec: { image: 'x', replicas: 1 } };
// @ts-expect-error unknown fields are rejected where the schema prunes them
const extra: Widget = { spec: { image: 'x', replicas: 1, colour: 'red' } };
// @ts-expect-error a boolean is neither a number nor a string
const badPort: Widget['spec']['port'] = true;
// @ts-expect-error label values are strings
const badLabels: Widget['spec']['labels'] = { a: 1 };
// @ts-expect-error an empty object schema keeps no fields
const notEmpty: Widget['spec']['empty'] = { a: 1 };
// @ts-expect-error container names are required
const noName: Widget['spec']['template'] = { containers: [{}] };
// @ts-expect-error list kinds are literals
const badList: WidgetList = { kind: 'GadgetList', metadata: {}, items: [] };

// Both versions' \`Widget\` in one file, no alias per name: v1.Widget and v1beta1.Widget.
const beta: SpokeConverter<v1.Widget, v1beta1.Widget> = {
  toHub: (old) => ({ ...old, apiVersion: 'example.com/v1', spec: { image: 'x', replicas: old.spec?.size ?? 1 } }),
  fromHub: (hub) => ({ ...hub, apiVersion: 'example.com/v1beta1', spec: { size: hub.spec.replicas } }),
};
const webhooks = new WebhookServer({ port: -1 });
webhooks.registerConversion<v1.Widget>({ group: 'example.com', kind: 'Widget', hub: 'v1', spokes: { v1beta1: beta } });
webhooks.registerConversion({ group: 'example.com', kind: 'Other', hub: 'v1', spokes: { v1beta1: beta } });
webhooks.registerFor<v1.Widget>(
  { group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets' },
  { defaulter: { default: (w) => { w.spec.replicas ||= 1; } } },
);
// @ts-expect-error a spoke converter must return the spoke's fields (size is a number)
const badSpoke: SpokeConverter<v1.Widget, v1beta1.Widget> = { toHub: (o) => ({ ...o, spec: { image: 'x', replicas: 1 } }), fromHub: (h) => ({ ...h, apiVersion: 'example.com/v1beta1', spec: { size: 'big' } }) };

export {
  badSpoke,
  asKube, resource, list, gadget, cluster, intPort, noReplicas, noSpec, badMode, badLevel,
  badVersion, extra, badPort, badLabels, notEmpty, noName, badList,
};
`;

describe('generated types', () => {
  it('type-check under strict settings, and reject objects the schema rejects', async () => {
    const files = new Map<string, string>();
    for (const f of await generateWidgets('../../../src/client/types.js')) {
      files.set(join(dir, f.fileName), f.contents);
    }
    files.set(join(dir, 'usage.ts'), usage);
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
      noUnusedLocals: false,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const base = ts.createCompilerHost(options);
    host.directoryExists = (name) => name === dir || ts.sys.directoryExists(name);
    host.fileExists = (name) => files.has(name) || base.fileExists(name);
    host.readFile = (name) => files.get(name) ?? base.readFile(name);
    host.getSourceFile = (name, languageVersion, ...rest) => {
      const text = files.get(name);
      return text === undefined
        ? base.getSourceFile(name, languageVersion, ...rest)
        : ts.createSourceFile(name, text, languageVersion, true);
    };
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = [...files.keys()].flatMap((name) => {
      const source = program.getSourceFile(name);
      assert.ok(source, `${name} was not loaded`);
      return [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ].map((d) => {
        const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: -1 };
        return `${name.slice(dir.length + 1)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    });
    assert.deepEqual(problems, []);
  });
});
