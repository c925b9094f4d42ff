/**
 * The files `kube-controller-kit init` writes: a project that builds, lints, tests and runs
 * with no kind yet (kubebuilder's `init`), with markers where `create api` and
 * `create webhook` add what they scaffold. Templates are code, so that only the command that
 * writes them loads them; what they write is plain files the user owns.
 *
 * @module
 */
import { tsMarker, yamlMarker } from './changes.js';
import type { DependencyVersions, ProjectContext } from './context.js';
import { PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES } from './context.js';

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

function packageJson(p: ProjectContext, v: DependencyVersions): string {
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.map((n) => [n, v.packages[n] ?? '*']));
  const manifest: Record<string, unknown> = {
    name: p.packageName,
    version: '0.1.0',
    private: true,
    description: `The ${p.name} operator, scaffolded by kube-controller-kit.`,
    type: 'module',
    engines: { node: '^20.19.0 || >=22.12.0' },
    scripts: {
      start: 'tsx src/main.ts',
      build: 'tsc -p tsconfig.build.json',
      typecheck: 'tsc -p tsconfig.json --noEmit',
      test: 'node --import tsx --test test/*.test.ts',
      lint: 'eslint . && prettier --check .',
      format: 'prettier --write .',
      generate: 'kube-controller-kit gen types config/crd/bases -o src/api',
      apiserver: 'kube-controller-kit apiserver',
    },
    dependencies: {
      '@kubernetes/client-node': v.packages['@kubernetes/client-node'],
      'kube-controller-kit': v.kit,
      ...pick(PROJECT_DEPENDENCIES.filter((n) => n !== '@kubernetes/client-node')),
    },
    devDependencies: {
      '@kube-controller-kit/testing': v.kit,
      ...pick(PROJECT_DEV_DEPENDENCIES),
    },
  };
  if (p.repo !== undefined) {
    manifest.repository = {
      type: 'git',
      url: /^[a-z]+:\/\//.test(p.repo) ? p.repo : `git+https://${p.repo}.git`,
    };
  }
  return json(manifest);
}

const tsconfig = json({
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    noFallthroughCasesInSwitch: true,
    useUnknownInCatchVariables: true,
    forceConsistentCasingInFileNames: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ['src', 'test'],
});

const tsconfigBuild = json({
  extends: './tsconfig.json',
  compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist', sourceMap: true },
  include: ['src'],
});

const eslintConfig = `// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'src/api/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
`;

const prettierrc = json({ printWidth: 100, singleQuote: true, trailingComma: 'all' });

const prettierignore = `dist/
node_modules/
package-lock.json
`;

const gitignore = `node_modules/
dist/
kubeconfig*.yaml
`;

const dockerignore = `node_modules
dist
`;

function dockerfile(p: ProjectContext): string {
  return `# Build: docker build -t ${p.name}:0.1.0 .
# Stage 1 compiles TypeScript; stage 2 keeps dist/ and the production dependencies only
# (npm prune --omit=dev drops TypeScript, tsx, the linters and the in-memory API server).
FROM node:22-alpine AS build
WORKDIR /app
COPY package*.json ./
RUN if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
COPY tsconfig*.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:22-alpine
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's unprivileged user (uid 1000); the Deployment also sets runAsNonRoot.
USER 1000
EXPOSE 8080 8081 9443
ENTRYPOINT ["node", "dist/main.js"]
CMD ["--kubeconfig", "--leader-elect"]
`;
}

