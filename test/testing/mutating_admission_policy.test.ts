// MutatingAdmissionPolicy in the test API server, as kube-apiserver 1.36 applies it
// (k8s.io/apiserver plugin/policy/mutating): ApplyConfiguration merged as server-side
// apply merges, JSONPatch, matchConditions, params, reinvocation with a mutating webhook,
// failurePolicy, the plugin order (policies before webhooks), bindings without their
// policy, the objects' validation, and kubectl on the two kinds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import type { UnstructuredObject } from 'kube-controller-kit';
import { kubectlSkip, raw } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are arbitrary JSON */

const run = promisify(execFile);
const POLICIES = 'mutatingadmissionpolicies.admissionregistration.k8s.io';
const BINDINGS = 'mutatingadmissionpolicybindings.admissionregistration.k8s.io';
const MWC = 'mutatingwebhookconfigurations.admissionregistration.k8s.io';
const API = '/apis/admissionregistration.k8s.io/v1';

const CONFIGMAP_RULES = [
  {
    operations: ['CREATE', 'UPDATE'],
    apiGroups: [''],
    apiVersions: ['v1'],
    resources: ['configmaps'],
  },
];
const POD_RULES = [
  { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] },
];

function policy(
  name: string,
  mutations: Record<string, unknown>[],
  spec: Record<string, unknown> = {},
): UnstructuredObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: CONFIGMAP_RULES }, mutations, ...spec },
  };
}

const apply = (expression: string) => ({
  patchType: 'ApplyConfiguration',
  applyConfiguration: { expression },
});
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

function binding(name: string, policyName: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, ...spec },
  };
}

