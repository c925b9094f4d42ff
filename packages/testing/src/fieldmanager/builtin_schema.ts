/**
 * The building blocks of the built-in kinds' merge types, for server-side apply; each
 * kind's merge type is in its file under ../registry (its `mergeType`).
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

export { listAtomic, listMap, mapOf, objectMetaType, scalar } from './schema.js';

/** An open struct (any key a named field) with the given fields and defaults. */
export const open = (
  fields: Record<string, TypeNode>,
  defaults?: Record<string, string>,
): MapType => struct(fields, { open: true, ...(defaults ? { defaults } : {}) });

/** `metav1.LabelSelector`: `+structType=atomic`. */
export const labelSelector = struct(
  { matchLabels: mapOf(scalar), matchExpressions: listAtomic() },
  { atomic: true },
);

/** A container's port (`protocol` defaults to TCP). */
const containerPort = open({ containerPort: scalar, protocol: scalar }, { protocol: 'TCP' });

/** A container. */
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

/** `core/v1.PodSpec`. */
export const podSpec = open({
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

/** Conditions, keyed by `type`. */
export const conditions = listMap(['type'], open({ type: scalar }));

/** `core/v1.PodTemplateSpec`. */
export const podTemplateSpec = open({ metadata: objectMetaType, spec: podSpec });

/** A kind's root: apiVersion, kind, ObjectMeta and the given fields. */
export function root(fields: Record<string, TypeNode>): MapType {
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
export function workload(spec: Record<string, TypeNode>, implicit: readonly string[]): BuiltinType {
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

/** The merge type of a kind that states none: an open struct with ObjectMeta. */
export const openRoot: BuiltinType = { type: root({}), implicitStructs: [] };
