// The kubeconfig file the test API server writes (writeKubeconfig, and so the CLI's
// --kubeconfig) works from the file alone with client-node, this library and kubectl.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { namespaces } from '../../src/client/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer, TestApiServerOptions } from '../../packages/testing/src/index.js';

const run = promisify(execFile);

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const noKubectl = hasKubectl() ? false : 'kubectl is not installed on this machine';

const variants: [string, TestApiServerOptions][] = [
  ['plain http without auth', {}],
  ['https with a bearer token', { https: true, auth: { token: 'tok-123' } }],
  ['https with a client certificate', { auth: { clientCertificate: true } }],
];

for (const [label, options] of variants) {
  describe(`the written kubeconfig (${label})`, () => {
    let server: TestApiServer;
    let dir: string;
    let file: string;
    before(async () => {
      server = await startTestApiServer(options);
      dir = await mkdtemp(join(tmpdir(), 'kck-kubeconfig-'));
      file = join(dir, 'kubeconfig.yaml');
      await server.writeKubeconfig(file);
    });
    after(async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('is readable by its owner only (it may hold credentials)', async () => {
      assert.equal((await stat(file)).mode & 0o777, 0o600);
    });

    it('is accepted by client-node loaded from the file', async () => {
      const kc = new KubeConfig();
      kc.loadFromFile(file);
      const list = await kc.makeApiClient(CoreV1Api).listNamespace();
      assert.deepEqual(
        list.items.map((n) => n.metadata?.name),
        ['default', 'kube-public', 'kube-system'],
      );
    });

    it('is accepted by this library loaded from the file', async () => {
      const kc = new KubeConfig();
      kc.loadFromFile(file);
      const list = await namespaces(kc).list();
      assert.equal(list.items.length, 3);
    });

    it('is accepted by kubectl', { skip: noKubectl }, async () => {
      const { stdout } = await run('kubectl', [
        '--kubeconfig',
        file,
        'get',
        'namespace',
        'default',
        '-o',
        'jsonpath={.metadata.name}',
      ]);
      assert.equal(stdout, 'default');
    });
  });
}

describe('the written kubeconfig for plain http', () => {
  it('marks TLS verification skipped, which client-node requires for an http:// server', async () => {
    const server = await startTestApiServer();
    const dir = await mkdtemp(join(tmpdir(), 'kck-kubeconfig-'));
    try {
      await server.writeKubeconfig(join(dir, 'kc.yaml'));
      const text = await readFile(join(dir, 'kc.yaml'), 'utf8');
      assert.match(
        text,
        /server: "http:\/\/127\.0\.0\.1:\d+"\n {4}insecure-skip-tls-verify: true\n/,
      );
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
