// The test server reports the Kubernetes release it follows: its behaviour and the
// transcripts it is checked against come from kube-apiserver 1.36 (client-go v0.36.3), so
// `/version` answers v1.36.3 as that server would, and kubectl shows it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { kubectlSkip, raw } from './helpers.js';

const run = promisify(execFile);

describe('the version the test server reports', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  it('GET /version answers major 1, minor 36, gitVersion v1.36.3 (the release it follows)', async () => {
    const res = await raw(server.url, 'GET', '/version');
    assert.equal(res.code, 200);
    assert.equal(res.json.major, '1');
    assert.equal(res.json.minor, '36');
    assert.equal(res.json.gitVersion, 'v1.36.3');
  });

  it("rule (component-base compatibility versions, version.Info): /version says the version emulated (its own) and the minimum compatibility version (the minor before), in version.Info's field order", async () => {
    const res = await raw(server.url, 'GET', '/version');
    assert.deepEqual(Object.keys(res.json).slice(0, 7), [
      'major',
      'minor',
      'emulationMajor',
      'emulationMinor',
      'minCompatibilityMajor',
      'minCompatibilityMinor',
      'gitVersion',
    ]);
    assert.equal(res.json.emulationMajor, '1');
    assert.equal(res.json.emulationMinor, '36');
    assert.equal(res.json.minCompatibilityMajor, '1');
    assert.equal(res.json.minCompatibilityMinor, '35');
  });

  it('kubectl version shows Server Version v1.36.3', { skip: kubectlSkip() }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kck-version-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig.yaml');
      await server.writeKubeconfig(kubeconfig);
      const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'version']);
      assert.match(stdout, /^Server Version: v1\.36\.3$/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