function readme(p: ProjectContext): string {
  return `# ${p.packageName}

\`\`\`sh
npm start   # the operator against the in-memory API server, with its CRDs and samples applied; Ctrl-C stops it
npm test    # its tests, against the in-memory API server
\`\`\`

A Kubernetes operator in TypeScript on [kube-controller-kit](https://www.npmjs.com/package/kube-controller-kit),
scaffolded by \`kube-controller-kit init\`. Every file is yours: there is no hidden runtime,
only the library.

## Add a kind, its controller and its webhooks

\`\`\`sh
npx kube-controller-kit create api --group ops --version v1 --kind Backup
npx kube-controller-kit create webhook --group ops --version v1 --kind Backup --defaulting --programmatic-validation
npx kube-controller-kit create api --group ops --version v2 --kind Backup --controller=false
npx kube-controller-kit create webhook --group ops --version v1 --kind Backup --conversion --spoke v2
\`\`\`

\`create api\` writes the CustomResourceDefinition (\`config/crd/bases/\`), its TypeScript
types (\`src/api/\`, generated from the CRD), a controller (\`src/controllers/\`) with its test,
a sample (\`config/samples/\`) and its RBAC rules. \`create webhook\` writes the defaulting and
validating webhooks of one version, or the conversion webhook between versions
(\`src/webhooks/\`), with their tests and manifests. Lines marked
\`+kube-controller-kit:scaffold:…\` are where the next command adds its part: leave them in.

## Change the API

\`config/crd/bases/*.yaml\` is the source of truth of each kind: edit its schema, then

\`\`\`sh
npm run generate   # src/api/*.ts from the CRDs (kube-controller-kit gen types)
npm run typecheck  # the compiler shows every line the change touches
\`\`\`

## Scripts

| script              | what it does                                                            |
| ------------------- | ----------------------------------------------------------------------- |
| \`npm start\`         | the operator on the in-memory API server (\`-- --kubeconfig\`: a cluster) |
| \`npm test\`          | the tests (node:test, the in-memory API server)                         |
| \`npm run typecheck\` | TypeScript, strict                                                      |
| \`npm run lint\`      | eslint and prettier                                                     |
| \`npm run generate\`  | the TypeScript types from the CRDs                                      |
| \`npm run build\`     | \`dist/\`, what the image runs                                            |
| \`npm run apiserver\` | the in-memory API server alone, for kubectl (\`--help\`)                  |

## Run it against a cluster

\`\`\`sh
kubectl apply -k config/crd          # the CRDs
npm start -- --kubeconfig            # $KUBECONFIG, else ~/.kube/config
\`\`\`

## Deploy it

\`\`\`sh
docker build -t ${p.name}:0.1.0 .    # multi-stage: the image holds dist/ and production dependencies only
kubectl apply -k config/default      # Namespace ${p.namespace}, CRDs, RBAC, the Deployment (and, with webhooks, their Service, configurations and certificate)
\`\`\`

\`config/manager/kustomization.yaml\` names the image (\`newName\`, \`newTag\`). With webhooks,
\`config/default\` needs [cert-manager](https://cert-manager.io) in the cluster: it issues the
webhook server's certificate and injects its CA into the webhook configurations and CRDs.
`;
}