describe('MutatingAdmissionPolicy (test API server)', () => {
  let server: TestApiServer;
  const seen: Record<string, any>[] = [];
  let webhookAnswer: (request: Record<string, any>) => Record<string, unknown> = () => ({
    allowed: true,
  });

  before(async () => {
    server = await startTestApiServer();
    server.registerService({ namespace: 'default', name: 'local' }, (review) => {
      const request = review.request as Record<string, any>;
      seen.push(structuredClone(request));
      return {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: request.uid, ...webhookAnswer(request) },
      };
    });
  });
  after(() => server.close());
  beforeEach(() => {
    seen.length = 0;
    webhookAnswer = () => ({ allowed: true });
    for (const r of [POLICIES, BINDINGS, MWC]) {
      for (const o of server.list(r)) server.delete(r, o.metadata?.name ?? '');
    }
    for (const o of server.list('configmaps', 'default')) {
      server.delete('configmaps', o.metadata?.name ?? '', 'default');
    }
    for (const o of server.list('pods', 'default')) {
      server.delete('pods', o.metadata?.name ?? '', 'default');
    }
  });

  const post = async (path: string, body: unknown) => {
    const res = await raw(server.url, 'POST', path, JSON.stringify(body));
    return { code: res.code, json: res.json as Record<string, any>, body: res.body };
  };
  const createCm = (name: string, labels: Record<string, string> = {}, data = {}) =>
    post('/api/v1/namespaces/default/configmaps', { metadata: { name, labels }, data });
  const mutatingWebhook = (reinvocationPolicy = 'Never') => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'hook' },
    webhooks: [
      {
        name: 'hook.example.com',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        reinvocationPolicy,
        clientConfig: { service: { namespace: 'default', name: 'local', path: '/hook' } },
        rules: CONFIGMAP_RULES,
      },
    ],
  });
  const addLabel = (key: string, value: string) => ({
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(
      JSON.stringify([{ op: 'add', path: `/metadata/labels/${key}`, value }]),
    ).toString('base64'),
  });

  it('rule (patch/smd.go ApplyStructuredMergeDiff): an ApplyConfiguration is merged into the object, what it does not name is kept', async () => {
    server.create(
      POLICIES,
      policy('defaults', [
        apply(`Object{
          metadata: Object.metadata{labels: {"managed-by": "policy"}},
          data: {"mode": "default"}
        }`),
      ]),
    );
    server.create(BINDINGS, binding('defaults', 'defaults'));
    const res = await createCm('cm', { team: 'a' }, { kept: 'yes' });
    assert.equal(res.code, 201, res.body);
    assert.deepEqual(res.json.metadata.labels, { team: 'a', 'managed-by': 'policy' });
    assert.deepEqual(res.json.data, { kept: 'yes', mode: 'default' });
  });

  it('rule (structured-merge-diff Merge): a list keyed by name is merged item by item (a container keeps its image)', async () => {
    server.create(
      POLICIES,
      policy(
        'pull-always',
        [
          apply(`Object{spec: Object.spec{containers: object.spec.containers.map(c,
            Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}`),
        ],
        { matchConstraints: { resourceRules: POD_RULES } },
      ),
    );
    server.create(BINDINGS, binding('pull-always', 'pull-always'));
    const res = await post('/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
    assert.equal(res.code, 201, res.body);
    assert.equal(res.json.spec.containers.length, 1);
    assert.equal(res.json.spec.containers[0].image, 'nginx:1.27');
    assert.equal(res.json.spec.containers[0].imagePullPolicy, 'Always');
  });

  it('rule (patch/smd.go validatePatch): an ApplyConfiguration may not set an atomic list (403, failurePolicy Fail)', async () => {
    server.create(
      POLICIES,
      policy(
        'tolerate',
        [
          apply(
            'Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "x", operator: "Exists"}]}}',
          ),
        ],
        { matchConstraints: { resourceRules: POD_RULES } },
      ),
    );
    server.create(BINDINGS, binding('tolerate', 'tolerate'));
    const res = await post('/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    });
    assert.equal(res.code, 403, res.body);
    assert.equal(res.json.reason, 'Invalid');
    assert.equal(
      res.json.message,
      "policy 'tolerate' with binding 'tolerate' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tolerations",
    );
  });

  it('rule (CheckTypeNamesMatchFieldPathNames): an initialiser whose type name does not match its field path is a type mismatch', async () => {
    server.create(POLICIES, policy('wrong', [apply('Object{data: Object.wrong{}}')]));
    server.create(BINDINGS, binding('wrong', 'wrong'));
    const res = await createCm('cm');
    assert.equal(res.code, 403, res.body);
    assert.match(
      res.json.message,
      /denied request: type mismatch: unexpected type name "Object.wrong", expected "Object.data"/,
    );
  });

  it('rule (patch/json_patch.go): JSONPatch operations are applied; jsonpatch.escapeKey escapes "/" in a key', async () => {
    server.create(
      POLICIES,
      policy('patch', [
        jsonPatch(`[
          JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/tier"), value: "web"},
          JSONPatch{op: "replace", path: "/data/size", value: string(int(object.data.size) * 2)}
        ]`),
      ]),
    );
    server.create(BINDINGS, binding('patch', 'patch'));
    const res = await createCm('cm', { a: 'b' }, { size: '21' });
    assert.equal(res.code, 201, res.body);
    assert.deepEqual(res.json.metadata.labels, { a: 'b', 'example.com/tier': 'web' });
    assert.equal(res.json.data.size, '42');
  });

  it('rule (patch/json_patch.go): a failed "test" operation leaves the object unchanged and is no error', async () => {
    server.create(
      POLICIES,
      policy('guarded', [
        jsonPatch(`[
          JSONPatch{op: "test", path: "/data/mode", value: "legacy"},
          JSONPatch{op: "replace", path: "/data/mode", value: "modern"}
        ]`),
      ]),
    );
    server.create(BINDINGS, binding('guarded', 'guarded'));
    const kept = await createCm('kept', {}, { mode: 'custom' });
    assert.equal(kept.code, 201, kept.body);
    assert.equal(kept.json.data.mode, 'custom');
    const changed = await createCm('changed', {}, { mode: 'legacy' });
    assert.equal(changed.json.data.mode, 'modern');
  });

  it('rule (matchConditions): a false condition skips the policy; mutations apply in order, each seeing the last', async () => {
    server.create(
      POLICIES,
      policy(
        'conditional',
        [
          apply('Object{data: {"step": "1"}}'),
          apply('Object{data: {"step": string(int(object.data.step) + 1)}}'),
        ],
        {
          matchConditions: [{ name: 'opted-in', expression: "'opt-in' in object.metadata.labels" }],
        },
      ),
    );
    server.create(BINDINGS, binding('conditional', 'conditional'));
    const skipped = await createCm('plain');
    assert.equal(skipped.code, 201, skipped.body);
    assert.deepEqual(skipped.json.data, {});
    const mutated = await createCm('opted', { 'opt-in': 'yes' });
    assert.deepEqual(mutated.json.data, { step: '2' });
  });

  it('rule (policy/generic CollectParams): params come from the binding paramRef; none found under Deny refuses', async () => {
    server.create('configmaps', {
      metadata: { name: 'policy-params', namespace: 'default' },
      data: { owner: 'platform' },
    });
    server.create(
      POLICIES,
      policy(
        'owner',
        [apply('Object{metadata: Object.metadata{labels: {"owner": params.data.owner}}}')],
        {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConditions: [
            { name: 'not-params', expression: "object.metadata.name != 'policy-params'" },
          ],
          variables: [{ name: 'unused', expression: 'params.data.owner' }],
        },
      ),
    );
    server.create(
      BINDINGS,
      binding('owner', 'owner', {
        paramRef: { name: 'policy-params', parameterNotFoundAction: 'Deny' },
      }),
    );
    const res = await createCm('cm');
    assert.equal(res.code, 201, res.body);
    assert.equal(res.json.metadata.labels.owner, 'platform');
    server.delete('configmaps', 'policy-params', 'default');
    const refused = await createCm('cm2');
    assert.equal(refused.code, 403, refused.body);
    assert.equal(
      refused.json.message,
      "policy 'owner' with binding 'owner' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it('rule (plugin order: MutatingAdmissionPolicy before MutatingAdmissionWebhook): the webhook is sent the object as the policy left it', async () => {
    server.create(POLICIES, policy('first', [apply('Object{data: {"from-policy": "yes"}}')]));
    server.create(BINDINGS, binding('first', 'first'));
    server.create(MWC, mutatingWebhook());
    webhookAnswer = () => addLabel('from-webhook', 'yes');
    const res = await createCm('cm');
    assert.equal(res.code, 201, res.body);
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0]?.object.data, { 'from-policy': 'yes' });
    assert.equal(res.json.metadata.labels['from-webhook'], 'yes');
  });

  for (const reinvocationPolicy of ['IfNeeded', 'Never'] as const) {
    it(`rule (reinvocation): a policy with reinvocationPolicy ${reinvocationPolicy} ${reinvocationPolicy === 'IfNeeded' ? 'runs again' : 'does not run again'} after a webhook changed the object`, async () => {
      server.create(
        POLICIES,
        policy(
          'copy-team',
          [
            apply(`Object{metadata: Object.metadata{annotations: {
              "team-copy": has(object.metadata.labels) && "team" in object.metadata.labels
                ? object.metadata.labels.team : "none"}}}`),
          ],
          { reinvocationPolicy },
        ),
      );
      server.create(BINDINGS, binding('copy-team', 'copy-team'));
      server.create(MWC, mutatingWebhook());
      webhookAnswer = () => addLabel('team', 'payments');
      const res = await createCm('cm');
      assert.equal(res.code, 201, res.body);
      assert.equal(
        res.json.metadata.annotations['team-copy'],
        reinvocationPolicy === 'IfNeeded' ? 'payments' : 'none',
      );
      // the webhook (Never) is called once: the policy's second run changed the object
      // after it, but it is not reinvocable
      assert.equal(seen.length, 1);
    });
  }

  it('rule (reinvocation): an IfNeeded webhook is called again after a policy changed the object in the second run', async () => {
    server.create(
      POLICIES,
      policy(
        'copy-team',
        [
          apply(`Object{metadata: Object.metadata{annotations: {"team-copy":
            "team" in object.metadata.labels ? object.metadata.labels.team : "none"}}}`),
        ],
        { reinvocationPolicy: 'IfNeeded' },
      ),
    );
    server.create(BINDINGS, binding('copy-team', 'copy-team'));
    server.create(MWC, mutatingWebhook('IfNeeded'));
    webhookAnswer = (r) =>
      addLabel(
        'team',
        'payments-' + String(Object.keys(r.object.metadata.annotations ?? {}).length),
      );
    const res = await createCm('cm', { x: 'y' });
    assert.equal(res.code, 201, res.body);
    assert.equal(seen.length, 2);
    assert.equal(res.json.metadata.annotations['team-copy'], 'payments-1');
  });

  it('rule (policy_dispatcher failurePolicy): a CEL error refuses under Fail (403 Invalid) and is ignored under Ignore', async () => {
    const expression = 'Object{data: {"x": object.data.missing}}';
    server.create(POLICIES, policy('broken', [apply(expression)]));
    server.create(BINDINGS, binding('broken', 'broken'));
    const refused = await createCm('refused');
    assert.equal(refused.code, 403, refused.body);
    assert.equal(refused.json.reason, 'Invalid');
    assert.match(
      refused.json.message,
      /^policy 'broken' with binding 'broken' denied request: expression 'Object\{data: \{"x": object\.data\.missing\}\}' resulted in error: /,
    );
    assert.equal(refused.json.details.causes.length, 1);
    assert.equal(server.get('configmaps', 'refused', 'default'), undefined);
    server.delete(POLICIES, 'broken');
    server.create(POLICIES, policy('broken', [apply(expression)], { failurePolicy: 'Ignore' }));
    const admitted = await createCm('admitted', {}, { a: 'b' });
    assert.equal(admitted.code, 201, admitted.body);
    assert.deepEqual(admitted.json.data, { a: 'b' });
  });

  it('rule (policy source): a binding without its policy does nothing until the policy exists', async () => {
    server.create(BINDINGS, binding('early', 'later'));
    const before = await createCm('before');
    assert.equal(before.code, 201, before.body);
    assert.deepEqual(before.json.data, {});
    server.create(POLICIES, policy('later', [apply('Object{data: {"bound": "yes"}}')]));
    const afterPolicy = await createCm('after');
    assert.deepEqual(afterPolicy.json.data, { bound: 'yes' });
  });

  it('rule (validation.go): a policy without mutations, with an unknown patchType or an expression that does not compile is refused (422)', async () => {
    const none = await post(`${API}/mutatingadmissionpolicies`, policy('empty', []));
    assert.equal(none.code, 422, none.body);
    assert.equal(
      none.json.message,
      'MutatingAdmissionPolicy.admissionregistration.k8s.io "empty" is invalid: spec.mutations: Required value: mutations must contain at least one item',
    );
    const bad = await post(
      `${API}/mutatingadmissionpolicies`,
      policy('bad', [{ patchType: 'MergePatch' }, apply('Object{data: ')], {
        reinvocationPolicy: 'Sometimes',
        matchConstraints: { resourceRules: [] },
      }),
    );
    assert.equal(bad.code, 422, bad.body);
    const fields = (bad.json.details.causes as { field: string; message: string }[]).map(
      (c) => `${c.field}: ${c.message.split(':')[0]}`,
    );
    assert.deepEqual(fields, [
      'spec.matchConstraints.resourceRules: Required value',
      'spec.mutations[0].patchType: Unsupported value',
      'spec.mutations[1].applyConfiguration.expression: Invalid value',
      'spec.reinvocationPolicy: Unsupported value',
    ]);
    const noPolicyName = await post(`${API}/mutatingadmissionpolicybindings`, binding('b', ''));
    assert.equal(noPolicyName.code, 422, noPolicyName.body);
    assert.match(noPolicyName.json.message, /spec\.policyName: Required value/);
  });

  it('defaults (SetDefaults_MutatingAdmissionPolicySpec): failurePolicy Fail, reinvocationPolicy Never, matchPolicy Equivalent', async () => {
    const res = await post(`${API}/mutatingadmissionpolicies`, policy('d', [apply('Object{}')]));
    assert.equal(res.code, 201, res.body);
    assert.equal(res.json.spec.failurePolicy, 'Fail');
    assert.equal(res.json.spec.reinvocationPolicy, 'Never');
    assert.equal(res.json.spec.matchConstraints.matchPolicy, 'Equivalent');
  });

  describe('kubectl', { skip: kubectlSkip() }, () => {
    let dir: string;
    let kubeconfig: string;
    const kubectl = async (...args: string[]): Promise<string> =>
      (await run('kubectl', ['--kubeconfig', kubeconfig, ...args])).stdout;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'kck-map-'));
      kubeconfig = join(dir, 'kubeconfig.yaml');
      await server.writeKubeconfig(kubeconfig);
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('kubectl apply creates a policy and its binding that then mutate; get shows Mutations/ParamKind and PolicyName/ParamRef; describe works', async () => {
      const file = join(dir, 'policy.yaml');
      await writeFile(
        file,
        `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-env
spec:
  matchConstraints:
    resourceRules:
    - operations: ["CREATE"]
      apiGroups: [""]
      apiVersions: ["v1"]
      resources: ["configmaps"]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{data: {"env": "test"}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: add-env
spec:
  policyName: add-env
`,
      );
      const out = await kubectl('apply', '-f', file);
      assert.match(out, /mutatingadmissionpolicy.admissionregistration.k8s.io\/add-env created/);
      assert.match(
        out,
        /mutatingadmissionpolicybinding.admissionregistration.k8s.io\/add-env created/,
      );
      const policies = await kubectl('get', 'mutatingadmissionpolicies');
      assert.match(policies, /^NAME\s+MUTATIONS\s+PARAMKIND\s+AGE\n/);
      assert.match(policies, /\nadd-env\s+1\s+<unset>\s+\d+s\n/);
      const bindings = await kubectl('get', 'mutatingadmissionpolicybindings');
      assert.match(bindings, /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\n/);
      assert.match(bindings, /\nadd-env\s+add-env\s+<unset>\s+\d+s\n/);
      const described = await kubectl('describe', 'mutatingadmissionpolicy', 'add-env');
      assert.match(described, /Name:\s+add-env/);
      assert.match(described, /Patch Type:\s+ApplyConfiguration/);
      const again = await kubectl('apply', '-f', file);
      assert.match(again, /add-env unchanged/);
      await kubectl('create', 'configmap', 'by-kubectl');
      const cm = JSON.parse(await kubectl('get', 'configmap', 'by-kubectl', '-o', 'json'));
      assert.deepEqual(cm.data, { env: 'test' });
    });
  });
});
