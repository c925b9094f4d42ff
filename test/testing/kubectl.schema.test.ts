// kubectl against the test API server, for custom resource schemas: an invalid custom
// resource is refused with the server's causes, and `kubectl scale` scales a custom
// resource through its scale subresource. Skipped where kubectl is not installed. (The
// same commands against a real apiextensions-apiserver print the same lines.)
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
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
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "self.replicas >= 0", message: "replicas must not be negative"}
            properties:
              replicas: {type: integer, maximum: 10}
              mode: {type: string, enum: [a, b], default: a}
          status:
            type: object
            properties:
              replicas: {type: integer}
`;
const BAD = `apiVersion: example.com/v1
kind: Gadget
metadata: {name: kbad, namespace: default}
spec: {replicas: 20, mode: x}
`;
const GOOD = `apiVersion: example.com/v1
kind: Gadget
metadata: {name: kgood, namespace: default}
spec: {replicas: 1}
`;

describe('kubectl and custom resource schemas', { skip }, () => {
  let server: TestApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const kubectl = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        'kubectl',
        [...args, '--cache-dir', join(dir, 'cache')],
        { env },
        (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        },
      );
    });

  before(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kck-kubectl-schema-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
    await writeFile(join(dir, 'crd.yaml'), CRD);
    await writeFile(join(dir, 'bad.yaml'), BAD);
    await writeFile(join(dir, 'good.yaml'), GOOD);
    const crd = await kubectl('apply', '-f', join(dir, 'crd.yaml'));
    assert.equal(crd.code, 0, crd.stderr);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl apply of a custom resource violating its schema fails and prints each cause', async () => {
    const out = await kubectl('apply', '--validate=false', '-f', join(dir, 'bad.yaml'));
    assert.notEqual(out.code, 0);
    // kube-apiserver's order of schema errors follows Go map iteration: compare as a set.
    const lines = out.stderr.trim().split('\n');
    assert.equal(lines[0], 'The Gadget "kbad" is invalid: ');
    assert.deepEqual(lines.slice(1).sort(), [
      '* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      '* spec.mode: Unsupported value: "x": supported values: "a", "b"',
      '* spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10',
    ]);
  });

  it('kubectl scale sets the replicas of a custom resource through its scale subresource', async () => {
    const created = await kubectl('apply', '--validate=false', '-f', join(dir, 'good.yaml'));
    assert.equal(created.code, 0, created.stderr);
    const scaled = await kubectl('scale', 'gadget/kgood', '-n', 'default', '--replicas=3');
    assert.equal(scaled.code, 0, scaled.stderr);
    assert.equal(scaled.stdout.trim(), 'gadget.example.com/kgood scaled');
    const spec = await kubectl('get', 'gadget', 'kgood', '-n', 'default', '-o', 'jsonpath={.spec}');
    assert.deepEqual(JSON.parse(spec.stdout), { replicas: 3, mode: 'a' });
    const tooMany = await kubectl('scale', 'gadget/kgood', '-n', 'default', '--replicas=11');
    assert.notEqual(tooMany.code, 0);
    assert.match(tooMany.stderr, /spec\.replicas in body should be less than or equal to 10/);
  });
});
