// Server-side apply through the test API server's HTTP write path: managedFields on every
// write, conflicts (409 as kube-apiserver words them), force, removal of dropped fields,
// list merging by the CRD schema and by the built-in types' schema, the status
// subresource, and the PatchOptions rules. Expected bodies are what a real
// apiextensions-apiserver answered to the same requests.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { raw } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */

const GROUP = 'ssa.example.com';
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer' },
                  color: { type: 'string' },
                  size: { type: 'string' },
                  tags: {
                    type: 'array',
                    items: { type: 'string' },
                    'x-kubernetes-list-type': 'set',
                  },
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
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

const BASE = `/apis/${GROUP}/v1/namespaces/default/gizmos`;
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

function gizmo(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    apiVersion: `${GROUP}/v1`,
    kind: 'Gizmo',
    metadata: { name },
    spec,
    ...extra,
  });
}

function managers(obj: Record<string, unknown>): any[] {
  return ((obj.metadata as any)?.managedFields as any[] | undefined) ?? [];
}

describe('server-side apply over HTTP', () => {
  let server: TestApiServer;
  const apply = (name: string, manager: string, body: string, query = '', sub = '') =>
    raw(server.url, 'PATCH', `${BASE}/${name}${sub}?fieldManager=${manager}${query}`, body, APPLY);

  before(async () => {
    server = await startTestApiServer();
    const r = await raw(
      server.url,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      JSON.stringify(CRD),
    );
    assert.equal(r.code, 201, r.body);
  });
  after(() => server.close());

  it('an apply without fieldManager is 422 Invalid PatchOptions, as kube-apiserver', async () => {
    const r = await raw(server.url, 'PATCH', `${BASE}/a`, gizmo('a', { replicas: 1 }), APPLY);
    assert.equal(r.code, 422);
    assert.equal(
      r.json.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    assert.deepEqual((r.json.details as any).causes, [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
  });

  it('force on a non-apply patch is 422 Forbidden', async () => {
    await apply('f', 'alice', gizmo('f', { replicas: 1 }));
    const r = await raw(server.url, 'PATCH', `${BASE}/f?force=false`, '{}', {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.equal(r.code, 422);
    assert.equal(
      r.json.message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });

  it('an apply creates the object (201) with one Apply entry owning its configuration', async () => {
    const r = await apply(
      'a',
      'alice',
      gizmo('a', {
        replicas: 1,
        color: 'red',
        tags: ['a', 'b'],
        ports: [{ name: 'http', port: 80 }],
      }),
    );
    assert.equal(r.code, 201, r.body);
    const [e] = managers(r.json);
    assert.equal(e.manager, 'alice');
    assert.equal(e.operation, 'Apply');
    assert.equal(e.apiVersion, `${GROUP}/v1`);
    assert.equal(e.fieldsType, 'FieldsV1');
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(e.fieldsV1, {
      'f:spec': {
        'f:color': {},
        'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:replicas': {},
        'f:tags': { 'v:"a"': {}, 'v:"b"': {} },
      },
    });
  });

  it('a conflicting apply is 409 Conflict naming each field and its manager', async () => {
    const r = await apply(
      'a',
      'bob',
      gizmo('a', { replicas: 2, color: 'red', ports: [{ name: 'http', port: 81 }] }),
    );
    assert.equal(r.code, 409);
    assert.equal(r.json.reason, 'Conflict');
    assert.equal(
      r.json.message,
      'Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.replicas\n- .spec.ports[name="http"].port',
    );
    assert.deepEqual((r.json.details as any).causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "alice"',
        field: '.spec.ports[name="http"].port',
      },
    ]);
  });

  it('a merge patch records an Update manager named after the User-Agent and takes the field', async () => {
    const r = await raw(server.url, 'PATCH', `${BASE}/a`, '{"spec":{"size":"L","replicas":3}}', {
      'Content-Type': 'application/merge-patch+json',
      'User-Agent': 'my-ctl/1.0 (linux)',
    });
    assert.equal(r.code, 200, r.body);
    const ctl = managers(r.json).find((e) => e.manager === 'my-ctl');
    assert.equal(ctl.operation, 'Update');
    assert.deepEqual(ctl.fieldsV1, { 'f:spec': { 'f:replicas': {}, 'f:size': {} } });
    const alice = managers(r.json).find((e) => e.manager === 'alice');
    assert.ok(!('f:replicas' in alice.fieldsV1['f:spec']));
    const c = await apply('a', 'bob', gizmo('a', { replicas: 2 }));
    assert.equal(
      c.json.message,
      `Apply failed with 1 conflict: conflict with "my-ctl" using ${GROUP}/v1: .spec.replicas`,
    );
  });

  it('force=true takes the conflicting fields over', async () => {
    const r = await apply('a', 'bob', gizmo('a', { replicas: 2 }), '&force=true');
    assert.equal(r.code, 200, r.body);
    assert.equal((r.json.spec as any).replicas, 2);
    const bob = managers(r.json).find((e) => e.manager === 'bob');
    assert.deepEqual(bob.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    const ctl = managers(r.json).find((e) => e.manager === 'my-ctl');
    assert.deepEqual(ctl.fieldsV1, { 'f:spec': { 'f:size': {} } });
  });

  it('fields dropped by their only applier are removed; shared ones stay', async () => {
    await apply('a', 'carol', gizmo('a', { color: 'red' }));
    const r = await apply('a', 'alice', gizmo('a', { ports: [{ name: 'http', port: 80 }] }));
    assert.equal(r.code, 200, r.body);
    assert.deepEqual(r.json.spec, {
      replicas: 2,
      color: 'red',
      ports: [{ name: 'http', port: 80 }],
      size: 'L',
    });
  });

  it('map lists merge by key and set lists by value between appliers', async () => {
    await apply('m', 'one', gizmo('m', { ports: [{ name: 'a', port: 1 }], tags: ['x'] }));
    const r = await apply('m', 'two', gizmo('m', { ports: [{ name: 'b', port: 2 }], tags: ['y'] }));
    assert.deepEqual((r.json.spec as any).ports, [
      { name: 'a', port: 1 },
      { name: 'b', port: 2 },
    ]);
    assert.deepEqual((r.json.spec as any).tags, ['x', 'y']);
    const atomic = await apply('m', 'three', gizmo('m', { args: ['q'] }));
    const again = await apply('m', 'four', gizmo('m', { args: ['r'] }));
    assert.equal(atomic.code, 200);
    assert.equal(again.code, 409, 'an atomic list is owned whole, so a different list conflicts');
  });

  it('an apply to status owns status fields with subresource status and leaves spec alone', async () => {
    const r = await apply(
      'a',
      'stat',
      gizmo('a', { color: 'blue' }, { status: { phase: 'Ready' } }),
      '',
      '/status',
    );
    assert.equal(r.code, 200, r.body);
    assert.equal((r.json.spec as any).color, 'red');
    assert.deepEqual(r.json.status, { phase: 'Ready' });
    const e = managers(r.json).find((x) => x.manager === 'stat');
    assert.equal(e.subresource, 'status');
    assert.deepEqual(e.fieldsV1, { 'f:status': { 'f:phase': {} } });
  });

  it('a repeated apply changes nothing and keeps the resourceVersion', async () => {
    const a = await apply('a', 'bob', gizmo('a', { replicas: 2 }));
    const b = await apply('a', 'bob', gizmo('a', { replicas: 2 }));
    assert.equal(
      (b.json.metadata as any).resourceVersion,
      (a.json.metadata as any).resourceVersion,
    );
  });

  it('a create records an Update entry with "." on new maps and list items; [{}] clears managedFields', async () => {
    const c = await raw(
      server.url,
      'POST',
      BASE,
      gizmo(
        'b',
        { replicas: 1, ports: [{ name: 'a', port: 1 }] },
        { metadata: { name: 'b', labels: { q: '1' } } },
      ),
      { 'User-Agent': 'curl/8.0' },
    );
    assert.equal(c.code, 201, c.body);
    assert.deepEqual(managers(c.json), [
      {
        manager: 'curl',
        operation: 'Update',
        apiVersion: `${GROUP}/v1`,
        time: managers(c.json)[0].time,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:q': {} } },
          'f:spec': {
            '.': {},
            'f:ports': { '.': {}, 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
            'f:replicas': {},
          },
        },
      },
    ]);
    const cleared = await raw(
      server.url,
      'PATCH',
      `${BASE}/b`,
      '[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]',
      { 'Content-Type': 'application/json-patch+json' },
    );
    assert.equal((cleared.json.metadata as any).managedFields, undefined);
    const conflict = await apply('b', 'z', gizmo('b', { replicas: 5 }));
    assert.equal(
      conflict.json.message,
      `Apply failed with 1 conflict: conflict with "before-first-apply" using ${GROUP}/v1: .spec.replicas`,
    );
  });

  it('built-in types merge by their list keys: containers by name, ports by containerPort and protocol', async () => {
    const deploy = (manager: string, containers: unknown[], query = '') =>
      raw(
        server.url,
        'PATCH',
        `/apis/apps/v1/namespaces/default/deployments/web?fieldManager=${manager}${query}`,
        JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
          },
        }),
        APPLY,
      );
    const one = await deploy('one', [{ name: 'a', image: 'a:1', ports: [{ containerPort: 80 }] }]);
    assert.equal(one.code, 201, one.body);
    const fields = managers(one.json)[0].fieldsV1;
    assert.deepEqual(
      Object.keys(
        fields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"a"}']['f:ports'],
      ),
      ['k:{"containerPort":80,"protocol":"TCP"}'],
    );
    const two = await deploy('two', [{ name: 'b', image: 'b:1' }]);
    assert.equal(two.code, 200, two.body);
    const names = ((two.json.spec as any).template.spec.containers as any[]).map((c) => c.name);
    assert.deepEqual(names, ['a', 'b']);
    const clash = await deploy('two', [{ name: 'a', image: 'a:2' }]);
    assert.equal(clash.code, 409);
    assert.equal(
      clash.json.message,
      'Apply failed with 1 conflict: conflict with "one": .spec.template.spec.containers[name="a"].image',
    );
  });
});
