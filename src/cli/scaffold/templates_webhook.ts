/**
 * What `kube-controller-kit create webhook` writes (kubebuilder's `create webhook`): the
 * defaulting and validating webhooks of one version, or the conversion webhook of a kind
 * (hub and spokes), with their tests; and, the first time, what serves them in a cluster
 * (the webhook Service, cert-manager's certificate, the Deployment's patch).
 *
 * @module
 */
import type { ProjectContext } from './context.js';
import { tsMarker, yamlMarker } from './changes.js';
import type { ApiNames } from './names.js';
import { upperFirst } from './names.js';

/** `guestbookV1`: the prefix of a version's webhook names. */
function prefix(a: ApiNames): string {
  return `${a.camel}${upperFirst(a.version)}`;
}

/** `setupGuestbookV1Webhooks`. */
export function admissionSetupFunction(a: ApiNames): string {
  return `setup${a.kind}${upperFirst(a.version)}Webhooks`;
}

/** `src/webhooks/guestbook_v1_webhook.ts` without its extension, from `src/`. */
export function admissionModule(a: ApiNames): string {
  return `webhooks/${a.lower}_${a.version}_webhook`;
}

/** The defaulting and/or validating webhooks of one version. */
export function admissionWebhookTs(a: ApiNames, defaulting: boolean, validation: boolean): string {
  const p = prefix(a);
  const kinds: string[] = [];
  if (defaulting) kinds.push('Defaulter');
  if (validation) kinds.push('Validator');
  const lines: string[] = [
    '/**',
    ` * The webhooks of ${a.kind} ${a.apiVersion}, served by the operator's webhook server:`,
  ];
  if (defaulting) {
    lines.push(
      ` * - defaulting (\`/mutate-${a.qualifiedGroup.replaceAll('.', '-')}-${a.version}-${a.lower}\`): fills in`,
      ' *   `spec.message` when it is absent;',
    );
  }
  if (validation) {
    lines.push(
      ` * - validating (\`/validate-${a.qualifiedGroup.replaceAll('.', '-')}-${a.version}-${a.lower}\`): refuses a`,
      ' *   blank `spec.message`.',
    );
  }
  lines.push(
    ' *',
    ' * Put your own rules in their place: this file is yours.',
    ' */',
    ...(validation ? ["import { AdmissionDenial } from 'kube-controller-kit';"] : []),
    `import type { ${[...kinds, 'WebhookServer', 'WebhookTarget'].join(', ')} } from 'kube-controller-kit';`,
    `import type * as ${a.alias} from '../api/${a.module}.js';`,
    '',
    `/** What the webhooks are for: ${a.kind} of ${a.apiVersion}. */`,
    `export const ${p}Target: WebhookTarget = {`,
    `  group: '${a.qualifiedGroup}',`,
    `  version: '${a.version}',`,
    `  kind: '${a.kind}',`,
    `  resource: '${a.plural}',`,
    `  scope: '${a.namespaced ? 'Namespaced' : 'Cluster'}',`,
    '};',
    '',
  );
  if (defaulting) {
    lines.push(
      `/** Sets the defaults of a ${a.kind} being created or updated (change it in place). */`,
      `export const ${p}Defaulter: Defaulter<${a.alias}.${a.kind}> = {`,
      `  default(${a.camel}) {`,
      `    ${a.camel}.spec.message ??= 'Hello from a ${a.kind}';`,
      '  },',
      '};',
      '',
    );
  }
  if (validation) {
    lines.push(
      `/** Refuses a ${a.kind} that must not be stored: throw an \`AdmissionDenial\` saying why. */`,
      `export const ${p}Validator: Validator<${a.alias}.${a.kind}> = {`,
      `  validateCreate(${a.camel}) {`,
      `    check${a.kind}(${a.camel});`,
      '  },',
      `  validateUpdate(_old, ${a.camel}) {`,
      `    check${a.kind}(${a.camel});`,
      '  },',
      '};',
      '',
      `function check${a.kind}(${a.camel}: ${a.alias}.${a.kind}): void {`,
      `  if (${a.camel}.spec.message?.trim() === '') {`,
      "    throw new AdmissionDenial('spec.message must not be blank');",
      '  }',
      '}',
      '',
    );
  }
  const options = [
    ...(defaulting ? [`defaulter: ${p}Defaulter`] : []),
    ...(validation ? [`validator: ${p}Validator`] : []),
  ];
  lines.push(
    `/** Registers the webhooks of ${a.kind} ${a.version} on the operator's webhook server. */`,
    `export function ${admissionSetupFunction(a)}(server: WebhookServer): void {`,
    `  server.registerFor(${p}Target, { ${options.join(', ')} });`,
    '}',
    '',
  );
  return lines.join('\n');
}

