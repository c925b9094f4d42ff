// The one-walk FieldsV1 of a write's changed fields (used for creates) against the rule it
// shortcuts: structured-merge-diff's Compare, then the endpoint's reset fields removed
// (recursively) and the stripped paths removed (exactly), encoded as FieldsV1. Every pair
// of variants below is compared both ways, so added, modified, removed, duplicated list
// keys, nulls, empty objects, atomic and untyped values are all crossed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinType } from '../../../packages/testing/src/registry/index.js';
import { changedFieldsV1 } from '../../../packages/testing/src/fieldmanager/changed_fields.js';
import { FieldManagerError } from '../../../packages/testing/src/fieldmanager/errors.js';
// The field manager's own sets: the cross-check runs with what a write runs with.
import {
  MAIN_ENDPOINT_RESETS,
  STATUS_ENDPOINT_RESETS,
  STRIP,
} from '../../../packages/testing/src/fieldmanager/field_manager.js';
import {
  FIELDS_LEAF,
  setToFieldsV1,
} from '../../../packages/testing/src/fieldmanager/fields_v1.js';
import { makePath } from '../../../packages/testing/src/fieldmanager/path.js';
import type { JsonValue } from '../../../packages/testing/src/fieldmanager/path.js';
import type { TypeNode } from '../../../packages/testing/src/fieldmanager/schema.js';
import { customResourceType } from '../../../packages/testing/src/fieldmanager/schema.js';
import { FieldSet } from '../../../packages/testing/src/fieldmanager/set.js';
import { compare } from '../../../packages/testing/src/fieldmanager/typed.js';

type Obj = { [k: string]: JsonValue };

/** The rule: Compare, reset fields removed recursively, stripped paths removed exactly. */
function expected(
  l: JsonValue,
  r: JsonValue,
  t: TypeNode,
  reset: FieldSet,
  strip: FieldSet,
): JsonValue | undefined {
  const c = compare(l, r, t);
  const op = c.modified
    .recursiveDifference(reset)
    .union(c.added.recursiveDifference(reset))
    .difference(strip);
  return op.empty() ? undefined : setToFieldsV1(op);
}

function outcome(fn: () => JsonValue | undefined): JsonValue | undefined | FieldManagerError {
  try {
    return fn();
  } catch (err) {
    if (err instanceof FieldManagerError) return err;
    throw err;
  }
}

function crossCheck(variants: Obj[], t: TypeNode, resets: FieldSet[]): number {
  let checked = 0;
  for (const l of variants) {
    for (const r of variants) {
      for (const reset of resets) {
        const want = outcome(() => expected(l, r, t, reset, STRIP));
        const got = outcome(() => changedFieldsV1(l, r, t, reset, STRIP));
        if (want instanceof FieldManagerError) {
          assert.ok(
            got instanceof FieldManagerError,
            `expected an error from ${JSON.stringify(l)} to ${JSON.stringify(r)}`,
          );
        } else {
          // Same keys in the same order: compare the bytes.
          assert.equal(
            JSON.stringify(got),
            JSON.stringify(want),
            `from ${JSON.stringify(l)}\nto ${JSON.stringify(r)}`,
          );
        }
        checked++;
      }
    }
  }
  return checked;
}

const container = (name: string, extra: Obj = {}): Obj => ({
  name,
  image: `${name}:1`,
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePath: '/dev/termination-log',
  resources: {},
  ...extra,
});

function deployment(spec: Obj, meta: Obj = {}, rest: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default', uid: 'u', ...meta },
    spec,
    ...rest,
  };
}

const template = (containers: JsonValue, podSpec: Obj = {}): Obj => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers, dnsPolicy: 'ClusterFirst', securityContext: {}, ...podSpec },
});

