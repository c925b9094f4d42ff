// Conformance scenarios for custom resource schemas, written once and run against the
// in-memory API server (schema-in-memory.test.ts) and a real apiextensions-apiserver
// (schema-real.test.ts): validation causes and messages, pruning and fieldValidation,
// defaulting on write and read, CEL rules with transition rules, ratcheting, and the
// scale subresource. Requests are raw HTTP so that bodies and headers compare exactly.
import { after, before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { UnstructuredObject } from '../../src/client/types.js';
import { conformanceGroup, eventually } from './scenarios.js';
import type { ConformanceTarget, TargetProvider } from './scenarios.js';

/** One raw answer. */
interface Answer {
  code: number;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
  text: string;
}

async function call(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Answer> {
  const server = kc.getCurrentCluster()?.server ?? '';
  const url = new URL(path, server);
  const opts: RequestOptions = { method, headers: { Accept: 'application/json' } };
  await kc.applyToHTTPSOptions(opts);
  const text =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  if (text !== undefined) (opts.headers as Record<string, string>)['Content-Type'] = contentType;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...opts, agent: false }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => {
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(data) as Record<string, unknown>;
        } catch {
          json = { text: data };
        }
        resolve({ code: res.statusCode ?? 0, headers: res.headers, json, text: data });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

function warnings(a: Answer): string[] {
  const w = a.headers.warning;
  if (w === undefined) return [];
  // Node joins repeated headers with ", "; split on the boundary between quoted texts.
  return (Array.isArray(w) ? w.join(', ') : w).split(/(?<="), (?=299 )/);
}

interface Cause {
  reason?: string;
  field?: string;
  message?: string;
}

/** Causes in a stable order (kube-apiserver's order of schema errors follows Go map iteration). */
function causes(a: Answer): string[] {
  const details = a.json.details as { causes?: Cause[] } | undefined;
  return (details?.causes ?? [])
    .map((c) => `${c.reason ?? ''} ${c.field ?? ''}: ${c.message ?? ''}`)
    .sort();
}

const baseSchema = (): Record<string, unknown> => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['replicas'],
      'x-kubernetes-validations': [
        { rule: 'self.minR <= self.maxR', message: 'minR must not exceed maxR' },
        {
          rule: "self.mode != 'bad'",
          messageExpression: "'mode ' + self.mode + ' is bad'",
          fieldPath: '.mode',
          reason: 'FieldValueForbidden',
        },
        { rule: 'self.replicas == oldSelf.replicas || self.replicas > 0' },
      ],
      properties: {
        replicas: { type: 'integer', minimum: 0, maximum: 10 },
        minR: { type: 'integer', default: 1 },
        maxR: { type: 'integer', default: 5 },
        ratio: { type: 'number', minimum: 0, maximum: 1, exclusiveMaximum: true, multipleOf: 0.25 },
        mode: { type: 'string', enum: ['a', 'b', 'bad'], default: 'a' },
        name: { type: 'string', pattern: '^[a-z]+$', minLength: 2, maxLength: 5 },
        email: { type: 'string', format: 'email' },
        tags: {
          type: 'array',
          'x-kubernetes-list-type': 'set',
          maxItems: 3,
          items: { type: 'string' },
        },
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
        labels: { type: 'object', maxProperties: 2, additionalProperties: { type: 'string' } },
        nullable: { type: 'string', nullable: true },
        ios: { 'x-kubernetes-int-or-string': true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
        },
        immutable: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: 'self == oldSelf', message: 'immutable is immutable' },
          ],
        },
      },
    },
    status: {
      type: 'object',
      properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
    },
  },
});

