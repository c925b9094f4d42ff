import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { configMaps } from '../../src/client/builtins.js';
import {
  ApiError,
  ConnectionError,
  KubeConfigError,
  isUnauthorized,
} from '../../src/client/errors.js';
import { Transport } from '../../src/client/transport.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServerOptions } from '../../packages/testing/src/index.js';
import { TOKEN, recordingLogger } from './stub.js';

async function server(t: TestContext, options: TestApiServerOptions) {
  const s = await startTestApiServer(options);
  t.after(() => s.close());
  return s;
}

/** The test server's cluster with another user. */
function withUser(
  base: KubeConfig,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
): KubeConfig {
  const c = base.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...c, ...cluster }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: c.name, user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

function transportFor(t: TestContext, kc: KubeConfig, options = {}): Transport {
  const transport = new Transport(kc, options);
  t.after(() => transport.close());
  return transport;
}

function assertNoToken(err: unknown): void {
  assert.ok(!String(err).includes(TOKEN));
  assert.ok(!inspect(err, { depth: 10 }).includes(TOKEN));
}

test('a bearer token authenticates over HTTPS with the CA from the kubeconfig', async (t) => {
  const s = await server(t, { https: true, auth: { token: TOKEN } });
  assert.ok(s.url.startsWith('https://'));
  const c = configMaps(transportFor(t, s.kubeConfig())).namespace('default');
  assert.deepEqual((await c.list()).items, []);
});

test('a wrong token is 401 Unauthorized and the token appears in no error or log line', async (t) => {
  const s = await server(t, { https: true, auth: { token: 'the-right-one' } });
  const logger = recordingLogger();
  const transport = transportFor(t, withUser(s.kubeConfig(), { token: TOKEN }), { logger });
  const err = await configMaps(transport)
    .namespace('default')
    .get('a')
    .catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.ok(isUnauthorized(err), String(err));
  assertNoToken(err);
  for (const line of logger.lines) assert.ok(!line.includes(TOKEN));
});

test('a client certificate authenticates over HTTPS; without one the request is refused', async (t) => {
  const s = await server(t, { auth: { clientCertificate: true } });
  const ok = configMaps(transportFor(t, s.kubeConfig())).namespace('default');
  await ok.create({ metadata: { name: 'a' } });
  assert.equal((await ok.get('a')).metadata?.name, 'a');
  const anonymous = transportFor(t, withUser(s.kubeConfig(), {}));
  const err = await configMaps(anonymous)
    .namespace('default')
    .get('a')
    .catch((e: unknown) => e);
  assert.ok(isUnauthorized(err) || err instanceof ConnectionError, String(err));
});

test('a server certificate the CA does not vouch for is refused unless the kubeconfig skips verification', async (t) => {
  const s = await server(t, { https: true, auth: { token: TOKEN } });
  const noCa = transportFor(
    t,
    withUser(s.kubeConfig(), { token: TOKEN }, { caData: undefined, caFile: undefined }),
  );
  const err = await configMaps(noCa)
    .namespace('default')
    .list()
    .catch((e: unknown) => e);
  assert.ok(err instanceof ConnectionError, String(err));
  assert.match(err.message, /certificate/i);
  assertNoToken(err);
  const skip = transportFor(
    t,
    withUser(s.kubeConfig(), { token: TOKEN }, { caData: undefined, skipTLSVerify: true }),
  );
  assert.deepEqual((await configMaps(skip).namespace('default').list()).items, []);
});

test('an exec credential plugin supplies the token', async (t) => {
  const s = await server(t, { auth: { token: TOKEN } });
  const credential = JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1',
    kind: 'ExecCredential',
    status: { token: TOKEN },
  });
  const kc = withUser(s.kubeConfig(), {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`],
      interactiveMode: 'Never',
    },
  });
  const c = configMaps(transportFor(t, kc)).namespace('default');
  assert.deepEqual((await c.list()).items, []);
});

test('a token file named by the kubeconfig supplies the token', async (t) => {
  const s = await server(t, { auth: { token: TOKEN } });
  const dir = mkdtempSync(join(tmpdir(), 'kck-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  writeFileSync(file, TOKEN);
  const kc = withUser(s.kubeConfig(), {
    authProvider: { name: 'tokenFile', config: { tokenFile: file } },
  });
  const c = configMaps(transportFor(t, kc)).namespace('default');
  assert.deepEqual((await c.list()).items, []);
});

test('a plain-http kubeconfig without insecure-skip-tls-verify works, as kubectl accepts it, and carries its token', async (t) => {
  const s = await server(t, { auth: { token: TOKEN } });
  assert.ok(s.url.startsWith('http://'));
  for (const cluster of [{ skipTLSVerify: false }, { skipTLSVerify: undefined }]) {
    const kc = withUser(s.kubeConfig(), { token: TOKEN }, cluster);
    assert.notEqual(kc.getCurrentCluster()!.skipTLSVerify, true);
    const c = configMaps(transportFor(t, kc)).namespace('default');
    await c.create({ metadata: { name: `a${String(cluster.skipTLSVerify)}` } });
    assert.equal((await c.list()).items.length >= 1, true);
    // The user's KubeConfig is left as it was.
    assert.notEqual(kc.getCurrentCluster()!.skipTLSVerify, true);
  }
  const wrong = withUser(s.kubeConfig(), { token: 'not-it' }, { skipTLSVerify: false });
  const err = await configMaps(transportFor(t, wrong))
    .namespace('default')
    .list()
    .catch((e: unknown) => e);
  assert.ok(isUnauthorized(err), `the token is sent over plain http too: ${String(err)}`);
});

test('a credential that cannot be applied is a KubeConfigError naming the kubeconfig user, cluster and server', async (t) => {
  const s = await server(t, { auth: { token: TOKEN } });
  for (const cluster of [{ skipTLSVerify: false }, { skipTLSVerify: true }]) {
    const kc = withUser(
      s.kubeConfig(),
      {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: ['-e', `console.error('login expired'); process.exit(1)`],
          interactiveMode: 'Never',
        },
      },
      cluster,
    );
    const err = await configMaps(transportFor(t, kc))
      .namespace('default')
      .list()
      .catch((e: unknown) => e);
    assert.ok(err instanceof KubeConfigError, String(err));
    assert.match(err.message, /could not apply the credentials of kubeconfig user "u"/);
    assert.match(err.message, new RegExp(`cluster "${kc.getCurrentCluster()!.name}"`));
    assert.ok(err.message.includes(s.url), err.message);
    assert.doesNotMatch(err.message, /HTTP protocol is not allowed/);
  }
});
