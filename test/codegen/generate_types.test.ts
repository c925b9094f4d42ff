import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { format } from 'prettier';
import { generateTypes } from '../../src/codegen/index.js';
import { crdJson, file, generateWidgets, interfaceBody } from './helpers.js';

describe('generateTypes', () => {
  it('writes one file per served version and none for a version that is not served', async () => {
    const files = await generateWidgets();
    assert.deepEqual(
      files.map((f) => [f.fileName, f.crd, f.version, f.kind]),
      [
        ['widget_v1beta1.ts', 'widgets.example.com', 'v1beta1', 'Widget'],
        ['widget_v1.ts', 'widgets.example.com', 'v1', 'Widget'],
        ['gadget_v2.ts', 'gadgets.example.org', 'v2', 'Gadget'],
      ],
    );
    assert.doesNotMatch(files.map((f) => f.contents).join('\n'), /legacy/);
  });

  it('gives each version its own schema and apiVersion literal', async () => {
    const files = await generateWidgets();
    assert.equal(
      interfaceBody(file(files, 'widget_v1beta1.ts'), 'WidgetSpec'),
      'size?: number | undefined;',
    );
    assert.match(file(files, 'widget_v1beta1.ts'), /apiVersion\?: 'example\.com\/v1beta1';/);
    assert.match(file(files, 'widget_v1.ts'), /apiVersion\?: 'example\.com\/v1';/);
  });

  it('marks a deprecated version @deprecated with its deprecation warning', async () => {
    const files = await generateWidgets();
    assert.match(
      file(files, 'widget_v1beta1.ts'),
      /@deprecated example\.com\/v1beta1 Widget is deprecated; use example\.com\/v1 Widget\n \*\/\nexport interface Widget /,
    );
    assert.doesNotMatch(file(files, 'widget_v1.ts'), /@deprecated/);
  });

  it('types apiVersion and kind as literals and metadata as ObjectMeta', async () => {
    const body = interfaceBody(file(await generateWidgets(), 'widget_v1.ts'), 'Widget');
    assert.equal(
      body,
      "apiVersion?: 'example.com/v1'; kind?: 'Widget'; metadata?: ObjectMeta; spec: WidgetSpec; status?: WidgetStatus | undefined;",
    );
  });

  it('makes required fields non-optional and the others optional', async () => {
    const body = interfaceBody(file(await generateWidgets(), 'widget_v1.ts'), 'WidgetSpec');
    assert.match(body, /(^|; )image: string;/);
    assert.match(body, /(^|; )replicas: number;/);
    assert.match(body, /(^|; )tags\?: string\[\] \| undefined;/);
    const containers = interfaceBody(
      file(await generateWidgets(), 'widget_v1.ts'),
      'WidgetSpecTemplateContainers',
    );
    assert.equal(containers, 'name: string; ports?: number[] | undefined;');
  });

  it('names nested objects and array elements after their path', async () => {
    const contents = file(await generateWidgets(), 'widget_v1.ts');
    assert.match(
      interfaceBody(contents, 'WidgetSpec'),
      /template\?: WidgetSpecTemplate \| undefined;/,
    );
    assert.equal(
      interfaceBody(contents, 'WidgetSpecTemplate'),
      'containers?: WidgetSpecTemplateContainers[] | undefined;',
    );
    assert.match(
      interfaceBody(contents, 'WidgetSpec'),
      /'dash-name'\?: WidgetSpecDashName \| undefined;/,
    );
  });

  it('turns string and integer enums into unions of literals', async () => {
    const body = interfaceBody(file(await generateWidgets(), 'widget_v1.ts'), 'WidgetSpec');
    assert.match(body, /mode\?: 'Fast' \| 'Slow' \| undefined;/);
    assert.match(body, /level\?: 1 \| 2 \| 3 \| undefined;/);
  });

  it('types x-kubernetes-int-or-string as number | string, ignoring its anyOf', async () => {
    const body = interfaceBody(file(await generateWidgets(), 'widget_v1.ts'), 'WidgetSpec');
    assert.match(body, /port\?: number \| string \| undefined;/);
  });

  it('maps preserve-unknown-fields to unknown, an index signature, or both with properties', async () => {
    const contents = file(await generateWidgets(), 'widget_v1.ts');
    const body = interfaceBody(contents, 'WidgetSpec');
    assert.match(body, /raw\?: unknown \| undefined;/);
    assert.match(body, /config\?: \{ \[k: string\]: unknown \} \| undefined;/);
    assert.equal(
      interfaceBody(contents, 'WidgetSpecExtras'),
      'known?: string | undefined; [k: string]: unknown;',
    );
  });

  it('maps additionalProperties to an index signature of the value type', async () => {
    const body = interfaceBody(file(await generateWidgets(), 'widget_v1.ts'), 'WidgetSpec');
    assert.match(body, /labels\?: \| \{ \[k: string\]: string; \} \| undefined;/);
    assert.match(body, /servers\?: \| \{ \[k: string\]: WidgetSpecServers; \} \| undefined;/);
  });

  it('adds | null to nullable fields, enums and named objects', async () => {
    const contents = file(await generateWidgets(), 'widget_v1.ts');
    assert.match(interfaceBody(contents, 'WidgetSpec'), /note\?: string \| null \| undefined;/);
    assert.match(
      interfaceBody(contents, 'WidgetSpec'),
      /child\?: WidgetSpecChild \| null \| undefined;/,
    );
    assert.equal(
      interfaceBody(contents, 'WidgetStatus'),
      "phase?: 'Pending' | 'Ready' | null | undefined;",
    );
  });

  it('gives an embedded resource apiVersion, kind and ObjectMeta metadata', async () => {
    const contents = file(await generateWidgets(), 'widget_v1.ts');
    assert.equal(
      interfaceBody(contents, 'WidgetSpecEmbedded'),
      'apiVersion?: string | undefined; kind?: string | undefined; metadata?: ObjectMeta | undefined; [k: string]: unknown;',
    );
  });

  it('types an object without properties as empty, since the server prunes its fields', async () => {
    const body = interfaceBody(file(await generateWidgets(), 'widget_v1.ts'), 'WidgetSpec');
    assert.match(body, /empty\?: Record<string, never> \| undefined;/);
  });

  it('writes descriptions as TSDoc, escaping comment ends and tags', async () => {
    const contents = file(await generateWidgets(), 'widget_v1.ts');
    assert.match(
      contents,
      /\/\*\*\n \* A Widget does widget things\. Ends a comment\? \*\\\/ Tags like \\@example are text\.\n/,
    );
    assert.match(contents, /\/\*\*\n {3}\* The image\.\n {3}\*\/\n {2}image: string;/);
    assert.match(contents, /\* Validation: at least 1\.\n {3}\*\/\n {2}replicas: number;/);
    assert.match(contents, /\* @defaultValue `"Fast"`\n {3}\*\/\n {2}mode\?:/);
  });

  it('documents a referenced sub-interface at the property as well as at the interface', async () => {
    const contents = file(await generateWidgets(), 'widget_v1.ts');
    assert.match(contents, /\* Desired state\.\n {3}\*\/\n {2}spec: WidgetSpec;/);
    assert.match(contents, /\* Desired state\.\n \*\/\nexport interface WidgetSpec \{/);
  });

  it('ends with the List type and an ApiResource constant, namespaced or cluster-scoped', async () => {
    const files = await generateWidgets();
    const widget = file(files, 'widget_v1.ts');
    assert.equal(
      interfaceBody(widget, 'WidgetList'),
      "apiVersion?: 'example.com/v1'; kind?: 'WidgetList';",
    );
    assert.match(widget, /export interface WidgetList extends ObjectList<Widget> \{/);
    assert.match(
      widget,
      /export const widgetResource: ApiResource<Widget> = \{\n {2}group: 'example\.com',\n {2}version: 'v1',\n {2}resource: 'widgets',\n {2}kind: 'Widget',\n {2}namespaced: true,\n\};/,
    );
    assert.match(file(files, 'gadget_v2.ts'), /namespaced: false,/);
    assert.match(file(files, 'gadget_v2.ts'), /cluster-scoped; resource `gadgets`\./);
  });

  it('honours spec.names.listKind', async () => {
    const text = crdJson(
      { type: 'object' },
      { names: { kind: 'Thing', plural: 'things', listKind: 'ThingCollection' } },
    );
    const [out] = await generateTypes([{ file: 'x.json', text }]);
    assert.match(out!.contents, /export interface ThingCollection extends ObjectList<Thing> \{/);
  });

  it('starts with a header naming the generator, the command and the source', async () => {
    const [out] = await generateTypes(
      [{ file: 'dir\\crd.json', text: crdJson({ type: 'object' }) }],
      {
        command: 'kube-controller-kit gen types crd.json -o out',
        importFrom: '../lib/index.js',
      },
    );
    assert.equal(
      out!.contents.split('\n').slice(0, 5).join('\n'),
      [
        '// Code generated by kube-controller-kit gen types; DO NOT EDIT.',
        '// Command: kube-controller-kit gen types crd.json -o out',
        '// Source: dir/crd.json, CustomResourceDefinition things.example.com, version v1.',
        '/* eslint-disable */',
        "import type { ApiResource, ObjectList, ObjectMeta } from '../lib/index.js';",
      ].join('\n'),
    );
  });

  it('imports from kube-controller-kit by default', async () => {
    const [out] = await generateTypes([{ file: 'c.json', text: crdJson({ type: 'object' }) }]);
    assert.match(out!.contents, /from 'kube-controller-kit';\n/);
  });

  it('is deterministic and already formatted in the repository prettier style', async () => {
    const first = await generateWidgets();
    const second = await generateWidgets();
    assert.deepEqual(first, second);
    for (const f of first) {
      const formatted = await format(f.contents, {
        parser: 'typescript',
        printWidth: 100,
        singleQuote: true,
        trailingComma: 'all',
      });
      assert.equal(formatted, f.contents, `${f.fileName} changes under prettier`);
    }
  });

  it('keeps generated sub-interface names unique when two paths give the same name', async () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            fooBar: { type: 'object', properties: { a: { type: 'string' } } },
            foo: {
              type: 'object',
              properties: { bar: { type: 'object', properties: { b: { type: 'string' } } } },
            },
          },
        },
      },
    };
    const [out] = await generateTypes([{ file: 'c.json', text: crdJson(schema) }]);
    assert.equal(interfaceBody(out!.contents, 'ThingSpecFooBar'), 'a?: string | undefined;');
    assert.equal(interfaceBody(out!.contents, 'ThingSpecFooBar2'), 'b?: string | undefined;');
    assert.equal(
      interfaceBody(out!.contents, 'ThingSpecFoo'),
      'bar?: ThingSpecFooBar2 | undefined;',
    );
  });

  it('refuses two CRDs whose files would collide, naming both', async () => {
    const a = crdJson({ type: 'object' });
    const b = JSON.parse(a);
    b.metadata.name = 'things.other.io';
    b.spec.group = 'other.io';
    await assert.rejects(
      generateTypes([
        { file: 'a.json', text: a },
        { file: 'b.json', text: JSON.stringify(b) },
      ]),
      {
        name: 'InvalidCrdError',
        message:
          'b.json, document 1 (line 1): CustomResourceDefinition "things.other.io": its version v1 would be written to thing_v1.ts, as would the CRD "things.example.com" from a.json; generate them into different directories',
      },
    );
  });
});