/** The test of one version's admission webhooks, called by the in-memory API server. */
export function admissionWebhookTestTs(
  a: ApiNames,
  defaulting: boolean,
  validation: boolean,
): string {
  const ns = a.namespaced ? ".namespace('default')" : '';
  const tests: string[] = [];
  if (defaulting) {
    tests.push(`test('${a.kind} ${a.version}: the defaulting webhook fills in spec.message', async () => {
  const created = await ${a.camel}s.create({
    apiVersion: '${a.apiVersion}',
    kind: '${a.kind}',
    metadata: { name: 'defaulted' },
    spec: {},
  });
  assert.equal(created.spec.message, 'Hello from a ${a.kind}');
});
`);
  }
  if (validation) {
    tests.push(`test('${a.kind} ${a.version}: the validating webhook refuses a blank spec.message, with its reason', async () => {
  const err = await ${a.camel}s
    .create({
      apiVersion: '${a.apiVersion}',
      kind: '${a.kind}',
      metadata: { name: 'blank' },
      spec: { message: '  ' },
    })
    .then(
      () => assert.fail('the webhook admitted a blank message'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof ApiError);
  assert.match(err.message, /denied the request: spec\\.message must not be blank/);
  await ${a.camel}s.create({
    apiVersion: '${a.apiVersion}',
    kind: '${a.kind}',
    metadata: { name: 'fine' },
    spec: { message: 'hello' },
  });
});
`);
  }
  return `// The webhooks of ${a.kind} ${a.version}, called by the in-memory API server as kube-apiserver
// calls them: the operator's webhook server on 127.0.0.1 with a certificate made for the
// test, its configurations installed as envtest installs them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ${validation ? 'ApiError,\n  ' : ''}ResourceClient,
  Transport,
  applyManifests,
  noopLogger,
  readManifests,
} from 'kube-controller-kit';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import * as ${a.alias} from '../src/api/${a.module}.js';
import { projectManifests } from '../src/operator.js';
import { newWebhookServer } from '../src/webhook_server.js';
import type { OperatorWebhookServer } from '../src/webhook_server.js';

const stop = new AbortController();
let server: TestApiServer;
let webhooks: OperatorWebhookServer;
let serving: Promise<void>;
let transport: Transport;
let ${a.camel}s: ResourceClient<${a.alias}.${a.kind}>;

before(async () => {
  server = await startTestApiServer();
  for (const file of projectManifests('config/crd/bases')) {
    await applyManifests(server.kubeConfig(), await readManifests(file), { fieldManager: 'test' });
  }
  const made = await newWebhookServer({ port: 0, local: server.kubeConfig(), logger: noopLogger });
  assert.ok(made, 'the operator registers webhooks');
  webhooks = made;
  serving = webhooks.server.start(stop.signal);
  await webhooks.installed;
  transport = new Transport(server.kubeConfig());
  ${a.camel}s = new ResourceClient(transport, ${a.alias}.${a.camel}Resource)${ns};
});

after(async () => {
  transport.close();
  stop.abort();
  await serving;
  await webhooks.close();
  await server.close();
});

${tests.join('\n')}`;
}

/** `setupGuestbookConversion`. */
export function conversionSetupFunction(a: ApiNames): string {
  return `setup${a.kind}Conversion`;
}

/** `src/webhooks/guestbook_conversion.ts` without its extension, from `src/`. */
export function conversionModule(a: ApiNames): string {
  return `webhooks/${a.lower}_conversion`;
}

