/**
 * The merge types of the built-in resources the test server serves, for server-side apply.
 *
 * Source: the `+listType`, `+listMapKey`, `+mapType` and `+structType` markers of
 * `k8s.io/api` (`core/v1`, `apps/v1`, `batch/v1`, `coordination/v1`) and `k8s.io/apimachinery`'s
 * `ObjectMeta`/`LabelSelector`, which kube-apiserver's OpenAPI publishes as
 * `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, `x-kubernetes-map-type` and
 * which its field manager merges by. Only the lists and maps that are not plain structs
 * are described; every other object is an open struct (any key a named field), every
 * other list atomic — which is what those markers leave as defaults.
 *
 * `implicitStructs` are the non-pointer structs that a Go object always carries (an empty
 * `Deployment` serializes `spec.template.spec: {}`): the server's typed objects have them
 * on both sides of every comparison, so they never count as added by an update.
 *
 * @module
 */
import type { MapType, TypeNode } from './schema.js';
import { listAtomic, listMap, mapOf, objectMetaType, scalar, struct } from './schema.js';

const open = (fields: Record<string, TypeNode>, defaults?: Record<string, string>): MapType =>
  struct(fields, { open: true, ...(defaults ? { defaults } : {}) });

/** `metav1.LabelSelector`: `+structType=atomic`. */
const labelSelector = struct(
  { matchLabels: mapOf(scalar), matchExpressions: listAtomic() },
  { atomic: true },
);

const containerPort = open({ containerPort: scalar, protocol: scalar }, { protocol: 'TCP' });

const container = open({
  ports: listMap(['containerPort', 'protocol'], containerPort),
  env: listMap(['name'], open({ name: scalar })),
  volumeMounts: listMap(['mountPath'], open({ mountPath: scalar })),
  volumeDevices: listMap(['devicePath'], open({ devicePath: scalar })),
  resizePolicy: listAtomic(),
  command: listAtomic(scalar),
  args: listAtomic(scalar),
  envFrom: listAtomic(),
});

const podSpec = open({
  containers: listMap(['name'], container),
  initContainers: listMap(['name'], container),
  ephemeralContainers: listMap(['name'], container),
  volumes: listMap(['name'], open({ name: scalar })),
  imagePullSecrets: listMap(['name'], open({ name: scalar })),
  hostAliases: listMap(['ip'], open({ ip: scalar })),
  topologySpreadConstraints: listMap(
    ['topologyKey', 'whenUnsatisfiable'],
    open({ topologyKey: scalar, whenUnsatisfiable: scalar }),
  ),
  schedulingGates: listMap(['name'], open({ name: scalar })),
  resourceClaims: listMap(['name'], open({ name: scalar })),
  readinessGates: listAtomic(),
  tolerations: listAtomic(),
  nodeSelector: mapOf(scalar, true),
  overhead: mapOf(scalar),
});

const conditions = listMap(['type'], open({ type: scalar }));

const podTemplateSpec = open({ metadata: objectMetaType, spec: podSpec });

function root(fields: Record<string, TypeNode>): MapType {
  return open({ apiVersion: scalar, kind: scalar, metadata: objectMetaType, ...fields });
}

/** A built-in's merge type and the structs its Go type always carries. */
export interface BuiltinType {
  /** The root type. */
  readonly type: MapType;
  /** Dotted paths of structs that are present (`{}`) on every object of the type. */
  readonly implicitStructs: readonly string[];
}

/** A workload with a selector, a pod template and conditions (ReplicaSet, Job, …). */
function workload(spec: Record<string, TypeNode>, implicit: readonly string[]): BuiltinType {
  return {
    type: root({
      spec: open({ selector: labelSelector, template: podTemplateSpec, ...spec }),
      status: open({ conditions }),
    }),
    implicitStructs: [
      'spec',
      'spec.template',
      'spec.template.metadata',
      'spec.template.spec',
      'status',
      ...implicit,
    ],
  };
}

const TABLE: Record<string, BuiltinType> = {
  pods: {
    type: root({
      spec: podSpec,
      status: open({
        conditions,
        podIPs: listMap(['ip'], open({ ip: scalar })),
        hostIPs: listAtomic(),
        containerStatuses: listAtomic(),
        initContainerStatuses: listAtomic(),
      }),
    }),
    implicitStructs: ['spec', 'status'],
  },
  services: {
    type: root({
      spec: open({
        ports: listMap(
          ['port', 'protocol'],
          open({ port: scalar, protocol: scalar }, { protocol: 'TCP' }),
        ),
        selector: mapOf(scalar, true),
        clusterIPs: listAtomic(scalar),
        externalIPs: listAtomic(scalar),
        ipFamilies: listAtomic(scalar),
        loadBalancerSourceRanges: listAtomic(scalar),
      }),
      status: open({ conditions }),
    }),
    implicitStructs: ['spec', 'status'],
  },
  configmaps: {
    type: root({ data: mapOf(scalar), binaryData: mapOf(scalar) }),
    implicitStructs: [],
  },
  secrets: {
    type: root({ data: mapOf(scalar), stringData: mapOf(scalar) }),
    implicitStructs: [],
  },
  namespaces: {
    type: root({
      spec: open({ finalizers: listAtomic(scalar) }),
      status: open({ conditions }),
    }),
    implicitStructs: ['spec', 'status'],
  },
  events: {
    type: root({}),
    implicitStructs: ['involvedObject', 'source'],
  },
  'deployments.apps': {
    type: root({
      spec: open({
        selector: labelSelector,
        template: podTemplateSpec,
        strategy: open({}),
      }),
      status: open({ conditions }),
    }),
    implicitStructs: [
      'spec',
      'spec.strategy',
      'spec.template',
      'spec.template.metadata',
      'spec.template.spec',
      'status',
    ],
  },
  'statefulsets.apps': workload({ updateStrategy: open({}) }, ['spec.updateStrategy']),
  'daemonsets.apps': workload({ updateStrategy: open({}) }, ['spec.updateStrategy']),
  'replicasets.apps': workload({}, []),
  'jobs.batch': workload({}, []),
  'cronjobs.batch': {
    type: root({
      spec: open({
        jobTemplate: open({
          metadata: objectMetaType,
          spec: open({ selector: labelSelector, template: podTemplateSpec }),
        }),
      }),
      status: open({ active: listAtomic() }),
    }),
    implicitStructs: [
      'spec',
      'spec.jobTemplate',
      'spec.jobTemplate.metadata',
      'spec.jobTemplate.spec',
      'spec.jobTemplate.spec.template',
      'spec.jobTemplate.spec.template.metadata',
      'spec.jobTemplate.spec.template.spec',
      'status',
    ],
  },
  'leases.coordination.k8s.io': {
    type: root({ spec: open({}) }),
    implicitStructs: ['spec'],
  },
  'customresourcedefinitions.apiextensions.k8s.io': {
    type: root({
      spec: open({
        versions: listAtomic(),
        names: open({ shortNames: listAtomic(scalar), categories: listAtomic(scalar) }),
      }),
      status: open({ conditions, storedVersions: listAtomic(scalar) }),
    }),
    implicitStructs: ['spec', 'spec.names', 'status', 'status.acceptedNames'],
  },
};

const FALLBACK: BuiltinType = { type: root({}), implicitStructs: [] };

/**
 * The merge type of a built-in resource by its storage key (`pods`, `deployments.apps`);
 * an unknown built-in gets an open struct with ObjectMeta.
 */
export function builtinType(groupResource: string): BuiltinType {
  return TABLE[groupResource] ?? FALLBACK;
}
