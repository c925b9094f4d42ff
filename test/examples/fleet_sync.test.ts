// The fleet-sync example against three in-memory servers (a hub and two members): labelled
// hub ConfigMaps are copied into every member (created where the namespace exists, updated,
// put back, deleted with the hub copy or its label), the hub's status annotation lists the
// members reached, and members are picked up and dropped at runtime from the kubeconfig
// directory — the dropped one's watches and sockets closed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { noopLogger } from '../../src/util/logger.js';
import {
  COPY_LABEL,
  STATUS_ANNOTATION,
  SYNC_LABEL,
  runFleetSync,
} from '../../examples/fleet-sync/src/fleet_sync.js';
import { eventually } from '../support/eventually.js';

interface CM {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

const configMap = (
  namespace: string,
  name: string,
  data: Record<string, string>,
  labelled = true,
) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: labelled ? { [SYNC_LABEL]: 'true' } : {} },
  data,
});

describe('fleet-sync example', () => {
  let hub: TestApiServer;
  const members = new Map<string, TestApiServer>();
  let dir: string;
  before(async () => {
    hub = await startTestApiServer({ namespaces: ['default', 'apps', 'late'] });
    members.set('member-a', await startTestApiServer({ namespaces: ['default', 'apps'] }));
    members.set('member-b', await startTestApiServer({ namespaces: ['default'] }));
    members.set('member-c', await startTestApiServer({ namespaces: ['default', 'apps'] }));
    dir = mkdtempSync(join(tmpdir(), 'fleet-sync-test-'));
  });
  after(async () => {
    await Promise.all([hub.close(), ...[...members.values()].map((m) => m.close())]);
    rmSync(dir, { recursive: true, force: true });
  });

  const copy = (member: string, namespace: string, name: string) =>
    members.get(member)!.get<CM>('configmaps', name, namespace);
  const status = (namespace: string, name: string) =>
    hub.get<CM>('configmaps', name, namespace)?.metadata.annotations?.[STATUS_ANNOTATION];

  test('copies into every member, follows the hub, and follows members added and removed at runtime', async () => {
    await members.get('member-a')!.writeKubeconfig(join(dir, 'member-a.kubeconfig'));
    await members.get('member-b')!.writeKubeconfig(join(dir, 'member-b.yaml'));
    hub.create('configmaps', configMap('default', 'settings', { mode: 'blue' }));
    hub.create('configmaps', configMap('apps', 'flags', { beta: 'on' }));
    hub.create('configmaps', configMap('default', 'private', { x: '1' }, false));
    // member-a has a ConfigMap of its own with the name of a synced one: never touched.
    members.get('member-a')!.create('configmaps', configMap('apps', 'mine', { own: 'yes' }, false));
    hub.create('configmaps', configMap('apps', 'mine', { from: 'hub' }));
    const stop = new AbortController();
    const running = runFleetSync(hub.kubeConfig(), dir, stop.signal, {
      logger: noopLogger,
      debounceMs: 50,
    });
    try {
      // Copied where the namespace exists; the status lists who holds an up-to-date copy.
      await eventually(
        'settings everywhere',
        () => status('default', 'settings') === 'member-a,member-b',
      );
      assert.deepEqual(copy('member-a', 'default', 'settings')?.data, { mode: 'blue' });
      assert.equal(copy('member-b', 'default', 'settings')?.metadata.labels?.[COPY_LABEL], 'hub');
      await eventually('flags in member-a only', () => status('apps', 'flags') === 'member-a');
      assert.equal(copy('member-b', 'apps', 'flags'), undefined, 'member-b has no namespace apps');
      assert.equal(copy('member-a', 'default', 'private'), undefined, 'unlabelled: not copied');
      await eventually('mine reached nowhere', () => status('apps', 'mine') === '');
      assert.deepEqual(
        copy('member-a', 'apps', 'mine')?.data,
        { own: 'yes' },
        'the member’s own is left alone',
      );

      // Updated on change; a copy edited or deleted in a member is put back.
      const settings = hub.get<CM>('configmaps', 'settings', 'default')!;
      hub.update('configmaps', { ...settings, data: { mode: 'green' } });
      await eventually('updated everywhere', () =>
        ['member-a', 'member-b'].every(
          (m) => copy(m, 'default', 'settings')?.data?.mode === 'green',
        ),
      );
      const edited = copy('member-b', 'default', 'settings')!;
      members.get('member-b')!.update('configmaps', { ...edited, data: { mode: 'tampered' } });
      await eventually(
        'put back',
        () => copy('member-b', 'default', 'settings')?.data?.mode === 'green',
      );
      members.get('member-a')!.delete('configmaps', 'settings', 'default');
      await eventually(
        'recreated',
        () => copy('member-a', 'default', 'settings')?.data?.mode === 'green',
      );

      // A member added at runtime gets every copy whose namespace it has.
      await members.get('member-c')!.writeKubeconfig(join(dir, 'member-c.kubeconfig'));
      await eventually(
        'member-c reached',
        () => status('default', 'settings') === 'member-a,member-b,member-c',
      );
      await eventually('flags in member-c', () => status('apps', 'flags') === 'member-a,member-c');

      // A namespace that appears in a member later gets its copies then.
      hub.create('configmaps', configMap('late', 'later', { n: '1' }));
      await eventually('later reached nowhere yet', () => status('late', 'later') === '');
      members
        .get('member-b')!
        .create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'late' } });
      await eventually(
        'later copied once the namespace exists',
        () => status('late', 'later') === 'member-b',
      );

      // A member removed at runtime is dropped: its watches close; the status forgets it.
      assert.ok(members.get('member-b')!.watchCount() > 0);
      unlinkSync(join(dir, 'member-b.yaml'));
      await eventually(
        'member-b dropped from the status',
        () => status('default', 'settings') === 'member-a,member-c',
      );
      await eventually(
        'member-b no longer watched',
        () => members.get('member-b')!.watchCount() === 0,
      );
      assert.equal(
        copy('member-b', 'default', 'settings')?.data?.mode,
        'green',
        'a dropped member keeps what it has',
      );

      // The label removed: copies deleted, the annotation removed; the hub copy deleted: copies deleted.
      const flags = hub.get<CM>('configmaps', 'flags', 'apps')!;
      hub.update('configmaps', { ...flags, metadata: { ...flags.metadata, labels: {} } });
      await eventually(
        'flags copies deleted',
        () =>
          copy('member-a', 'apps', 'flags') === undefined &&
          copy('member-c', 'apps', 'flags') === undefined,
      );
      await eventually('flags annotation removed', () => status('apps', 'flags') === undefined);
      hub.delete('configmaps', 'settings', 'default');
      await eventually(
        'settings copies deleted',
        () =>
          copy('member-a', 'default', 'settings') === undefined &&
          copy('member-c', 'default', 'settings') === undefined,
      );
    } finally {
      stop.abort();
      await running;
    }
    // The client ended its watches; the servers see each connection close a moment later
    // (its FIN arrives after the abort), so wait for that rather than read it at once.
    for (const [name, m] of members)
      await eventually(`${name}: nothing left watching`, () => m.watchCount() === 0);
    await eventually('hub: nothing left watching', () => hub.watchCount() === 0);
  });
});
