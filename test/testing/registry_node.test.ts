// node.k8s.io/v1 RuntimeClasses, as kube-apiserver serves them: discovery, ValidateRuntimeClass
// (a required handler that is a DNS label and cannot change), and the printer's Handler column.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const RC = '/apis/node.k8s.io/v1/runtimeclasses';

describe('node.k8s.io/v1 runtimeclasses', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists runtimeclasses, cluster-scoped', async () => {
    const r = await h.resource('node.k8s.io/v1', 'runtimeclasses');
    assert.deepEqual([r?.namespaced, r?.kind], [false, 'RuntimeClass']);
  });

  it('rule: handler is required, a DNS label, and immutable', async () => {
    const none = await h.send('POST', RC, { metadata: { name: 'gvisor' } });
    assert.equal(none.code, 422);
    assert.equal(
      none.json.message,
      'RuntimeClass.node.k8s.io "gvisor" is invalid: handler: Required value',
    );
    const bad = await h.send('POST', RC, { metadata: { name: 'gvisor' }, handler: 'Run_SC' });
    assert.match(
      causes(bad)[0] ?? '',
      /^handler: Invalid value: "Run_SC": a lowercase RFC 1123 label must consist of/,
    );
    const ok = await h.send('POST', RC, {
      metadata: { name: 'gvisor' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m' } },
    });
    assert.equal(ok.code, 201, ok.body);
    const changed = await h.send(
      'PATCH',
      `${RC}/gvisor`,
      { handler: 'kata' },
      'application/merge-patch+json',
    );
    assert.deepEqual(causes(changed), ['handler: Invalid value: "kata": field is immutable']);
  });

  it('rule: the Table has Handler, Age', async () => {
    await h.clock.advance(60_000);
    const t = await h.table(RC);
    assert.deepEqual(t.columns, ['Name', 'Handler', 'Age']);
    assert.deepEqual(t.rows, [['gvisor', 'runsc', '60s']]);
  });

  it('kubectl get runtimeclass prints the columns', { skip: kubectlSkip() }, async () => {
    assert.match(
      await h.kubectl('get', 'runtimeclasses'),
      /^NAME\s+HANDLER\s+AGE\ngvisor\s+runsc\s+60s\n$/,
    );
  });
});
