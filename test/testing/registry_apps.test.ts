// apps/v1 ControllerRevisions, as kube-apiserver serves them: discovery, ValidateControllerRevision
// (a non-negative revision, immutable data), and the printer's Controller column
// (`kind.group/name` of the controller owner) and Revision.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const CR = '/apis/apps/v1/namespaces/default/controllerrevisions';

describe('apps/v1 controllerrevisions', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists controllerrevisions, namespaced', async () => {
    const r = await h.resource('apps/v1', 'controllerrevisions');
    assert.deepEqual(
      [r?.namespaced, r?.kind, r?.shortNames],
      [true, 'ControllerRevision', undefined],
    );
  });

  it('rule: a negative revision is refused; data cannot change', async () => {
    const bad = await h.send('POST', CR, { metadata: { name: 'bad' }, revision: -1 });
    assert.equal(bad.code, 422);
    assert.equal(
      bad.json.message,
      'ControllerRevision.apps "bad" is invalid: revision: Invalid value: -1: must be greater than or equal to 0',
    );
    const ok = await h.send('POST', CR, {
      metadata: {
        name: 'web-7d4b9c',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'web', uid: 'u-1', controller: true },
        ],
      },
      revision: 2,
      data: { spec: { template: { metadata: { labels: { app: 'web' } } } } },
    });
    assert.equal(ok.code, 201, ok.body);
    const changed = await h.send(
      'PATCH',
      `${CR}/web-7d4b9c`,
      { data: { spec: { template: null } } },
      'application/merge-patch+json',
    );
    assert.equal(changed.code, 422);
    assert.deepEqual(causes(changed), ['data: Invalid value: {"spec":{}}: field is immutable']);
  });

  it('rule: the Table has Controller (daemonset.apps/web), Revision, Age', async () => {
    await h.send('POST', CR, { metadata: { name: 'orphan' }, revision: 1 });
    await h.clock.advance(60_000);
    const t = await h.table(CR);
    assert.deepEqual(t.columns, ['Name', 'Controller', 'Revision', 'Age']);
    assert.deepEqual(t.rows, [
      ['orphan', '<none>', 1, '60s'],
      ['web-7d4b9c', 'daemonset.apps/web', 2, '60s'],
    ]);
  });

  it('kubectl get controllerrevisions prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'controllerrevisions');
    assert.match(out, /^NAME\s+CONTROLLER\s+REVISION\s+AGE\n/);
    assert.match(out, /\nweb-7d4b9c\s+daemonset\.apps\/web\s+2\s+60s\n/);
  });
});
