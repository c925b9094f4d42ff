// The project `kube-controller-kit init`, `create api` and `create webhook` write, with two
// kinds, admission webhooks and a conversion webhook, mapped to this repository's sources:
// prettier-clean, strictly type-checked, linted, its own tests pass against the in-memory API
// server, `npm start` runs it and Ctrl-C stops it, and its config/ renders with kustomize and
// is accepted by the API server. Minutes (a type-checked lint, a second test suite), so
// `npm run test:scaffold` runs it, not `npm test`; test/cli/scaffold.test.ts checks names, the
// state of the project and the files written, and test/examples/standalone.slow.test.ts the
// same project from the packed tarballs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { startTestApiServer } from '@kube-controller-kit/testing';
import { kubectlSkip } from '../testing/helpers.js';
import {
  childEnv,
  minutes,
  root,
  run,
  scratchDirectory,
  writeTwoKindProject,
} from './support/scaffold_project.js';

let work: string;
let dir: string;
before(
  async () => {
    work = await scratchDirectory();
    dir = await writeTwoKindProject(work);
  },
  { timeout: minutes(2) },
);
after(() => rm(work, { recursive: true, force: true }));

describe('a project with two kinds, admission webhooks and a conversion webhook', () => {
  test(
    'it is prettier-clean, type-checks (strict), and lints',
    { timeout: minutes(6) },
    async () => {
      const prettier = await run(
        process.execPath,
        [
          join(root, 'node_modules/prettier/bin/prettier.cjs'),
          '--check',
          '.',
          '--ignore-path',
          '.prettierignore',
          '--ignore-path',
          '.kitignore',
        ],
        dir,
      );
      assert.equal(prettier.code, 0, prettier.output);
      const tsc = await run(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.kit.json', '--noEmit'],
        dir,
      );
      assert.equal(tsc.code, 0, tsc.output);
      const eslint = await run(
        process.execPath,
        [join(root, 'node_modules/eslint/bin/eslint.js'), '-c', 'eslint.kit.config.js', '.'],
        dir,
      );
      assert.equal(eslint.code, 0, eslint.output);
    },
  );

  test(
    'its own tests pass (npm test), against the in-memory API server',
    { timeout: minutes(6) },
    async () => {
      const tests = (await readdir(join(dir, 'test')))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f}`);
      const r = await run(process.execPath, ['--import', 'tsx', '--test', ...tests], dir, {
        ...childEnv,
        TSX_TSCONFIG_PATH: join(dir, 'tsconfig.kit.json'),
      });
      assert.equal(r.code, 0, r.output);
      assert.match(r.output, /# pass 8\n# fail 0/);
    },
  );

  test(
    'npm start runs it on the in-memory API server with its CRDs, samples and webhooks, and Ctrl-C stops it',
    { timeout: minutes(3) },
    async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/main.ts',
          '--health-probe-bind-address=127.0.0.1:0',
          '--metrics-bind-address=0',
          '--webhook-port=0',
        ],
        {
          cwd: dir,
          env: { ...childEnv, TSX_TSCONFIG_PATH: join(dir, 'tsconfig.kit.json') },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let log = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          log += chunk.toString();
          if (
            /webhooks installed installed=MutatingWebhookConfiguration\/guestbook-operator-mutating, ValidatingWebhookConfiguration\/guestbook-operator-validating, CustomResourceDefinition\/guestbooks\.webapp\.example\.com/.test(
              log,
            ) &&
            /manager: starting controller\/policy/.test(log) &&
            /manager: starting controller\/guestbook/.test(log)
          )
            resolve();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        void exited.then((code) => reject(new Error(`exited ${code}:\n${log}`)));
      });
      assert.match(
        log,
        /applied object=guestbooks\.webapp\.example\.com\/guestbook-sample namespace=default/,
      );
      assert.match(log, /applied object=policies\.policy\.example\.com\/policy-sample/);
      child.kill('SIGINT');
      assert.equal(await exited, 0, log);
      assert.match(log, /manager: stopped/);
    },
  );

  test(
    'config/default renders with kustomize, and the API server accepts every object',
    { skip: kubectlSkip(), timeout: minutes(3) },
    async () => {
      const server = await startTestApiServer();
      try {
        const kc = join(dir, 'kubeconfig.kit.yaml');
        await server.writeKubeconfig(kc);
        // cert-manager's kinds, as it installs them (their schemas do not matter here).
        for (const [kind, plural] of [
          ['Certificate', 'certificates'],
          ['Issuer', 'issuers'],
        ] as const) {
          server.create(
            { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
            {
              apiVersion: 'apiextensions.k8s.io/v1',
              kind: 'CustomResourceDefinition',
              metadata: { name: `${plural}.cert-manager.io` },
              spec: {
                group: 'cert-manager.io',
                scope: 'Namespaced',
                names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
                versions: [
                  {
                    name: 'v1',
                    served: true,
                    storage: true,
                    schema: {
                      openAPIV3Schema: {
                        type: 'object',
                        'x-kubernetes-preserve-unknown-fields': true,
                      },
                    },
                  },
                ],
              },
            },
          );
        }
        const env = { ...childEnv, KUBECONFIG: kc, HOME: dir };
        const rendered = await run('kubectl', ['kustomize', 'config/default'], dir, env);
        assert.equal(rendered.code, 0, rendered.output);
        const objects = parseAllDocuments(rendered.output).map(
          (d) =>
            d.toJS() as {
              kind: string;
              metadata: { name: string };
              spec?: Record<string, unknown>;
            },
        );
        assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
          'Certificate/guestbook-operator-serving-cert',
          'ClusterRole/guestbook-operator-manager-role',
          'ClusterRoleBinding/guestbook-operator-manager-rolebinding',
          'CustomResourceDefinition/guestbooks.webapp.example.com',
          'CustomResourceDefinition/policies.policy.example.com',
          'Deployment/guestbook-operator-controller-manager',
          'Issuer/guestbook-operator-selfsigned-issuer',
          'MutatingWebhookConfiguration/guestbook-operator-mutating',
          'Namespace/guestbook-operator-system',
          'Role/guestbook-operator-leader-election-role',
          'RoleBinding/guestbook-operator-leader-election-rolebinding',
          'Service/guestbook-operator-webhook-service',
          'ServiceAccount/guestbook-operator-controller-manager',
          'ValidatingWebhookConfiguration/guestbook-operator-validating',
        ]);
        // The CRD patch sent Guestbook's conversions to the webhook Service; the Deployment
        // patch mounted the certificate and opened the webhook port.
        const guestbooks = objects.find((o) => o.metadata.name === 'guestbooks.webapp.example.com');
        assert.deepEqual(
          (guestbooks?.spec?.conversion as { strategy: string }).strategy,
          'Webhook',
        );
        const deployment = JSON.stringify(objects.find((o) => o.kind === 'Deployment'));
        assert.match(deployment, /--webhook-cert-path=\/tmp\/k8s-webhook-server\/serving-certs/);
        assert.match(deployment, /"secretName":"guestbook-operator-webhook-server-cert"/);
        const applied = await run('kubectl', ['apply', '-k', 'config/default'], dir, env);
        assert.equal(applied.code, 0, applied.output);
        assert.ok(
          server.get(
            'deployments.apps',
            'guestbook-operator-controller-manager',
            'guestbook-operator-system',
          ),
        );
      } finally {
        await server.close();
      }
    },
  );
});
