// Events written by the recorder, seen the way a user sees them: `kubectl get events` and
// `kubectl describe` against the in-memory API server. Skipped where kubectl is not installed.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import { EventBroadcaster } from '../../src/record/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { memoryLogger } from './support.js';

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const skip = hasKubectl() ? false : 'kubectl is not installed on this machine';

describe('recorded events through kubectl', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const kubectl = (...args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        [...args, '--cache-dir', join(dir, 'cache')],
        { env },
        (err, stdout, stderr) => {
          if (err) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr}`));
          else resolve(stdout);
        },
      );
    });

  before(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kck-events-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
    const cms = new ResourceClient<Serialized<V1ConfigMap>>(
      server.kubeConfig(),
      configMapsResource,
    );
    const cm = await cms.create({ metadata: { name: 'web', namespace: 'default' }, data: {} });
    const broadcaster = new EventBroadcaster(server.kubeConfig(), { logger: memoryLogger() });
    const recorder = broadcaster.newRecorder({ component: 'app-controller' });
    const obj = { ...cm, apiVersion: 'v1', kind: 'ConfigMap' };
    recorder.event(obj, 'Normal', 'Synced', 'configuration synced');
    recorder.event(obj, 'Warning', 'BadValue', 'key "x" is not valid');
    recorder.event(obj, 'Warning', 'BadValue', 'key "x" is not valid');
    await broadcaster.close();
  });
  after(async () => {
    await server?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('kubectl get events lists the recorded events with their type, reason, object, count and message', async () => {
    const names = await kubectl('get', 'events', '-n', 'default', '-o', 'name');
    assert.equal(names.trim().split('\n').length, 2);
    assert.match(names, /^event\/web\.[0-9a-f]+$/m);
    const table = await kubectl(
      'get',
      'events',
      '-n',
      'default',
      '--sort-by=.reason',
      '-o',
      'custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.name,FROM:.source.component,COUNT:.count,MESSAGE:.message',
    );
    const lines = table
      .trim()
      .split('\n')
      .map((l) => l.split(/\s{2,}/));
    assert.deepEqual(lines, [
      ['TYPE', 'REASON', 'OBJECT', 'FROM', 'COUNT', 'MESSAGE'],
      ['Warning', 'BadValue', 'web', 'app-controller', '2', 'key "x" is not valid'],
      ['Normal', 'Synced', 'web', 'app-controller', '1', 'configuration synced'],
    ]);
  });

  it('kubectl describe shows the events of the object (it searches core/v1 events by involvedObject)', async () => {
    const out = await kubectl('describe', 'configmap', 'web', '-n', 'default');
    const events = out.slice(out.indexOf('Events:'));
    assert.match(events, /Type\s+Reason\s+Age\s+From\s+Message/);
    assert.match(events, /Normal\s+Synced\s+\S+\s+app-controller\s+configuration synced/);
    assert.match(
      events,
      /Warning\s+BadValue\s+\S+ \(x2 over \S+\)\s+app-controller\s+key "x" is not valid/,
    );
  });
});
