// Events about objects read metadata-only land on those objects: the metadata client gives
// each PartialObjectMetadata the apiVersion and kind of its resource (as controller-runtime's
// metadata client does), so the recorder's involvedObject is `v1 ConfigMap`, not
// `meta.k8s.io/v1 PartialObjectMetadata`, and `kubectl describe configmap` lists the Event.
// Skipped where kubectl is not installed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { configMapsResource } from '../../src/client/builtins.js';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import { EventBroadcaster } from '../../src/record/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { kubectlSkip, until } from './helpers.js';

const run = promisify(execFile);

describe('Events about metadata-only objects, seen by kubectl', { skip: kubectlSkip() }, () => {
  let server: TestApiServer;
  let dir: string;
  let kubeconfig: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
    return stdout;
  };
  before(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-meta-'));
    kubeconfig = join(dir, 'kubeconfig.yaml');
    await server.writeKubeconfig(kubeconfig);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an Event recorded about a ConfigMap from a metadata-only informer shows in `kubectl describe configmap`', async () => {
    server.create('configmaps', { metadata: { name: 'nolabel', namespace: 'default' } });
    const factory = new SharedInformerFactory(server.kubeConfig(), { logger: noopLogger });
    const informer = factory.forResourceMetadata(configMapsResource);
    const stop = new AbortController();
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal);
    const cached = informer.lister().byNamespace('default').get('nolabel');
    assert.equal(cached.apiVersion, 'v1');
    assert.equal(cached.kind, 'ConfigMap');

    const broadcaster = new EventBroadcaster(server.kubeConfig(), { logger: noopLogger });
    const recorder = broadcaster.newRecorder({ component: 'audit' });
    // The cached object itself, no resource passed: its kind is the ConfigMap's.
    recorder.event(cached, 'Warning', 'MissingLabel', 'app.kubernetes.io/name is not set');
    await until(() => server.list('events', 'default').length === 1, 'the Event');
    await broadcaster.close(AbortSignal.timeout(5_000));
    stop.abort();
    await factory.shutdown();

    const [event] = server.list<{ involvedObject?: Record<string, unknown> }>('events', 'default');
    assert.deepEqual(
      {
        apiVersion: event?.involvedObject?.apiVersion,
        kind: event?.involvedObject?.kind,
        name: event?.involvedObject?.name,
        uid: event?.involvedObject?.uid,
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'nolabel',
        uid: server.get('configmaps', 'nolabel', 'default')?.metadata?.uid,
      },
    );
    const described = await kubectl('describe', 'configmap', 'nolabel');
    assert.match(described, /Events:\s+\n?.*Type\s+Reason/s);
    assert.match(described, /Warning\s+MissingLabel\s+.*app\.kubernetes\.io\/name is not set/);
    assert.doesNotMatch(await kubectl('get', 'events'), /partialobjectmetadata/i);
  });
});
