// kubectl's everyday commands against the test API server, through the kubeconfig file it
// writes: create (protobuf bodies for built-ins), run, expose, scale (the scale
// subresource), apply --server-side, explain (OpenAPI v3) and get (server-side columns).
// Skipped where kubectl is not installed.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

const run = promisify(execFile);

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
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Count, type: integer, jsonPath: .spec.count}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the gadget should be.
            properties:
              color: {type: string, description: The gadget's color.}
              count: {type: integer}
`;

describe('kubectl workflows against the test API server', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  let kubeconfig: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
    return stdout;
  };
  before(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-'));
    kubeconfig = join(dir, 'kubeconfig.yaml');
    await server.writeKubeconfig(kubeconfig);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl create (protobuf bodies for built-ins) stores the objects as sent', async () => {
    server.clearRequests();
    assert.match(await kubectl('create', 'namespace', 'team-a'), /namespace\/team-a created/);
    assert.match(
      await kubectl('create', 'configmap', 'cfg', '--from-literal=mode=fast'),
      /created/,
    );
    assert.match(
      await kubectl('create', 'secret', 'generic', 'pw', '--from-literal=p=s3cret'),
      /created/,
    );
    assert.match(
      await kubectl('create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2'),
      /deployment.apps\/web created/,
    );
    assert.deepEqual(server.get('configmaps', 'cfg', 'default')?.data, { mode: 'fast' });
    assert.deepEqual(server.get('secrets', 'pw', 'default')?.data, {
      p: Buffer.from('s3cret').toString('base64'),
    });
    const web = server.get<
      {
        spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
      } & Record<string, never>
    >('deployments.apps', 'web', 'default');
    assert.equal(web?.spec.replicas, 2);
    assert.equal(web?.spec.template.spec.containers[0]?.image, 'nginx:1.27');
    assert.ok(server.get('namespaces', 'team-a'));
    assert.ok(
      server.requests.every((r) => r.code < 400),
      'no request failed',
    );
  });

  it('every kubectl create subcommand for a kind the server serves succeeds over protobuf: service accounts, RBAC, jobs, cron jobs, ingresses, PDBs, quotas', async () => {
    server.clearRequests();
    const made: [string[], RegExp][] = [
      [['create', 'serviceaccount', 'robot'], /serviceaccount\/robot created/],
      [
        ['create', 'role', 'reader', '--verb=get,list', '--resource=pods'],
        /role.rbac.authorization.k8s.io\/reader created/,
      ],
      [
        ['create', 'rolebinding', 'reader', '--role=reader', '--serviceaccount=default:robot'],
        /created/,
      ],
      [['create', 'clusterrole', 'watcher', '--verb=watch', '--resource=pods'], /created/],
      [
        [
          'create',
          'clusterrolebinding',
          'watcher',
          '--clusterrole=watcher',
          '--serviceaccount=default:robot',
        ],
        /created/,
      ],
      [['create', 'job', 'once', '--image=busybox'], /job.batch\/once created/],
      [
        ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *'],
        /cronjob.batch\/tick created/,
      ],
      [['create', 'job', 'now', '--from=cronjob/tick'], /job.batch\/now created/],
      [
        ['create', 'ingress', 'front', '--rule=foo.example/api=web:80'],
        /ingress.networking.k8s.io\/front created/,
      ],
      [
        ['create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1'],
        /created/,
      ],
      [['create', 'quota', 'small', '--hard=pods=2'], /resourcequota\/small created/],
    ];
    for (const [args, out] of made) assert.match(await kubectl(...args), out);
    assert.ok(
      server.requests.some((r) => r.verb === 'create' && r.resource === 'jobs'),
      'the job went through the server',
    );
    assert.ok(
      server.requests.every((r) => r.code < 400),
      `no request failed: ${JSON.stringify(server.requests.filter((r) => r.code >= 400))}`,
    );
    const role = server.get<
      { rules: { verbs: string[]; resources: string[] }[] } & Record<string, never>
    >('roles.rbac.authorization.k8s.io', 'reader', 'default');
    assert.deepEqual(
      role?.rules.map((r) => [r.verbs, r.resources]),
      [[['get', 'list'], ['pods']]],
    );
    assert.match(await kubectl('get', 'all'), /cronjob.batch\/tick/);
  });

  it('protobuf bodies decode as kube-apiserver stores them: a non-pointer omitempty zero is dropped, a pointer zero is kept', async () => {
    // kubectl sends `stdin: false` and `replicas: 0` on the wire (gogo writes every
    // non-pointer scalar); the real server's JSON drops the first (bool, omitempty) and
    // keeps the second (*int32).
    await kubectl('create', 'deployment', 'idle', '--image=nginx', '--replicas=0');
    const idle = server.get<
      {
        spec: { replicas?: number; template: { spec: { containers: Record<string, unknown>[] } } };
      } & Record<string, never>
    >('deployments.apps', 'idle', 'default');
    assert.equal(idle?.spec.replicas, 0, 'a *int32 zero is kept');
    const container = idle?.spec.template.spec.containers[0] ?? {};
    assert.equal('stdin' in container, false, 'a bool omitempty false is dropped');
    assert.equal('tty' in container, false);
    // What is left is what kubectl set plus the container defaults of a decoded Pod spec.
    assert.deepEqual(Object.keys(container).sort(), [
      'image',
      'imagePullPolicy',
      'name',
      'resources',
      'terminationMessagePath',
      'terminationMessagePolicy',
    ]);
  });

  it('kubectl run creates a pod and kubectl expose creates its service with the port', async () => {
    assert.match(await kubectl('run', 'box', '--image=busybox', '--port=8080'), /pod\/box created/);
    assert.match(
      await kubectl('expose', 'pod', 'box', '--port=80', '--target-port=8080'),
      /exposed/,
    );
    const svc = server.get<
      {
        spec: { ports: { port: number; targetPort: number }[]; selector: Record<string, string> };
      } & Record<string, never>
    >('services', 'box', 'default');
    assert.deepEqual(
      svc?.spec.ports.map((p) => [p.port, p.targetPort]),
      [[80, 8080]],
    );
    assert.deepEqual(svc?.spec.selector, { run: 'box' });
  });

  it('kubectl scale writes replicas through the deployments scale subresource', async () => {
    assert.match(await kubectl('scale', 'deployment', 'web', '--replicas=5'), /scaled/);
    const web = server.get<{ spec: { replicas: number } } & Record<string, never>>(
      'deployments.apps',
      'web',
      'default',
    );
    assert.equal(web?.spec.replicas, 5);
    assert.ok(
      server.requests.some((r) => r.resource === 'deployments' && r.subresource === 'scale'),
    );
  });

  it('kubectl get prints the built-in columns', async () => {
    const deploy = await kubectl('get', 'deployment', 'web');
    assert.match(deploy, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n/);
    assert.match(deploy, /\nweb\s+0\/5\s+0\s+0\s+\d+s\n/);
    assert.match(
      await kubectl('get', 'pods'),
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nbox\s+0\/1\s+Pending\s+0\s+/,
    );
    assert.match(await kubectl('get', 'configmap', 'cfg'), /^NAME\s+DATA\s+AGE\ncfg\s+1\s+/);
    assert.match(
      await kubectl('get', 'secret', 'pw'),
      /^NAME\s+TYPE\s+DATA\s+AGE\npw\s+Opaque\s+1\s+/,
    );
    assert.match(
      await kubectl('get', 'namespace', 'team-a'),
      /^NAME\s+STATUS\s+AGE\nteam-a\s+Active\s+/,
    );
  });

  it('kubectl get prints a CRD’s additionalPrinterColumns and kubectl explain reads its schema', async () => {
    await writeFile(join(dir, 'crd.yaml'), CRD);
    await kubectl('apply', '-f', join(dir, 'crd.yaml'));
    await writeFile(
      join(dir, 'g.yaml'),
      'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nspec: {color: red, count: 4}\n',
    );
    assert.match(
      await kubectl('apply', '--server-side', '-f', join(dir, 'g.yaml')),
      /gadget.example.com\/g1 serverside-applied/,
    );
    assert.match(await kubectl('get', 'gadgets'), /^NAME\s+COLOR\s+COUNT\ng1\s+red\s+4\n/);
    const explained = await kubectl('explain', 'gadget.spec');
    assert.match(explained, /KIND:\s+Gadget/);
    assert.match(explained, /What the gadget should be\./);
    assert.match(explained, /color\s+<string>\s+The gadget's color\./);
  });

  it('kubectl explain reads built-in schemas', async () => {
    const explained = await kubectl('explain', 'deployment.spec.replicas');
    assert.match(explained, /GROUP:\s+apps/);
    assert.match(explained, /FIELD: replicas <integer>/);
    assert.match(explained, /Number of desired pods/);
  });

  it('kubectl apply --server-side creates, then re-applies a built-in', async () => {
    const cm =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied, namespace: default}\ndata: {a: "1"}\n';
    await writeFile(join(dir, 'cm.yaml'), cm);
    assert.match(
      await kubectl('apply', '--server-side', '-f', join(dir, 'cm.yaml')),
      /serverside-applied/,
    );
    await writeFile(join(dir, 'cm.yaml'), cm.replace('a: "1"', 'a: "2"'));
    assert.match(
      await kubectl('apply', '--server-side', '-f', join(dir, 'cm.yaml')),
      /serverside-applied/,
    );
    assert.deepEqual(server.get('configmaps', 'applied', 'default')?.data, { a: '2' });
  });

  it('server-side apply merges a StatefulSet pod template by container name (listType=map), so two managers each own one container', async () => {
    const sts = (container: string, image: string) =>
      `apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: default}\nspec:\n  selector: {matchLabels: {app: db}}\n  serviceName: db\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers:\n      - {name: ${container}, image: ${image}}\n`;
    await writeFile(join(dir, 'sts-a.yaml'), sts('main', 'postgres:17'));
    await writeFile(join(dir, 'sts-b.yaml'), sts('sidecar', 'exporter:1'));
    await kubectl(
      'apply',
      '--server-side',
      '--field-manager=team-a',
      '-f',
      join(dir, 'sts-a.yaml'),
    );
    await kubectl(
      'apply',
      '--server-side',
      '--field-manager=team-b',
      '-f',
      join(dir, 'sts-b.yaml'),
    );
    const db = server.get<
      {
        spec: { template: { spec: { containers: { name: string; image: string }[] } } };
        metadata: { managedFields: { manager: string }[] };
      } & Record<string, never>
    >('statefulsets.apps', 'db', 'default');
    assert.deepEqual(
      db?.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`),
      ['main=postgres:17', 'sidecar=exporter:1'],
    );
    assert.deepEqual(db?.metadata.managedFields.map((m) => m.manager).sort(), ['team-a', 'team-b']);
  });
});
