// The rule matcher every admission webhook and policy of the test API server shares, as a
// table in the spirit of kube-apiserver's own tests of `predicates/rules` (TestGroup,
// TestVersion, TestOperation, TestResource, TestScope): the same rules and the same
// requests that must and must not match. The rule fixed here (issue #35, item 3): a
// subresource `*` matches any subresource including none, so `r/*` selects `r` itself
// ("r & subresources"). The end-to-end cases below show that webhooks,
// ValidatingAdmissionPolicy `matchConstraints` and `excludeResourceRules` all ask it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ruleMatches } from '../../packages/testing/src/admission/rules.js';
import type { RuleTarget, RuleWithOperations } from '../../packages/testing/src/admission/rules.js';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import type { UnstructuredObject } from 'kube-controller-kit';
import { raw } from './helpers.js';

const ALL = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] };

/** kube's `a(group, version, resource, subresource, …)`: a request in namespace "ns". */
function a(
  group: string,
  version: string,
  resource: string,
  subresource = '',
  operation = 'CREATE',
): RuleTarget {
  return { group, version, resource, subresource, operation, namespace: 'ns' };
}

/** kube's `clusterScopedAttributes`: the same, outside any namespace. */
function cluster(group: string, version: string, resource: string, subresource = ''): RuleTarget {
  return { ...a(group, version, resource, subresource), namespace: '' };
}

interface Row {
  rule: RuleWithOperations;
  match: RuleTarget[];
  noMatch: RuleTarget[];
}

function check(table: Record<string, Row>): void {
  for (const [name, row] of Object.entries(table)) {
    for (const t of row.match) {
      assert.equal(
        ruleMatches(row.rule, t),
        true,
        `${name}: expected a match for ${JSON.stringify(t)}`,
      );
    }
    for (const t of row.noMatch) {
      assert.equal(
        ruleMatches(row.rule, t),
        false,
        `${name}: expected no match for ${JSON.stringify(t)}`,
      );
    }
  }
}

describe('admission rule matcher (kube-apiserver predicates/rules)', () => {
  it('apiGroups: "*" matches any group, a list only its members (TestGroup)', () => {
    check({
      wildcard: { rule: { ...ALL, apiGroups: ['*'] }, match: [a('g', 'v', 'r')], noMatch: [] },
      exact: {
        rule: { ...ALL, apiGroups: ['g1', 'g2'] },
        match: [a('g1', 'v', 'r'), a('g2', 'v2', 'r3')],
        noMatch: [a('g3', 'v', 'r'), a('g4', 'v', 'r')],
      },
    });
  });

  it('apiVersions: "*" matches any version, a list only its members (TestVersion)', () => {
    check({
      wildcard: { rule: { ...ALL, apiVersions: ['*'] }, match: [a('g', 'v', 'r')], noMatch: [] },
      exact: {
        rule: { ...ALL, apiVersions: ['v1', 'v2'] },
        match: [a('g1', 'v1', 'r'), a('g2', 'v2', 'r')],
        noMatch: [a('g1', 'v3', 'r'), a('g2', 'v4', 'r')],
      },
    });
  });

  it('operations: "*" matches every operation, a list only its members (TestOperation)', () => {
    const ops = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
    const at = (op: string): RuleTarget => a('g', 'v', 'r', '', op);
    check({
      wildcard: { rule: { ...ALL, operations: ['*'] }, match: ops.map(at), noMatch: [] },
      ...Object.fromEntries(
        ops.map((op) => [
          op.toLowerCase(),
          {
            rule: { ...ALL, operations: [op] },
            match: [at(op)],
            noMatch: ops.filter((o) => o !== op).map(at),
          },
        ]),
      ),
      multiple: {
        rule: { ...ALL, operations: ['UPDATE', 'DELETE'] },
        match: [at('UPDATE'), at('DELETE')],
        noMatch: [at('CREATE'), at('CONNECT')],
      },
    });
  });

  it('resources: a subresource "*" matches any subresource including none (TestResource)', () => {
    check({
      'no subresources': {
        rule: { ...ALL, resources: ['*'] },
        match: [a('g', 'v', 'r'), a('2', 'v', 'r2')],
        noMatch: [a('g', 'v', 'r', 'exec'), a('2', 'v', 'r2', 'proxy')],
      },
      'r & subresources': {
        rule: { ...ALL, resources: ['r/*'] },
        match: [a('g', 'v', 'r'), a('g', 'v', 'r', 'exec')],
        noMatch: [a('2', 'v', 'r2'), a('2', 'v', 'r2', 'proxy')],
      },
      'r & subresources or r2': {
        rule: { ...ALL, resources: ['r/*', 'r2'] },
        match: [a('g', 'v', 'r'), a('g', 'v', 'r', 'exec'), a('2', 'v', 'r2')],
        noMatch: [a('2', 'v', 'r2', 'proxy')],
      },
      'proxy or exec': {
        rule: { ...ALL, resources: ['*/proxy', '*/exec'] },
        match: [a('g', 'v', 'r', 'exec'), a('2', 'v', 'r2', 'proxy'), a('2', 'v', 'r3', 'proxy')],
        noMatch: [a('g', 'v', 'r'), a('2', 'v', 'r2'), a('2', 'v', 'r4', 'scale')],
      },
      'everything and every subresource': {
        rule: { ...ALL, resources: ['*/*'] },
        match: [a('g', 'v', 'r'), a('g', 'v', 'r', 'status'), a('2', 'v', 'r2', 'scale')],
        noMatch: [],
      },
      'one subresource only': {
        rule: { ...ALL, resources: ['r/status'] },
        match: [a('g', 'v', 'r', 'status')],
        noMatch: [a('g', 'v', 'r'), a('g', 'v', 'r', 'scale'), a('g', 'v', 'r2', 'status')],
      },
    });
  });

  it('scope: Cluster is outside any namespace or a Namespace, Namespaced never a Namespace (TestScope)', () => {
    const ns = (sub = ''): RuleTarget => a('', 'v1', 'namespaces', sub);
    const clusterNs = (sub = ''): RuleTarget => cluster('', 'v1', 'namespaces', sub);
    check({
      'cluster scope': {
        rule: { ...ALL, resources: ['*'], scope: 'Cluster' },
        match: [cluster('g', 'v', 'r'), clusterNs(), ns()],
        noMatch: [a('g', 'v', 'r')],
      },
      'namespace scope': {
        rule: { ...ALL, resources: ['*'], scope: 'Namespaced' },
        match: [a('g', 'v', 'r')],
        noMatch: [clusterNs(), ns(), cluster('g', 'v', 'r')],
      },
      'all scopes': {
        rule: { ...ALL, resources: ['*'], scope: '*' },
        match: [a('g', 'v', 'r'), cluster('g', 'v', 'r'), clusterNs(), ns()],
        noMatch: [],
      },
    });
    // The scope test applies to subresources too ('finalize' of a Namespace).
    assert.equal(ruleMatches({ ...ALL, scope: 'Cluster' }, ns('finalize')), true);
    assert.equal(ruleMatches({ ...ALL, scope: 'Namespaced' }, ns('finalize')), false);
  });

  it('an empty list matches nothing (a rule must name what it selects)', () => {
    assert.equal(ruleMatches({ ...ALL, operations: [] }, a('g', 'v', 'r')), false);
    assert.equal(ruleMatches({ ...ALL, resources: [] }, a('g', 'v', 'r')), false);
  });
});