const deployments: Obj[] = [
  // What a create compares from: the envelope and the Go type's structs.
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { template: {} }, status: {} },
  deployment({ replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template([]) }),
  deployment(
    {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      template: template([
        container('a', {
          ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 81 }],
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        }),
        container('b'),
      ]),
    },
    { labels: { app: 'web', i: '1' }, annotations: { a: 'b' }, finalizers: ['x', 'y'] },
  ),
  // A changed image, a removed label, a removed container, a status.
  deployment(
    {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: template([container('a', { image: 'a:2', env: [{ name: 'X', value: '1' }] })]),
    },
    { labels: { app: 'web' }, finalizers: ['y'] },
    { status: { replicas: 2, conditions: [{ type: 'Available', status: 'True' }] } },
  ),
  // Duplicated list keys (env X twice, container a twice), nulls and empty objects.
  deployment(
    {
      replicas: null,
      selector: {},
      template: template(
        [
          container('a', {
            env: [
              { name: 'X', value: '1' },
              { name: 'X', value: '3' },
            ],
          }),
          container('a'),
        ],
        { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'k' }] },
      ),
    },
    { labels: null },
  ),
  deployment({ replicas: 3, template: template(null) }, { labels: {} }),
  deployment({ template: template([container('a', { env: [{ name: 'X', value: '9' }] })]) }),
  // Shapes the type does not expect: compared as leaves.
  deployment({ replicas: 'x', template: 'y' }, { labels: ['a'] }, { status: 7 }),
];

const gizmo = customResourceType({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string', default: 'TCP' },
              port: { type: 'integer' },
            },
          },
        },
        settings: { type: 'object', additionalProperties: { type: 'string' } },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          additionalProperties: { type: 'string' },
        },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
});

const gizmo0 = (spec: JsonValue, rest: Obj = {}): Obj => ({
  apiVersion: 'ssa.example.com/v1',
  kind: 'Gizmo',
  metadata: { name: 'g', labels: { a: 'b' } },
  spec,
  ...rest,
});

const gizmos: Obj[] = [
  { apiVersion: 'ssa.example.com/v1', kind: 'Gizmo' },
  gizmo0({ tags: ['a', 'b', 1, true, null], args: ['x'], selector: { a: 'b' } }),
  gizmo0({ tags: ['a', 'a', 'c'], args: ['y'], selector: { a: 'c' } }),
  gizmo0({
    ports: [
      { name: 'http', port: 80 },
      { name: 'http', protocol: 'UDP', port: 80 },
    ],
    settings: { a: '1', b: '2' },
    extra: { deep: { list: [1, { x: 2 }], m: { n: null } }, empty: {} },
  }),
  gizmo0({
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
    settings: { a: '1' },
    extra: { deep: { list: [1], m: {} } },
  }),
  gizmo0(null, { status: { phase: 'Ready' } }),
  gizmo0({}, { status: {} }),
  // An item without its key fields cannot be keyed: both refuse it.
  gizmo0({ ports: [{ port: 1 }] }),
  gizmo0({ tags: [{ not: 'a scalar' }] }),
];

const NO_RESETS = new FieldSet();

describe('changedFieldsV1 (the FieldsV1 a create records, in one walk)', () => {
  it('equals Compare’s added and modified fields, less reset and stripped ones, for Deployments', () => {
    const t = builtinType('deployments.apps').type;
    assert.equal(
      crossCheck(deployments, t, [MAIN_ENDPOINT_RESETS, STATUS_ENDPOINT_RESETS, new FieldSet()]),
      192,
    );
  });

  it('equals them for a custom resource with set, map, atomic and untyped fields', () => {
    assert.equal(
      crossCheck(gizmos, gizmo, [MAIN_ENDPOINT_RESETS, STATUS_ENDPOINT_RESETS, new FieldSet()]),
      243,
    );
  });

  it('is undefined when nothing but stripped or reset fields changed', () => {
    const t = builtinType('deployments.apps').type;
    const base = deployment({ replicas: 1 });
    const renamed = deployment({ replicas: 1 }, { name: 'e', uid: 'v' }, { status: { a: 1 } });
    assert.equal(changedFieldsV1(base, renamed, t, MAIN_ENDPOINT_RESETS, STRIP), undefined);
  });

  it('shares one frozen leaf between trees, as setToFieldsV1 does (trees are never changed)', () => {
    const t = builtinType('deployments.apps').type;
    const leaves = (v: unknown, out: unknown[] = []): unknown[] => {
      for (const x of Object.values(v as Obj)) {
        if (Object.keys(x as Obj).length === 0) out.push(x);
        else leaves(x, out);
      }
      return out;
    };
    const created = changedFieldsV1({}, deployments.at(-1) ?? {}, t, NO_RESETS, STRIP);
    const encoded = setToFieldsV1(FieldSet.of(makePath('spec', 'replicas')));
    const all = [...leaves(created), ...leaves(encoded)];
    assert.ok(all.length > 5, `${all.length} leaves`);
    for (const leaf of all) assert.equal(leaf, FIELDS_LEAF);
    assert.ok(Object.isFrozen(FIELDS_LEAF));
    assert.deepEqual(FIELDS_LEAF, {});
  });
});
