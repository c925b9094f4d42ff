/**
 * The resource registry of the test API server: which resources it serves, at which
 * versions, with which kind, scope, short names, subresources and field selectors.
 *
 * Built-in resources are registered at start; a CustomResourceDefinition adds (and its
 * deletion removes) one resource served at each of its served versions.
 *
 * @module
 */
import { groupResourceKey } from 'kube-controller-kit';
import type { UnstructuredObject } from 'kube-controller-kit';
import type { StoredObject } from './storage.js';

/**
 * Reads one field of an object for a field selector; `undefined` when absent.
 *
 * @group Server
 */
export type FieldGetter = (obj: UnstructuredObject) => string | undefined;

/** How names of a resource are validated. */
export type NameRule = 'subdomain' | 'label' | 'pathSegment';

/** One resource the server serves (internal description). */
export interface ResourceType {
  /** API group ('' for core). */
  group: string;
  /** Plural resource name. */
  resource: string;
  /** Kind. */
  kind: string;
  /** Kind of lists. */
  listKind: string;
  /** Singular name. */
  singular: string;
  /** Short names (e.g. `po`). */
  shortNames: string[];
  /** Categories (e.g. `all`). */
  categories: string[];
  /** True when namespaced. */
  namespaced: boolean;
  /** Served versions, the storage version first. */
  versions: string[];
  /** Whether the status subresource is served. */
  statusSubresource: boolean;
  /** Whether strategic-merge patch applies (built-ins only). */
  strategicMerge: boolean;
  /** Field selectors beyond metadata.name and metadata.namespace. */
  fieldSelectors: Map<string, FieldGetter>;
  /** Name validation rule. */
  nameRule: NameRule;
  /** Whether metadata.generation is maintained (not for configmaps, secrets, …). */
  tracksGeneration: boolean;
  /** For custom resources, the name of the defining CRD. */
  crdName?: string;
  /** Applied to stored objects before they are sent (custom resources' read-time defaults). */
  readTransform?: (stored: StoredObject) => StoredObject;
  /** The `scale` subresource (autoscaling/v1 Scale), when served. */
  scale?: ScaleSubresource;
  /**
   * A create-only resource that is never stored (the authorization and authentication
   * reviews): a POST is answered with the object and its status, other methods get 405.
   */
  virtual?: boolean;
}

/** Where the `scale` subresource reads and writes an object's replicas and selector. */
export interface ScaleSubresource {
  /** Dotted path of the desired replicas, e.g. `.spec.replicas`. */
  specReplicasPath: string;
  /** Dotted path of the observed replicas, e.g. `.status.replicas`. */
  statusReplicasPath: string;
  /**
   * Dotted path of the label selector in string form, e.g. `.status.selector`; when
   * absent, `spec.selector` (a metav1.LabelSelector) is rendered, as for Deployments.
   */
  labelSelectorPath?: string;
}

/** The storage key of a group/resource: `pods`, `deployments.apps`. */
export { groupResourceKey };

/** Reads a dotted path (`spec.nodeName`) from an object as a string. */
export function fieldPathGetter(path: string): FieldGetter {
  const parts = path.split('.');
  return (obj) => {
    let cur: unknown = obj;
    for (const p of parts) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === 'string' ? cur : JSON.stringify(cur);
  };
}

function fields(...paths: string[]): Map<string, FieldGetter> {
  return new Map(paths.map((p) => [p, fieldPathGetter(p)]));
}

function builtin(
  partial: Pick<ResourceType, 'group' | 'resource' | 'kind' | 'namespaced'> & Partial<ResourceType>,
): ResourceType {
  return {
    listKind: `${partial.kind}List`,
    singular: partial.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    versions: ['v1'],
    statusSubresource: false,
    strategicMerge: true,
    fieldSelectors: new Map(),
    nameRule: 'subdomain',
    tracksGeneration: false,
    ...partial,
  };
}

