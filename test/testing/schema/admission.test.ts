// The write path of a custom resource through its CRD's schema (admitCustomResource): the
// order of steps, fieldValidation, blocking errors before CEL, and the scale checks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/client/errors.js';
import {
  admitCustomResource,
  customResourceSchema,
  defaultOnRead,
  prepareCustomResource,
  RULES_NOT_CHECKED,
  scaleOf,
  validateCustomResource,
  warningHeader,
  withReplicas,
} from '../../../packages/testing/src/schema/index.js';
import type { UnstructuredObject } from '../../../src/client/types.js';

const crd: UnstructuredObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.probe.example.com', resourceVersion: '1' },
  spec: {
    group: 'probe.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['replicas'],
                'x-kubernetes-validations': [
                  { rule: 'self.minR <= self.maxR', message: 'minR must not exceed maxR' },
                ],
                properties: {
                  replicas: { type: 'integer', minimum: 0, maximum: 10 },
                  minR: { type: 'integer', default: 1 },
                  maxR: { type: 'integer', default: 5 },
                  mode: { type: 'string', enum: ['a', 'b'] },
                },
              },
              status: {
                type: 'object',
                properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

const crs = customResourceSchema(crd, 'v1');
const gadget = (
  spec: Record<string, unknown>,
  extra: Partial<UnstructuredObject> = {},
): UnstructuredObject => ({
  apiVersion: 'probe.example.com/v1',
  kind: 'Gadget',
  metadata: { name: 'g', namespace: 'default' },
  spec,
  ...extra,
});

function strictFailure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail('expected an ApiError');
}