function mainTs(p: ProjectContext): string {
  return `/**
 * \`npm start\`: runs the ${p.name} operator until Ctrl-C. Without \`--kubeconfig\` it runs against
 * the in-memory API server (the development dependency @kube-controller-kit/testing) with
 * the CRDs of config/crd/bases and the samples of config/samples applied; with
 * \`--kubeconfig [PATH]\` against a cluster (in a Pod, \`--kubeconfig\` alone uses its
 * ServiceAccount). Flags are controller-runtime's and kubebuilder's.
 */
import {
  clusterFlags,
  errorMessage,
  openCluster,
  runProgram,
  setDefaultControllerMetricsProvider,
  setDefaultMetricsProvider,
  setDefaultRestClientMetricsProvider,
  setDefaultWebhookMetricsProvider,
} from 'kube-controller-kit';
import {
  PrometheusControllerMetricsProvider,
  PrometheusMetricsProvider,
  PrometheusWebhookMetricsProvider,
} from 'kube-controller-kit/metrics';
import { NAME, newManager, projectManifests } from './operator.js';
import { newWebhookServer } from './webhook_server.js';

/**
 * The in-memory API server, from the development dependency \`@kube-controller-kit/testing\`:
 * imported only when no \`--kubeconfig\` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

await runProgram(
  {
    name: NAME,
    summary: 'The ${p.name} operator.',
    flags: {
      ...clusterFlags,
      'leader-elect': {
        description: \`hold the Lease \${NAME} before reconciling (run several replicas)\`,
      },
      'health-probe-bind-address': {
        value: 'ADDR',
        default: ':8081',
        description: '/healthz and /readyz address; 0 disables',
      },
      'metrics-bind-address': {
        value: 'ADDR',
        default: ':8080',
        description: '/metrics address; 0 disables',
      },
      'webhook-cert-path': {
        value: 'DIR',
        description:
          'directory of the webhook serving certificate (default: on the in-memory server, one made at start)',
      },
      'webhook-cert-name': {
        value: 'FILE',
        default: 'tls.crt',
        description: 'certificate file in --webhook-cert-path',
      },
      'webhook-cert-key': {
        value: 'FILE',
        default: 'tls.key',
        description: 'key file in --webhook-cert-path',
      },
      'webhook-port': {
        value: 'PORT',
        default: '9443',
        description: 'webhook server port; 0 picks a free one, -1 disables the webhooks',
      },
    },
  },
  async ({ flags, signal, logger }) => {
    if (flags['metrics-bind-address'] !== '0') {
      // /metrics serves prom-client's registry: the series Go operators export.
      const metrics = new PrometheusMetricsProvider();
      setDefaultMetricsProvider(metrics);
      setDefaultRestClientMetricsProvider(metrics);
      setDefaultControllerMetricsProvider(new PrometheusControllerMetricsProvider());
      setDefaultWebhookMetricsProvider(new PrometheusWebhookMetricsProvider());
    }
    const inMemory = flags.kubeconfig === undefined;
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      // On the in-memory server only: a cluster gets them from kubectl apply -k config/.
      manifests: inMemory
        ? [...projectManifests('config/crd/bases'), ...projectManifests('config/samples')]
        : [],
      fieldManager: NAME,
      logger,
      signal,
    });
    const webhooks = await newWebhookServer({
      port: Number(flags['webhook-port'] ?? '9443'),
      certDir: flags['webhook-cert-path'],
      certName: flags['webhook-cert-name'] ?? 'tls.crt',
      keyName: flags['webhook-cert-key'] ?? 'tls.key',
      local: cluster.server !== undefined ? cluster.kubeConfig : undefined,
      logger,
    });
    webhooks?.installed.then(
      (installed) => {
        if (installed.length > 0) logger.info('webhooks installed', { installed: installed.join(', ') });
      },
      (err: unknown) => logger.error(\`installing the webhooks failed: \${errorMessage(err)}\`),
    );
    try {
      const manager = newManager(cluster.kubeConfig, {
        logger,
        healthProbeBindAddress: flags['health-probe-bind-address'] ?? ':8081',
        metricsBindAddress: flags['metrics-bind-address'] ?? ':8080',
        ...(flags['leader-elect'] === true
          ? { leaderElection: { id: NAME, ...(inMemory ? { namespace: 'default' } : {}) } }
          : {}),
        ...(webhooks !== undefined ? { webhookServer: webhooks.server } : {}),
      });
      logger.info(\`\${NAME} running on the \${cluster.description}; Ctrl-C to stop\`);
      await manager.start(signal);
    } finally {
      await webhooks?.close();
      await cluster.close();
    }
  },
);
`;
}

function operatorTs(p: ProjectContext): string {
  return `/**
 * The ${p.name} operator: its controllers and webhooks, and the Manager that runs them.
 * \`create api\` and \`create webhook\` add theirs at the markers below.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Manager, packageFile } from 'kube-controller-kit';
import type {
  KubeConfigLike,
  Logger,
  ManagerLeaderElectionOptions,
  WebhookServer,
} from 'kube-controller-kit';
${tsMarker('imports')}

/** The operator's name: its field manager, its Lease, the source of its Events. */
export const NAME = '${p.name}';

/** Adds one controller to a Manager. */
export type ControllerSetup = (manager: Manager) => void;

/** Registers webhooks (defaulting, validating, conversion) on the webhook server. */
export type WebhookSetup = (server: WebhookServer) => void;

/** Every controller of the operator. */
export const controllers: ControllerSetup[] = [
  ${tsMarker('controllers')}
];

/** Every webhook of the operator. */
export const webhooks: WebhookSetup[] = [
  ${tsMarker('webhooks')}
];

/** Options of {@link newManager}. */
export interface OperatorOptions {
  /** Where the Manager logs. */
  logger?: Logger;
  /** \`/healthz\` and \`/readyz\` address; default \`'0'\`: off. */
  healthProbeBindAddress?: string;
  /** \`/metrics\` address; default \`'0'\`: off. */
  metricsBindAddress?: string;
  /** Reconcile only while holding this Lease (\`--leader-elect\`). */
  leaderElection?: ManagerLeaderElectionOptions;
  /** The webhook server, run by the Manager on every replica. */
  webhookServer?: WebhookServer;
}

/** A Manager with every controller of the operator; \`manager.start(signal)\` runs them. */
export function newManager(kubeConfig: KubeConfigLike, options: OperatorOptions = {}): Manager {
  const manager = new Manager({
    kubeConfig,
    healthProbeBindAddress: options.healthProbeBindAddress ?? '0',
    metricsBindAddress: options.metricsBindAddress ?? '0',
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.leaderElection !== undefined ? { leaderElection: options.leaderElection } : {}),
    ...(options.webhookServer !== undefined ? { webhookServer: options.webhookServer } : {}),
  });
  for (const setup of controllers) setup(manager);
  return manager;
}

/**
 * The YAML files of a directory of the project (\`config/crd/bases\`, \`config/samples\`) in
 * name order, kustomization.yaml left out: what the in-memory API server and the tests apply.
 */
export function projectManifests(dir: string): string[] {
  const path = packageFile(import.meta.url, dir);
  return readdirSync(path)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort()
    .map((f) => join(path, f));
}
`;
}