function gadgetCrd(plural: string, kind: string, schema = baseSchema()): UnstructuredObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${conformanceGroup}` },
    spec: {
      group: conformanceGroup,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
        },
      ],
    },
  };
}

/** Defines the schema scenarios inside the caller's describe. */
export function defineSchemaScenarios(
  target: () => ConformanceTarget | undefined,
  skipReason: () => string,
): void {
  const made: { kc: KubeConfig; name: string }[] = [];
  after(async () => {
    for (const m of made) {
      await call(
        m.kc,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${m.name}`,
      ).catch(() => undefined);
    }
  });

  /** The target, a CRD of its own (Established and served), and request helpers for it. */
  const setup = async (t: TestContext, plural: string, kind: string) => {
    const tg = target();
    if (tg === undefined) {
      t.skip(skipReason());
      return undefined;
    }
    const kc = tg.kubeConfig();
    const crd = gadgetCrd(plural, kind);
    const crdName = crd.metadata?.name ?? '';
    made.push({ kc, name: crdName });
    const created = await call(
      kc,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    assert.equal(created.code, 201, JSON.stringify(created.json));
    const base = `/apis/${conformanceGroup}/v1/namespaces/${tg.namespace}/${plural}`;
    await eventually(
      `${plural} served`,
      async () => (await call(kc, 'GET', base)).code === 200,
      tg.patienceMs,
    );
    const obj = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: `${conformanceGroup}/v1`,
      kind,
      metadata: { name },
      spec,
    });
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
    /** Replaces the CRD's schema and waits until writes see it (`probe` answers `ready`). */
    const changeSchema = async (
      schema: Record<string, unknown>,
      ready: () => Promise<boolean>,
    ): Promise<void> => {
      const cur = await call(kc, 'GET', crdPath);
      const next = structuredClone(cur.json) as { spec: { versions: { schema: unknown }[] } };
      const v0 = next.spec.versions[0];
      assert.ok(v0);
      v0.schema = { openAPIV3Schema: schema };
      const put = await call(kc, 'PUT', crdPath, next);
      assert.equal(put.code, 200, JSON.stringify(put.json));
      await eventually(`${plural} to serve the changed schema`, ready, tg.patienceMs);
    };
    return { tg, kc, base, obj, kind, changeSchema };
  };

  const invalidPrefix = (kind: string, name: string) =>
    `${kind}.${conformanceGroup} "${name}" is invalid: `;

  describe('custom resource schemas', () => {
    test('a custom resource violating its schema is 422 Invalid with a cause per violation', async (t) => {
      const s = await setup(t, 'gadgetsv', 'GadgetV');
      if (!s) return;
      const bad = await call(
        s.kc,
        'POST',
        s.base,
        s.obj('v1', {
          replicas: -1,
          ratio: 1,
          mode: 'x',
          name: 'ABCDEFG',
          email: 'nope',
          tags: ['a', 'a', 'b', 'c'],
          ports: [{ name: 'x' }, { name: 'x', port: 1 }],
          labels: { a: 'x', b: 'y', c: 'z' },
          nullable: null,
          embedded: { spec: {} },
        }),
      );
      assert.equal(bad.code, 422);
      assert.equal(bad.json.reason, 'Invalid');
      assert.ok(
        String(bad.json.message).startsWith(invalidPrefix(s.kind, 'v1')),
        String(bad.json.message),
      );
      const rulesSkipped =
        'FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
      assert.deepEqual(
        causes(bad),
        [
          'FieldValueDuplicate spec.ports[1]: Duplicate value: {"name":"x"}',
          'FieldValueDuplicate spec.tags[1]: Duplicate value: "a"',
          'FieldValueInvalid .spec.replicas: Invalid value: -1: should be a non-negative integer',
          'FieldValueInvalid spec.ratio: Invalid value: 0: factor MultipleOf declared for spec.ratio must be positive: 0',
          'FieldValueInvalid spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1',
          'FieldValueInvalid spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
          'FieldValueNotSupported spec.mode: Unsupported value: "x": supported values: "a", "b", "bad"',
          'FieldValueRequired spec.embedded.apiVersion: Required value',
          'FieldValueRequired spec.embedded.kind: Required value',
          'FieldValueTooLong spec.name: Too long: may not be more than 5 bytes',
          'FieldValueTooMany spec.labels: Too many: 3: must have at most 2 items',
          'FieldValueTooMany spec.tags: Too many: 4: must have at most 3 items',
          'FieldValueTypeInvalid spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"',
          rulesSkipped,
        ].sort(),
      );
      const typed = await call(
        s.kc,
        'POST',
        s.base,
        s.obj('v2', { replicas: 'string', ios: true }),
      );
      assert.equal(typed.code, 422);
      assert.deepEqual(
        causes(typed),
        [
          'FieldValueInvalid .spec.replicas: Invalid value: 0: .spec.replicas accessor error: string is of the type string, expected int64',
          rulesSkipped,
          'FieldValueTypeInvalid spec.ios: Invalid value: "boolean": spec.ios in body must be of type integer,string: "boolean"',
          'FieldValueTypeInvalid spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        ].sort(),
      );
      const one = await call(s.kc, 'POST', s.base, s.obj('v3', {}));
      assert.deepEqual(one.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `${invalidPrefix(s.kind, 'v3')}[spec.replicas: Required value, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
        reason: 'Invalid',
        details: {
          name: 'v3',
          group: conformanceGroup,
          kind: s.kind,
          causes: [
            { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.replicas' },
            {
              reason: 'FieldValueInvalid',
              message:
                'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
              field: '<nil>',
            },
          ],
        },
        code: 422,
      });
      const pattern = await call(s.kc, 'POST', s.base, s.obj('v4', { replicas: 1, name: 'a1' }));
      assert.equal(
        pattern.json.message,
        `${invalidPrefix(s.kind, 'v4')}spec.name: Invalid value: "a1": spec.name in body should match '^[a-z]+$'`,
      );
    });

    test('unknown fields are pruned: warned about by default, rejected with Strict, silent with Ignore', async (t) => {
      const s = await setup(t, 'gadgetsp', 'GadgetP');
      if (!s) return;
      const body = s.obj('p1', {
        replicas: 1,
        foo: 1,
        bar: { x: 1 },
        free: { any: 1 },
        embedded: { apiVersion: 'v1', kind: 'K', metadata: { name: 'x', junk: 1 }, spec: { y: 2 } },
      });
      const strict = await call(s.kc, 'POST', `${s.base}?fieldValidation=Strict`, body);
      assert.equal(strict.code, 400);
      assert.equal(strict.json.reason, 'BadRequest');
      assert.equal(
        strict.json.message,
        `${s.kind} in version "v1" cannot be handled as a ${s.kind}: strict decoding error: unknown field "spec.bar", unknown field "spec.embedded.spec.y", unknown field "spec.foo", unknown field "spec.embedded.metadata.junk"`,
      );
      const warned = await call(s.kc, 'POST', s.base, body);
      assert.equal(warned.code, 201);
      assert.deepEqual(warnings(warned), [
        '299 - "unknown field \\"spec.bar\\""',
        '299 - "unknown field \\"spec.embedded.spec.y\\""',
        '299 - "unknown field \\"spec.foo\\""',
        '299 - "unknown field \\"spec.embedded.metadata.junk\\""',
      ]);
      assert.deepEqual(warned.json.spec, {
        replicas: 1,
        minR: 1,
        maxR: 5,
        mode: 'a',
        free: { any: 1 },
        embedded: { apiVersion: 'v1', kind: 'K', metadata: { name: 'x' }, spec: {} },
      });
      const ignored = await call(
        s.kc,
        'POST',
        `${s.base}?fieldValidation=Ignore`,
        s.obj('p2', { replicas: 1, foo: 1 }),
      );
      assert.equal(ignored.code, 201);
      assert.deepEqual(warnings(ignored), []);
      assert.equal((ignored.json.spec as Record<string, unknown>).foo, undefined);
      const dupText = `{"apiVersion":"${conformanceGroup}/v1","kind":"${s.kind}","metadata":{"name":"p3"},"spec":{"replicas":1,"replicas":2}}`;
      const dupStrict = await call(s.kc, 'POST', `${s.base}?fieldValidation=Strict`, dupText);
      assert.equal(
        dupStrict.json.message,
        `${s.kind} in version "v1" cannot be handled as a ${s.kind}: strict decoding error: duplicate field "spec.replicas"`,
      );
      const dupWarn = await call(s.kc, 'POST', s.base, dupText);
      assert.deepEqual(warnings(dupWarn), ['299 - "duplicate field \\"spec.replicas\\""']);
      assert.equal(
        (dupWarn.json.spec as Record<string, unknown>).replicas,
        2,
        'the last value wins',
      );
      const patch = await call(
        s.kc,
        'PATCH',
        `${s.base}/p2`,
        { spec: { zzz: 1 } },
        'application/merge-patch+json',
      );
      assert.equal(patch.code, 200);
      assert.deepEqual(warnings(patch), ['299 - "unknown field \\"spec.zzz\\""']);
      const bogus = await call(
        s.kc,
        'POST',
        `${s.base}?fieldValidation=strict`,
        s.obj('p4', { replicas: 1 }),
      );
      assert.equal(bogus.code, 422);
      assert.equal(
        bogus.json.message,
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
      );
    });

    test('defaults apply on write, and on read to objects stored before the default existed', async (t) => {
      const s = await setup(t, 'gadgetsd', 'GadgetD');
      if (!s) return;
      const created = await call(s.kc, 'POST', s.base, s.obj('d1', { replicas: 1, mode: null }));
      assert.equal(created.code, 201);
      assert.deepEqual(created.json.spec, { replicas: 1, minR: 1, maxR: 5, mode: 'a' });
      const schema = baseSchema() as {
        properties: { spec: { properties: Record<string, unknown> } };
      };
      schema.properties.spec.properties.newd = { type: 'string', default: 'nd' };
      await s.changeSchema(schema, async () => {
        const got = await call(s.kc, 'GET', `${s.base}/d1`);
        return (got.json.spec as Record<string, unknown>).newd === 'nd';
      });
      const list = await call(s.kc, 'GET', s.base);
      const items = list.json.items as { spec: Record<string, unknown> }[];
      assert.deepEqual(items[0]?.spec, { replicas: 1, minR: 1, maxR: 5, mode: 'a', newd: 'nd' });
      const watched = await call(
        s.kc,
        'GET',
        `${s.base}?watch=1&resourceVersion=0&timeoutSeconds=1`,
      );
      const events = watched.text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { type: string; object: { spec?: unknown } });
      assert.deepEqual(
        events.filter((e) => e.type === 'ADDED').map((e) => e.object.spec),
        [{ replicas: 1, minR: 1, maxR: 5, mode: 'a', newd: 'nd' }],
        'a watch sends the defaulted object too',
      );
    });

    test('x-kubernetes-validations rules: messages, messageExpression, fieldPath, reason and transition rules', async (t) => {
      const s = await setup(t, 'gadgetsc', 'GadgetC');
      if (!s) return;
      const minmax = await call(
        s.kc,
        'POST',
        s.base,
        s.obj('c1', { replicas: 1, minR: 7, maxR: 2 }),
      );
      assert.equal(
        minmax.json.message,
        `${invalidPrefix(s.kind, 'c1')}spec: Invalid value: minR must not exceed maxR`,
      );
      const forbidden = await call(s.kc, 'POST', s.base, s.obj('c2', { replicas: 1, mode: 'bad' }));
      assert.deepEqual(causes(forbidden), [
        'FieldValueForbidden spec.mode: Forbidden: mode bad is bad',
      ]);
      const ok = await call(s.kc, 'POST', s.base, s.obj('c3', { replicas: 0, immutable: 'a' }));
      assert.equal(ok.code, 201, 'transition rules are not evaluated on create');
      const changed = await call(
        s.kc,
        'PATCH',
        `${s.base}/c3`,
        { spec: { immutable: 'b' } },
        'application/merge-patch+json',
      );
      assert.equal(
        changed.json.message,
        `${invalidPrefix(s.kind, 'c3')}spec.immutable: Invalid value: "b": immutable is immutable`,
      );
      const stillZero = await call(
        s.kc,
        'PATCH',
        `${s.base}/c3`,
        { spec: { minR: 0 } },
        'application/merge-patch+json',
      );
      assert.equal(stillZero.code, 200, 'replicas 0 is allowed while unchanged (oldSelf)');
      const negative = await call(
        s.kc,
        'PATCH',
        `${s.base}/c3`,
        { spec: { replicas: -3 } },
        'application/merge-patch+json',
      );
      const badRule = gadgetCrd('gadgetsbad', 'GadgetBad', {
        type: 'object',
        properties: {
          spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a >' }] },
        },
      });
      const refused = await call(
        s.kc,
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        badRule,
      );
      assert.equal(refused.code, 422, 'a CRD whose rule does not compile is refused');
      const refusedCauses = (refused.json.details as { causes?: Cause[] }).causes ?? [];
      assert.deepEqual(
        refusedCauses.map((c) => c.field),
        ['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule'],
      );
      assert.match(refusedCauses[0]?.message ?? '', /: compilation failed: /);
      assert.deepEqual(causes(negative), [
        'FieldValueInvalid .spec.replicas: Invalid value: -3: should be a non-negative integer',
        'FieldValueInvalid spec.replicas: Invalid value: -3: spec.replicas in body should be greater than or equal to 0',
        'FieldValueInvalid spec: Invalid value: failed rule: self.replicas == oldSelf.replicas || self.replicas > 0',
      ]);
    });

    test('validation ratcheting: an invalid value left unchanged does not block an update', async (t) => {
      const s = await setup(t, 'gadgetsr', 'GadgetR');
      if (!s) return;
      const created = await call(s.kc, 'POST', s.base, s.obj('r1', { replicas: 1, name: 'abc' }));
      assert.equal(created.code, 201);
      const schema = baseSchema() as {
        properties: { spec: { properties: Record<string, Record<string, unknown>> } };
      };
      const nameSchema = schema.properties.spec.properties.name;
      assert.ok(nameSchema);
      nameSchema.pattern = '^x+$';
      await s.changeSchema(schema, async () => {
        const probe = await call(
          s.kc,
          'POST',
          `${s.base}?dryRun=All`,
          s.obj('probe', { replicas: 1, name: 'abc' }),
        );
        return probe.code === 422;
      });
      const other = await call(
        s.kc,
        'PATCH',
        `${s.base}/r1`,
        { spec: { minR: 0 } },
        'application/merge-patch+json',
      );
      assert.equal(other.code, 200, JSON.stringify(other.json));
      const renamed = await call(
        s.kc,
        'PATCH',
        `${s.base}/r1`,
        { spec: { name: 'abd' } },
        'application/merge-patch+json',
      );
      assert.equal(
        renamed.json.message,
        `${invalidPrefix(s.kind, 'r1')}spec.name: Invalid value: "abd": spec.name in body should match '^x+$'`,
      );
    });

    test('the scale subresource reads and writes replicas through the CRD paths as autoscaling/v1 Scale', async (t) => {
      const s = await setup(t, 'gadgetss', 'GadgetS');
      if (!s) return;
      const created = await call(s.kc, 'POST', s.base, s.obj('s1', { replicas: 0 }));
      assert.equal(created.code, 201);
      const meta = created.json.metadata as Record<string, unknown>;
      const status = await call(
        s.kc,
        'PATCH',
        `${s.base}/s1/status`,
        { status: { replicas: 2, selector: 'app=x' } },
        'application/merge-patch+json',
      );
      assert.equal(status.code, 200);
      const rv = (status.json.metadata as Record<string, unknown>).resourceVersion;
      const scaleMeta = (v: unknown) => ({
        name: 's1',
        namespace: s.tg.namespace,
        uid: meta.uid,
        resourceVersion: v,
        creationTimestamp: meta.creationTimestamp,
      });
      const got = await call(s.kc, 'GET', `${s.base}/s1/scale`);
      assert.deepEqual(got.json, {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: scaleMeta(rv),
        spec: {},
        status: { replicas: 2, selector: 'app=x' },
      });
      const patched = await call(
        s.kc,
        'PATCH',
        `${s.base}/s1/scale`,
        { spec: { replicas: 4 } },
        'application/merge-patch+json',
      );
      assert.equal(patched.code, 200);
      assert.deepEqual(patched.json.spec, { replicas: 4 });
      const obj = await call(s.kc, 'GET', `${s.base}/s1`);
      assert.equal((obj.json.spec as Record<string, unknown>).replicas, 4);
      const stale = await call(s.kc, 'PUT', `${s.base}/s1/scale`, {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 's1', resourceVersion: String(rv) },
        spec: { replicas: 3 },
      });
      assert.equal(stale.code, 409);
      const tooMany = await call(s.kc, 'PUT', `${s.base}/s1/scale`, {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 's1' },
        spec: { replicas: 11 },
      });
      assert.equal(
        tooMany.json.message,
        `${invalidPrefix(s.kind, 's1')}spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
      );
      const smp = await call(
        s.kc,
        'PATCH',
        `${s.base}/s1/scale`,
        { spec: { replicas: 2 } },
        'application/strategic-merge-patch+json',
      );
      assert.equal(smp.code, 415);
      const missing = await call(s.kc, 'GET', `${s.base}/nope/scale`);
      assert.equal(missing.code, 404);
      assert.equal(missing.json.message, `${'gadgetss'}.${conformanceGroup} "nope" not found`);
    });
  });
}

/** Runs the schema scenarios against a server, acquired before and released after them. */
export function describeSchemaConformance(name: string, provider: TargetProvider): void {
  describe(`schema conformance: ${name}`, () => {
    let target: ConformanceTarget | undefined;
    let skip = 'no server';
    before(async () => {
      const got = await provider.acquire();
      target = got.target;
      skip = got.skipReason;
    });
    defineSchemaScenarios(
      () => target,
      () => skip,
    );
    // After the scenarios' own cleanup (after hooks run in the order they were added).
    after(() => provider.release());
  });
}
