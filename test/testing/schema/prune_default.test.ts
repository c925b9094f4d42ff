// Pruning of unknown fields, duplicate fields and defaulting of custom resources, as
// kube-apiserver does them on write (and, for defaults, on read).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyDefaults,
  duplicateFields,
  hasDefaults,
  needsDefaults,
  pruneObject,
  unknownFields,
} from '../../../packages/testing/src/schema/index.js';
import type { StructuralSchema } from '../../../packages/testing/src/schema/index.js';

const schema: StructuralSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        keep: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { inner: { type: 'object', properties: { a: { type: 'string' } } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
        },
      },
    },
  },
};

describe('pruning', () => {
  test('fields the schema does not declare are removed and reported', () => {
    const obj: Record<string, unknown> = {
      apiVersion: 'g/v1',
      kind: 'K',
      metadata: { name: 'a', junk: 1 },
      spec: { replicas: 1, foo: 1, bar: { x: 1 }, items: [{ name: 'a', extra: true }] },
      top: 1,
    };
    const r = pruneObject(schema, obj);
    assert.deepEqual(obj, {
      apiVersion: 'g/v1',
      kind: 'K',
      metadata: { name: 'a' },
      spec: { replicas: 1, items: [{ name: 'a' }] },
    });
    // metadata's first, then the pruned fields sorted, as the real server lists them.
    assert.deepEqual(unknownFields(r), [
      'metadata.junk',
      'spec.bar',
      'spec.foo',
      'spec.items[0].extra',
      'top',
    ]);
  });

  test('x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes inside declared ones', () => {
    const obj = {
      spec: { free: { any: { deep: 1 } }, keep: { other: 1, inner: { a: 'x', b: 2 } } },
    };
    assert.deepEqual(unknownFields(pruneObject(schema, obj)), ['spec.keep.inner.b']);
    assert.deepEqual(obj.spec, {
      free: { any: { deep: 1 } },
      keep: { other: 1, inner: { a: 'x' } },
    });
  });

  test('additionalProperties keeps every key', () => {
    const obj = { spec: { labels: { a: 'x', b: 'y' } } };
    assert.deepEqual(unknownFields(pruneObject(schema, obj)), []);
    assert.deepEqual(obj.spec.labels, { a: 'x', b: 'y' });
  });

  test('an embedded resource keeps apiVersion and kind, and its metadata only ObjectMeta fields (reported last)', () => {
    const obj = {
      spec: {
        zz: 1,
        embedded: {
          apiVersion: 'v1',
          kind: 'K',
          metadata: { name: 'x', junk: 1 },
          spec: { x: 'a', y: 2 },
        },
      },
    };
    assert.deepEqual(unknownFields(pruneObject(schema, obj)), [
      'spec.embedded.spec.y',
      'spec.zz',
      'spec.embedded.metadata.junk',
    ]);
    assert.deepEqual(obj.spec, {
      embedded: { apiVersion: 'v1', kind: 'K', metadata: { name: 'x' }, spec: { x: 'a' } },
    });
  });
});

describe('duplicate fields', () => {
  test('a key given twice in the same object is reported by its path', () => {
    assert.deepEqual(duplicateFields('{"spec":{"replicas":1,"replicas":2},"a":[{"x":1,"x":2}]}'), [
      'spec.replicas',
      'a[0].x',
    ]);
  });

  test('equal keys in different objects, and escaped keys, are not duplicates', () => {
    assert.deepEqual(duplicateFields('{"a":{"x":1},"b":{"x":"\\"}"},"c\\"":1,"c":2}'), []);
  });

  test('text that is not JSON reports nothing (the parser reports it)', () => {
    assert.deepEqual(duplicateFields('{"a":'), []);
  });
});

describe('defaulting', () => {
  const s: StructuralSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          mode: { type: 'string', default: 'a' },
          nested: {
            type: 'object',
            default: {},
            properties: { n: { type: 'integer', default: 3 } },
          },
          items: {
            type: 'array',
            items: { type: 'object', properties: { p: { type: 'integer', default: 80 } } },
          },
          name: { type: 'string' },
          maybe: { type: 'string', nullable: true, default: 'd' },
        },
      },
    },
  };

  test('absent fields get their default, and a defaulted object is defaulted in turn', () => {
    const obj: Record<string, unknown> = {};
    assert.equal(applyDefaults(s, obj), true);
    assert.deepEqual(obj, { spec: { mode: 'a', nested: { n: 3 }, maybe: 'd' } });
  });

  test('items of arrays are defaulted', () => {
    const obj = { spec: { mode: 'b', nested: { n: 1 }, maybe: 'x', items: [{}, { p: 1 }] } };
    applyDefaults(s, obj);
    assert.deepEqual(obj.spec.items, [{ p: 80 }, { p: 1 }]);
  });

  test('null in a non-nullable field takes the default, or is dropped without one; nullable keeps null', () => {
    const obj = { spec: { mode: null, name: null, maybe: null, nested: { n: 1 } } };
    applyDefaults(s, obj);
    assert.deepEqual(obj.spec, { mode: 'a', maybe: null, nested: { n: 1 } });
  });

  test('a complete object is unchanged', () => {
    const obj = { spec: { mode: 'b', nested: { n: 1 }, maybe: 'x' } };
    assert.equal(needsDefaults(s, obj), false);
    assert.equal(applyDefaults(s, obj), false);
  });

  test('needsDefaults tells whether defaulting would change an object, without changing it', () => {
    const obj = { spec: { mode: 'b', nested: {}, maybe: 'x' } };
    assert.equal(needsDefaults(s, obj), true);
    assert.deepEqual(obj.spec.nested, {});
    assert.equal(
      needsDefaults(s, { spec: { mode: 'b', nested: { n: 1 }, maybe: 'x', items: [{}] } }),
      true,
    );
  });

  test('hasDefaults finds defaults at any depth', () => {
    assert.equal(hasDefaults(s), true);
    assert.equal(hasDefaults(schema), false);
  });
});