/** The built-in resources, fresh copies (field selectors may be added per server). */
export function builtinResources(): ResourceType[] {
  return [
    builtin({
      group: '',
      resource: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      statusSubresource: true,
      nameRule: 'label',
      fieldSelectors: fields('status.phase'),
    }),
    builtin({
      group: '',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      statusSubresource: true,
      fieldSelectors: fields(
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'spec.hostNetwork',
        'status.phase',
        'status.podIP',
        'status.nominatedNodeName',
      ),
    }),
    builtin({
      group: '',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      shortNames: ['cm'],
    }),
    builtin({
      group: '',
      resource: 'secrets',
      kind: 'Secret',
      namespaced: true,
      fieldSelectors: fields('type'),
    }),
    builtin({
      group: '',
      resource: 'services',
      kind: 'Service',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      statusSubresource: true,
      nameRule: 'label',
    }),
    builtin({
      group: '',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      fieldSelectors: fields(
        'involvedObject.kind',
        'involvedObject.namespace',
        'involvedObject.name',
        'involvedObject.uid',
        'involvedObject.apiVersion',
        'involvedObject.resourceVersion',
        'involvedObject.fieldPath',
        'reason',
        'reportingComponent',
        'source',
        'type',
      ),
    }),
    // events.k8s.io/v1: on a real server a second view of the same stored events; here its
    // own storage (no conversion between the two APIs).
    builtin({
      group: 'events.k8s.io',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      fieldSelectors: fields(
        'regarding.kind',
        'regarding.namespace',
        'regarding.name',
        'regarding.uid',
        'regarding.apiVersion',
        'reason',
        'reportingController',
        'type',
      ),
    }),
    // What an operator's deploy/ holds (kubectl apply -k): stored and served, not enforced
    // (the test server authorizes nothing).
    builtin({
      group: '',
      resource: 'serviceaccounts',
      kind: 'ServiceAccount',
      namespaced: true,
      shortNames: ['sa'],
    }),
    ...(
      [
        ['Role', 'roles', true],
        ['RoleBinding', 'rolebindings', true],
        ['ClusterRole', 'clusterroles', false],
        ['ClusterRoleBinding', 'clusterrolebindings', false],
      ] as const
    ).map(([kind, resource, namespaced]) =>
      builtin({
        group: 'rbac.authorization.k8s.io',
        resource,
        kind,
        namespaced,
        nameRule: 'pathSegment',
      }),
    ),
    builtin({
      group: 'apps',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      shortNames: ['deploy'],
      categories: ['all'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    // The rest of what `kubectl create` makes and operators commonly own or read: stored,
    // served (JSON and protobuf) and validated against nothing but their envelope; no
    // controller acts on them (no pods from a Job, no endpoints from a Service).
    builtin({
      group: '',
      resource: 'persistentvolumeclaims',
      kind: 'PersistentVolumeClaim',
      namespaced: true,
      shortNames: ['pvc'],
      statusSubresource: true,
    }),
    builtin({
      group: '',
      resource: 'nodes',
      kind: 'Node',
      namespaced: false,
      shortNames: ['no'],
      statusSubresource: true,
      fieldSelectors: fields('spec.unschedulable'),
    }),
    builtin({
      group: '',
      resource: 'endpoints',
      kind: 'Endpoints',
      namespaced: true,
      shortNames: ['ep'],
    }),
    builtin({
      group: '',
      resource: 'resourcequotas',
      kind: 'ResourceQuota',
      namespaced: true,
      shortNames: ['quota'],
      statusSubresource: true,
    }),
    ...(
      [
        ['StatefulSet', 'statefulsets', 'sts', true],
        ['DaemonSet', 'daemonsets', 'ds', false],
        ['ReplicaSet', 'replicasets', 'rs', true],
      ] as const
    ).map(([kind, resource, short, scalable]) =>
      builtin({
        group: 'apps',
        resource,
        kind,
        namespaced: true,
        shortNames: [short],
        categories: ['all'],
        statusSubresource: true,
        tracksGeneration: true,
        ...(scalable
          ? {
              scale: {
                specReplicasPath: '.spec.replicas',
                statusReplicasPath: '.status.replicas',
              },
            }
          : {}),
      }),
    ),
    builtin({
      group: 'batch',
      resource: 'jobs',
      kind: 'Job',
      namespaced: true,
      categories: ['all'],
      statusSubresource: true,
      tracksGeneration: true,
      fieldSelectors: fields('status.successful'),
    }),
    builtin({
      group: 'batch',
      resource: 'cronjobs',
      kind: 'CronJob',
      namespaced: true,
      shortNames: ['cj'],
      categories: ['all'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    builtin({
      group: 'networking.k8s.io',
      resource: 'ingresses',
      kind: 'Ingress',
      namespaced: true,
      shortNames: ['ing'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    builtin({
      group: 'networking.k8s.io',
      resource: 'networkpolicies',
      kind: 'NetworkPolicy',
      namespaced: true,
      shortNames: ['netpol'],
      tracksGeneration: true,
    }),
    builtin({
      group: 'policy',
      resource: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      namespaced: true,
      shortNames: ['pdb'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    builtin({
      group: 'coordination.k8s.io',
      resource: 'leases',
      kind: 'Lease',
      namespaced: true,
      strategicMerge: true,
    }),
    ...reviewResources(),
    // Admission configuration: stored and read by the admission chain (./admission).
    ...(
      [
        ['MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', true],
        ['ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', true],
        ['ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', true],
      ] as const
    ).map(([kind, resource, tracksGeneration]) =>
      builtin({
        group: 'admissionregistration.k8s.io',
        resource,
        kind,
        namespaced: false,
        categories: ['api-extensions'],
        tracksGeneration,
      }),
    ),
    builtin({
      group: 'admissionregistration.k8s.io',
      resource: 'validatingadmissionpolicies',
      kind: 'ValidatingAdmissionPolicy',
      namespaced: false,
      categories: ['api-extensions'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
  ];
}

/** The review resources kube-apiserver serves (create-only, never stored). */
function reviewResources(): ResourceType[] {
  const review = (group: string, kind: string, namespaced = false): ResourceType =>
    builtin({
      group,
      resource: `${kind.toLowerCase()}s`,
      kind,
      namespaced,
      strategicMerge: false,
      virtual: true,
    });
  return [
    review('authorization.k8s.io', 'SelfSubjectAccessReview'),
    review('authorization.k8s.io', 'SubjectAccessReview'),
    review('authorization.k8s.io', 'LocalSubjectAccessReview', true),
    review('authorization.k8s.io', 'SelfSubjectRulesReview'),
    review('authentication.k8s.io', 'SelfSubjectReview'),
    review('authentication.k8s.io', 'TokenReview'),
  ];
}

/** The set of resources a server serves, looked up by group/version/resource. */
export class ResourceRegistry {
  readonly #byKey = new Map<string, ResourceType>();
  #generation = 0;

  /** Increases whenever the set of resources changes (a cache-busting hash for clients). */
  get generation(): number {
    return this.#generation;
  }

  /** Adds or replaces a resource. */
  add(type: ResourceType): void {
    this.#byKey.set(groupResourceKey(type.group, type.resource), type);
    this.#generation++;
  }

  /** Removes a resource. */
  remove(group: string, resource: string): void {
    if (this.#byKey.delete(groupResourceKey(group, resource))) this.#generation++;
  }

  /** The resource with this group and plural name, at any version. */
  byGroupResource(group: string, resource: string): ResourceType | undefined {
    return this.#byKey.get(groupResourceKey(group, resource));
  }

  /** The resource stored under a group/resource key (`deployments.apps`, `pods`). */
  byKey(grKey: string): ResourceType | undefined {
    return this.#byKey.get(grKey);
  }

  /** The resource served at group/version/resource, if served at that version. */
  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    const t = this.#byKey.get(groupResourceKey(group, resource));
    return t?.versions.includes(version) ? t : undefined;
  }

  /** Every resource. */
  all(): ResourceType[] {
    return [...this.#byKey.values()];
  }

  /** Groups and their versions, in registration order ('' = core). */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.#byKey.values()) {
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    return out;
  }

  /** The resources served at a group/version. */
  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.versions.includes(version));
  }
}