const webhookServerTs = `/**
 * The operator's webhook server. In a Pod it serves the certificate cert-manager writes into
 * its Secret (\`--webhook-cert-path\`; renewals are picked up without a restart). On the
 * in-memory API server it makes a CA and a certificate for 127.0.0.1, and once serving it
 * points the server's webhook configurations and its CRDs' conversion at itself, as envtest
 * does for a Manager's webhooks.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  WebhookServer,
  generateCertificateAuthority,
  installWebhookConfigurations,
  writeCertificateFiles,
} from 'kube-controller-kit';
import type { KubeConfigLike, Logger } from 'kube-controller-kit';
import { NAME, webhooks } from './operator.js';

/** Options of {@link newWebhookServer}. */
export interface WebhookServerOptions {
  /** The port; 0 picks a free one; negative: no webhook server. */
  port: number;
  /** The directory of the serving certificate; absent: one made for 127.0.0.1. */
  certDir?: string | undefined;
  /** The certificate's file name in \`certDir\` (default \`tls.crt\`). */
  certName?: string;
  /** The key's file name in \`certDir\` (default \`tls.key\`). */
  keyName?: string;
  /** The in-memory API server: serve on 127.0.0.1 and install the configurations there. */
  local?: KubeConfigLike | undefined;
  /** Where the server logs. */
  logger: Logger;
}

/** A webhook server with every webhook of the operator. */
export interface OperatorWebhookServer {
  /** The server; give it to the Manager, which runs it. */
  readonly server: WebhookServer;
  /**
   * What was installed on the in-memory API server once the server listens (nothing
   * elsewhere: on a cluster, config/webhook holds the configurations).
   */
  readonly installed: Promise<string[]>;
  /** Removes the certificate made for 127.0.0.1, if any. */
  close(): Promise<void>;
}

/**
 * The webhook server of the operator, or undefined when it has no webhook or \`port\` is
 * negative.
 */
export async function newWebhookServer(
  options: WebhookServerOptions,
): Promise<OperatorWebhookServer | undefined> {
  const probe = new WebhookServer({ port: -1 });
  for (const setup of webhooks) setup(probe);
  if (options.port < 0 || (probe.admissionWebhooks().length === 0 && probe.conversionKinds().length === 0)) {
    return undefined;
  }
  const certName = options.certName ?? 'tls.crt';
  const keyName = options.keyName ?? 'tls.key';
  let madeDir: string | undefined;
  let caBundle: string | undefined;
  if (options.local !== undefined && options.certDir === undefined) {
    madeDir = await mkdtemp(join(tmpdir(), \`\${NAME}-webhook-certs-\`));
    const ca = generateCertificateAuthority({ commonName: \`\${NAME}-dev-ca\` });
    await writeCertificateFiles(
      madeDir,
      ca.issue({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
      { certName, keyName },
    );
    caBundle = ca.caBundle;
  }
  const certDir = options.certDir ?? madeDir;
  const server = new WebhookServer({
    port: options.port,
    ...(options.local !== undefined ? { host: '127.0.0.1' } : {}),
    ...(certDir !== undefined ? { certDir } : {}),
    certName,
    keyName,
    logger: options.logger,
  });
  for (const setup of webhooks) setup(server);
  const local = options.local;
  const installed =
    local === undefined
      ? Promise.resolve([])
      : server.started().then(async () => {
          const address = server.address;
          if (address === undefined) return [];
          caBundle ??= (await readFile(join(server.certDir, certName))).toString('base64');
          return installWebhookConfigurations(local, server, {
            endpoint: { url: \`https://\${address.host}:\${address.port}\` },
            caBundle,
            name: NAME,
            fieldManager: NAME,
            logger: options.logger,
          });
        });
  installed.catch(() => undefined); // the caller handles it; not an unhandled rejection
  return {
    server,
    installed,
    close: async () => {
      if (madeDir !== undefined) await rm(madeDir, { recursive: true, force: true });
    },
  };
}
`;

