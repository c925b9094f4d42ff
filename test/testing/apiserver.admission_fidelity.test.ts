// Where the test API server's admission must say and see exactly what kube-apiserver's
// does (issue #23): the Status of a webhook denial, the moment of a create at which
// mutating and validating admission run, and the object a write through `/scale` sends.
// Webhooks here are in-process handlers (same semantics as HTTPS, no TLS).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { raw } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- reviews are arbitrary JSON */

type Request = Record<string, any>;
type Answer = Record<string, unknown>;

const MWC = 'mutatingwebhookconfigurations.admissionregistration.k8s.io';
const VWC = 'validatingwebhookconfigurations.admissionregistration.k8s.io';

function patch(ops: unknown[]): Answer {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

function config(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  rule: Record<string, unknown>,
): UnstructuredObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: [
      {
        name: `${name}.example.com`,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { namespace: 'default', name: 'local', path: `/${name}` } },
        rules: [{ operations: ['CREATE', 'UPDATE'], ...rule }],
      },
    ],
  };
}

const CONFIGMAPS = { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };

describe('admission as kube-apiserver runs it (test API server)', () => {
  let server: TestApiServer;
  // path → the handler answering it; every request seen, by path.
  const handlers = new Map<string, (r: Request) => Answer>();
  const seen = new Map<string, Request[]>();

  before(async () => {
    server = await startTestApiServer();
    server.registerService({ namespace: 'default', name: 'local' }, (review, path) => {
      const request = review.request as Request;
      const list = seen.get(path) ?? [];
      list.push(structuredClone(request));
      seen.set(path, list);
      const answer = handlers.get(path)?.(request) ?? { allowed: true };
      return {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: request.uid, ...answer },
      };
    });
  });

  after(async () => {
    await server.close();
  });

  beforeEach(() => {
    handlers.clear();
    seen.clear();
    for (const r of [MWC, VWC]) {
      for (const o of server.list(r)) server.delete(r, o.metadata?.name ?? '');
    }
    for (const o of server.list('configmaps')) {
      server.delete('configmaps', o.metadata?.name ?? '', o.metadata?.namespace ?? 'default');
    }
  });

  const send = async (method: string, path: string, body: unknown, type?: string) => {
    const res = await raw(
      server.url,
      method,
      path,
      JSON.stringify(body),
      type === undefined ? {} : { 'Content-Type': type },
    );
    return { code: res.code, json: res.json as Record<string, any> };
  };
  const post = (path: string, body: unknown) => send('POST', path, body);

  describe('denials (webhook/errors.ToStatusErr, policy/validating dispatcher)', () => {
    const deny = (status: Answer | undefined) => {
      server.delete(VWC, 'deny');
      server.create(VWC, config('ValidatingWebhookConfiguration', 'deny', CONFIGMAPS));
      handlers.set('/deny', () => ({ allowed: false, ...(status ? { status } : {}) }));
      return post('/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'denied' },
      });
    };

    it('rule: the webhook status code is kept (422 Invalid), its reason too, and the message gains no "<resource> is forbidden" prefix', async () => {
      const res = await deny({ code: 422, reason: 'Invalid', message: 'size too big' });
      assert.equal(res.code, 422);
      assert.equal(res.json.reason, 'Invalid');
      assert.equal(res.json.status, 'Failure');
      assert.equal(
        res.json.message as string,
        'admission webhook "deny.example.com" denied the request: size too big',
      );
    });

    it('rule: a code below 400 (0, 200) is raised to 400 and an empty status says "without explanation"', async () => {
      const none = await deny(undefined);
      assert.equal(none.code, 400);
      assert.equal(
        none.json.message as string,
        'admission webhook "deny.example.com" denied the request without explanation',
      );
      assert.equal(none.json.reason, undefined);
      const ok = await deny({ code: 200, reason: 'Forbidden' });
      assert.equal(ok.code, 400);
      assert.equal(ok.json.reason, 'Forbidden');
      assert.equal(
        ok.json.message as string,
        'admission webhook "deny.example.com" denied the request: Forbidden',
      );
    });

    it('rule: a ValidatingAdmissionPolicy denial is admission.NewForbidden with the policy reason and code, naming the generated name on create', async () => {
      server.create('validatingadmissionpolicies.admissionregistration.k8s.io', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'no-bad' },
        spec: {
          matchConstraints: {
            resourceRules: [{ operations: ['CREATE'], ...CONFIGMAPS }],
          },
          validations: [{ expression: "!has(object.data) || !('bad' in object.data)" }],
        },
      });
      server.create('validatingadmissionpolicybindings.admissionregistration.k8s.io', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'no-bad-binding' },
        spec: { policyName: 'no-bad', validationActions: ['Deny'] },
      });
      try {
        const res = await post('/api/v1/namespaces/default/configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { generateName: 'gen-' },
          data: { bad: 'x' },
        });
        assert.equal(res.code, 422);
        assert.equal(res.json.reason, 'Invalid');
        const m = /^configmaps "(gen-[a-z0-9]{5})" is forbidden: /.exec(String(res.json.message));
        assert.ok(m, res.json.message as string);
        assert.equal(
          res.json.message.slice(m[0].length),
          "ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad-binding' denied request: failed expression: !has(object.data) || !('bad' in object.data)",
        );
        assert.equal(res.json.details.name, m[1]);
      } finally {
        server.delete(
          'validatingadmissionpolicybindings.admissionregistration.k8s.io',
          'no-bad-binding',
        );
        server.delete('validatingadmissionpolicies.admissionregistration.k8s.io', 'no-bad');
      }
    });
  });

  describe('ValidatingAdmissionPolicy parameters (policy/generic policy_dispatcher collectParams)', () => {
    const VAP = 'validatingadmissionpolicies.admissionregistration.k8s.io';
    const VAPB = 'validatingadmissionpolicybindings.admissionregistration.k8s.io';
    const install = (paramRef: Record<string, unknown>): void => {
      server.create(VAP, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'color' },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: {
            resourceRules: [{ operations: ['CREATE'], ...CONFIGMAPS }],
          },
          validations: [
            {
              expression: '!has(object.data) || object.data.color == params.data.color',
              messageExpression: "'color must be ' + params.data.color",
            },
          ],
        },
      });
      server.create(VAPB, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'color-binding' },
        spec: { policyName: 'color', validationActions: ['Deny'], paramRef },
      });
    };
    const createCm = (name: string, color: string) =>
      post('/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { color },
      });
    const cleanup = (): void => {
      server.delete(VAPB, 'color-binding');
      server.delete(VAP, 'color');
    };

    it('rule: params is bound to the paramRef object; no such object under parameterNotFoundAction Deny is a configuration error that denies', async () => {
      install({ name: 'palette', namespace: 'default', parameterNotFoundAction: 'Deny' });
      try {
        const missing = await createCm('c1', 'red');
        assert.equal(missing.code, 422);
        assert.equal(
          missing.json.message,
          "configmaps \"c1\" is forbidden: ValidatingAdmissionPolicy 'color' with binding 'color-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
        );
        server.create('configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'palette', namespace: 'default' },
          data: { color: 'blue' },
        });
        const red = await createCm('c2', 'red');
        assert.equal(red.code, 422);
        assert.equal(
          red.json.message,
          "configmaps \"c2\" is forbidden: ValidatingAdmissionPolicy 'color' with binding 'color-binding' denied request: color must be blue",
        );
        const blue = await createCm('c3', 'blue');
        assert.equal(blue.code, 201);
      } finally {
        cleanup();
      }
    });

    it('rule: a selector binds every matching object in turn (each must pass); none found under Allow skips the binding', async () => {
      install({
        selector: { matchLabels: { palette: 'yes' } },
        namespace: 'default',
        parameterNotFoundAction: 'Allow',
      });
      try {
        assert.equal((await createCm('s1', 'red')).code, 201, 'no params under Allow: allowed');
        for (const [name, color] of [
          ['p1', 'green'],
          ['p2', 'green'],
        ]) {
          server.create('configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace: 'default', labels: { palette: 'yes' } },
            data: { color },
          });
        }
        const red = await createCm('s2', 'red');
        assert.equal(red.code, 422);
        assert.match(String(red.json.message), /denied request: color must be green$/);
        assert.equal((await createCm('s3', 'green')).code, 201);
      } finally {
        cleanup();
      }
    });
  });

  describe('create: mutating admission before BeforeCreate, validating after (handlers/create.go, rest.BeforeCreate)', () => {
    it('rule: a mutating webhook sees no uid, no creationTimestamp and, under generateName, no name; a validating webhook sees the generated name and the uid that are stored', async () => {
      server.create(MWC, config('MutatingWebhookConfiguration', 'mutate', CONFIGMAPS));
      server.create(VWC, config('ValidatingWebhookConfiguration', 'validate', CONFIGMAPS));
      handlers.set('/mutate', () => ({
        allowed: true,
        ...patch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]),
      }));
      const res = await post('/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'gen-' },
      });
      assert.equal(res.code, 201);
      const [m] = seen.get('/mutate') ?? [];
      const [v] = seen.get('/validate') ?? [];
      assert.ok(m && v);
      assert.equal(m.name, undefined, 'the request name is empty before name generation');
      assert.equal(m.object.metadata.name, undefined);
      assert.equal(m.object.metadata.generateName, 'gen-');
      assert.equal(m.object.metadata.uid, undefined);
      assert.equal(m.object.metadata.creationTimestamp, undefined);
      const stored = res.json.metadata as Record<string, any>;
      assert.match(stored.name, /^gen-[a-z0-9]{5}$/);
      assert.equal(v.name, stored.name);
      assert.equal(v.object.metadata.name, stored.name);
      assert.equal(v.object.metadata.uid, stored.uid);
      assert.equal(v.object.metadata.creationTimestamp, stored.creationTimestamp);
      assert.deepEqual(v.object.metadata.labels, { mutated: 'yes' });
      assert.deepEqual(stored.labels, { mutated: 'yes' });
    });

    it('rule: a create with a name sends it to both; the mutating webhook still sees no uid', async () => {
      server.create(MWC, config('MutatingWebhookConfiguration', 'mutate', CONFIGMAPS));
      server.create(VWC, config('ValidatingWebhookConfiguration', 'validate', CONFIGMAPS));
      const res = await post('/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'named' },
      });
      assert.equal(res.code, 201);
      const [m] = seen.get('/mutate') ?? [];
      const [v] = seen.get('/validate') ?? [];
      assert.equal(m?.name, 'named');
      assert.equal(m?.object.metadata.uid, undefined);
      assert.equal(v?.name, 'named');
      assert.equal(v?.object.metadata.uid, res.json.metadata.uid);
    });

    it('rule (PrepareForCreate runs in BeforeCreate, after mutating admission): a mutating webhook sees the status a client sent; the stored object has it dropped, a status the webhook added too; validating admission sees it dropped', async () => {
      const PODS = { apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
      server.create(MWC, config('MutatingWebhookConfiguration', 'mpod', PODS));
      server.create(VWC, config('ValidatingWebhookConfiguration', 'vpod', PODS));
      handlers.set('/mpod', () => ({
        allowed: true,
        ...patch([{ op: 'add', path: '/status/message', value: 'from the webhook' }]),
      }));
      const res = await post('/api/v1/namespaces/default/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'with-status' },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
        status: { phase: 'Running', podIP: '10.0.0.9' },
      });
      try {
        assert.equal(res.code, 201, JSON.stringify(res.json));
        const [m] = seen.get('/mpod') ?? [];
        const [v] = seen.get('/vpod') ?? [];
        assert.equal(m?.object.status.phase, 'Running');
        assert.equal(m?.object.status.podIP, '10.0.0.9');
        assert.equal(v?.object.status.phase, 'Pending');
        assert.equal(v?.object.status.podIP, undefined);
        assert.equal(v?.object.status.message, undefined);
        assert.equal(res.json.status.phase, 'Pending');
        assert.equal(res.json.status.podIP, undefined);
        assert.equal(res.json.status.message, undefined);
      } finally {
        server.delete('pods', 'with-status', 'default');
      }
    });

    it('rule (SetDefaults_Namespace, SetDefaults_NamespaceStatus, PrepareForCreate): a mutating webhook on a Namespace create sees its kubernetes.io/metadata.name label and status.phase Active, defaults, but not spec.finalizers, which PrepareForCreate adds after it', async () => {
      server.create(
        MWC,
        config('MutatingWebhookConfiguration', 'ns', {
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['namespaces'],
        }),
      );
      const res = await post('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'labelled' },
      });
      try {
        assert.equal(res.code, 201);
        const [m] = seen.get('/ns') ?? [];
        assert.deepEqual(m?.object.metadata.labels, {
          'kubernetes.io/metadata.name': 'labelled',
        });
        assert.equal(m?.object.metadata.uid, undefined);
        assert.deepEqual(m?.object.status, { phase: 'Active' });
        assert.equal(m?.object.spec?.finalizers, undefined);
        assert.deepEqual(res.json.spec.finalizers, ['kubernetes']);
        assert.deepEqual(res.json.status, { phase: 'Active' });
      } finally {
        server.delete('namespaces', 'labelled');
      }
    });
  });

  describe('the scale subresource admits an autoscaling/v1 Scale (registry/apps/deployment/storage ScaleREST)', () => {
    const SCALE = {
      apiGroups: ['apps'],
      apiVersions: ['v1'],
      resources: ['deployments/scale'],
    };
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
        },
      },
    };
    const path = '/apis/apps/v1/namespaces/default/deployments/web/scale';

    it('rule: webhooks on deployments/scale get kind and requestKind autoscaling/v1 Scale, the deployments resource, subResource scale, and Scale objects; a mutating patch of spec.replicas is what is written', async () => {
      server.create('deployments.apps', structuredClone(deployment));
      try {
        server.create(MWC, config('MutatingWebhookConfiguration', 'mscale', SCALE));
        server.create(VWC, config('ValidatingWebhookConfiguration', 'vscale', SCALE));
        handlers.set('/mscale', (r) => ({
          allowed: true,
          ...patch([{ op: 'replace', path: '/spec/replicas', value: r.object.spec.replicas + 1 }]),
        }));
        const res = await send(
          'PATCH',
          path,
          { spec: { replicas: 3 } },
          'application/merge-patch+json',
        );
        assert.equal(res.code, 200, JSON.stringify(res.json));
        assert.equal(res.json.kind, 'Scale');
        assert.equal(res.json.spec.replicas, 4);
        const [m] = seen.get('/mscale') ?? [];
        const [v] = seen.get('/vscale') ?? [];
        assert.ok(m && v);
        for (const r of [m, v]) {
          assert.deepEqual(r.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
          assert.deepEqual(r.requestKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
          assert.deepEqual(r.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
          assert.deepEqual(r.requestResource, {
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
          });
          assert.equal(r.subResource, 'scale');
          assert.equal(r.requestSubResource, 'scale');
          assert.equal(r.operation, 'UPDATE');
          assert.equal(r.object.apiVersion, 'autoscaling/v1');
          assert.equal(r.object.kind, 'Scale');
          assert.equal(r.oldObject.kind, 'Scale');
          assert.equal(r.oldObject.spec.replicas, 1);
          assert.equal(r.object.spec.template, undefined, 'not the Deployment');
        }
        assert.equal(m.object.spec.replicas, 3);
        assert.equal(v.object.spec.replicas, 4, 'validation sees the mutated Scale');
        const stored = server.get<Record<string, any>>('deployments.apps', 'web', 'default');
        assert.equal(stored?.spec.replicas, 4);
      } finally {
        server.delete('deployments.apps', 'web', 'default');
      }
    });

    it('rule: a validating webhook on deployments/scale can refuse a PUT of the Scale; the Deployment is unchanged', async () => {
      server.create('deployments.apps', structuredClone(deployment));
      try {
        server.create(VWC, config('ValidatingWebhookConfiguration', 'vscale', SCALE));
        handlers.set('/vscale', (r) =>
          r.object.spec.replicas > 5
            ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'at most 5' } }
            : { allowed: true },
        );
        const res = await send('PUT', path, {
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: 'web', namespace: 'default' },
          spec: { replicas: 9 },
        });
        assert.equal(res.code, 403);
        assert.equal(
          res.json.message as string,
          'admission webhook "vscale.example.com" denied the request: at most 5',
        );
        const stored = server.get<Record<string, any>>('deployments.apps', 'web', 'default');
        assert.equal(stored?.spec.replicas, 1);
      } finally {
        server.delete('deployments.apps', 'web', 'default');
      }
    });
  });

  describe("a custom resource's schema and CEL rules are its strategy's Validate (registry Store.Create, customresource strategy)", () => {
    const CRD = 'customresourcedefinitions.apiextensions.k8s.io';
    before(() => {
      server.create(CRD, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'tickets.fidelity.example.com' },
        spec: {
          group: 'fidelity.example.com',
          scope: 'Namespaced',
          names: { plural: 'tickets', singular: 'ticket', kind: 'Ticket' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  'x-kubernetes-validations': [
                    {
                      rule: "self.metadata.name.startsWith('ok-')",
                      message: 'name must start ok-',
                    },
                  ],
                  properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } },
                },
              },
            },
          ],
        },
      });
    });

    const createTicket = (generateName: string) =>
      post('/apis/fidelity.example.com/v1/namespaces/default/tickets', {
        apiVersion: 'fidelity.example.com/v1',
        kind: 'Ticket',
        metadata: { generateName },
        spec: { n: 1 },
      });

    it('rule: validation runs after BeforeCreate, so a rule reading self.metadata.name on a generateName create sees the generated name', async () => {
      const ok = await createTicket('ok-');
      assert.equal(ok.code, 201, JSON.stringify(ok.json));
      assert.match(ok.json.metadata.name as string, /^ok-[a-z0-9]{5}$/);
      const bad = await createTicket('bad-');
      assert.equal(bad.code, 422);
      assert.match(bad.json.message as string, /name must start ok-/);
      assert.match(
        bad.json.details.name as string,
        /^bad-[a-z0-9]{5}$/,
        'the 422 names the generated name',
      );
    });

    it('rule: schema validation runs before validating admission (a refused object never reaches a validating webhook), after mutating admission', async () => {
      server.create(
        VWC,
        config('ValidatingWebhookConfiguration', 'tickets', {
          apiGroups: ['fidelity.example.com'],
          apiVersions: ['v1'],
          resources: ['tickets'],
        }),
      );
      const bad = await createTicket('bad-');
      assert.equal(bad.code, 422);
      assert.equal(seen.get('/tickets'), undefined);
      assert.equal((await createTicket('ok-')).code, 201);
      assert.equal(seen.get('/tickets')?.length, 1);
    });
  });

  describe('a conversion: None CRD written at a version that is not its storage version (handlers/create.go: admission at the request version)', () => {
    const CRD = 'customresourcedefinitions.apiextensions.k8s.io';
    before(() => {
      const version = (name: string, storage: boolean) => ({
        name,
        served: true,
        storage,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } },
          },
        },
      });
      server.create(CRD, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'notes.fidelity.example.com' },
        spec: {
          group: 'fidelity.example.com',
          scope: 'Namespaced',
          names: { plural: 'notes', singular: 'note', kind: 'Note' },
          versions: [version('v1', true), version('v2', false)],
        },
      });
    });

    it('rule: an Exact webhook for v2 is called with kind, requestKind and object at v2; one for v1 with matchPolicy Equivalent sees the object at v1 and requestKind v2; the object is stored at v1', async () => {
      const rule = (v: string) => ({
        apiGroups: ['fidelity.example.com'],
        apiVersions: [v],
        resources: ['notes'],
      });
      const exact = config('MutatingWebhookConfiguration', 'notes-v2', rule('v2'));
      (exact.webhooks as any)[0].matchPolicy = 'Exact';
      const equivalent = config('ValidatingWebhookConfiguration', 'notes-v1', rule('v1'));
      (equivalent.webhooks as any)[0].matchPolicy = 'Equivalent';
      server.create(MWC, exact);
      server.create(VWC, equivalent);
      try {
        const res = await post('/apis/fidelity.example.com/v2/namespaces/default/notes', {
          apiVersion: 'fidelity.example.com/v2',
          kind: 'Note',
          metadata: { name: 'n1' },
          spec: { n: 1 },
        });
        assert.equal(res.code, 201, JSON.stringify(res.json));
        assert.equal(res.json.apiVersion, 'fidelity.example.com/v2');
        const gvk = (version: string) => ({ group: 'fidelity.example.com', version, kind: 'Note' });
        const [m] = seen.get('/notes-v2') ?? [];
        assert.deepEqual(m?.kind, gvk('v2'));
        assert.deepEqual(m?.requestKind, gvk('v2'));
        assert.equal(m?.object.apiVersion, 'fidelity.example.com/v2');
        const [v] = seen.get('/notes-v1') ?? [];
        assert.deepEqual(v?.kind, gvk('v1'));
        assert.deepEqual(v?.requestKind, gvk('v2'));
        assert.equal(v?.object.apiVersion, 'fidelity.example.com/v1');
        const stored = server.get<any>(
          { group: 'fidelity.example.com', resource: 'notes' },
          'n1',
          'default',
        );
        assert.equal(stored.apiVersion, 'fidelity.example.com/v1');
      } finally {
        server.delete(MWC, 'notes-v2');
        server.delete(VWC, 'notes-v1');
      }
    });
  });
});