/** The converter of one spoke, for the converters marker. */
export function spokeConverter(hub: ApiNames, spoke: ApiNames): string {
  return `/** Converts ${spoke.kind} ${spoke.apiVersion} to ${hub.version}, the hub, and back. */
export const ${spoke.camel}${upperFirst(spoke.version)}Converter: SpokeConverter<${hub.alias}.${hub.kind}, ${spoke.alias}.${spoke.kind}> = {
  toHub: (${hub.camel}) => ({ ...${hub.camel}, apiVersion: '${hub.apiVersion}' }),
  fromHub: (${hub.camel}) => ({ ...${hub.camel}, apiVersion: '${spoke.apiVersion}' }),
};
`;
}

/** The import of a spoke's types, for the imports marker. */
export function spokeImport(spoke: ApiNames): string {
  return `import type * as ${spoke.alias} from '../api/${spoke.module}.js';`;
}

/** The entry of a spoke in `spokes`, for the spokes marker. */
export function spokeEntry(spoke: ApiNames): string {
  return `${spoke.version}: ${spoke.camel}${upperFirst(spoke.version)}Converter,`;
}

/** The conversion webhook of a kind, with its hub and no spoke yet (they go at the markers). */
export function conversionTs(hub: ApiNames): string {
  return `/**
 * The conversion webhook of ${hub.kind} (${hub.qualifiedGroup}), hub and spoke: ${hub.version} is the hub
 * (the version stored); every other version converts to it and back, so N versions need
 * 2(N-1) functions. The versions' schemas start out the same, so each converter copies;
 * each is typed by the types \`gen types\` writes for its two versions, so when a schema
 * changes the compiler shows what to convert. This file is yours.
 */
import type { SpokeConverter, WebhookServer } from 'kube-controller-kit';
import type * as ${hub.alias} from '../api/${hub.module}.js';
${tsMarker('imports')}

${tsMarker('converters')}

/** Registers the conversion of ${hub.kind} on the operator's webhook server (at /convert). */
export function ${conversionSetupFunction(hub)}(server: WebhookServer): void {
  server.registerConversion<${hub.alias}.${hub.kind}>({
    group: '${hub.qualifiedGroup}',
    kind: '${hub.kind}',
    hub: '${hub.version}',
    spokes: {
      ${tsMarker('spokes')}
    },
  });
}
`;
}

