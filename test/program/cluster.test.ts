// openCluster / loadKubeConfig / applyManifests / packageFile: how a program chooses where
// to run, and how manifests reach the server (discovery, server-side apply, CRDs waited for).
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import {
  ClusterConfigError,
  ManifestError,
  applyManifests,
  loadKubeConfig,
  openCluster,
  packageFile,
  readManifests,
} from '../../src/program/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

function withEnv<T>(env: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('openCluster and loadKubeConfig', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kck-cluster-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('without a kubeconfig the in-memory server comes from @kube-controller-kit/testing, loaded by name', async () => {
    const cluster = await openCluster();
    try {
      assert.match(cluster.description, /^in-memory API server at http/);
      assert.ok(cluster.server !== undefined);
      assert.equal(typeof (cluster.server as Partial<TestApiServer>).create, 'function');
    } finally {
      await cluster.close();
    }
  });

  test('an image without the development dependency is told what to install (or to pass --kubeconfig)', async () => {
    // What Node throws when `import('@kube-controller-kit/testing')` finds no package.
    const missing = Object.assign(
      new Error(
        "Cannot find package '@kube-controller-kit/testing' imported from /app/dist/main.js",
      ),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    await assert.rejects(
      openCluster({ inMemory: () => Promise.reject(missing) }),
      (err: unknown) =>
        err instanceof ClusterConfigError &&
        /not installed: npm install --save-dev @kube-controller-kit\/testing, or pass --kubeconfig PATH/.test(
          err.message,
        ) &&
        err.cause === missing,
    );
    // Any other failure of the server's start is the failure itself.
    const other = new Error('port in use');
    await assert.rejects(
      openCluster({ inMemory: () => Promise.reject(other) }),
      (err) => err === other,
    );
  });

  test('no kubeconfig anywhere is an error in words, never a fallback to localhost:8080', () => {
    withEnv(
      { KUBECONFIG: undefined, HOME: join(dir, 'nohome'), KUBERNETES_SERVICE_HOST: undefined },
      () =>
        assert.throws(
          () => loadKubeConfig(''),
          (err: unknown) =>
            err instanceof ClusterConfigError &&
            /no kubeconfig found: \$KUBECONFIG is not set.*\.kube\/config does not exist; pass --kubeconfig PATH/.test(
              err.message,
            ),
        ),
    );
  });

  test('$KUBECONFIG naming only missing files is reported with the names', () => {
    withEnv({ KUBECONFIG: join(dir, 'missing.yaml') }, () =>
      assert.throws(
        () => loadKubeConfig(''),
        /\$KUBECONFIG names .*missing\.yaml, and none of it exists/,
      ),
    );
  });

  test('an explicit path that does not exist says so', () => {
    assert.throws(
      () => loadKubeConfig(join(dir, 'nope.yaml')),
      /kubeconfig .*nope\.yaml does not exist/,
    );
  });

  test('a kubeconfig without a current cluster is refused', () => {
    const path = join(dir, 'empty.yaml');
    writeFileSync(path, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    assert.throws(() => loadKubeConfig(path), /has no current cluster/);
  });

  test('a closed port fails at open with the URL and the cause, not as a cache that never syncs', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const path = join(dir, 'closed.yaml');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
        'users: [{name: u, user: {}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    await assert.rejects(
      openCluster({ kubeconfig: path }),
      (err: unknown) =>
        err instanceof ClusterConfigError &&
        err.message.includes(`cannot reach the API server at http://127.0.0.1:${port}`) &&
        err.cause !== undefined,
    );
  });

  test('a real cluster (here: a server reached through its kubeconfig) is described by URL, version and context', async () => {
    const server = await startTestApiServer();
    try {
      const path = join(dir, 'real.yaml');
      writeFileSync(path, server.kubeConfig().exportConfig());
      const lines: string[] = [];
      const cluster = await openCluster({
        kubeconfig: path,
        logger: { debug() {}, info: (m) => lines.push(m), warn() {}, error() {} },
      });
      assert.equal(cluster.server, undefined);
      assert.match(cluster.description, new RegExp(`cluster at ${server.url}.*Kubernetes v`));
      assert.deepEqual(lines, ['connected to a real cluster']);
      await cluster.close();
    } finally {
      await server.close();
    }
  });
});

describe('applyManifests', () => {
  let server: TestApiServer;
  let dir: string;
  before(async () => {
    server = await startTestApiServer();
    dir = mkdtempSync(join(tmpdir(), 'kck-manifests-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('kinds map to resources through discovery (Mouse is served as mice, not kind + s), namespaced objects default to `default`, and a CRD is Established before objects of its kind', async () => {
    const path = join(dir, 'all.yaml');
    writeFileSync(
      path,
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: mice.zoo.example}
spec:
  group: zoo.example
  scope: Cluster
  names: {plural: mice, singular: mouse, kind: Mouse, listKind: MouseList}
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: zoo.example/v1
kind: Mouse
metadata: {name: jerry}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
---
`,
    );
    const objects = await readManifests(path);
    assert.equal(objects.length, 3);
    const applied = await applyManifests(server.kubeConfig(), objects, { fieldManager: 'test' });
    assert.equal(applied.length, 3);
    assert.ok(server.get({ group: 'zoo.example', resource: 'mice' }, 'jerry') !== undefined);
    // A namespaced object without a namespace goes to `default`, as kubectl does.
    assert.ok(server.get('configmaps', 'settings', 'default') !== undefined);
    // Applying again is not an error: server-side apply is idempotent.
    await applyManifests(server.kubeConfig(), objects, { fieldManager: 'test' });
  });

  test('a kind the server does not serve is a ManifestError naming the object', async () => {
    await assert.rejects(
      applyManifests(
        server.kubeConfig(),
        [{ apiVersion: 'nowhere.example/v1', kind: 'Ghost', metadata: { name: 'boo' } }],
        { fieldManager: 'test' },
      ),
      (err: unknown) =>
        err instanceof ManifestError &&
        /cannot apply nowhere\.example\/v1 Ghost boo/.test(err.message),
    );
  });

  test('a YAML syntax error names the file and the document', async () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, 'a: 1\n---\nb: [1, 2\n');
    await assert.rejects(readManifests(path), /bad\.yaml, document 2/);
  });
});

describe('packageFile', () => {
  test('finds an asset from the package root whether the module is in src/ or in dist/', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kck-pkg-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{"name":"x"}');
      mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
      mkdirSync(join(dir, 'dist'));
      const fromSrc = packageFile(pathToFileURL(join(dir, 'src', 'deep', 'main.ts')), 'crd.yaml');
      const fromDist = packageFile(pathToFileURL(join(dir, 'dist', 'main.js')), 'crd.yaml');
      assert.equal(fromSrc, join(dir, 'crd.yaml'));
      assert.equal(fromDist, fromSrc);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