const CONFIGMAPS_AND_SUBRESOURCES = {
  apiGroups: [''],
  apiVersions: ['v1'],
  resources: ['configmaps/*'],
};

describe('webhooks and policies share the matcher: "configmaps/*" selects a ConfigMap write', () => {
  let server: TestApiServer;
  const seen: string[] = [];

  before(async () => {
    server = await startTestApiServer();
    server.registerService({ namespace: 'default', name: 'hook' }, (review) => {
      const request = review.request as { uid: string; name: string };
      seen.push(request.name);
      return {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: request.uid, allowed: true },
      };
    });
  });
  after(() => server.close());
  beforeEach(() => {
    seen.length = 0;
    for (const r of [
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      'validatingadmissionpolicies.admissionregistration.k8s.io',
      'validatingadmissionpolicybindings.admissionregistration.k8s.io',
    ]) {
      for (const o of server.list(r)) server.delete(r, o.metadata?.name ?? '');
    }
  });

  const createCm = (name: string) =>
    raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ metadata: { name } }),
    );

  function policy(name: string, matchConstraints: Record<string, unknown>): UnstructuredObject {
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: { matchConstraints, validations: [{ expression: 'false', message: 'refused' }] },
    };
  }

  function binding(name: string, spec: Record<string, unknown> = {}): UnstructuredObject {
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'], ...spec },
    };
  }

  it('a validating webhook whose rule is "configmaps/*" is called for a ConfigMap create', async () => {
    server.create('validatingwebhookconfigurations.admissionregistration.k8s.io', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'cm-and-subresources' },
      webhooks: [
        {
          name: 'cm.example.com',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { namespace: 'default', name: 'hook', path: '/' } },
          rules: [{ operations: ['CREATE'], ...CONFIGMAPS_AND_SUBRESOURCES }],
        },
      ],
    });
    assert.equal((await createCm('seen-by-hook')).code, 201);
    assert.deepEqual(seen, ['seen-by-hook']);
  });

  it('a ValidatingAdmissionPolicy constrained to "configmaps/*" denies a ConfigMap create', async () => {
    const rules = [{ operations: ['CREATE'], ...CONFIGMAPS_AND_SUBRESOURCES }];
    server.create(
      'validatingadmissionpolicies.admissionregistration.k8s.io',
      policy('deny-cm', { resourceRules: rules }),
    );
    server.create(
      'validatingadmissionpolicybindings.admissionregistration.k8s.io',
      binding('deny-cm'),
    );
    const res = await createCm('denied');
    assert.equal(res.code, 422);
    assert.match(String(res.json.message), /ValidatingAdmissionPolicy 'deny-cm'/);
  });

  it('a binding whose excludeResourceRules is "configmaps/*" exempts a ConfigMap create', async () => {
    const everything = [
      { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*'] },
    ];
    server.create(
      'validatingadmissionpolicies.admissionregistration.k8s.io',
      policy('deny-all-core', { resourceRules: everything }),
    );
    server.create(
      'validatingadmissionpolicybindings.admissionregistration.k8s.io',
      binding('deny-all-core', {
        matchResources: {
          excludeResourceRules: [{ operations: ['CREATE'], ...CONFIGMAPS_AND_SUBRESOURCES }],
        },
      }),
    );
    assert.equal((await createCm('exempt')).code, 201);
    const secret = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/secrets',
      JSON.stringify({ metadata: { name: 'not-exempt' } }),
    );
    assert.equal(secret.code, 422);
  });
});