const operatorTest = `// The operator as main.ts runs it, against the in-memory API server: its CRDs install, its
// Manager starts with every controller and webhook, and it reports ready on /readyz.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyManifests, noopLogger, readManifests } from 'kube-controller-kit';
import { startTestApiServer, waitFor } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { NAME, newManager, projectManifests } from '../src/operator.js';
import { newWebhookServer } from '../src/webhook_server.js';
import type { OperatorWebhookServer } from '../src/webhook_server.js';

const stop = new AbortController();
let server: TestApiServer;
let webhooks: OperatorWebhookServer | undefined;
let running: Promise<void>;
let readyz: string;

before(async () => {
  server = await startTestApiServer();
  for (const file of projectManifests('config/crd/bases')) {
    await applyManifests(server.kubeConfig(), await readManifests(file), { fieldManager: 'test' });
  }
  webhooks = await newWebhookServer({ port: 0, local: server.kubeConfig(), logger: noopLogger });
  const manager = newManager(server.kubeConfig(), {
    logger: noopLogger,
    healthProbeBindAddress: '127.0.0.1:0',
    ...(webhooks !== undefined ? { webhookServer: webhooks.server } : {}),
  });
  running = manager.start(stop.signal);
  await manager.serving();
  const address = manager.healthProbeAddress;
  assert.ok(address, 'the health probe server listens');
  readyz = \`http://\${address.address}:\${address.port}/readyz\`;
});

after(async () => {
  stop.abort();
  await running; // everything the Manager started has stopped
  await webhooks?.close();
  await server.close();
});

test(\`\${NAME} starts on a Manager, installs its webhooks and reports ready\`, async () => {
  await webhooks?.installed;
  // Ready once every runnable has started (the caches synced, the webhook server serving).
  await waitFor(async () => (await fetch(readyz)).status === 200, 'GET /readyz answers 200');
});
`;

function kustomizationDefault(p: ProjectContext): string {
  return `# kubectl apply -k config/default: everything the operator needs in a cluster.
# With webhooks it needs cert-manager (config/certmanager issues their certificate).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../crd
  - ../rbac
  - ../manager
  ${yamlMarker('resources')}
patches:
  ${yamlMarker('patches')}
# The objects are named ${p.name}-… and live in the Namespace ${p.namespace}.
`;
}

