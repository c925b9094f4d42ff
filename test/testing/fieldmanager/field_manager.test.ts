// Server-side apply's rules, pure: typing by schema, comparison, merge, ownership, conflicts
// and managedFields. The expected managedFields and conflict messages are the ones a real
// apiextensions-apiserver answered for the same requests on the same CRD schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/errors.js';
import { builtinType } from '../../../packages/testing/src/registry/index.js';
import type { FieldManagerScope } from '../../../packages/testing/src/fieldmanager/field_manager.js';
import {
  applyToObject,
  MAX_UPDATE_MANAGERS,
  updateManagedFields,
} from '../../../packages/testing/src/fieldmanager/field_manager.js';
import { setToFieldsV1 } from '../../../packages/testing/src/fieldmanager/fields_v1.js';
import type { JsonValue } from '../../../packages/testing/src/fieldmanager/path.js';
import {
  keyElement,
  makePath,
  pathToString,
} from '../../../packages/testing/src/fieldmanager/path.js';
import { customResourceType } from '../../../packages/testing/src/fieldmanager/schema.js';
import {
  compare,
  merge,
  removeItems,
  toFieldSet,
} from '../../../packages/testing/src/fieldmanager/typed.js';
import { FieldSet } from '../../../packages/testing/src/fieldmanager/set.js';

type Obj = { [k: string]: JsonValue };

const gizmoSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        color: { type: 'string' },
        size: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
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
    status: {
      type: 'object',
      properties: { phase: { type: 'string' }, ready: { type: 'integer' } },
    },
  },
};
const gizmo = customResourceType(gizmoSchema);

