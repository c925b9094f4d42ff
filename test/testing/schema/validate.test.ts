// OpenAPI value validation of custom resources: each rule with kube-apiserver's cause
// (reason, field, message), as captured from a real apiextensions-apiserver.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatValid,
  validateEmbeddedResources,
  validateListTypes,
  validateSchema,
} from '../../../packages/testing/src/schema/index.js';
import type { StructuralSchema } from '../../../packages/testing/src/schema/index.js';

const spec = (
  properties: Record<string, StructuralSchema>,
  extra: Partial<StructuralSchema> = {},
): StructuralSchema => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});

const causes = (s: StructuralSchema, value: unknown, old?: unknown) =>
  validateSchema(s, value, old === undefined ? {} : { old, hasOld: true });

describe('schema validation', () => {
  test('a value of the wrong type is FieldValueTypeInvalid naming the declared and actual types', () => {
    assert.deepEqual(
      causes(spec({ replicas: { type: 'integer' } }), { spec: { replicas: 'string' } }),
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.replicas',
          message:
            'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        },
      ],
    );
  });

  test('null is a type error unless the field is nullable', () => {
    const s = spec({ a: { type: 'string' }, b: { type: 'string', nullable: true } });
    assert.deepEqual(causes(s, { spec: { b: null } }), []);
    assert.equal(
      causes(s, { spec: { a: null } })[0]?.message,
      'Invalid value: "null": spec.a in body must be of type string: "null"',
    );
  });

  test('a missing required field is FieldValueRequired at the field path', () => {
    const s = spec({ replicas: { type: 'integer' } }, { required: ['replicas'] });
    assert.deepEqual(causes(s, { spec: {} }), [
      { reason: 'FieldValueRequired', field: 'spec.replicas', message: 'Required value' },
    ]);
  });

  test('a value outside the enum is FieldValueNotSupported listing the supported values', () => {
    const s = spec({ mode: { type: 'string', enum: ['a', 'b', 'bad'] } });
    assert.deepEqual(causes(s, { spec: { mode: 'x' } }), [
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.mode',
        message: 'Unsupported value: "x": supported values: "a", "b", "bad"',
      },
    ]);
  });

  test('enum values of other types are listed quoted, the bad value as it is', () => {
    const s = spec({ e: { type: 'integer', enum: [1, 2] } });
    assert.deepEqual(
      causes(s, { spec: { e: 3 } }).map((c) => c.message),
      ['Unsupported value: 3: supported values: "1", "2"'],
    );
  });

  test('a fraction where an integer is declared is also reported by the integer format check', () => {
    const s = spec({ f: { type: 'integer' } });
    assert.deepEqual(causes(s, { spec: { f: 1.5 } }), [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.f',
        message: 'Invalid value: "number": spec.f in body must be of type integer: "number"',
      },
      {
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message:
          'Invalid value: "": Checked value must be of type integer (default format) in spec.f',
      },
    ]);
  });

  test('minimum and maximum are inclusive unless exclusive', () => {
    const s = spec({
      r: { type: 'integer', minimum: 0, maximum: 10 },
      f: { type: 'number', minimum: 0, maximum: 1, exclusiveMinimum: true, exclusiveMaximum: true },
    });
    assert.deepEqual(
      causes(s, { spec: { r: -1 } }).map((c) => c.message),
      ['Invalid value: -1: spec.r in body should be greater than or equal to 0'],
    );
    assert.deepEqual(
      causes(s, { spec: { r: 11 } }).map((c) => c.message),
      ['Invalid value: 11: spec.r in body should be less than or equal to 10'],
    );
    assert.deepEqual(causes(s, { spec: { r: 0, f: 0.5 } }), []);
    assert.deepEqual(
      causes(s, { spec: { f: 1 } }).map((c) => c.message),
      ['Invalid value: 1: spec.f in body should be less than 1'],
    );
    assert.deepEqual(
      causes(s, { spec: { f: 0 } }).map((c) => c.message),
      ['Invalid value: 0: spec.f in body should be greater than 0'],
    );
  });

  test('multipleOf: fractional values are checked against the factor, integral ones against it truncated', () => {
    const s = spec({
      f: { type: 'number', multipleOf: 0.25 },
      i: { type: 'integer', multipleOf: 3 },
    });
    assert.deepEqual(causes(s, { spec: { f: 0.75 } }), []);
    assert.deepEqual(
      causes(s, { spec: { f: 0.3 } }).map((c) => c.message),
      ['Invalid value: 0.3: spec.f in body should be a multiple of 0.25'],
    );
    // kube-openapi's quirk, as the real server answers for {"f": 1} with multipleOf 0.25.
    assert.deepEqual(
      causes(s, { spec: { f: 1 } }).map((c) => c.message),
      ['Invalid value: 0: factor MultipleOf declared for spec.f must be positive: 0'],
    );
    assert.deepEqual(
      causes(s, { spec: { i: 7 } }).map((c) => c.message),
      ['Invalid value: 7: spec.i in body should be a multiple of 3'],
    );
  });

  test('string length: maxLength is FieldValueTooLong and reported before minLength and pattern', () => {
    const s = spec({ name: { type: 'string', pattern: '^[a-z]+$', minLength: 2, maxLength: 5 } });
    assert.deepEqual(causes(s, { spec: { name: 'ABCDEFG' } }), [
      {
        reason: 'FieldValueTooLong',
        field: 'spec.name',
        message: 'Too long: may not be more than 5 bytes',
      },
    ]);
    assert.deepEqual(
      causes(s, { spec: { name: 'a' } }).map((c) => c.message),
      ['Invalid value: "a": spec.name in body should be at least 2 chars long'],
    );
    assert.deepEqual(
      causes(s, { spec: { name: 'a1' } }).map((c) => c.message),
      ['Invalid value: "a1": spec.name in body should match \'^[a-z]+$\''],
    );
  });

  test('array and object sizes: min is FieldValueInvalid with the count, max is FieldValueTooMany', () => {
    const s = spec({
      tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
      labels: {
        type: 'object',
        minProperties: 1,
        maxProperties: 2,
        additionalProperties: { type: 'string' },
      },
    });
    assert.deepEqual(causes(s, { spec: { tags: [], labels: {} } }), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.tags',
        message: 'Invalid value: 0: spec.tags in body should have at least 1 items',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.labels',
        message: 'Invalid value: 0: spec.labels in body should have at least 1 properties',
      },
    ]);
    assert.deepEqual(
      causes(s, { spec: { tags: ['a', 'b', 'c', 'd'], labels: { a: 'x', b: 'y', c: 'z' } } }),
      [
        {
          reason: 'FieldValueTooMany',
          field: 'spec.tags',
          message: 'Too many: 4: must have at most 3 items',
        },
        {
          reason: 'FieldValueTooMany',
          field: 'spec.labels',
          message: 'Too many: 3: must have at most 2 items',
        },
      ],
    );
  });

  test('items and additionalProperties are validated at indexed and keyed paths', () => {
    const s = spec({
      ports: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } },
    });
    assert.deepEqual(
      causes(s, { spec: { ports: [{ name: 'a' }, {}], labels: { a: 'abcd' } } }).map(
        (c) => `${c.field}: ${c.message}`,
      ),
      [
        'spec.ports[1].name: Required value',
        'spec.labels.a: Too long: may not be more than 3 bytes',
      ],
    );
  });

  test('formats kube-openapi checks are FieldValueTypeInvalid naming the format', () => {
    const s = spec({
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date-time' },
    });
    assert.deepEqual(causes(s, { spec: { email: 'nope', when: 'yesterday' } }), [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.email',
        message: 'Invalid value: "nope": spec.email in body must be of type email: "nope"',
      },
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.when',
        message:
          'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      },
    ]);
    for (const [format, good, bad] of [
      ['ipv4', '1.2.3.4', '1.2.3'],
      ['ipv6', '::1', '1.2.3.4'],
      ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'u'],
      ['date', '2024-02-29', '2023-02-29'],
      ['hostname', 'a.example.com', 'a_b'],
      ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
      ['byte', 'aGk=', 'a'],
      ['mac', '00:11:22:33:44:55', '00:11'],
    ] as const) {
      assert.equal(formatValid(format, good), true, `${format} accepts ${good}`);
      assert.equal(formatValid(format, bad), false, `${format} rejects ${bad}`);
    }
    assert.equal(formatValid('password', 'anything'), true, 'unchecked formats accept anything');
  });

  test('int-or-string accepts integers and strings and names both types otherwise', () => {
    const s = spec({ p: { 'x-kubernetes-int-or-string': true, pattern: '^[0-9]+%$' } });
    assert.deepEqual(causes(s, { spec: { p: 3 } }), []);
    assert.deepEqual(causes(s, { spec: { p: '50%' } }), []);
    assert.deepEqual(causes(s, { spec: { p: true } }), [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.p',
        message:
          'Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"',
      },
    ]);
  });

  test('int-or-string with anyOf reports the anyOf failure and the first branch, as kube-openapi', () => {
    const s = spec({
      ios: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    });
    assert.deepEqual(
      causes(s, { spec: { ios: 1.5 } }).map((c) => `${c.field}: ${c.message}`),
      [
        'spec.ios: Invalid value: "number": spec.ios in body must be of type integer,string: "number"',
        '<nil>: Invalid value: "": "spec.ios" must validate at least one schema (anyOf)',
        'spec.ios: Invalid value: "number": spec.ios in body must be of type integer: "number"',
        '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.ios',
      ],
    );
  });

  test('the root skips apiVersion, kind and metadata', () => {
    const s: StructuralSchema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 1 } } },
      },
    };
    assert.deepEqual(causes(s, { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'long' } }), []);
  });

  test('a status update reports paths relative to the status schema in messages', () => {
    const s: StructuralSchema = { type: 'object', properties: { replicas: { type: 'integer' } } };
    assert.deepEqual(
      validateSchema(s, { replicas: 'x' }, { path: 'status', messageRoot: 'status' }),
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'status.replicas',
          message: 'Invalid value: "string": replicas in body must be of type integer: "string"',
        },
      ],
    );
  });
});

