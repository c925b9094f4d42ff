// kubectl's server-side apply against the test API server: `apply --server-side`,
// `--field-manager`, a conflict with the manager `kubectl label` recorded, and
// `--force-conflicts`. Skipped where kubectl is not installed.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const skip = hasKubectl() ? false : 'kubectl is not installed on this machine';

const CM = (value: string, label: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa-cm
  namespace: default
  labels: {tier: ${label}}
data: {key: ${value}}
`;

describe('kubectl server-side apply against the test API server', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const kubectl = (...args: string[]): Promise<{ code: number; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile(
        'kubectl',
        [...args, '--cache-dir', join(dir, 'cache')],
        { env },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, out: stdout, err: stderr });
        },
      );
    });
  const managedFields = async (): Promise<{ manager: string; operation: string }[]> => {
    const r = await kubectl('get', 'configmap', 'ssa-cm', '-o', 'json', '--show-managed-fields');
    const obj = JSON.parse(r.out) as {
      metadata: { managedFields?: { manager: string; operation: string }[] };
    };
    return (obj.metadata.managedFields ?? []).map(({ manager, operation }) => ({
      manager,
      operation,
    }));
  };

  before(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-ssa-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('apply --server-side records an Apply entry for kubectl (or --field-manager)', async () => {
    await writeFile(join(dir, 'cm.yaml'), CM('one', 'a'));
    const r = await kubectl('apply', '--server-side', '-f', join(dir, 'cm.yaml'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /configmap\/ssa-cm serverside-applied/);
    assert.deepEqual(await managedFields(), [{ manager: 'kubectl', operation: 'Apply' }]);
  });

  it('kubectl label is an Update manager, and a later apply of that label conflicts with it', async () => {
    const l = await kubectl('label', 'configmap', 'ssa-cm', 'tier=b', '--overwrite');
    assert.equal(l.code, 0, l.err);
    assert.deepEqual(await managedFields(), [
      { manager: 'kubectl', operation: 'Apply' },
      { manager: 'kubectl-label', operation: 'Update' },
    ]);
    await writeFile(join(dir, 'cm.yaml'), CM('two', 'c'));
    const r = await kubectl('apply', '--server-side', '-f', join(dir, 'cm.yaml'));
    assert.notEqual(r.code, 0);
    assert.match(
      r.err,
      /Apply failed with 1 conflict: conflict with "kubectl-label" using v1: \.metadata\.labels\.tier/,
    );
  });

  it('--force-conflicts takes the field over; --field-manager names another applier', async () => {
    const r = await kubectl(
      'apply',
      '--server-side',
      '--force-conflicts',
      '-f',
      join(dir, 'cm.yaml'),
    );
    assert.equal(r.code, 0, r.err);
    const got = await kubectl(
      'get',
      'configmap',
      'ssa-cm',
      '-o',
      'jsonpath={.metadata.labels.tier}/{.data.key}',
    );
    assert.equal(got.out, 'c/two');
    assert.deepEqual(await managedFields(), [{ manager: 'kubectl', operation: 'Apply' }]);
    await writeFile(
      join(dir, 'other.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa-cm, namespace: default}\ndata: {other: x}\n',
    );
    const o = await kubectl(
      'apply',
      '--server-side',
      '--field-manager=mine',
      '-f',
      join(dir, 'other.yaml'),
    );
    assert.equal(o.code, 0, o.err);
    assert.deepEqual((await managedFields()).map((m) => m.manager).sort(), ['kubectl', 'mine']);
  });
});