function managerYaml(p: ProjectContext): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
---
# The operator, two replicas under leader election; probes on the Manager's endpoints.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${p.manager}
  namespace: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: ${p.name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${p.name}
    spec:
      serviceAccountName: ${p.manager}
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      terminationGracePeriodSeconds: 40 # the Manager waits up to 30 s for reconciles
      containers:
        - name: manager
          image: controller:latest
          args:
            - --kubeconfig # alone: the Pod's ServiceAccount
            - --leader-elect
            - --health-probe-bind-address=:8081
            - --metrics-bind-address=:8080
          ports:
            - name: probes
              containerPort: 8081
            - name: metrics
              containerPort: 8080
          livenessProbe:
            httpGet:
              path: /healthz
              port: probes
            initialDelaySeconds: 10
            periodSeconds: 20
          readinessProbe:
            httpGet:
              path: /readyz
              port: probes
            periodSeconds: 10
          resources:
            requests:
              cpu: 50m
              memory: 96Mi
            limits:
              memory: 256Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ['ALL']
`;
}

function managerKustomization(p: ProjectContext): string {
  return `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - manager.yaml
# The image the Deployment runs: docker build -t ${p.name}:0.1.0 . (set your registry here)
images:
  - name: controller
    newName: ${p.name}
    newTag: 0.1.0
`;
}

const rbacKustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - service_account.yaml
  - role.yaml
  - role_binding.yaml
  - leader_election_role.yaml
  - leader_election_role_binding.yaml
`;

function serviceAccount(p: ProjectContext): string {
  return `apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${p.manager}
  namespace: ${p.namespace}
`;
}

function role(p: ProjectContext): string {
  return `# What the operator's controllers may do, and no more: create api adds each kind's rules at
# the marker; add the verbs your reconcile needs as you write it.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${p.name}-manager-role
rules:
  # Events about the objects it reconciles (what kubectl describe lists): create, and patch
  # when a repeated Event is aggregated.
  - apiGroups: ['']
    resources: ['events']
    verbs: ['create', 'patch']
  ${yamlMarker('rules')}
`;
}

function roleBinding(p: ProjectContext): string {
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${p.name}-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${p.name}-manager-role
subjects:
  - kind: ServiceAccount
    name: ${p.manager}
    namespace: ${p.namespace}
`;
}

function leaderElectionRole(p: ProjectContext): string {
  return `# Leader election (--leader-elect): the Lease ${p.name} in the operator's own Namespace.
# create cannot be limited by name; the other verbs are limited to the one Lease.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${p.name}-leader-election-role
  namespace: ${p.namespace}
rules:
  - apiGroups: ['coordination.k8s.io']
    resources: ['leases']
    verbs: ['create']
  - apiGroups: ['coordination.k8s.io']
    resources: ['leases']
    resourceNames: ['${p.name}']
    verbs: ['get', 'update']
`;
}

function leaderElectionRoleBinding(p: ProjectContext): string {
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${p.name}-leader-election-rolebinding
  namespace: ${p.namespace}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${p.name}-leader-election-role
subjects:
  - kind: ServiceAccount
    name: ${p.manager}
    namespace: ${p.namespace}
`;
}

const crdKustomization = `# The CRDs (kubectl apply -k config/crd), and the patches that add conversion webhooks.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  ${yamlMarker('crdkustomizeresource')}
patches:
  ${yamlMarker('crdkustomizewebhookpatch')}
`;

const samplesKustomization = `# One sample of each kind and version (kubectl apply -k config/samples).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  ${yamlMarker('manifestskustomizesamples')}
`;

/** The files of a new project, by path. */
export function initFiles(p: ProjectContext, versions: DependencyVersions): Map<string, string> {
  return new Map([
    ['package.json', packageJson(p, versions)],
    ['tsconfig.json', tsconfig],
    ['tsconfig.build.json', tsconfigBuild],
    ['eslint.config.js', eslintConfig],
    ['.prettierrc.json', prettierrc],
    ['.prettierignore', prettierignore],
    ['.gitignore', gitignore],
    ['.dockerignore', dockerignore],
    ['Dockerfile', dockerfile(p)],
    ['README.md', readme(p)],
    ['src/main.ts', mainTs(p)],
    ['src/operator.ts', operatorTs(p)],
    ['src/webhook_server.ts', webhookServerTs],
    ['test/operator.test.ts', operatorTest],
    ['config/default/kustomization.yaml', kustomizationDefault(p)],
    ['config/manager/kustomization.yaml', managerKustomization(p)],
    ['config/manager/manager.yaml', managerYaml(p)],
    ['config/rbac/kustomization.yaml', rbacKustomization],
    ['config/rbac/service_account.yaml', serviceAccount(p)],
    ['config/rbac/role.yaml', role(p)],
    ['config/rbac/role_binding.yaml', roleBinding(p)],
    ['config/rbac/leader_election_role.yaml', leaderElectionRole(p)],
    ['config/rbac/leader_election_role_binding.yaml', leaderElectionRoleBinding(p)],
    ['config/crd/kustomization.yaml', crdKustomization],
    ['config/crd/bases/.gitkeep', ''],
    ['config/samples/kustomization.yaml', samplesKustomization],
  ]);
}
