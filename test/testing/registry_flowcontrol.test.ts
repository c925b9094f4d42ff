// flowcontrol.apiserver.k8s.io/v1 FlowSchemas and PriorityLevelConfigurations, as
// kube-apiserver serves them: discovery, SetDefaults_FlowSchemaSpec (matchingPrecedence
// 1000) and SetDefaults_PriorityLevelConfiguration (30 shares, 64 queues, hand size 8,
// queue length limit 50), their validation messages, status subresources, and the printer
// columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const G = '/apis/flowcontrol.apiserver.k8s.io/v1';

describe('flowcontrol.apiserver.k8s.io/v1 flowschemas, prioritylevelconfigurations', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists both, cluster-scoped, each with a status subresource', async () => {
    for (const r of ['flowschemas', 'prioritylevelconfigurations']) {
      assert.equal((await h.resource('flowcontrol.apiserver.k8s.io/v1', r))?.namespaced, false, r);
      assert.ok(await h.resource('flowcontrol.apiserver.k8s.io/v1', `${r}/status`), r);
    }
  });

  it('rule: a Limited level with queuing gets 30 shares, lendablePercent 0, 64 queues, hand size 8, limit 50', async () => {
    const pl = await h.send('POST', `${G}/prioritylevelconfigurations`, {
      metadata: { name: 'workload' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
    });
    assert.equal(pl.code, 201, pl.body);
    assert.deepEqual(pl.json.spec, {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 30,
        lendablePercent: 0,
        limitResponse: {
          type: 'Queue',
          queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 },
        },
      },
    });
    const bad = await h.send('POST', `${G}/prioritylevelconfigurations`, {
      metadata: { name: 'bad' },
      spec: { type: 'Fast' },
    });
    assert.deepEqual(causes(bad), [
      'spec.type: Unsupported value: "Fast": supported values: "Exempt", "Limited"',
    ]);
    const noLimited = await h.send('POST', `${G}/prioritylevelconfigurations`, {
      metadata: { name: 'bad' },
      spec: { type: 'Limited' },
    });
    assert.deepEqual(causes(noLimited), [
      'spec.limited: Required value: must not be empty when type is Limited',
    ]);
  });

  it('rule: a FlowSchema gets matchingPrecedence 1000 and needs a priority level; precedence ≤ 10000', async () => {
    const fs = await h.send('POST', `${G}/flowschemas`, {
      metadata: { name: 'controllers' },
      spec: {
        priorityLevelConfiguration: { name: 'workload' },
        distinguisherMethod: { type: 'ByUser' },
      },
    });
    assert.equal(fs.code, 201, fs.body);
    assert.equal((fs.json.spec as { matchingPrecedence: number }).matchingPrecedence, 1000);
    const bad = await h.send('POST', `${G}/flowschemas`, {
      metadata: { name: 'bad' },
      spec: { matchingPrecedence: 20000 },
    });
    assert.deepEqual(causes(bad), [
      'spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000',
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    ]);
    const status = await h.send(
      'PATCH',
      `${G}/flowschemas/controllers/status`,
      { status: { conditions: [{ type: 'Dangling', status: 'False' }] } },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
  });

  it('rule: the Tables of both kinds', async () => {
    await h.clock.advance(60_000);
    const fs = await h.table(`${G}/flowschemas`);
    assert.deepEqual(fs.columns, [
      'Name',
      'PriorityLevel',
      'MatchingPrecedence',
      'DistinguisherMethod',
      'Age',
      'MissingPL',
    ]);
    assert.deepEqual(fs.rows, [['controllers', 'workload', 1000, 'ByUser', '60s', 'False']]);
    const pl = await h.table(`${G}/prioritylevelconfigurations`);
    assert.deepEqual(pl.columns, [
      'Name',
      'Type',
      'NominalConcurrencyShares',
      'Queues',
      'HandSize',
      'QueueLengthLimit',
      'Age',
    ]);
    assert.deepEqual(pl.rows, [['workload', 'Limited', 30, 64, 8, 50, '60s']]);
  });

  it('kubectl get flowschemas prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'flowschemas');
    assert.match(
      out,
      /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\ncontrollers\s+workload\s+1000\s+ByUser\s+60s\s+False\n$/,
    );
  });
});
