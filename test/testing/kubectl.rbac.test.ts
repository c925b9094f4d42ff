// kubectl against the test API server in RBAC mode: `create token` (TokenRequest), `auth
// can-i` and `can-i --list` telling the truth, `--as` (impersonation), and kubectl's own
// wording of the server's 403 and 401 answers. Skipped where kubectl is not installed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { kubectlSkip } from './helpers.js';

const run = promisify(execFile);

const skip = kubectlSkip();

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe('kubectl against the test API server with RBAC', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  let kc: string;
  const kubectl = async (...args: string[]): Promise<Outcome> => {
    try {
      const { stdout, stderr } = await run('kubectl', ['--kubeconfig', kc, ...args]);
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };

  before(async () => {
    // Over HTTPS: kubectl sends no bearer token to a plain-http server.
    server = await startTestApiServer({
      https: true,
      authorization: 'RBAC',
      namespaces: ['default', 'ops'],
    });
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-rbac-'));
    kc = join(dir, 'admin.yaml');
    await server.writeKubeconfig(kc);
    server.create('serviceaccounts', { metadata: { name: 'bot', namespace: 'ops' } });
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'roles' },
      {
        metadata: { name: 'pod-reader', namespace: 'ops' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
      },
    );
    server.create(
      { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
      {
        metadata: { name: 'bot-reads-pods', namespace: 'ops' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'ops' }],
      },
    );
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl create token issues a token that kubectl auth whoami names as the ServiceAccount', async () => {
    const created = await kubectl('create', 'token', 'bot', '-n', 'ops', '--duration', '1h');
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    const who = await kubectl('--token', token, 'auth', 'whoami', '-o', 'json');
    assert.equal(who.code, 0, who.stderr);
    const info = (
      JSON.parse(who.stdout) as { status: { userInfo: { username: string; groups: string[] } } }
    ).status.userInfo;
    assert.equal(info.username, 'system:serviceaccount:ops:bot');
    assert.deepEqual(info.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:ops',
      'system:authenticated',
    ]);
  });

  it('kubectl auth can-i --as answers yes and no as RBAC decides (exit code 1 for no)', async () => {
    const as = ['--as', 'system:serviceaccount:ops:bot'];
    const yes = await kubectl('auth', 'can-i', 'list', 'pods', '-n', 'ops', ...as);
    assert.deepEqual([yes.code, yes.stdout.trim()], [0, 'yes']);
    const no = await kubectl('auth', 'can-i', 'delete', 'pods', '-n', 'ops', ...as);
    assert.deepEqual([no.code, no.stdout.trim()], [1, 'no']);
    const elsewhere = await kubectl('auth', 'can-i', 'list', 'pods', '-n', 'default', ...as);
    assert.deepEqual([elsewhere.code, elsewhere.stdout.trim()], [1, 'no']);
  });

  it('kubectl auth can-i --list shows the rules bound to the user in the namespace', async () => {
    const out = await kubectl(
      'auth',
      'can-i',
      '--list',
      '-n',
      'ops',
      '--as',
      'system:serviceaccount:ops:bot',
    );
    assert.equal(out.code, 0, out.stderr);
    const rows = out.stdout.trim().split('\n');
    assert.match(rows[0] ?? '', /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    assert.ok(
      rows.some((r) => /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/.test(r)),
      out.stdout,
    );
    assert.ok(
      rows.some((r) => /^selfsubjectaccessreviews\.authorization\.k8s\.io\s/.test(r)),
      out.stdout,
    );
    assert.ok(!rows.some((r) => r.startsWith('secrets')), out.stdout);
  });

  it('a forbidden request is printed as kubectl prints kube-apiserver 403s', async () => {
    const res = await kubectl(
      'get',
      'pods',
      '-n',
      'default',
      '--as',
      'system:serviceaccount:ops:bot',
    );
    assert.equal(res.code, 1);
    assert.equal(
      res.stderr.trim(),
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "pods" in API group "" in the namespace "default"',
    );
  });

  it('impersonation itself needs the impersonate verb', async () => {
    const token = server.addUser({ username: 'alice' }).token;
    const res = await kubectl('--token', token, 'get', 'pods', '-n', 'ops', '--as', 'bob');
    assert.equal(res.code, 1);
    assert.equal(
      res.stderr.trim(),
      'Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it('a token the server does not accept is 401, which kubectl reports as not logged in', async () => {
    const res = await kubectl('--token', 'not-a-token', 'get', 'pods', '-n', 'ops');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
  });
});
