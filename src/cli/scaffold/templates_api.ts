/**
 * What `kube-controller-kit create api` writes for one kind at one version (kubebuilder's
 * `create api`): the CustomResourceDefinition, a sample, the controller with its test, and
 * the fragments for the markers (imports, the controller list, RBAC rules, kustomizations).
 * The TypeScript types are not written here: `gen types` writes them from the CRD.
 *
 * @module
 */
import type { ProjectContext } from './context.js';
import type { ApiNames } from './names.js';

/** The `versions` entry of a CRD for one version (indented for `spec.versions`). */
export function crdVersion(a: ApiNames, storage: boolean): string {
  return `    - name: ${a.version}
      served: true
      storage: ${String(storage)}
      subresources:
        status: {}
      additionalPrinterColumns:
        - name: Available
          type: string
          jsonPath: .status.conditions[?(@.type=="Available")].status
        - name: Age
          type: date
          jsonPath: .metadata.creationTimestamp
      schema:
        openAPIV3Schema:
          description: A ${a.kind}. This schema is the source of truth of its API; after a change, npm run generate writes src/api/ again.
          type: object
          required:
            - spec
          properties:
            apiVersion:
              type: string
            kind:
              type: string
            metadata:
              type: object
            spec:
              description: The desired state of the ${a.kind}.
              type: object
              properties:
                message:
                  description: An example field; replace it with your own.
                  type: string
                  maxLength: 256
            status:
              description: The observed state of the ${a.kind}, written by its controller.
              type: object
              properties:
                conditions:
                  description: The latest observations of the ${a.kind}'s state.
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys:
                    - type
                  items:
                    description: A condition in the standard shape of metav1.Condition.
                    type: object
                    required:
                      - type
                      - status
                      - lastTransitionTime
                      - reason
                      - message
                    properties:
                      type:
                        description: The condition's type in CamelCase, e.g. Available.
                        type: string
                        maxLength: 316
                        pattern: ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$
                      status:
                        description: The condition's status.
                        type: string
                        enum:
                          - 'True'
                          - 'False'
                          - Unknown
                      observedGeneration:
                        description: The metadata.generation the condition was set for.
                        type: integer
                        format: int64
                        minimum: 0
                      lastTransitionTime:
                        description: When the status last changed (RFC 3339).
                        type: string
                        format: date-time
                      reason:
                        description: Why the status last changed, in CamelCase.
                        type: string
                        minLength: 1
                        maxLength: 1024
                        pattern: ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
                      message:
                        description: What happened, for people; may be empty.
                        type: string
                        maxLength: 32768
`;
}

/** The CRD of a new kind, with its first version stored. */
export function crdYaml(a: ApiNames): string {
  return `# The ${a.kind} custom resource of ${a.qualifiedGroup}: the source of truth of its API.
# After a change: npm run generate (src/api/ from this file), then npm run typecheck.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${a.crdName}
spec:
  group: ${a.qualifiedGroup}
  names:
    kind: ${a.kind}
    listKind: ${a.kind}List
    plural: ${a.plural}
    singular: ${a.lower}
  scope: ${a.namespaced ? 'Namespaced' : 'Cluster'}
  versions:
${crdVersion(a, true)}`;
}

/** The sample's file name in `config/samples`. */
export function sampleFile(a: ApiNames): string {
  return `${a.group.split('.')[0]}_${a.version}_${a.lower}.yaml`;
}

/** A sample object (config/samples). */
export function sampleYaml(a: ApiNames, name: string): string {
  return `apiVersion: ${a.apiVersion}
kind: ${a.kind}
metadata:
  name: ${name}${a.namespaced ? '\n  namespace: default' : ''}
spec:
  message: Hello from ${name}
`;
}

/** The RBAC rules of a kind's controller, for `config/rbac/role.yaml`. */
export function rbacRules(a: ApiNames): string {
  return `# ${a.kind} (${a.qualifiedGroup}): read by the controller's informer; its status written
# through the status subresource; finalizers for owner references that block deletion.
- apiGroups: ['${a.qualifiedGroup}']
  resources: ['${a.plural}']
  verbs: ['get', 'list', 'watch']
- apiGroups: ['${a.qualifiedGroup}']
  resources: ['${a.plural}/status']
  verbs: ['get', 'patch', 'update']
- apiGroups: ['${a.qualifiedGroup}']
  resources: ['${a.plural}/finalizers']
  verbs: ['update']`;
}

/** `addGuestbookController`. */
export function controllerFunction(a: ApiNames): string {
  return `add${a.kind}Controller`;
}

