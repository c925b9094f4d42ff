// `kube-controller-kit kubeconfig`: a kubeconfig for a ServiceAccount, its token from the
// API server's TokenRequest (kubectl create token's flags), checked with kubectl against the
// in-memory server under RBAC: kubectl authenticates as the ServiceAccount, RBAC applies.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { parseDurationSeconds, runKubeconfigCli } from '../../src/cli/kubeconfig.js';
import { kubectlSkip } from '../testing/helpers.js';

function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 30_000 },
      (err, stdout, stderr) =>
        err === null ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)),
    );
  });
}

async function cli(...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runKubeconfigCli(args, {
    stdout: (t) => stdout.push(t),
    stderr: (t) => stderr.push(t),
  });
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}

describe('kube-controller-kit kubeconfig', () => {
  let server: TestApiServer;
  let dir: string;
  let admin: string;

  before(async () => {
    server = await startTestApiServer({ https: true, authorization: 'RBAC' });
    dir = await mkdtemp(join(tmpdir(), 'kck-kubeconfig-'));
    admin = join(dir, 'admin.yaml');
    await server.writeKubeconfig(admin);
    server.create('namespaces', { metadata: { name: 'ops' } });
    server.create('serviceaccounts', { metadata: { name: 'bot', namespace: 'ops' } });
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'writes a kubeconfig kubectl authenticates with as the ServiceAccount (mode 0600), and RBAC applies to it',
    {
      skip: kubectlSkip(),
    },
    async () => {
      const out = join(dir, 'bot.yaml');
      const r = await cli('bot', '-n', 'ops', '--kubeconfig', admin, '--duration', '2h', '-o', out);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /^wrote \S+bot\.yaml: system:serviceaccount:ops:bot, token valid until \S+Z\n$/,
      );
      assert.equal((await stat(out)).mode & 0o777, 0o600);
      const who = JSON.parse(await kubectl(out, 'auth', 'whoami', '-o', 'json')) as {
        status: { userInfo: { username: string } };
      };
      assert.equal(who.status.userInfo.username, 'system:serviceaccount:ops:bot');
      // The context's namespace is the ServiceAccount's: no -n needed.
      await assert.rejects(
        kubectl(out, 'get', 'configmaps'),
        /cannot list resource "configmaps" in API group "" in the namespace "ops"/,
      );
      await kubectl(
        admin,
        'create',
        'rolebinding',
        'bot-view',
        '-n',
        'ops',
        '--clusterrole=view',
        '--serviceaccount=ops:bot',
      );
      await kubectl(out, 'get', 'configmaps'); // allowed now
      await assert.rejects(kubectl(out, 'get', 'secrets'), /cannot list resource "secrets"/); // view has no secrets
      // The token's lifetime is the one asked for (TokenRequest's expirationSeconds).
      const token = /token: "([^"]+)"/.exec(await readFile(out, 'utf8'))?.[1] ?? '';
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
        exp: number;
        iat: number;
      };
      assert.equal(claims.exp - claims.iat, 7200);
    },
  );

  it('takes the ServiceAccount as system:serviceaccount:<ns>:<name> and prints the kubeconfig without -o', async () => {
    const r = await cli(
      'system:serviceaccount:ops:bot',
      '--kubeconfig',
      admin,
      '--audience',
      'api',
      '--audience',
      'vault',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# A kubeconfig for the ServiceAccount ops\/bot/);
    assert.match(r.stdout, /certificate-authority-data: "[A-Za-z0-9+/=]+"/);
    assert.match(r.stdout, /current-context: "system:serviceaccount:ops:bot@test-apiserver"/);
    const token = /token: "([^"]+)"/.exec(r.stdout)?.[1] ?? '';
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
      aud: string[];
    };
    assert.deepEqual(claims.aud, ['api', 'vault']);
  });

  it('says what the server refused: a missing ServiceAccount (404), a lifetime under 10 minutes (422)', async () => {
    const missing = await cli('nobody', '-n', 'ops', '--kubeconfig', admin);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: .*serviceaccounts "nobody" not found/);
    const short = await cli('bot', '-n', 'ops', '--kubeconfig', admin, '--duration', '5m');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /expirationSeconds/);
  });

  it('refuses bad arguments with exit 2 and the reason', async () => {
    for (const [args, why] of [
      [[], /name the ServiceAccount/],
      [['a', 'b'], /one ServiceAccount at a time/],
      [['Bot'], /"Bot" is not a valid ServiceAccount name/],
      [['bot', '-n', 'Ops'], /"Ops" is not a valid namespace name/],
      [['system:serviceaccount:a:b', '-n', 'c'], /-n c contradicts the namespace a/],
      [['x:y'], /neither a ServiceAccount name nor/],
      [['bot', '--duration', '1d'], /--duration "1d" is not a duration/],
      [['bot', '--bound-object-kind', 'Pod'], /go together/],
      [['bot', '--bound-object-kind', 'Node', '--bound-object-name', 'n'], /Pod or Secret/],
      [['bot', '--bogus'], /unknown option --bogus/],
    ] as const) {
      const r = await cli(...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, why);
      assert.match(r.stderr, /Usage: kube-controller-kit kubeconfig/);
    }
    assert.equal((await cli('--help')).code, 0);
    assert.equal(parseDurationSeconds('1h30m'), 5400);
    assert.equal(parseDurationSeconds('600s'), 600);
  });

  it('fails in words when the kubeconfig is missing or has no such context', async () => {
    const missing = await cli('bot', '--kubeconfig', join(dir, 'none.yaml'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /kubeconfig \S+none\.yaml does not exist/);
    const context = await cli('bot', '--kubeconfig', admin, '--context', 'prod');
    assert.equal(context.code, 1);
    assert.match(context.stderr, /has no context "prod" \(it has test-apiserver\)/);
  });
});