describe('validation ratcheting', () => {
  const s = spec({
    name: { type: 'string', pattern: '^x+$' },
    tags: {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'string', maxLength: 0 },
    },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 10 } },
      },
    },
  });

  test('an invalid value unchanged from the old object is not an error on update', () => {
    const old = { spec: { name: 'abc' } };
    assert.deepEqual(causes(s, { spec: { name: 'abc', other: 1 } }, old), []);
  });

  test('an invalid value that changed is an error, even when the old one was invalid too', () => {
    assert.equal(causes(s, { spec: { name: 'abd' } }, { spec: { name: 'abc' } }).length, 1);
  });

  test('a create (no old object) validates everything', () => {
    assert.equal(causes(s, { spec: { name: 'abc' } }).length, 1);
  });

  test('items of a set list are not correlated: a changed list re-validates every item', () => {
    assert.deepEqual(
      causes(s, { spec: { tags: ['a', 'b'] } }, { spec: { tags: ['a'] } }).map((c) => c.field),
      ['spec.tags[0]', 'spec.tags[1]'],
    );
  });

  test('items of a map list are correlated by their keys', () => {
    const old = { spec: { ports: [{ name: 'a', port: 99 }] } };
    const now = {
      spec: {
        ports: [
          { name: 'b', port: 1 },
          { name: 'a', port: 99 },
        ],
      },
    };
    assert.deepEqual(causes(s, now, old), []);
    assert.deepEqual(
      causes(s, { spec: { ports: [{ name: 'a', port: 98 }] } }, old).map((c) => c.field),
      ['spec.ports[0].port'],
    );
  });
});

