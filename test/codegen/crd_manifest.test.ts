import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CrdCodegenError,
  CrdSyntaxError,
  InvalidCrdError,
  NotACrdError,
  generateTypes,
  parseCrdManifests,
} from '../../src/codegen/index.js';
import { KubeControllerKitError } from '../../src/util/errors.js';
import { crdJson, fixture } from './helpers.js';

const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n';

describe('parseCrdManifests', () => {
  it('reads every CRD of a multi-document YAML file in order, with scope and names', () => {
    const crds = parseCrdManifests(fixture('widgets.yaml'), 'widgets.yaml');
    assert.deepEqual(
      crds.map((c) => [c.name, c.group, c.kind, c.listKind, c.plural, c.namespaced, c.shortNames]),
      [
        ['widgets.example.com', 'example.com', 'Widget', 'WidgetList', 'widgets', true, ['wd']],
        ['gadgets.example.org', 'example.org', 'Gadget', 'GadgetList', 'gadgets', false, []],
      ],
    );
    assert.deepEqual(
      crds[0]!.versions.map((v) => [v.name, v.served, v.storage, v.deprecated]),
      [
        ['v1alpha1', false, false, false],
        ['v1beta1', true, false, true],
        ['v1', true, true, false],
      ],
    );
    assert.deepEqual(crds[1]!.at, { file: 'widgets.yaml', document: 2, line: 135 });
  });

  it('reads JSON input', () => {
    const [crd] = parseCrdManifests(crdJson({ type: 'object' }), 'crd.json');
    assert.equal(crd!.kind, 'Thing');
  });

  it('skips empty documents and expands List documents', () => {
    const item = JSON.parse(crdJson({ type: 'object' }));
    const text = `---\n---\n${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [item] })}\n`;
    const crds = parseCrdManifests(text, 'list.yaml');
    assert.equal(crds.length, 1);
    assert.equal(crds[0]!.at.item, 1);
  });

  it('fails on invalid YAML with a CrdSyntaxError naming file, document and line', () => {
    const text = `${configMap}---\nkind: [unclosed\n`;
    assert.throws(
      () => parseCrdManifests(text, 'bad.yaml'),
      (err: unknown) => {
        assert.ok(err instanceof CrdSyntaxError);
        assert.ok(err instanceof CrdCodegenError);
        assert.ok(err instanceof KubeControllerKitError);
        assert.equal(err.file, 'bad.yaml');
        assert.equal(err.document, 2);
        assert.match(err.message, /^bad\.yaml, document 2 \(line \d+\): not valid YAML or JSON: /);
        return true;
      },
    );
  });

  it('fails on invalid JSON with a CrdSyntaxError', () => {
    assert.throws(() => parseCrdManifests('{"apiVersion": ', 'bad.json'), CrdSyntaxError);
  });

  it('fails on a document that is not a CRD with a NotACrdError naming what it is', () => {
    const text = `${crdJson({ type: 'object' })}\n---\n${configMap}`;
    assert.throws(() => parseCrdManifests(text, 'mixed.yaml'), {
      name: 'NotACrdError',
      message:
        'mixed.yaml, document 2 (line 3): expected an apiextensions.k8s.io/v1 CustomResourceDefinition, found v1/ConfigMap; pass only CRD manifests, or use --ignore-other-kinds to skip other documents',
    });
    assert.throws(
      () => parseCrdManifests('- 1\n- 2\n', 'list.yaml'),
      (err: unknown) => {
        assert.ok(err instanceof NotACrdError);
        assert.equal(err.found, 'an array');
        return true;
      },
    );
  });

  it('skips other kinds when asked to', () => {
    const text = `${configMap}---\n${crdJson({ type: 'object' })}\n`;
    const crds = parseCrdManifests(text, 'mixed.yaml', { ignoreOtherKinds: true });
    assert.deepEqual(
      crds.map((c) => [c.name, c.at.document]),
      [['things.example.com', 2]],
    );
  });

  it('fails on a served version without a schema, naming the CRD and the version', () => {
    const text = crdJson(undefined);
    assert.throws(
      () => parseCrdManifests(text, 'noschema.json'),
      (err: unknown) => {
        assert.ok(err instanceof InvalidCrdError);
        assert.equal(err.crd, 'things.example.com');
        assert.equal(
          err.message,
          'noschema.json, document 1 (line 1): CustomResourceDefinition "things.example.com": served version v1 has no schema.openAPIV3Schema; add a structural schema (types are generated from it)',
        );
        return true;
      },
    );
  });

  it('accepts a version without a schema when it is not served', () => {
    const text = crdJson(undefined, {
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object' } },
        },
        { name: 'v0', served: false, storage: false },
      ],
    });
    assert.equal(parseCrdManifests(text, 'x.json')[0]!.versions.length, 2);
  });

  it('fails on apiextensions.k8s.io/v1beta1 with advice to convert', () => {
    const text = crdJson({ type: 'object' }).replace(
      'apiextensions.k8s.io/v1',
      'apiextensions.k8s.io/v1beta1',
    );
    assert.throws(() => parseCrdManifests(text, 'old.json'), {
      name: 'InvalidCrdError',
      message:
        /apiextensions\.k8s\.io\/v1beta1 is not supported; convert the manifest to apiextensions\.k8s\.io\/v1/,
    });
  });

  it('fails on missing names, group, scope or versions, naming the field', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ group: undefined }, /spec\.group is missing or not a string/],
      [{ names: { kind: 'Thing' } }, /spec\.names\.plural is missing or not a string/],
      [
        { names: { kind: 'my-thing', plural: 'x' } },
        /spec\.names\.kind "my-thing" is not a valid kind/,
      ],
      [{ scope: 'Global' }, /spec\.scope must be "Namespaced" or "Cluster"/],
      [{ versions: [] }, /spec\.versions is missing or empty/],
    ];
    for (const [overrides, message] of cases) {
      assert.throws(
        () => parseCrdManifests(crdJson({ type: 'object' }, overrides), 'x.json'),
        (err: unknown) => err instanceof InvalidCrdError && message.test(err.message),
        String(message),
      );
    }
  });

  it('fails on a root schema that is not an object', () => {
    assert.throws(() => parseCrdManifests(crdJson({ type: 'string' }), 'x.json'), {
      name: 'InvalidCrdError',
      message: /the schema of version v1 must have type "object" at its root/,
    });
  });

  it('fails through generateTypes with the same typed errors', async () => {
    await assert.rejects(generateTypes([{ file: 'cm.yaml', text: configMap }]), NotACrdError);
  });
});