/** The test of a kind's conversion: every spoke reads back what the hub stored, and back. */
export function conversionTestTs(hub: ApiNames): string {
  const ns = hub.namespaced ? ", namespace: 'default'" : '';
  const at = hub.namespaced ? ".namespace('default')" : '';
  return `// The conversion webhook of ${hub.kind}, called by the in-memory API server as kube-apiserver
// calls it: a ${hub.kind} stored at ${hub.version} (the hub) reads back at every spoke version with
// the same spec, and one written at a spoke reads back at the hub.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ResourceClient,
  Transport,
  WebhookServer,
  applyManifests,
  noopLogger,
  readManifests,
} from 'kube-controller-kit';
import type { ApiResource, UnstructuredObject } from 'kube-controller-kit';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { projectManifests, webhooks as setups } from '../src/operator.js';
import { newWebhookServer } from '../src/webhook_server.js';
import type { OperatorWebhookServer } from '../src/webhook_server.js';

const stop = new AbortController();
let server: TestApiServer;
let webhooks: OperatorWebhookServer;
let serving: Promise<void>;
let transport: Transport;

/** A client of ${hub.kind} at one version. */
function at(version: string): ResourceClient<UnstructuredObject> {
  const resource: ApiResource<UnstructuredObject> = {
    group: '${hub.qualifiedGroup}',
    version,
    resource: '${hub.plural}',
    kind: '${hub.kind}',
    namespaced: ${String(hub.namespaced)},
  };
  return new ResourceClient(transport, resource)${at};
}

/** The spoke versions the operator converts ${hub.kind} to and from. */
function spokes(): string[] {
  const registered = new WebhookServer({ port: -1 });
  for (const setup of setups) setup(registered);
  const kind = registered.conversionKinds().find((k) => k.kind === '${hub.kind}');
  assert.ok(kind, 'the operator registers the conversion of ${hub.kind}');
  assert.equal(kind.hub, '${hub.version}');
  return Object.keys(kind.spokes);
}

before(async () => {
  server = await startTestApiServer();
  for (const file of projectManifests('config/crd/bases')) {
    await applyManifests(server.kubeConfig(), await readManifests(file), { fieldManager: 'test' });
  }
  const made = await newWebhookServer({ port: 0, local: server.kubeConfig(), logger: noopLogger });
  assert.ok(made, 'the operator registers webhooks');
  webhooks = made;
  serving = webhooks.server.start(stop.signal);
  await webhooks.installed;
  transport = new Transport(server.kubeConfig());
});

after(async () => {
  transport.close();
  stop.abort();
  await serving;
  await webhooks.close();
  await server.close();
});

test('a ${hub.kind} reads back at every version, converted by the webhook', async () => {
  const versions = spokes();
  assert.ok(versions.length > 0);
  for (const version of versions) {
    const name = \`from-hub-\${version}\`;
    await at('${hub.version}').create({
      apiVersion: '${hub.apiVersion}',
      kind: '${hub.kind}',
      metadata: { name${ns} },
      spec: { message: 'stored at ${hub.version}' },
    });
    const read = await at(version).get(name);
    assert.equal(read.apiVersion, \`${hub.qualifiedGroup}/\${version}\`);
    assert.deepEqual(read.spec, { message: 'stored at ${hub.version}' });

    const back = \`from-\${version}\`;
    await at(version).create({
      apiVersion: \`${hub.qualifiedGroup}/\${version}\`,
      kind: '${hub.kind}',
      metadata: { name: back${ns} },
      spec: { message: \`written at \${version}\` },
    });
    const hub = await at('${hub.version}').get(back);
    assert.equal(hub.apiVersion, '${hub.apiVersion}');
    assert.deepEqual(hub.spec, { message: \`written at \${version}\` });
  }
});
`;
}

/** The CRD patch that sends a kind's conversions to the operator's webhook Service. */
export function crdConversionPatch(hub: ApiNames, p: ProjectContext): string {
  return `# ${hub.kind} is converted between its versions by the operator's conversion webhook:
# kube-apiserver calls /convert on the webhook Service, trusting the CA cert-manager injects.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${hub.crdName}
  annotations:
    cert-manager.io/inject-ca-from: ${p.namespace}/${p.certificate}
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          namespace: ${p.namespace}
          name: ${p.webhookService}
          path: /convert
          port: 443
      conversionReviewVersions:
        - v1
`;
}