describe('list types and embedded resources', () => {
  test('duplicate items of a set list and duplicate keys of a map list are FieldValueDuplicate', () => {
    const s = spec({
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, port: { type: 'integer' } },
        },
      },
      atomic: { type: 'array', items: { type: 'string' } },
    });
    assert.deepEqual(
      validateListTypes(s, {
        spec: {
          tags: ['a', 'a', 'b'],
          ports: [{ name: 'x' }, { name: 'x', port: 1 }],
          atomic: ['a', 'a'],
        },
      }),
      [
        { reason: 'FieldValueDuplicate', field: 'spec.tags[1]', message: 'Duplicate value: "a"' },
        {
          reason: 'FieldValueDuplicate',
          field: 'spec.ports[1]',
          message: 'Duplicate value: {"name":"x"}',
        },
      ],
    );
  });

  test('an embedded resource must have apiVersion and kind', () => {
    const s = spec({ embedded: { type: 'object', 'x-kubernetes-embedded-resource': true } });
    assert.deepEqual(validateEmbeddedResources(s, { spec: { embedded: { kind: 'X' } } }), [
      {
        reason: 'FieldValueRequired',
        field: 'spec.embedded.apiVersion',
        message: 'Required value',
      },
    ]);
    assert.deepEqual(
      validateEmbeddedResources(s, { spec: { embedded: { apiVersion: 'v1', kind: 'X' } } }),
      [],
    );
  });
});
