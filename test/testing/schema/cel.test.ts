// x-kubernetes-validations rules: evaluation, messages, field paths, reasons, transition
// rules and ratcheting, with kube-apiserver's wording.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  joinFieldPath,
  ruleCompilationCauses,
  toCel,
  validateCelRules,
} from '../../../packages/testing/src/schema/index.js';
import type { StructuralSchema } from '../../../packages/testing/src/schema/index.js';

const schema: StructuralSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minR <= self.maxR', message: 'minR must not exceed maxR' },
        {
          rule: "!has(self.mode) || self.mode != 'bad'",
          messageExpression: "'mode ' + self.mode + ' is bad'",
          fieldPath: '.mode',
          reason: 'FieldValueForbidden',
        },
        { rule: 'self.replicas == oldSelf.replicas || self.replicas > 0' },
      ],
      properties: {
        minR: { type: 'integer' },
        maxR: { type: 'integer' },
        replicas: { type: 'integer' },
        ratio: { type: 'number' },
        mode: { type: 'string' },
        tags: {
          type: 'array',
          items: { type: 'string' },
          'x-kubernetes-validations': [
            { rule: 'self.all(t, t.size() <= 3)', message: 'tags are short' },
          ],
        },
        immutable: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: 'self == oldSelf', message: 'immutable is immutable' },
          ],
        },
      },
    },
  },
};

const valid = { spec: { minR: 1, maxR: 2, replicas: 1 } };

describe('CEL validation rules', () => {
  test('a satisfied rule is no error', () => {
    assert.deepEqual(validateCelRules(schema, valid), []);
  });

  test('a failing rule with a message is FieldValueInvalid at its node, without the value of an object', () => {
    assert.deepEqual(validateCelRules(schema, { spec: { minR: 7, maxR: 2, replicas: 1 } }), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: 'Invalid value: minR must not exceed maxR',
      },
    ]);
  });

  test('messageExpression, fieldPath and reason shape the cause', () => {
    assert.deepEqual(validateCelRules(schema, { spec: { ...valid.spec, mode: 'bad' } }), [
      { reason: 'FieldValueForbidden', field: 'spec.mode', message: 'Forbidden: mode bad is bad' },
    ]);
  });

  test('a failing rule without a message names the rule', () => {
    assert.deepEqual(
      validateCelRules(schema, { spec: { ...valid.spec, replicas: -3 } }, { value: valid }),
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec',
          message:
            'Invalid value: failed rule: self.replicas == oldSelf.replicas || self.replicas > 0',
        },
      ],
    );
  });

  test('transition rules are evaluated only on update, with oldSelf', () => {
    const created = { spec: { ...valid.spec, immutable: 'a' } };
    assert.deepEqual(validateCelRules(schema, created), [], 'no oldSelf on create');
    assert.deepEqual(
      validateCelRules(schema, { spec: { ...valid.spec, immutable: 'b' } }, { value: created }),
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.immutable',
          message: 'Invalid value: "b": immutable is immutable',
        },
      ],
    );
    assert.deepEqual(
      validateCelRules(schema, { spec: { ...valid.spec, immutable: 'b' } }, { value: valid }),
      [],
      'a field absent from the old object has no oldSelf',
    );
  });

  test('macros all/exists and size work on lists', () => {
    assert.deepEqual(
      validateCelRules(schema, { spec: { ...valid.spec, tags: ['ab', 'abcd'] } }).map(
        (c) => c.field,
      ),
      ['spec.tags'],
    );
  });

  test('a rule on an unchanged value is ratcheted on update', () => {
    const bad = { spec: { minR: 7, maxR: 2, replicas: 1 } };
    assert.deepEqual(validateCelRules(schema, bad, { value: bad }), []);
    assert.equal(
      validateCelRules(schema, { spec: { ...bad.spec, minR: 8 } }, { value: bad }).length,
      1,
    );
  });

  test('an evaluation error is a cause naming the error', () => {
    const s: StructuralSchema = {
      type: 'object',
      properties: {
        spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.missing > 1' }] },
      },
    };
    const [c] = validateCelRules(s, { spec: {} });
    assert.equal(c?.field, 'spec');
    assert.match(c?.message ?? '', /^Invalid value: "object": .*missing/);
  });

  test('integers are CEL ints and numbers are doubles', () => {
    const s = schema.properties?.spec;
    assert.deepEqual(toCel(s, { replicas: 2, ratio: 2 }), { replicas: 2n, ratio: 2 });
  });

  test('fieldPath forms join onto the rule node path', () => {
    assert.equal(joinFieldPath('spec', '.a.b'), 'spec.a.b');
    assert.equal(joinFieldPath('spec', "['a.b'].c"), 'spec.a.b.c');
    assert.equal(joinFieldPath('spec', '.items[2]'), 'spec.items[2]');
  });
});

describe('CEL rules of a CRD', () => {
  test('a rule or messageExpression that does not compile is a cause at its schema path', () => {
    const s: StructuralSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [
            { rule: 'self.a >', message: 'm' },
            { rule: 'true', messageExpression: "'x' +" },
            { rule: 'self.a > 1' },
          ],
        },
      },
    };
    const causes = ruleCompilationCauses(s, 'spec.validation.openAPIV3Schema');
    assert.deepEqual(
      causes.map((c) => c.field),
      [
        'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression',
      ],
    );
    assert.match(
      causes[0]?.message ?? '',
      /^Invalid value: \{"Rule":"self.a >","Message":"m","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null\}: compilation failed: /,
    );
  });
});