/** The controller. */
export function controllerTs(a: ApiNames): string {
  const get = a.namespaced
    ? `${a.camel}s.lister().byNamespace(namespace).tryGet(name)`
    : `${a.camel}s.lister().tryGet(name)`;
  const write = a.namespaced ? 'client.namespace(namespace)' : 'client';
  return `/**
 * The ${a.kind} controller: for every ${a.kind} (${a.apiVersion}) it writes an \`Available\`
 * condition for the generation it saw through the status subresource, and records an Event
 * when the condition changes. Put what your operator does where it says so: this file is
 * yours.
 */
import {
  Controller,
  ResourceClient,
  getReference,
  setStatusCondition,
  splitMetaNamespaceKey,
} from 'kube-controller-kit';
import type { Manager } from 'kube-controller-kit';
import * as ${a.alias} from '../api/${a.module}.js';

/** The field manager of the controller's writes and the source of its Events. */
const FIELD_MANAGER = '${a.lower}-controller';

/** Adds the ${a.kind} controller to \`manager\`. */
export function ${controllerFunction(a)}(manager: Manager): void {
  const ${a.camel}s = manager.cache.forResource(${a.alias}.${a.camel}Resource);
  const client = new ResourceClient(manager.transport, ${a.alias}.${a.camel}Resource);
  const recorder = manager.eventRecorderFor(FIELD_MANAGER);

  const controller = new Controller({
    name: '${a.lower}',
    reconcile: async (key, signal) => {
      const [${a.namespaced ? 'namespace' : ''}, name] = splitMetaNamespaceKey(key);
      const ${a.camel} = ${get};
      if (${a.camel} === undefined) return; // deleted: what it owns is garbage-collected

      // Your logic here: read ${a.camel}.spec, create or update what it asks for (with
      // setControllerReference, and .owns(…) on the controller below, so that a change to
      // those objects reconciles it again), and report the outcome in the condition.

      const conditions = (${a.camel}.status?.conditions ?? []).map((c) => ({ ...c }));
      const changed = setStatusCondition(conditions, {
        type: 'Available',
        status: 'True',
        reason: 'Reconciled',
        message: \`generation \${${a.camel}.metadata?.generation ?? 0} reconciled\`,
        observedGeneration: ${a.camel}.metadata?.generation,
      });
      if (!changed) return;
      await ${write}.patch(
        name,
        { status: { conditions } },
        { subresource: 'status', fieldManager: FIELD_MANAGER, signal },
      );
      recorder.event(
        getReference(${a.camel}, ${a.alias}.${a.camel}Resource),
        'Normal',
        'Reconciled',
        \`Available: generation \${${a.camel}.metadata?.generation ?? 0} reconciled\`,
      );
    },
  }).for(${a.camel}s);
  manager.add(controller);
}
`;
}

/** The controller's test, run as the operator's ServiceAccount with config/rbac's rules. */
export function controllerTestTs(a: ApiNames, p: ProjectContext): string {
  const ns = a.namespaced ? ", 'default'" : '';
  const meta = a.namespaced ? "{ name: 'sample', namespace: 'default' }" : "{ name: 'sample' }";
  return `// The ${a.kind} controller against the in-memory API server with RBAC on, running as the
// operator's ServiceAccount with exactly the rules of config/rbac: they are enough for it to
// write status and Events.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Manager,
  applyManifests,
  findStatusCondition,
  noopLogger,
  readManifests,
} from 'kube-controller-kit';
import { startTestApiServer, waitFor } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import * as ${a.alias} from '../src/api/${a.module}.js';
import { ${controllerFunction(a)} } from '../src/controllers/${a.lower}_controller.js';
import { projectManifests } from '../src/operator.js';

const ${a.camel}s = ${a.alias}.${a.camel}Resource;
const stop = new AbortController();
let server: TestApiServer;
let running: Promise<void>;

before(async () => {
  server = await startTestApiServer({ authorization: 'RBAC' });
  server.create('namespaces', { metadata: { name: '${p.namespace}' } });
  for (const file of [...projectManifests('config/crd/bases'), ...projectManifests('config/rbac')]) {
    await applyManifests(server.kubeConfig(), await readManifests(file), { fieldManager: 'test' });
  }
  const operator = server.addUser({
    serviceAccount: { namespace: '${p.namespace}', name: '${p.manager}' },
  });
  const manager = new Manager({
    kubeConfig: operator.kubeConfig(),
    healthProbeBindAddress: '0',
    metricsBindAddress: '0',
    logger: noopLogger,
  });
  ${controllerFunction(a)}(manager);
  running = manager.start(stop.signal);
});

after(async () => {
  stop.abort();
  await running; // everything the Manager started has stopped
  await server.close();
});

test('a ${a.kind} gets an Available condition for its generation, and an Event', async () => {
  server.create<${a.alias}.${a.kind}>(${a.camel}s, {
    apiVersion: '${a.apiVersion}',
    kind: '${a.kind}',
    metadata: ${meta},
    spec: { message: 'hello' },
  });
  const available = await waitFor(() =>
    findStatusCondition(
      server.get<${a.alias}.${a.kind}>(${a.camel}s, 'sample'${ns})?.status?.conditions ?? [],
      'Available',
    ),
  );
  assert.equal(available.status, 'True');
  assert.equal(available.observedGeneration, 1);

  // The Event, on the ${a.kind} (as kubectl describe shows it).
  const event = await waitFor(() =>
    server
      .list<{ reason?: string; involvedObject?: { kind?: string; name?: string } }>('events')
      .find((e) => e.reason === 'Reconciled'),
  );
  assert.deepEqual(event.involvedObject?.kind, '${a.kind}');

  // A change of spec is a new generation: the condition follows it.
  const live = server.get<${a.alias}.${a.kind}>(${a.camel}s, 'sample'${ns});
  assert.ok(live);
  server.update<${a.alias}.${a.kind}>(${a.camel}s, { ...live, spec: { message: 'bye' } });
  await waitFor(
    () =>
      findStatusCondition(
        server.get<${a.alias}.${a.kind}>(${a.camel}s, 'sample'${ns})?.status?.conditions ?? [],
        'Available',
      )?.observedGeneration === 2,
  );
});
`;
}
