// Field paths, sets and the FieldsV1 encoding of server-side apply (structured-merge-diff's
// fieldpath package). Expected encodings are the ones a real apiextensions-apiserver wrote.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldManagerError } from '../../../packages/testing/src/fieldmanager/errors.js';
import {
  fieldsV1ToSet,
  setToFieldsV1,
} from '../../../packages/testing/src/fieldmanager/fields_v1.js';
import {
  compareElements,
  deserializeElement,
  fieldElement,
  indexElement,
  keyElement,
  makePath,
  pathToString,
  serializeElement,
  valueElement,
} from '../../../packages/testing/src/fieldmanager/path.js';
import { FieldSet } from '../../../packages/testing/src/fieldmanager/set.js';

describe('field path elements', () => {
  it('serialize as f:, k: (key fields sorted by name), v: and i:', () => {
    assert.equal(serializeElement(fieldElement('replicas')), 'f:replicas');
    assert.equal(
      serializeElement(
        keyElement([
          ['protocol', 'TCP'],
          ['containerPort', 80],
        ]),
      ),
      'k:{"containerPort":80,"protocol":"TCP"}',
    );
    assert.equal(serializeElement(valueElement('a')), 'v:"a"');
    assert.equal(serializeElement(indexElement(3)), 'i:3');
  });

  it('key and value elements escape HTML characters as Go does', () => {
    assert.equal(serializeElement(valueElement('<a&b>')), 'v:"\\u003ca\\u0026b\\u003e"');
  });

  it('deserialize back to equal elements, skipping unknown kinds', () => {
    for (const pe of [
      fieldElement('x'),
      keyElement([
        ['name', 'web'],
        ['port', 8080],
      ]),
      valueElement(true),
      indexElement(0),
    ]) {
      const back = deserializeElement(serializeElement(pe));
      assert.ok(back);
      assert.equal(compareElements(back, pe), 0);
    }
    assert.equal(deserializeElement('z:whatever'), undefined);
  });

  it('a malformed element is a FieldManagerError', () => {
    assert.throws(() => deserializeElement('f'), FieldManagerError);
    assert.throws(() => deserializeElement('fx'), FieldManagerError);
    assert.throws(() => deserializeElement('k:{nope'), FieldManagerError);
  });

  it('order: field names, then keys, then values, then indexes', () => {
    const sorted = [indexElement(0), valueElement('a'), keyElement([['n', 'a']]), fieldElement('z')]
      .sort(compareElements)
      .map(serializeElement);
    assert.deepEqual(sorted, ['f:z', 'k:{"n":"a"}', 'v:"a"', 'i:0']);
  });

  it('values order numbers before strings before booleans', () => {
    const sorted = [valueElement(true), valueElement('b'), valueElement(2), valueElement('a')]
      .sort(compareElements)
      .map(serializeElement);
    assert.deepEqual(sorted, ['v:2', 'v:"a"', 'v:"b"', 'v:true']);
  });

  it('paths print as kube-apiserver prints them in conflicts', () => {
    assert.equal(
      pathToString(makePath('spec', 'ports', keyElement([['name', 'http']]), 'port')),
      '.spec.ports[name="http"].port',
    );
    assert.equal(pathToString(makePath('spec', 'tags', valueElement('a'))), '.spec.tags[="a"]');
    assert.equal(pathToString(makePath('spec', 'args', indexElement(2))), '.spec.args[2]');
  });
});

describe('FieldSet', () => {
  const a = makePath('spec', 'replicas');
  const b = makePath('spec', 'color');
  const c = makePath('metadata', 'labels', 'x');

  it('a path is a member, its prefix is not', () => {
    const s = FieldSet.of(a);
    assert.ok(s.has(a));
    assert.ok(!s.has(makePath('spec')));
  });

  it('union, intersection and difference work path by path', () => {
    const s1 = FieldSet.of(a, b);
    const s2 = FieldSet.of(b, c);
    assert.ok(s1.union(s2).equals(FieldSet.of(a, b, c)));
    assert.ok(s1.intersection(s2).equals(FieldSet.of(b)));
    assert.ok(s1.difference(s2).equals(FieldSet.of(a)));
  });

  it('difference removes exact paths, recursiveDifference whole subtrees', () => {
    const s = FieldSet.of(makePath('status'), makePath('status', 'phase'), a);
    const status = FieldSet.of(makePath('status'));
    assert.ok(s.difference(status).equals(FieldSet.of(makePath('status', 'phase'), a)));
    assert.ok(s.recursiveDifference(status).equals(FieldSet.of(a)));
  });

  it('paths iterate members before children at each level, each in element order', () => {
    const s = FieldSet.of(makePath('spec', 'ports', keyElement([['name', 'http']]), 'port'), a, c);
    assert.deepEqual(s.paths().map(pathToString), [
      '.metadata.labels.x',
      '.spec.replicas',
      '.spec.ports[name="http"].port',
    ]);
  });
});

describe('FieldsV1', () => {
  // What apiextensions-apiserver stored for a custom resource created by POST.
  const stored = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:q': {} } },
    'f:spec': {
      '.': {},
      'f:ports': {
        '.': {},
        'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:port': {} },
      },
      'f:replicas': {},
      'f:settings': { '.': {}, 'f:z': {} },
    },
  };

  it('decodes "." as membership of the element itself', () => {
    const s = fieldsV1ToSet(stored);
    assert.ok(s.has(makePath('spec')));
    assert.ok(s.has(makePath('metadata', 'labels')));
    assert.ok(!s.has(makePath('metadata')));
    assert.ok(s.has(makePath('spec', 'ports', keyElement([['name', 'a']]))));
    assert.ok(s.has(makePath('spec', 'ports', keyElement([['name', 'a']]), 'port')));
  });

  it('re-encodes to the same object, keys in element order', () => {
    const out = setToFieldsV1(fieldsV1ToSet(stored));
    assert.deepEqual(out, stored);
    assert.equal(JSON.stringify(out), JSON.stringify(stored));
  });

  it('orders keys by element, not by string (fields before keys before values)', () => {
    const s = FieldSet.of(
      makePath('x', valueElement('b')),
      makePath('x', valueElement('a')),
      makePath('x', fieldElement('z')),
    );
    assert.deepEqual(Object.keys(setToFieldsV1(s).x ?? {}), []);
    assert.deepEqual(Object.keys(setToFieldsV1(s)['f:x'] ?? {}), ['f:z', 'v:"a"', 'v:"b"']);
  });

  it('rejects a value that is not an object', () => {
    assert.throws(() => fieldsV1ToSet({ 'f:a': 1 }), FieldManagerError);
    assert.throws(() => fieldsV1ToSet([]), FieldManagerError);
  });
});
