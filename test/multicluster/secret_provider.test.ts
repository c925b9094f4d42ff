// The kubeconfig Secret provider, as Cluster API writes the Secrets (`<cluster>-kubeconfig`,
// label cluster.x-k8s.io/cluster-name, key `value`) and as multicluster-runtime's
// cluster-api provider names the clusters (`<namespace>/<cluster>`): followed with an
// informer on the hub; a changed kubeconfig re-engages, a deleted Secret disengages, a bad
// one is logged once naming the Secret, and other Secrets are never read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { KubeconfigCluster, KubeconfigSecretProvider } from '../../src/multicluster/index.js';
import { eventually } from '../support/eventually.js';
import { RecordingAware, kubeconfigText, recordingLogger } from './support.js';

function capiSecret(cluster: string, kubeconfig: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'cluster.x-k8s.io/secret',
    metadata: {
      name: `${cluster}-kubeconfig`,
      namespace: 'fleet',
      labels: { 'cluster.x-k8s.io/cluster-name': cluster },
    },
    data: { value: Buffer.from(kubeconfig).toString('base64') },
    ...extra,
  };
}

describe('KubeconfigSecretProvider (Cluster API kubeconfig Secrets)', () => {
  let hub: TestApiServer;
  let a: TestApiServer;
  let b: TestApiServer;
  before(async () => {
    [hub, a, b] = await Promise.all([
      startTestApiServer({ namespaces: ['default', 'fleet'] }),
      startTestApiServer(),
      startTestApiServer(),
    ]);
  });
  after(async () => {
    await Promise.all([hub.close(), a.close(), b.close()]);
  });

  test('Secrets engage as <namespace>/<cluster>; a changed kubeconfig re-engages; a deleted Secret disengages', async () => {
    hub.create('secrets', capiSecret('prod-a', kubeconfigText(a.url)));
    const hubCluster = new KubeconfigCluster('', hub.kubeConfig());
    const stop = new AbortController();
    const hubRunning = hubCluster.start(stop.signal);
    const aware = new RecordingAware();
    const log = recordingLogger();
    const provider = new KubeconfigSecretProvider({
      hub: hubCluster,
      namespace: 'fleet',
      logger: log.logger,
    });
    const running = provider.start(stop.signal, aware);
    try {
      await eventually('prod-a engaged', () => aware.names().includes('fleet/prod-a'));
      const first = aware.live.get('fleet/prod-a')!;
      assert.equal(first.cluster.name, 'fleet/prod-a');
      assert.equal(provider.get('fleet/prod-a'), first.cluster);
      // The same Secret pointing at another server: the cluster is re-engaged.
      const current = hub.get<ReturnType<typeof capiSecret>>(
        'secrets',
        'prod-a-kubeconfig',
        'fleet',
      )!;
      hub.update('secrets', {
        ...current,
        data: { value: Buffer.from(kubeconfigText(b.url)).toString('base64') },
      });
      await eventually(
        're-engaged',
        () => aware.live.get('fleet/prod-a') !== first && aware.live.has('fleet/prod-a'),
      );
      assert.equal(first.signal.aborted, true);
      // A label-only change (same kubeconfig bytes) does not re-engage.
      const second = aware.live.get('fleet/prod-a')!;
      const again = hub.get<ReturnType<typeof capiSecret>>(
        'secrets',
        'prod-a-kubeconfig',
        'fleet',
      )!;
      hub.update('secrets', {
        ...again,
        metadata: { ...again.metadata, labels: { ...again.metadata.labels, extra: 'x' } },
      });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(aware.live.get('fleet/prod-a'), second);
      hub.delete('secrets', 'prod-a-kubeconfig', 'fleet');
      await eventually('disengaged', () => aware.names().length === 0);
      assert.deepEqual(aware.events, [
        'engage fleet/prod-a',
        'disengage fleet/prod-a',
        'engage fleet/prod-a',
        'disengage fleet/prod-a',
      ]);
    } finally {
      stop.abort();
      await Promise.all([running, hubRunning]);
    }
  });

  test('a bad Secret is logged once, naming it, and skipped; other Secrets of a cluster are not kubeconfigs; nothing crashes', async () => {
    const hubCluster = new KubeconfigCluster('', hub.kubeConfig());
    const stop = new AbortController();
    const hubRunning = hubCluster.start(stop.signal);
    const aware = new RecordingAware();
    const log = recordingLogger();
    const exec = kubeconfigText(a.url).replace(
      '    token: token',
      '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh',
    );
    hub.create('secrets', capiSecret('evil', exec));
    hub.create('secrets', capiSecret('garbage', 'clusters: ['));
    hub.create('secrets', {
      ...capiSecret('prod-b', kubeconfigText(b.url)),
      metadata: {
        name: 'prod-b-ca',
        namespace: 'fleet',
        labels: { 'cluster.x-k8s.io/cluster-name': 'prod-b' },
      },
    });
    hub.create('secrets', capiSecret('prod-b', kubeconfigText(b.url)));
    const provider = new KubeconfigSecretProvider({
      hub: hubCluster,
      logger: log.logger,
      maxBytes: 64 * 1024,
    });
    const running = provider.start(stop.signal, aware);
    try {
      await eventually('prod-b engaged', () => aware.names().includes('fleet/prod-b'));
      await eventually(
        'two refused',
        () => log.lines.filter((l) => l.startsWith('error')).length >= 2,
      );
      // Touch the bad Secrets without changing their kubeconfig: not logged again.
      for (const name of ['evil-kubeconfig', 'garbage-kubeconfig']) {
        const s = hub.get<ReturnType<typeof capiSecret>>('secrets', name, 'fleet')!;
        hub.update('secrets', {
          ...s,
          metadata: { ...s.metadata, annotations: { touched: 'yes' } },
        });
      }
      hub.create('secrets', capiSecret('huge', 'x'.repeat(100 * 1024)));
      await eventually('the huge one refused', () =>
        log.lines.some((l) => /huge-kubeconfig/.test(l)),
      );
      await new Promise((r) => setTimeout(r, 100));
      const errors = log.lines.filter((l) => l.startsWith('error'));
      assert.equal(errors.length, 3, errors.join('\n'));
      assert.match(
        errors.join('\n'),
        /kubeconfig Secret fleet\/evil-kubeconfig: user u has an exec credential plugin/,
      );
      assert.match(
        errors.join('\n'),
        /kubeconfig Secret fleet\/garbage-kubeconfig: is not a YAML document/,
      );
      assert.match(
        errors.join('\n'),
        /kubeconfig Secret fleet\/huge-kubeconfig is skipped: its value is more than the limit of 65536 bytes/,
      );
      assert.deepEqual(aware.names(), ['fleet/prod-b'], 'prod-b-ca is not a kubeconfig Secret');
    } finally {
      stop.abort();
      await Promise.all([running, hubRunning]);
      for (const n of ['evil', 'garbage', 'prod-b', 'huge'])
        hub.delete('secrets', `${n}-kubeconfig`, 'fleet');
      hub.delete('secrets', 'prod-b-ca', 'fleet');
    }
    assert.equal(a.watchCount() + b.watchCount(), 0);
  });
});