let second = 0;
function scope(subresource = ''): FieldManagerScope {
  second++;
  return {
    type: gizmo,
    implicitStructs: [],
    apiVersion: 'ssa.example.com/v1',
    kind: 'Gizmo',
    subresource,
    statusSubresource: true,
    now: new Date(Date.UTC(2026, 11, 3, 9, 0, second)).toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function cr(spec: Obj, meta: Obj = {}, rest: Obj = {}): Obj {
  return {
    apiVersion: 'ssa.example.com/v1',
    kind: 'Gizmo',
    metadata: { name: 'a', namespace: 'default', ...meta },
    spec,
    ...rest,
  };
}

function entries(obj: Obj): Obj[] {
  return ((obj.metadata as Obj).managedFields as Obj[] | undefined) ?? [];
}

function fieldsOf(obj: Obj, manager: string, operation = 'Apply'): JsonValue | undefined {
  return entries(obj).find((e) => e.manager === manager && e.operation === operation)?.fieldsV1;
}

function stored(obj: Obj): Obj {
  // What the store adds on create.
  return { ...obj, metadata: { ...(obj.metadata as Obj), uid: 'u1', resourceVersion: '1' } };
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail('expected an ApiError');
}

describe('typed values', () => {
  it('toFieldSet owns leaves, list items (with "."), map keys, and not struct nodes', () => {
    const set = toFieldSet(
      cr({ ports: [{ name: 'http', port: 80 }], settings: { k: 'v' }, extra: { deep: { x: 1 } } }),
      gizmo,
    );
    assert.deepEqual(
      setToFieldsV1(set.difference(FieldSet.of(makePath('apiVersion'), makePath('kind')))),
      {
        'f:metadata': { 'f:name': {}, 'f:namespace': {} },
        'f:spec': {
          'f:extra': { 'f:deep': { '.': {}, 'f:x': {} } },
          'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
          'f:settings': { 'f:k': {} },
        },
      },
    );
  });

  it('an atomic map and an atomic list are owned whole', () => {
    const set = toFieldSet(cr({ selector: { a: 'b' }, args: ['x', 'y'] }), gizmo);
    assert.ok(set.has(makePath('spec', 'selector')));
    assert.ok(!set.has(makePath('spec', 'selector', 'a')));
    assert.ok(set.has(makePath('spec', 'args')));
  });

  it('an applied map list item without its key fails with the server message', () => {
    assert.throws(
      () => toFieldSet(cr({ ports: [{ port: 3 }] }), gizmo, false),
      /\.spec\.ports: element 0: associative list with keys has an element that omits all key fields \["name"\] \(and doesn't have default values for any key fields\)/,
    );
  });

  it('duplicate keys fail in an applied configuration, and are owned whole in a stored object', () => {
    const obj = cr({ ports: [{ name: 'x' }, { name: 'x' }] });
    assert.throws(
      () => toFieldSet(obj, gizmo, false),
      /\.spec\.ports: duplicate entries for key \[name="x"\]/,
    );
    const set = toFieldSet(obj, gizmo, true);
    assert.ok(set.has(makePath('spec', 'ports', keyElement([['name', 'x']]))));
  });

  it('a missing map-list key takes its schema default (ports keyed by containerPort and protocol)', () => {
    const pod = builtinType('pods').type;
    const set = toFieldSet(
      { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } },
      pod,
    );
    const port = keyElement([
      ['containerPort', 80],
      ['protocol', 'TCP'],
    ]);
    assert.ok(set.has(makePath('spec', 'containers', keyElement([['name', 'c']]), 'ports', port)));
  });

  it('compare reports added subtrees with their node, modified leaves and removed fields', () => {
    const c = compare(
      cr({ replicas: 1, color: 'red' }),
      cr({ replicas: 2, settings: { k: 'v' } }),
      gizmo,
    );
    assert.deepEqual(c.modified.paths().map(pathToString), ['.spec.replicas']);
    assert.deepEqual(c.added.paths().map(pathToString), ['.spec.settings', '.spec.settings.k']);
    assert.deepEqual(c.removed.paths().map(pathToString), ['.spec.color']);
  });

  it('merge takes leaves and atomic values from the configuration, merges map lists by key and sets by value', () => {
    const out = merge(
      cr({
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 2 },
        ],
        tags: ['x'],
        selector: { a: '1' },
      }),
      cr({
        ports: [
          { name: 'b', port: 3 },
          { name: 'c', port: 4 },
        ],
        tags: ['y'],
        selector: { b: '2' },
      }),
      gizmo,
    ) as Obj;
    assert.deepEqual((out.spec as Obj).ports, [
      { name: 'a', port: 1 },
      { name: 'b', port: 3 },
      { name: 'c', port: 4 },
    ]);
    assert.deepEqual((out.spec as Obj).tags, ['x', 'y']);
    assert.deepEqual((out.spec as Obj).selector, { b: '2' });
  });

  it('merge replaces an atomic list whole', () => {
    const out = merge(cr({ args: ['a', 'b'] }), cr({ args: ['c'] }), gizmo) as Obj;
    assert.deepEqual((out.spec as Obj).args, ['c']);
  });

  it('removeItems drops a map left empty', () => {
    const out = removeItems(
      cr({ color: 'red' }, { labels: { x: '1' } }),
      FieldSet.of(makePath('metadata', 'labels', 'x')),
      gizmo,
    ) as Obj;
    assert.equal((out.metadata as Obj).labels, undefined);
    assert.deepEqual(out.spec, { color: 'red' });
  });
});

