// kubectl's `auth` commands against the test API server: `can-i` (SelfSubjectAccessReview
// and SelfSubjectRulesReview) and `whoami` (SelfSubjectReview), sent in protobuf as
// kubectl sends them. Under the default AlwaysAllow authorizer everything is allowed. Skipped
// where kubectl is not installed.
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

describe('kubectl auth against the test API server', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  const kubectl = async (kubeconfig: string, ...args: string[]): Promise<string> => {
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
    return stdout;
  };

  before(async () => {
    // Over HTTPS: kubectl sends no bearer token to a plain-http server.
    server = await startTestApiServer({ https: true, auth: { token: 'kubectl-token' } });
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-auth-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig.yaml'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl auth can-i answers yes (SelfSubjectAccessReview, in protobuf), in any namespace', async () => {
    const kc = join(dir, 'kubeconfig.yaml');
    server.clearRequests();
    assert.equal((await kubectl(kc, 'auth', 'can-i', 'list', 'pods')).trim(), 'yes');
    assert.equal(
      (await kubectl(kc, 'auth', 'can-i', 'create', 'deployments', '-n', 'x')).trim(),
      'yes',
    );
    const reviews = server.requests.filter((r) => r.resource === 'selfsubjectaccessreviews');
    assert.deepEqual(
      reviews.map((r) => `${r.method} ${r.verb} ${r.code}`),
      ['POST create 201', 'POST create 201'],
    );
  });

  it('kubectl auth can-i --list shows that everything is allowed (SelfSubjectRulesReview)', async () => {
    const out = await kubectl(join(dir, 'kubeconfig.yaml'), 'auth', 'can-i', '--list');
    const rows = out
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows, [
      ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs'],
      ['*.*', '[]', '[]', '[*]'],
      ['[*]', '[]', '[*]'],
    ]);
  });

  it('kubectl auth whoami names the user the bearer token stands for', async () => {
    const out = await kubectl(join(dir, 'kubeconfig.yaml'), 'auth', 'whoami');
    assert.deepEqual(
      out
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s{2,}/)),
      [
        ['ATTRIBUTE', 'VALUE'],
        ['Username', 'test-user'],
        ['Groups', '[system:masters system:authenticated]'],
      ],
    );
  });
});
