// scheduling.k8s.io/v1 PriorityClasses, as kube-apiserver serves them: discovery (short
// name pc), the two system classes its bootstrap hook creates, preemptionPolicy defaulting
// to PreemptLowerPriority, ValidatePriorityClass (the reserved `system-` prefix, the user
// maximum of one billion, an immutable value), and the printer columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';

describe('scheduling.k8s.io/v1 priorityclasses', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists priorityclasses (pc), cluster-scoped', async () => {
    const r = await h.resource('scheduling.k8s.io/v1', 'priorityclasses');
    assert.deepEqual([r?.namespaced, r?.shortNames, r?.kind], [false, ['pc'], 'PriorityClass']);
  });

  it('rule: system-node-critical and system-cluster-critical exist from the start (bootstrap hook)', async () => {
    const list = await h.send('GET', PC);
    const items = (
      list.json.items as { metadata: { name: string }; value: number; preemptionPolicy: string }[]
    ).map((i) => [i.metadata.name, i.value, i.preemptionPolicy]);
    assert.deepEqual(items, [
      ['system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
      ['system-node-critical', 2000001000, 'PreemptLowerPriority'],
    ]);
  });

  it('rule: preemptionPolicy defaults to PreemptLowerPriority; system- names and values above 1e9 are refused; value is immutable', async () => {
    const ok = await h.send('POST', PC, {
      metadata: { name: 'high' },
      value: 1000,
      globalDefault: false,
    });
    assert.equal(ok.code, 201, ok.body);
    assert.equal(ok.json.preemptionPolicy, 'PreemptLowerPriority');
    const reserved = await h.send('POST', PC, { metadata: { name: 'system-mine' }, value: 10 });
    assert.equal(reserved.code, 422);
    assert.equal(
      reserved.json.message,
      `PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only`,
    );
    const tooHigh = await h.send('POST', PC, { metadata: { name: 'huge' }, value: 1000000001 });
    assert.deepEqual(causes(tooHigh), [
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ]);
    const changed = await h.send(
      'PATCH',
      `${PC}/high`,
      { value: 2000 },
      'application/merge-patch+json',
    );
    assert.deepEqual(causes(changed), ['value: Forbidden: may not be changed in an update.']);
  });

  it('rule: the Table has Value, Global-Default, Age, PreemptionPolicy', async () => {
    await h.clock.advance(60_000);
    const t = await h.table(PC);
    assert.deepEqual(t.columns, ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
    assert.deepEqual(t.rows[0], ['high', 1000, false, '60s', 'PreemptLowerPriority']);
  });

  it('kubectl get pc prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'pc');
    assert.match(out, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
    assert.match(out, /\nsystem-node-critical\s+2000001000\s+false\s+60s\s+PreemptLowerPriority\n/);
  });
});