describe('admitCustomResource', () => {
  test('a valid object is pruned and defaulted', () => {
    const a = admitCustomResource(crs, gadget({ replicas: 1, foo: 1 }), undefined);
    assert.deepEqual(a.causes, []);
    assert.deepEqual(a.object.spec, { replicas: 1, minR: 1, maxR: 5 });
    assert.deepEqual(a.warnings, ['unknown field "spec.foo"'], 'Warn is the default');
  });

  test('fieldValidation=Strict rejects unknown and duplicate fields with 400 naming each', () => {
    const body = '{"spec":{"replicas":1,"replicas":2,"foo":1}}';
    const err = strictFailure(() =>
      admitCustomResource(crs, gadget({ replicas: 2, foo: 1 }), undefined, {
        fieldValidation: 'Strict',
        rawBody: body,
      }),
    );
    assert.equal(err.status.code, 400);
    assert.equal(err.status.reason, 'BadRequest');
    assert.equal(
      err.status.message,
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: duplicate field "spec.replicas", unknown field "spec.foo"',
    );
  });

  test('fieldValidation=Ignore prunes silently', () => {
    const a = admitCustomResource(crs, gadget({ replicas: 1, foo: 1 }), undefined, {
      fieldValidation: 'Ignore',
    });
    assert.deepEqual(a.warnings, []);
    assert.equal((a.object.spec as Record<string, unknown>).foo, undefined);
  });

  test('a strict failure of a patch is a 422 naming the patch', () => {
    const err = strictFailure(() =>
      admitCustomResource(crs, gadget({ replicas: 1, zzz: 1 }), gadget({ replicas: 1 }), {
        fieldValidation: 'Strict',
        patch: true,
      }),
    );
    assert.equal(err.status.code, 422);
    assert.match(
      err.status.message ?? '',
      /is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec.zzz"$/,
    );
  });

  test('schema errors of a blocking kind skip CEL rules and say so', () => {
    const a = admitCustomResource(crs, gadget({ replicas: 'x', minR: 9, maxR: 1 }), undefined);
    assert.deepEqual(a.causes, [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
      {
        reason: 'FieldValueInvalid',
        field: '.spec.replicas',
        message:
          'Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  test('non-blocking schema errors let CEL rules run', () => {
    const a = admitCustomResource(crs, gadget({ replicas: 11, minR: 9, maxR: 1 }), undefined);
    assert.deepEqual(
      a.causes.map((c) => `${c.field}: ${c.message}`),
      [
        'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
        'spec: Invalid value: minR must not exceed maxR',
      ],
    );
  });

  test('a negative specReplicasPath value is reported at the scale path', () => {
    const a = admitCustomResource(crs, gadget({ replicas: -1 }), undefined);
    assert.deepEqual(
      a.causes.map((c) => `${c.field}: ${c.message}`),
      [
        'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
        '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      ],
    );
  });

  test('a status write validates the status schema with relative message paths', () => {
    const old = gadget({ replicas: 1 });
    const a = admitCustomResource(crs, { ...old, status: { replicas: 'x' } }, old, {
      subresource: 'status',
    });
    assert.deepEqual(
      a.causes.map((c) => `${c.field}: ${c.message}`),
      [
        'status.replicas: Invalid value: "string": replicas in body must be of type integer: "string"',
        '.status.replicas: Invalid value: 0: .status.replicas accessor error: x is of the type string, expected int64',
        '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      ],
    );
  });

  test('an update ratchets an invalid unchanged field', () => {
    const old = gadget({ replicas: 1, mode: 'zzz', minR: 1, maxR: 5 });
    assert.deepEqual(
      admitCustomResource(crs, gadget({ replicas: 2, mode: 'zzz' }), old).causes,
      [],
    );
    assert.deepEqual(
      admitCustomResource(crs, gadget({ replicas: 2, mode: 'yyy' }), old).causes.map(
        (c) => c.field,
      ),
      ['spec.mode', '<nil>'],
    );
  });

  test('reads get defaults added after the object was stored; complete objects are served as stored', () => {
    const stored = gadget({ replicas: 1 });
    assert.deepEqual(defaultOnRead(crs, stored)?.spec, { replicas: 1, minR: 1, maxR: 5 });
    assert.equal(defaultOnRead(crs, gadget({ replicas: 1, minR: 1, maxR: 5 })), undefined);
  });

  test('warnings are sent as 299 Warning headers with the text quoted', () => {
    assert.equal(warningHeader('unknown field "spec.foo"'), '299 - "unknown field \\"spec.foo\\""');
  });
});

describe('scale subresource', () => {
  const scale = crs.scale;
  assert.ok(scale);
  const obj = gadget(
    { replicas: 3 },
    {
      metadata: {
        name: 'g',
        namespace: 'default',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: '2026-01-01T00:00:00Z',
        labels: { a: 'b' },
      },
      status: { replicas: 2, selector: 'app=x' },
    },
  );

  test('the Scale of an object carries its identity, spec and status replicas and selector', () => {
    assert.deepEqual(scaleOf(scale, obj), {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'g',
        namespace: 'default',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=x' },
    });
  });

  test('zero desired replicas are omitted and absent status replicas are 0', () => {
    const s = scaleOf(scale, gadget({ replicas: 0 }));
    assert.deepEqual([s.spec, s.status], [{}, { replicas: 0 }]);
  });

  test('scaling sets the spec path, creating intermediate objects, and carries the resourceVersion', () => {
    const next = withReplicas(scale, obj, 5, '7');
    assert.deepEqual(next.spec, { replicas: 5 });
    assert.equal(next.metadata?.resourceVersion, '7');
    const bare = withReplicas(scale, gadget({}, { spec: undefined }), 2, '');
    assert.deepEqual(bare.spec, { replicas: 2 });
    assert.equal(bare.metadata?.resourceVersion, undefined);
  });
});

describe('prepareCustomResource and validateCustomResource (the codec, then the strategy)', () => {
  test('prepare prunes and defaults and never refuses an invalid value: that is the strategy Validate, which reads and does not change the object', () => {
    const prepared = prepareCustomResource(crs, gadget({ replicas: 'x', foo: 1 }));
    assert.deepEqual(prepared.causes, []);
    assert.deepEqual(prepared.object.spec, { replicas: 'x', minR: 1, maxR: 5 });
    const before = structuredClone(prepared.object);
    const causes = validateCustomResource(crs, prepared.object, undefined);
    assert.equal(causes[0]?.field, 'spec.replicas');
    assert.deepEqual(prepared.object, before);
    const whole = admitCustomResource(crs, gadget({ replicas: 'x', foo: 1 }), undefined);
    assert.deepEqual(whole.causes, causes, 'admitCustomResource is the two halves');
  });
});
