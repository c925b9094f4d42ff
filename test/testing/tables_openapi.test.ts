// The read side kubectl uses: Table responses (CRD additionalPrinterColumns with JSONPath,
// priorities and types; kube-apiserver's columns for built-ins) and OpenAPI v3 documents
// with component schemas (built-ins from Kubernetes' proto definitions, CRDs from their
// openAPIV3Schema).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { evaluateJsonPath } from '../../packages/testing/src/jsonpath.js';
import { humanAge } from '../../packages/testing/src/table.js';
import { FakeClock } from '../../src/util/clock.js';
import { raw } from './helpers.js';
import { BUILTIN_OPENAPI_SCHEMAS } from '../../packages/testing/src/builtin_schemas.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

interface Table {
  kind: string;
  columnDefinitions: { name: string; type: string; format: string; priority: number }[];
  rows: { cells: unknown[] }[];
}

describe('Tables and OpenAPI v3', () => {
  let server: TestApiServer;
  let clock: FakeClock;
  before(async () => {
    clock = new FakeClock(Date.parse('2025-01-01T00:00:00Z'));
    server = await startTestApiServer({ clock });
    server.create('customresourcedefinitions.apiextensions.k8s.io', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            additionalPrinterColumns: [
              { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
              {
                name: 'Ready',
                type: 'string',
                jsonPath: '.status.conditions[?(@.type=="Ready")].status',
              },
              { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
              { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            ],
            schema: {
              openAPIV3Schema: {
                type: 'object',
                description: 'A widget.',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { size: { type: 'integer', description: 'How big.' } },
                  },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
          {
            name: 'v2',
            served: true,
            storage: false,
            schema: { openAPIV3Schema: { type: 'object' } },
          },
        ],
      },
    });
    server.create('widgets.example.com', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default' },
      spec: { size: 3 },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    server.create('widgets.example.com', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w2', namespace: 'default' },
      spec: {},
    });
  });
  after(() => server.close());

  it('a CRD table has Name, then the additionalPrinterColumns with their types and priorities', async () => {
    await clock.advance(90_000);
    const res = await raw(
      server.url,
      'GET',
      '/apis/example.com/v1/namespaces/default/widgets',
      undefined,
      {
        Accept: TABLE,
      },
    );
    const t = res.json as unknown as Table;
    assert.equal(t.kind, 'Table');
    assert.deepEqual(
      t.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Size', 'integer', '', 0],
        ['Ready', 'string', '', 0],
        ['Phase', 'string', '', 1],
        ['Created', 'date', '', 0],
      ],
    );
    // A path that reaches nothing is a null cell (a value of the wrong type cannot be stored:
    // the CRD schema refuses it).
    assert.deepEqual(
      t.rows.map((r) => r.cells),
      [
        ['w1', 3, 'True', 'Running', '90s'],
        ['w2', null, null, null, '90s'],
      ],
    );
  });

  it('a CRD version without additionalPrinterColumns shows Name and Age', async () => {
    const res = await raw(
      server.url,
      'GET',
      '/apis/example.com/v2/namespaces/default/widgets',
      undefined,
      {
        Accept: TABLE,
      },
    );
    const t = res.json as unknown as Table;
    assert.deepEqual(
      t.columnDefinitions.map((c) => c.name),
      ['Name', 'Age'],
    );
  });

  it('built-in tables carry kube-apiserver columns: pods, deployments, configmaps, secrets, namespaces', async () => {
    server.create('pods', {
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2 },
          {
            name: 'b',
            ready: false,
            restartCount: 1,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
          },
        ],
      },
    });
    server.create('deployments.apps', {
      metadata: { name: 'd', namespace: 'default' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'd' } }, template: {} },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    });
    server.create('configmaps', {
      metadata: { name: 'c', namespace: 'default' },
      data: { a: '1', b: '2' },
    });
    server.create('secrets', {
      metadata: { name: 's', namespace: 'default' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': '', 'tls.key': '' },
    });
    const get = async (path: string): Promise<Table> =>
      (await raw(server.url, 'GET', path, undefined, { Accept: TABLE })).json as unknown as Table;
    const pods = await get('/api/v1/namespaces/default/pods/p');
    assert.deepEqual(
      pods.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name),
      ['Name', 'Ready', 'Status', 'Restarts', 'Age'],
    );
    assert.deepEqual(pods.rows[0]?.cells.slice(0, 4), ['p', '1/2', 'CrashLoopBackOff', '3']);
    const deploy = await get('/apis/apps/v1/namespaces/default/deployments/d');
    assert.deepEqual(
      deploy.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name),
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age'],
    );
    assert.deepEqual(deploy.rows[0]?.cells.slice(0, 4), ['d', '2/3', 3, 2]);
    assert.deepEqual(
      (await get('/api/v1/namespaces/default/configmaps/c')).rows[0]?.cells.slice(0, 2),
      ['c', 2],
    );
    assert.deepEqual(
      (await get('/api/v1/namespaces/default/secrets/s')).rows[0]?.cells.slice(0, 3),
      ['s', 'kubernetes.io/tls', 2],
    );
    assert.deepEqual((await get('/api/v1/namespaces/default')).rows[0]?.cells.slice(0, 2), [
      'default',
      'Active',
    ]);
  });

  it('ages are printed as kube-apiserver prints durations', () => {
    assert.equal(humanAge(59_000), '59s');
    assert.equal(humanAge(150_000), '2m30s');
    assert.equal(humanAge(30 * 60_000), '30m');
    assert.equal(humanAge((5 * 60 + 7) * 60_000), '5h7m');
    assert.equal(humanAge(30 * 3600_000), '30h');
    assert.equal(humanAge(3 * 86400_000), '3d');
  });

  it('printer-column JSONPath supports fields, indexes, wildcards and equality filters', () => {
    const o = {
      a: {
        b: [
          { t: 'x', v: 1 },
          { t: 'y', v: 2 },
        ],
      },
      'k.e': 5,
    };
    assert.deepEqual(evaluateJsonPath(o, '.a.b[1].v'), [2]);
    assert.deepEqual(evaluateJsonPath(o, '.a.b[*].t'), ['x', 'y']);
    assert.deepEqual(evaluateJsonPath(o, '.a.b[?(@.t=="y")].v'), [2]);
    assert.deepEqual(evaluateJsonPath(o, "['k.e']"), [5]);
    assert.deepEqual(evaluateJsonPath(o, '.missing.x'), []);
  });

  it('OpenAPI v3 of a built-in group version has the kind schema with its GVK and referenced schemas', async () => {
    const doc = (await raw(server.url, 'GET', '/openapi/v3/apis/apps/v1')).json as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const deploy = doc.components.schemas['io.k8s.api.apps.v1.Deployment'];
    assert.ok(deploy, 'Deployment schema present');
    assert.deepEqual(deploy['x-kubernetes-group-version-kind'], [
      { group: 'apps', kind: 'Deployment', version: 'v1' },
    ]);
    assert.ok(doc.components.schemas['io.k8s.api.apps.v1.DeploymentSpec']);
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    const containers = (
      doc.components.schemas['io.k8s.api.core.v1.PodSpec']?.properties as Record<
        string,
        Record<string, unknown>
      >
    ).containers;
    assert.equal(containers?.['x-kubernetes-list-type'], 'map');
    assert.deepEqual(containers?.['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(containers?.['x-kubernetes-patch-merge-key'], 'name');
  });

  it('OpenAPI v3 of a CRD group version carries its openAPIV3Schema with apiVersion, kind and metadata', async () => {
    const doc = (await raw(server.url, 'GET', '/openapi/v3/apis/example.com/v1')).json as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const widget = doc.components.schemas['com.example.v1.Widget'];
    assert.ok(widget);
    assert.equal(widget.description, 'A widget.');
    assert.deepEqual(Object.keys(widget.properties as object), [
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
    ]);
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [
      { group: 'example.com', kind: 'Widget', version: 'v1' },
    ]);
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  });
});

describe('built-in OpenAPI descriptions', () => {
  it('carry no notes to Kubernetes developers or tag lines, as kube-openapi publishes them (text after ---, TODO lines and +tags dropped), while list and map markers stay extensions', () => {
    const schemas = JSON.parse(BUILTIN_OPENAPI_SCHEMAS) as Record<string, unknown>;
    const descriptions: string[] = [];
    let listTypes = 0;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (typeof v === 'object' && v !== null) {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'description' && typeof x === 'string') descriptions.push(x);
          else if (k === 'x-kubernetes-list-type') listTypes++;
          else walk(x);
        }
      }
    };
    walk(schemas);
    assert.ok(descriptions.length > 1000, `${descriptions.length} descriptions`);
    const leaked = descriptions.filter((d) =>
      /\bTODO\b| --- |(^|\s)\+(k8s|kubebuilder|listType|optional)\b/.test(d),
    );
    assert.deepEqual(leaked, []);
    assert.ok(listTypes > 100, `${listTypes} list types`);
  });
});
