// kubectl against the test API server: get (-o yaml), apply of a CRD and a custom resource,
// patch, delete and get --watch. Skipped where kubectl is not installed.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const skip = hasKubectl() ? false : 'kubectl is not installed on this machine';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, shortNames: [gz]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
const GIZMO = `apiVersion: example.com/v1
kind: Gizmo
metadata: {name: g1, namespace: default}
spec: {size: 3}
`;
const CM = `apiVersion: v1
kind: ConfigMap
metadata: {name: kc-cm, namespace: default}
data: {a: b}
`;

describe('kubectl against the test API server', { skip }, () => {
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
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
    await writeFile(join(dir, 'crd.yaml'), CRD);
    await writeFile(join(dir, 'gizmo.yaml'), GIZMO);
    await writeFile(join(dir, 'cm.yaml'), CM);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('get namespaces prints the table with its STATUS column, -o yaml prints the object', async () => {
    const table = await kubectl('get', 'namespaces');
    assert.match(table, /^NAME\s+STATUS\s+AGE\n/);
    assert.match(table, /\bdefault\b/);
    const yaml = await kubectl('get', 'namespace', 'default', '-o', 'yaml');
    assert.match(yaml, /kind: Namespace/);
    assert.match(yaml, /resourceVersion: "\d+"/);
  });

  it('apply creates a CRD and a custom resource, and re-apply configures it', async () => {
    assert.match(await kubectl('apply', '-f', join(dir, 'crd.yaml')), /gizmos.example.com created/);
    assert.match(
      await kubectl('apply', '-f', join(dir, 'gizmo.yaml')),
      /gizmo.example.com\/g1 created/,
    );
    assert.match(await kubectl('get', 'gz'), /\bg1\b/);
    await writeFile(join(dir, 'gizmo.yaml'), GIZMO.replace('size: 3', 'size: 5'));
    assert.match(await kubectl('apply', '-f', join(dir, 'gizmo.yaml')), /configured/);
    assert.equal(await kubectl('get', 'gizmo', 'g1', '-o', 'jsonpath={.spec.size}'), '5');
  });

  it('patch (strategic on a built-in, merge on a custom resource)', async () => {
    await kubectl('apply', '-f', join(dir, 'cm.yaml'));
    await kubectl('patch', 'configmap', 'kc-cm', '-p', '{"data":{"x":"y"}}');
    assert.deepEqual(server.get<{ data?: Record<string, string> }>('configmaps', 'kc-cm')?.data, {
      a: 'b',
      x: 'y',
    });
    await kubectl('patch', 'gizmo', 'g1', '--type=merge', '-p', '{"spec":{"size":7}}');
    assert.equal(
      server.get<{ spec?: { size?: number } }>('gizmos.example.com', 'g1')?.spec?.size,
      7,
    );
  });

  it('get --watch prints changes as they happen; delete removes the object', async () => {
    const child = spawn(
      'kubectl',
      ['get', 'gizmos', '--watch', '-o', 'name', '--cache-dir', join(dir, 'cache')],
      { env },
    );
    let out = '';
    let err = '';
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.stderr.on('data', (c: string) => (err += c));
    const sawLines = async (n: number): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (out.split('\n').filter((l) => l !== '').length < n) {
        if (Date.now() > deadline)
          throw new Error(`kubectl --watch printed ${JSON.stringify(out)}; stderr ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await sawLines(1);
      await server.waitForWatch('gizmos.example.com');
      assert.match(await kubectl('delete', 'gizmo', 'g1'), /deleted/);
      await sawLines(2);
      assert.deepEqual(out.trim().split('\n'), ['gizmo.example.com/g1', 'gizmo.example.com/g1']);
      assert.equal(server.get('gizmos.example.com', 'g1'), undefined);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