/** The files that serve webhooks in a cluster, written with the first webhook. */
export function webhookInfraFiles(p: ProjectContext): Map<string, string> {
  return new Map([
    [
      'config/webhook/kustomization.yaml',
      `# The webhook Service and the configurations of the admission webhooks.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - service.yaml
  ${yamlMarker('webhookresources')}
`,
    ],
    [
      'config/webhook/service.yaml',
      `# The Service kube-apiserver calls the webhooks through: port 443 to the webhook server's
# port in the operator's Pods (--webhook-port, 9443).
apiVersion: v1
kind: Service
metadata:
  name: ${p.webhookService}
  namespace: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
spec:
  selector:
    app.kubernetes.io/name: ${p.name}
  ports:
    - name: webhook
      port: 443
      targetPort: 9443
`,
    ],
    [
      'config/certmanager/kustomization.yaml',
      `# The webhook server's certificate, issued by cert-manager (which must run in the cluster).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - certificate.yaml
`,
    ],
    [
      'config/certmanager/certificate.yaml',
      `# The webhook server's serving certificate, written by cert-manager into the Secret the
# Deployment mounts (renewals reach the running server: it reloads the files). A self-signed
# issuer is enough: kube-apiserver trusts the CA that cert-manager's CA injector writes into
# the webhook configurations and the CRDs (annotation cert-manager.io/inject-ca-from).
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: ${p.name}-selfsigned-issuer
  namespace: ${p.namespace}
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: ${p.certificate}
  namespace: ${p.namespace}
spec:
  secretName: ${p.certificateSecret}
  dnsNames:
    - ${p.webhookService}.${p.namespace}.svc
    - ${p.webhookService}.${p.namespace}.svc.cluster.local
  privateKey:
    algorithm: ECDSA
    size: 256
  issuerRef:
    kind: Issuer
    name: ${p.name}-selfsigned-issuer
`,
    ],
    [
      'config/default/manager_webhook_patch.yaml',
      `# The webhook server in the operator's Pods: its port, and the certificate cert-manager
# writes into the Secret ${p.certificateSecret}, mounted where --webhook-cert-path says.
# (A strategic merge patch replaces args whole: these are config/manager's and the webhook's.)
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${p.manager}
  namespace: ${p.namespace}
spec:
  template:
    spec:
      containers:
        - name: manager
          args:
            - --kubeconfig
            - --leader-elect
            - --health-probe-bind-address=:8081
            - --metrics-bind-address=:8080
            - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs
            - --webhook-port=9443
          ports:
            - name: webhook
              containerPort: 9443
          volumeMounts:
            - name: webhook-cert
              mountPath: /tmp/k8s-webhook-server/serving-certs
              readOnly: true
      volumes:
        - name: webhook-cert
          secret:
            secretName: ${p.certificateSecret}
`,
    ],
    ['test/webhook_manifests.test.ts', webhookManifestsTest(p)],
  ]);
}

function webhookManifestsTest(p: ProjectContext): string {
  return `// config/webhook/manifests.yaml (what kubectl apply -k config/default installs) holds the
// configurations of exactly the admission webhooks src/operator.ts registers, as the
// library generates them: same names, paths, rules and policies.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { WebhookServer, packageFile, webhookConfigurations } from 'kube-controller-kit';
import { NAME, webhooks } from '../src/operator.js';

test('config/webhook/manifests.yaml agrees with the registered admission webhooks', () => {
  const server = new WebhookServer({ port: -1 });
  for (const setup of webhooks) setup(server);
  const { mutating, validating } = webhookConfigurations(server, {
    endpoint: { service: { namespace: '${p.namespace}', name: '${p.webhookService}' } },
    name: NAME,
  });
  const expected = [mutating, validating]
    .filter((c) => c !== undefined)
    .map((c) => ({
      ...c,
      metadata: {
        ...c.metadata,
        annotations: { 'cert-manager.io/inject-ca-from': '${p.namespace}/${p.certificate}' },
      },
    }));
  const path = packageFile(import.meta.url, 'config/webhook/manifests.yaml');
  const written = existsSync(path)
    ? parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS() as unknown)
    : [];
  assert.deepEqual(written, expected);
});
`;
}

/** A YAML rendering of plain data (objects, arrays, strings, numbers, booleans). */
export function toYaml(value: unknown, indent = ''): string {
  const scalar = (v: unknown): string =>
    typeof v === 'string'
      ? /^[A-Za-z0-9/_.-][A-Za-z0-9/_.:-]*$/.test(v) &&
        !/^(true|false|null|yes|no|on|off|[0-9.]+)$/i.test(v)
        ? v
        : `'${v.replace(/'/g, "''")}'`
      : String(v);
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}[]\n`;
    return value
      .map((item) => {
        if (item !== null && typeof item === 'object') {
          const body = toYaml(item, `${indent}  `);
          return `${indent}- ${body.slice(indent.length + 2)}`;
        }
        return `${indent}- ${scalar(item)}\n`;
      })
      .join('');
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => {
        if (v !== null && typeof v === 'object') {
          const empty = Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0;
          if (empty) return `${indent}${scalar(k)}: ${Array.isArray(v) ? '[]' : '{}'}\n`;
          return `${indent}${scalar(k)}:\n${toYaml(v, Array.isArray(v) ? `${indent}  ` : `${indent}  `)}`;
        }
        return `${indent}${scalar(k)}: ${scalar(v)}\n`;
      })
      .join('');
  }
  return `${indent}${scalar(value)}\n`;
}
