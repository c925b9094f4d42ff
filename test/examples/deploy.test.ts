// examples/application-operator/deploy/ is deployable: `kubectl apply -k` puts every object
// on the (in-memory) API server, the Deployment's probes and ports are the Manager's flags,
// and the RBAC binds the ServiceAccount the Deployment runs as. (The Dockerfile cannot be
// built here: no container engine.)
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { examplePath, installApplicationCrd } from './support.js';

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const skip = hasKubectl() ? false : 'kubectl is not installed on this machine';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

interface Container {
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
}

describe('application-operator deploy/', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const deploy = examplePath('application-operator/deploy');

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
    await installApplicationCrd(server);
    dir = await mkdtemp(join(tmpdir(), 'kck-deploy-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const rendered = async (): Promise<Obj[]> =>
    parseAllDocuments(await kubectl('kustomize', deploy)).map((d) => d.toJS() as Obj);

  test('kubectl apply -k deploy/ is accepted for every object, and each is then on the server', async () => {
    const objects = await rendered();
    assert.deepEqual(objects.map((o) => o.kind).sort(), [
      'ClusterRole',
      'ClusterRole', // metrics.yaml: the metrics reader
      'ClusterRoleBinding',
      'ClusterRoleBinding', // metrics.yaml: the operator's system:auth-delegator
      'ClusterRoleBinding', // metrics.yaml: Prometheus, the metrics reader
      'Deployment',
      'Namespace',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'ServiceAccount', // metrics.yaml: Prometheus
    ]);
    // The test server publishes no OpenAPI document for kubectl's client-side validation.
    const out = await kubectl('apply', '--validate=false', '-k', deploy);
    const lines = out.trim().split('\n');
    assert.equal(lines.length, objects.length, out);
    for (const line of lines) assert.match(line, / created$/, out);
    for (const o of objects) {
      const got = await kubectl(
        'get',
        `${o.kind.toLowerCase()}.${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}`.replace(
          /\.$/,
          '',
        ),
        o.metadata.name,
        ...(o.metadata.namespace !== undefined ? ['-n', o.metadata.namespace] : []),
        '-o',
        'name',
      );
      assert.ok(got.trim() !== '', `${o.kind} ${o.metadata.name} is on the server`);
    }
    // Applying again changes nothing.
    const again = await kubectl('apply', '--validate=false', '-k', deploy);
    for (const line of again.trim().split('\n')) assert.match(line, / unchanged$/, again);
  });

  test("the Deployment's probes hit /healthz and /readyz on --health-probe-bind-address, it exposes --metrics-bind-address, runs leader-elected as the bound ServiceAccount", async () => {
    const objects = await rendered();
    const dep = objects.find((o) => o.kind === 'Deployment')!;
    const pod = (dep as unknown as { spec: { template: { spec: Record<string, unknown> } } }).spec
      .template.spec;
    const c = (pod.containers as Container[])[0]!;
    const args = c.args ?? [];
    assert.ok(args.includes('--leader-elect'));
    const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
    const portOf = (addr: string | undefined) => Number(addr?.split(':').pop());
    const port = (ref: string | number | undefined) =>
      typeof ref === 'number' ? ref : c.ports?.find((p) => p.name === ref)?.containerPort;
    assert.equal(c.livenessProbe?.httpGet?.path, '/healthz');
    assert.equal(c.readinessProbe?.httpGet?.path, '/readyz');
    assert.equal(port(c.livenessProbe?.httpGet?.port), portOf(flag('health-probe-bind-address')));
    assert.equal(port(c.readinessProbe?.httpGet?.port), portOf(flag('health-probe-bind-address')));
    assert.ok(c.ports?.some((p) => p.containerPort === portOf(flag('metrics-bind-address'))));
    const sa = objects.find(
      (o) => o.kind === 'ServiceAccount' && o.metadata.name === pod.serviceAccountName,
    )!;
    assert.ok(sa, 'the ServiceAccount the Deployment runs as is deployed');
    assert.equal(sa.metadata.namespace, dep.metadata.namespace);
    // Every binding but Prometheus' metrics reader (metrics.yaml) is the operator's.
    for (const binding of objects.filter(
      (o) =>
        o.kind.endsWith('Binding') && o.metadata.name !== 'application-operator-metrics-reader',
    )) {
      const subjects = binding.subjects as { kind: string; name: string; namespace: string }[];
      assert.deepEqual(subjects, [
        { kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace },
      ]);
    }
    // The Lease Role lives where the Manager looks for the Lease: the Pod's namespace.
    const role = objects.find((o) => o.kind === 'Role')!;
    assert.equal(role.metadata.namespace, dep.metadata.namespace);
    assert.equal((pod.securityContext as { runAsNonRoot?: boolean }).runAsNonRoot, true);
  });
});