describe('field manager: updates', () => {
  it('a create records one Update entry owning every field it set, "." on new maps and items', () => {
    const obj = updateManagedFields(
      undefined,
      cr(
        { replicas: 1, ports: [{ name: 'a', port: 1 }], settings: { z: '1' } },
        { labels: { q: '1' } },
        { status: { phase: 'X' } },
      ),
      'curl',
      scope(),
    );
    // As apiextensions-apiserver stored it: status is reset by the main resource, not owned.
    assert.deepEqual(
      entries(obj).map((e) => [e.manager, e.operation, e.apiVersion]),
      [['curl', 'Update', 'ssa.example.com/v1']],
    );
    assert.deepEqual(fieldsOf(obj, 'curl', 'Update'), {
      'f:metadata': { 'f:labels': { '.': {}, 'f:q': {} } },
      'f:spec': {
        '.': {},
        'f:ports': { '.': {}, 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:replicas': {},
        'f:settings': { '.': {}, 'f:z': {} },
      },
    });
  });

  it('a create owns an untyped (preserve-unknown-fields) subtree down to its leaves', () => {
    const obj = updateManagedFields(
      undefined,
      cr({ extra: { d: { e: 1 }, l: [1] } }),
      'cmp',
      scope(),
    );
    // As apiextensions-apiserver stored it.
    assert.deepEqual(fieldsOf(obj, 'cmp', 'Update'), {
      'f:spec': { '.': {}, 'f:extra': { '.': {}, 'f:d': { '.': {}, 'f:e': {} }, 'f:l': {} } },
    });
  });

  it('an update adds the fields it changed to the same entry and takes them from an applier', () => {
    let obj = stored(
      applyToObject(undefined, cr({ replicas: 1, color: 'red' }), 'alice', false, scope()),
    );
    obj = updateManagedFields(
      obj,
      cr({ replicas: 3, color: 'red', size: 'L' }, obj.metadata as Obj),
      'my-ctl',
      scope(),
    );
    assert.deepEqual(fieldsOf(obj, 'my-ctl', 'Update'), {
      'f:spec': { 'f:replicas': {}, 'f:size': {} },
    });
    assert.deepEqual(fieldsOf(obj, 'alice'), { 'f:spec': { 'f:color': {} } });
  });

  it('an update that changes nothing keeps the entries and their times', () => {
    const first = stored(updateManagedFields(undefined, cr({ replicas: 1 }), 'w', scope()));
    const again = updateManagedFields(
      first,
      cr({ replicas: 1 }, first.metadata as Obj),
      'w',
      scope(),
    );
    assert.deepEqual(entries(again), entries(first));
  });

  it('request managedFields: absent or [] keep the stored ones, [{}] clears them, and an untracked object stays untracked', () => {
    const live = stored(updateManagedFields(undefined, cr({ replicas: 1 }), 'w', scope()));
    const meta = { ...(live.metadata as Obj) };
    delete meta.managedFields;
    const kept = updateManagedFields(
      live,
      cr({ replicas: 1, color: 'x' }, { ...meta, managedFields: [] }),
      'w',
      scope(),
    );
    assert.deepEqual(fieldsOf(kept, 'w', 'Update'), {
      'f:spec': { '.': {}, 'f:color': {}, 'f:replicas': {} },
    });
    const cleared = updateManagedFields(
      live,
      cr({ replicas: 1 }, { ...meta, managedFields: [{}] }),
      'w',
      scope(),
    );
    assert.equal((cleared.metadata as Obj).managedFields, undefined);
    const still = updateManagedFields(stored(cleared), cr({ replicas: 2 }, meta), 'w', scope());
    assert.equal((still.metadata as Obj).managedFields, undefined);
  });

  it('request managedFields that decode replace the stored ones', () => {
    const live = stored(updateManagedFields(undefined, cr({ replicas: 1 }), 'w', scope()));
    const mine = [
      {
        manager: 'someone',
        operation: 'Update',
        apiVersion: 'ssa.example.com/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ];
    const out = updateManagedFields(
      live,
      cr({ replicas: 1 }, { managedFields: mine }),
      'w',
      scope(),
    );
    assert.deepEqual(
      entries(out).map((e) => e.manager),
      ['someone'],
    );
  });

  it('a status write records an Update entry with subresource status owning only status', () => {
    const live = stored(updateManagedFields(undefined, cr({ replicas: 1 }), 'w', scope()));
    const out = updateManagedFields(
      live,
      { ...cr({ replicas: 9 }, live.metadata as Obj), status: { phase: 'Ready' } },
      'kubelet',
      scope('status'),
    );
    const e = entries(out).find((x) => x.manager === 'kubelet');
    assert.equal(e?.subresource, 'status');
    assert.deepEqual(e?.fieldsV1, { 'f:status': { '.': {}, 'f:phase': {} } });
  });

  it(`at most ${MAX_UPDATE_MANAGERS} Update entries are kept; the oldest merge into ancient-changes`, () => {
    let obj = stored(updateManagedFields(undefined, cr({}), 'm0', scope()));
    for (let i = 1; i <= MAX_UPDATE_MANAGERS + 1; i++) {
      obj = stored(
        updateManagedFields(
          obj,
          cr({ ...(obj.spec as Obj), [`f${i}`]: i }, obj.metadata as Obj),
          `m${i}`,
          scope(),
        ),
      );
    }
    const names = entries(obj).map((e) => e.manager);
    assert.equal(names.length, MAX_UPDATE_MANAGERS);
    assert.ok(names.includes('ancient-changes'));
    assert.ok(!names.includes('m1') && !names.includes('m2'));
  });
});

describe('field manager: apply', () => {
  const first = (): Obj =>
    stored(
      applyToObject(
        undefined,
        cr(
          {
            replicas: 1,
            color: 'red',
            tags: ['a', 'b'],
            ports: [{ name: 'http', port: 80 }],
            settings: { k: 'v' },
            selector: { a: 'b' },
            extra: { deep: { x: 1 } },
          },
          { labels: { x: '1' } },
        ),
        'alice',
        false,
        scope(),
      ),
    );

  it('an apply creating an object owns exactly its configuration (no "." on struct fields)', () => {
    const obj = first();
    assert.deepEqual(
      entries(obj).map((e) => [e.manager, e.operation]),
      [['alice', 'Apply']],
    );
    assert.deepEqual(fieldsOf(obj, 'alice'), {
      'f:metadata': { 'f:labels': { 'f:x': {} } },
      'f:spec': {
        'f:color': {},
        'f:extra': { 'f:deep': { '.': {}, 'f:x': {} } },
        'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:replicas': {},
        'f:selector': {},
        'f:settings': { 'f:k': {} },
        'f:tags': { 'v:"a"': {}, 'v:"b"': {} },
      },
    });
  });

  it('changing fields another applier owns is a 409 naming each field and its manager', () => {
    const err = apiError(() =>
      applyToObject(
        first(),
        cr(
          { replicas: 2, color: 'red', ports: [{ name: 'http', port: 81 }] },
          { labels: { x: '2' } },
        ),
        'bob',
        false,
        scope(),
      ),
    );
    assert.equal(err.code, 409);
    assert.equal(err.status.reason, 'Conflict');
    assert.equal(
      err.status.message,
      'Apply failed with 3 conflicts: conflicts with "alice":\n- .metadata.labels.x\n- .spec.replicas\n- .spec.ports[name="http"].port',
    );
    assert.deepEqual(err.status.details?.causes, [
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "alice"',
        field: '.metadata.labels.x',
      },
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "alice"',
        field: '.spec.ports[name="http"].port',
      },
    ]);
  });

  it('setting the same value another applier set is shared ownership, not a conflict', () => {
    const obj = applyToObject(first(), cr({ color: 'red' }), 'carol', false, scope());
    assert.deepEqual(fieldsOf(obj, 'carol'), { 'f:spec': { 'f:color': {} } });
    assert.ok(fieldsOf(obj, 'alice'));
  });

  it('an Update owner is named with its apiVersion; one conflict has the singular message', () => {
    let obj = first();
    obj = stored(
      updateManagedFields(
        obj,
        cr({ ...(obj.spec as Obj), replicas: 3 }, obj.metadata as Obj),
        'my-ctl',
        scope(),
      ),
    );
    const err = apiError(() => applyToObject(obj, cr({ replicas: 2 }), 'bob', false, scope()));
    assert.equal(
      err.status.message,
      'Apply failed with 1 conflict: conflict with "my-ctl" using ssa.example.com/v1: .spec.replicas',
    );
  });

  it('force takes the conflicting fields over from their owners', () => {
    const obj = applyToObject(first(), cr({ replicas: 2 }), 'bob', true, scope());
    assert.equal((obj.spec as Obj).replicas, 2);
    assert.deepEqual(fieldsOf(obj, 'bob'), { 'f:spec': { 'f:replicas': {} } });
    assert.ok(!JSON.stringify(fieldsOf(obj, 'alice')).includes('f:replicas'));
  });

  it('fields an applier stops sending are removed unless another manager owns them', () => {
    let obj = stored(
      applyToObject(first(), cr({ size: 'L', color: 'red' }), 'carol', false, scope()),
    );
    obj = applyToObject(obj, cr({ ports: [{ name: 'http', port: 80 }] }), 'alice', false, scope());
    assert.deepEqual(obj.spec, { ports: [{ name: 'http', port: 80 }], color: 'red', size: 'L' });
    assert.equal((obj.metadata as Obj).labels, undefined);
    assert.deepEqual(fieldsOf(obj, 'alice'), {
      'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    });
  });

  it('an apply that changes nothing records the entry without a new time', () => {
    const obj = first();
    const again = applyToObject(obj, cr({ color: 'red' }), 'carol', false, scope());
    const carol = entries(again).find((e) => e.manager === 'carol');
    assert.ok(carol);
    assert.equal(carol.time, undefined);
    assert.equal(entries(again)[0]?.manager, 'carol', 'an entry without time sorts first');
  });

  it('an apply to status owns status fields with subresource status and ignores the rest', () => {
    const obj = applyToObject(
      first(),
      cr({ color: 'blue' }, {}, { status: { phase: 'Ready' } }),
      'stat',
      false,
      scope('status'),
    );
    const e = entries(obj).find((x) => x.manager === 'stat');
    assert.equal(e?.subresource, 'status');
    assert.deepEqual(e?.fieldsV1, { 'f:status': { 'f:phase': {} } });
  });

  it('an object without managedFields gets a before-first-apply owner of its fields', () => {
    const live = stored(cr({ replicas: 1, color: 'x' }));
    const err = apiError(() => applyToObject(live, cr({ replicas: 5 }), 'z', false, scope()));
    assert.equal(
      err.status.message,
      'Apply failed with 1 conflict: conflict with "before-first-apply" using ssa.example.com/v1: .spec.replicas',
    );
    const obj = applyToObject(live, cr({ replicas: 5 }), 'z', true, scope());
    assert.deepEqual(fieldsOf(obj, 'before-first-apply', 'Update'), {
      'f:spec': { '.': {}, 'f:color': {} },
    });
  });

  it('a patch of another apiVersion or kind, or with managedFields, is a 400', () => {
    const e1 = apiError(() =>
      applyToObject(first(), { ...cr({}), apiVersion: 'ssa.example.com/v2' }, 'z', false, scope()),
    );
    assert.equal(e1.code, 400);
    assert.equal(e1.status.message, 'invalid object type: ssa.example.com/v2, Kind=Gizmo');
    const e2 = apiError(() =>
      applyToObject(first(), { metadata: { name: 'a' } }, 'z', false, scope()),
    );
    assert.equal(e2.status.message, 'invalid object type: /, Kind=');
    const e3 = apiError(() =>
      applyToObject(first(), cr({}, { managedFields: [] }), 'z', false, scope()),
    );
    assert.equal(e3.code, 400);
    assert.equal(e3.status.message, 'metadata.managedFields must be nil');
  });

  it('a configuration that cannot be typed is a 500 naming the object and the field', () => {
    const err = apiError(() =>
      applyToObject(first(), cr({ ports: [{ port: 3 }] }), 'z', false, scope()),
    );
    assert.equal(err.code, 500);
    assert.match(
      err.status.message ?? '',
      /^failed to create typed patch object \(default\/a; ssa\.example\.com\/v1, Kind=Gizmo\): \.spec\.ports: element 0: associative list with keys/,
    );
  });
});
