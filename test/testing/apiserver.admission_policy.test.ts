// ValidatingAdmissionPolicy in the test API server, as kube-apiserver evaluates it: a
// policy in force through its binding, CEL validations over object/oldObject/request,
// variables, messageExpression, matchConditions, binding matchResources, and the
// validationActions Deny (422 Invalid by default, kube-apiserver's words) and Warn.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { raw } from './helpers.js';

const POLICIES = 'validatingadmissionpolicies.admissionregistration.k8s.io';
const BINDINGS = 'validatingadmissionpolicybindings.admissionregistration.k8s.io';

function policy(name: string, spec: Record<string, unknown>): UnstructuredObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
      },
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...extra },
  };
}

describe('ValidatingAdmissionPolicy (test API server)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());
  beforeEach(() => {
    for (const r of [POLICIES, BINDINGS]) {
      for (const o of server.list(r)) server.delete(r, o.metadata?.name ?? '');
    }
  });

  const createCm = (name: string, labels: Record<string, string> = {}, data = {}) =>
    raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ metadata: { name, labels }, data }),
    );

  it('a failed validation without a message is denied with "failed expression: <expression>" (422 Invalid)', async () => {
    const expression = "has(object.metadata.labels) && 'team' in object.metadata.labels";
    server.create(POLICIES, policy('require-team', { validations: [{ expression }] }));
    server.create(BINDINGS, binding('require-team-binding', 'require-team'));
    const res = await createCm('no-team');
    assert.equal(res.code, 422);
    assert.equal(res.json.reason, 'Invalid');
    assert.equal(
      res.json.message,
      `configmaps "no-team" is forbidden: ValidatingAdmissionPolicy 'require-team' with binding 'require-team-binding' denied request: failed expression: ${expression}`,
    );
    assert.equal((await createCm('with-team', { team: 'a' })).code, 201);
  });

  it('rule (metav1.StatusDetails: name, group, kind and uid are omitempty): a denial of a core-group write has details without "group"', async () => {
    server.create(POLICIES, policy('deny-all', { validations: [{ expression: 'false' }] }));
    server.create(BINDINGS, binding('deny-all-binding', 'deny-all'));
    const res = await createCm('denied');
    assert.equal(res.code, 422);
    assert.deepEqual(res.json.details, {
      name: 'denied',
      kind: 'configmaps',
      causes: [{ message: (res.json.message as string).replace(/^.*is forbidden: /, '') }],
    });
    assert.doesNotMatch(res.body, /"group"/);
    // The same rule for every Status the server answers: a core NotFound has no group.
    const missing = await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps/nope');
    assert.deepEqual(missing.json.details, { name: 'nope', kind: 'configmaps' });
  });

  it('a policy without a binding is not in force', async () => {
    server.create(POLICIES, policy('unbound', { validations: [{ expression: 'false' }] }));
    assert.equal((await createCm('free')).code, 201);
  });

  it('message, messageExpression with variables, and reason Forbidden (403)', async () => {
    server.create(
      POLICIES,
      policy('small', {
        variables: [{ name: 'keys', expression: 'has(object.data) ? size(object.data) : 0' }],
        validations: [
          {
            expression: 'variables.keys <= 1',
            message: 'too many keys',
            messageExpression: "'has ' + string(variables.keys) + ' keys, at most 1'",
            reason: 'Forbidden',
          },
        ],
      }),
    );
    server.create(BINDINGS, binding('small-binding', 'small'));
    const res = await createCm('big', {}, { a: '1', b: '2' });
    assert.equal(res.code, 403);
    assert.match(String(res.json.message), /denied request: has 2 keys, at most 1$/);
    assert.equal((await createCm('ok', {}, { a: '1' })).code, 201);
  });

  it('validationActions Warn answers a Warning header and lets the write through', async () => {
    server.create(
      POLICIES,
      policy('warn', { validations: [{ expression: 'false', message: 'heads up' }] }),
    );
    server.create(BINDINGS, binding('warn-binding', 'warn', { validationActions: ['Warn'] }));
    const res = await createCm('warned');
    assert.equal(res.code, 201);
    assert.match(
      String(res.headers.warning),
      /Validation failed for ValidatingAdmissionPolicy 'warn' with binding 'warn-binding': heads up/,
    );
  });

  it('matchConditions and the binding matchResources narrow what a policy sees', async () => {
    server.create(
      POLICIES,
      policy('cond', {
        matchConditions: [{ name: 'labelled', expression: "'strict' in object.metadata.labels" }],
        validations: [{ expression: 'false', message: 'strict objects are refused' }],
      }),
    );
    server.create(
      BINDINGS,
      binding('cond-binding', 'cond', {
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'default' } },
        },
      }),
    );
    assert.equal((await createCm('loose', { other: 'x' })).code, 201);
    assert.equal((await createCm('strict', { strict: 'x' })).code, 422);
    server.create('namespaces', { metadata: { name: 'elsewhere' } });
    const other = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/elsewhere/configmaps',
      JSON.stringify({ metadata: { name: 'strict', labels: { strict: 'x' } } }),
    );
    assert.equal(other.code, 201, 'the binding selects namespace default only');
  });

  it('an expression that fails to evaluate denies under failurePolicy Fail and is skipped under Ignore', async () => {
    server.create(
      POLICIES,
      policy('broken', { validations: [{ expression: 'object.spec.missing == 1' }] }),
    );
    server.create(BINDINGS, binding('broken-binding', 'broken'));
    const res = await createCm('b1');
    assert.equal(res.code, 422);
    assert.match(
      String(res.json.message),
      /denied request: expression 'object\.spec\.missing == 1' resulted in error: /,
    );
    const p = server.get(POLICIES, 'broken') as UnstructuredObject;
    server.update(POLICIES, { ...p, spec: { ...(p.spec as object), failurePolicy: 'Ignore' } });
    assert.equal((await createCm('b2')).code, 201);
  });
});
