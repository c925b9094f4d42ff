#!/usr/bin/env node
// Generates, from Kubernetes' own generated.proto files, trimmed to the closure of the
// built-in kinds the test API server serves:
// - packages/testing/src/protobuf/k8s_descriptor.ts: the protobufjs JSON descriptor of the messages
//   it speaks in protobuf;
// - packages/testing/src/builtin_schemas.ts: their OpenAPI v3 component schemas (descriptions are
//   the first paragraph of each proto comment; +listType/+listMapKey/+mapType/
//   +patchMergeKey/+patchStrategy markers become x-kubernetes-* extensions), for
//   /openapi/v3 and `kubectl explain`.
//
// The .proto files come from Debian's golang-k8s-api-dev and golang-k8s-apimachinery-dev
// (unpacked by scripts/real-apiserver.sh into its root, or any directory holding
// k8s.io/api/... and k8s.io/apimachinery/... sources).
//
// Usage: node scripts/gen-k8s-protobuf.mjs [GOCODE_SRC]
//   GOCODE_SRC defaults to "$(scripts/real-apiserver.sh paths | root)/usr/share/gocode/src".
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

function defaultSrc() {
  const paths = execFileSync('scripts/real-apiserver.sh', ['paths'], { encoding: 'utf8' });
  const m = /^root:\s+(\S+)/m.exec(paths);
  if (!m) throw new Error('scripts/real-apiserver.sh paths printed no root');
  return join(m[1], 'usr/share/gocode/src');
}

const src = process.argv[2] ?? defaultSrc();
const files = [
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
  'k8s.io/api/autoscaling/v2/generated.proto',
  'k8s.io/api/certificates/v1/generated.proto',
  'k8s.io/api/discovery/v1/generated.proto',
  'k8s.io/api/flowcontrol/v1/generated.proto',
  'k8s.io/api/node/v1/generated.proto',
  'k8s.io/api/resource/v1/generated.proto',
  'k8s.io/api/scheduling/v1/generated.proto',
  'k8s.io/api/storage/v1/generated.proto',
  'k8s.io/api/batch/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
  'k8s.io/api/networking/v1/generated.proto',
  'k8s.io/api/policy/v1/generated.proto',
  'k8s.io/api/rbac/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
];
for (const f of files) {
  if (!existsSync(join(src, f))) throw new Error(`${join(src, f)} is missing`);
}

/** The messages the server encodes or decodes by name; everything they use comes along. */
const roots = [
  'k8s.io.api.core.v1.Namespace',
  'k8s.io.api.core.v1.NamespaceList',
  'k8s.io.api.core.v1.Pod',
  'k8s.io.api.core.v1.PodList',
  'k8s.io.api.core.v1.ConfigMap',
  'k8s.io.api.core.v1.ConfigMapList',
  'k8s.io.api.core.v1.Secret',
  'k8s.io.api.core.v1.SecretList',
  'k8s.io.api.core.v1.Service',
  'k8s.io.api.core.v1.ServiceList',
  'k8s.io.api.core.v1.Event',
  'k8s.io.api.core.v1.EventList',
  'k8s.io.api.core.v1.ServiceAccount',
  'k8s.io.api.core.v1.ServiceAccountList',
  'k8s.io.api.core.v1.PersistentVolumeClaim',
  'k8s.io.api.core.v1.PersistentVolumeClaimList',
  'k8s.io.api.core.v1.Node',
  'k8s.io.api.core.v1.NodeList',
  'k8s.io.api.core.v1.Endpoints',
  'k8s.io.api.core.v1.EndpointsList',
  'k8s.io.api.core.v1.ResourceQuota',
  'k8s.io.api.core.v1.ResourceQuotaList',
  'k8s.io.api.apps.v1.Deployment',
  'k8s.io.api.apps.v1.DeploymentList',
  'k8s.io.api.apps.v1.StatefulSet',
  'k8s.io.api.apps.v1.StatefulSetList',
  'k8s.io.api.apps.v1.DaemonSet',
  'k8s.io.api.apps.v1.DaemonSetList',
  'k8s.io.api.apps.v1.ReplicaSet',
  'k8s.io.api.apps.v1.ReplicaSetList',
  'k8s.io.api.batch.v1.Job',
  'k8s.io.api.batch.v1.JobList',
  'k8s.io.api.batch.v1.CronJob',
  'k8s.io.api.batch.v1.CronJobList',
  'k8s.io.api.coordination.v1.Lease',
  'k8s.io.api.coordination.v1.LeaseList',
  'k8s.io.api.events.v1.Event',
  'k8s.io.api.events.v1.EventList',
  'k8s.io.api.networking.v1.Ingress',
  'k8s.io.api.networking.v1.IngressList',
  'k8s.io.api.networking.v1.NetworkPolicy',
  'k8s.io.api.networking.v1.NetworkPolicyList',
  'k8s.io.api.policy.v1.PodDisruptionBudget',
  'k8s.io.api.policy.v1.PodDisruptionBudgetList',
  'k8s.io.api.rbac.v1.Role',
  'k8s.io.api.rbac.v1.RoleList',
  'k8s.io.api.rbac.v1.RoleBinding',
  'k8s.io.api.rbac.v1.RoleBindingList',
  'k8s.io.api.rbac.v1.ClusterRole',
  'k8s.io.api.rbac.v1.ClusterRoleList',
  'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'k8s.io.api.rbac.v1.ClusterRoleBindingList',
  'k8s.io.api.autoscaling.v1.Scale',
  'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  'k8s.io.api.authorization.v1.SubjectAccessReview',
  'k8s.io.api.authorization.v1.LocalSubjectAccessReview',
  'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  'k8s.io.api.authentication.v1.SelfSubjectReview',
  'k8s.io.api.authentication.v1.TokenReview',
  'k8s.io.api.authentication.v1.TokenRequest',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Status',
  'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent',
  'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'k8s.io.apimachinery.pkg.runtime.Unknown',
  'k8s.io.api.core.v1.PersistentVolume',
  'k8s.io.api.core.v1.PersistentVolumeList',
  'k8s.io.api.core.v1.LimitRange',
  'k8s.io.api.core.v1.LimitRangeList',
  'k8s.io.api.core.v1.PodTemplate',
  'k8s.io.api.core.v1.PodTemplateList',
  'k8s.io.api.core.v1.ReplicationController',
  'k8s.io.api.core.v1.ReplicationControllerList',
  'k8s.io.api.core.v1.ComponentStatus',
  'k8s.io.api.core.v1.ComponentStatusList',
  'k8s.io.api.core.v1.Binding',
  'k8s.io.api.apps.v1.ControllerRevision',
  'k8s.io.api.apps.v1.ControllerRevisionList',
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler',
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerList',
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler',
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerList',
  'k8s.io.api.certificates.v1.CertificateSigningRequest',
  'k8s.io.api.certificates.v1.CertificateSigningRequestList',
  'k8s.io.api.discovery.v1.EndpointSlice',
  'k8s.io.api.discovery.v1.EndpointSliceList',
  'k8s.io.api.flowcontrol.v1.FlowSchema',
  'k8s.io.api.flowcontrol.v1.FlowSchemaList',
  'k8s.io.api.flowcontrol.v1.PriorityLevelConfiguration',
  'k8s.io.api.flowcontrol.v1.PriorityLevelConfigurationList',
  'k8s.io.api.networking.v1.IngressClass',
  'k8s.io.api.networking.v1.IngressClassList',
  'k8s.io.api.networking.v1.IPAddress',
  'k8s.io.api.networking.v1.IPAddressList',
  'k8s.io.api.networking.v1.ServiceCIDR',
  'k8s.io.api.networking.v1.ServiceCIDRList',
  'k8s.io.api.node.v1.RuntimeClass',
  'k8s.io.api.node.v1.RuntimeClassList',
  'k8s.io.api.resource.v1.DeviceClass',
  'k8s.io.api.resource.v1.DeviceClassList',
  'k8s.io.api.resource.v1.ResourceClaim',
  'k8s.io.api.resource.v1.ResourceClaimList',
  'k8s.io.api.resource.v1.ResourceClaimTemplate',
  'k8s.io.api.resource.v1.ResourceClaimTemplateList',
  'k8s.io.api.resource.v1.ResourceSlice',
  'k8s.io.api.resource.v1.ResourceSliceList',
  'k8s.io.api.scheduling.v1.PriorityClass',
  'k8s.io.api.scheduling.v1.PriorityClassList',
  'k8s.io.api.storage.v1.StorageClass',
  'k8s.io.api.storage.v1.StorageClassList',
  'k8s.io.api.storage.v1.CSIDriver',
  'k8s.io.api.storage.v1.CSIDriverList',
  'k8s.io.api.storage.v1.CSINode',
  'k8s.io.api.storage.v1.CSINodeList',
  'k8s.io.api.storage.v1.CSIStorageCapacity',
  'k8s.io.api.storage.v1.CSIStorageCapacityList',
  'k8s.io.api.storage.v1.VolumeAttachment',
  'k8s.io.api.storage.v1.VolumeAttachmentList',
  'k8s.io.api.storage.v1.VolumeAttributesClass',
  'k8s.io.api.storage.v1.VolumeAttributesClassList',
];

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith('/') ? target : join(src, target));
root.loadSync(
  files.map((f) => join(src, f)),
  { keepCase: true, alternateCommentMode: true },
);
root.resolveAll();

const keep = new Map();
function visit(type) {
  if (keep.has(type.fullName)) return;
  keep.set(type.fullName, type);
  for (const field of type.fieldsArray) {
    if (field.resolvedType instanceof protobuf.Type) visit(field.resolvedType);
  }
}
for (const name of roots) visit(root.lookupType(name));

const out = { nested: {} };
for (const [fullName, type] of [...keep].sort(([a], [b]) => a.localeCompare(b))) {
  const parts = fullName.slice(1).split('.');
  let ns = out;
  for (const p of parts.slice(0, -1)) {
    ns.nested[p] ??= { nested: {} };
    ns = ns.nested[p];
  }
  const json = type.toJSON({ keepComments: false });
  delete json.options;
  for (const f of Object.values(json.fields)) delete f.options;
  ns.nested[parts.at(-1)] = json;
}

// Which scalar fields keep a zero value in JSON. gogo-protobuf writes every non-pointer
// scalar, so `stdin: false` is on the wire; kube-apiserver decodes it into a Go field and
// its JSON drops it again when the field is `omitempty` and not a pointer. A pointer
// (`*bool`) or a field without omitempty keeps its zero (`automountServiceAccountToken:
// false`). The Go sources beside each generated.proto tell which is which.
const goFields = new Map(); // "package.Message.protoField" → { pointer, omitempty }
for (const f of files) {
  const pkg = dirname(f).replace(/\//g, '.');
  const dir = dirname(join(src, f));
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.go') || name.endsWith('_test.go') || name.startsWith('zz_')) continue;
    if (name === 'generated.pb.go') continue;
    const text = readFileSync(join(dir, name), 'utf8');
    for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      for (const line of m[2].split('\n')) {
        const fm = /^\s*\w+\s+(\S+)\s+`json:"([^"]*)"[^`]*protobuf:"[^"]*name=(\w+)/.exec(line);
        if (!fm) continue;
        goFields.set(`${pkg}.${m[1]}.${fm[3]}`, {
          pointer: fm[1].startsWith('*'),
          omitempty: fm[2].split(',').includes('omitempty'),
        });
      }
    }
  }
}
const keepZero = [];
for (const [fullName, type] of keep) {
  for (const field of type.fieldsArray) {
    if (field.repeated || field.map || field.resolvedType instanceof protobuf.Type) continue;
    const go = goFields.get(`${fullName.slice(1)}.${field.name}`);
    if (go && (go.pointer || !go.omitempty)) keepZero.push(`${fullName.slice(1)}.${field.name}`);
  }
}
keepZero.sort();

const target = 'packages/testing/src/protobuf/k8s_descriptor.ts';
writeFileSync(
  target,
  `// Generated by scripts/gen-k8s-protobuf.mjs from Kubernetes' generated.proto files
// (k8s.io/api and k8s.io/apimachinery); do not edit. ${keep.size} messages.
/** The protobufjs JSON descriptor of the Kubernetes messages the test API server speaks. */
export const K8S_PROTO_DESCRIPTOR = ${JSON.stringify(JSON.stringify(out))};

/**
 * Scalar fields (\`package.Message.field\`) whose zero value stays in JSON: Go pointers and
 * fields without \`omitempty\`. Every other scalar's zero (false, 0, "") is dropped.
 */
export const K8S_KEEP_ZERO_FIELDS: readonly string[] = ${JSON.stringify(keepZero)};
`,
);
console.log(
  `wrote ${target}: ${keep.size} messages, ${keepZero.length} scalar fields keep zeros (${goFields.size} Go fields read)`,
);

// ---------------------------------------------------------------- OpenAPI v3 schemas

const GROUPS = {
  core: '',
  apps: 'apps',
  autoscaling: 'autoscaling',
  batch: 'batch',
  coordination: 'coordination.k8s.io',
  events: 'events.k8s.io',
  networking: 'networking.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  authorization: 'authorization.k8s.io',
  authentication: 'authentication.k8s.io',
};
const INLINE = new Set([
  'k8s.io.api.core.v1.Probe.handler',
  'k8s.io.api.core.v1.Volume.volumeSource',
  'k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon',
]);
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const SPECIAL = {
  [`${META}.Time`]: { type: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}.FieldsV1`]: { type: 'object' },
  'k8s.io.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string' },
  'k8s.io.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
};

/** `k8s.io.api.core.v1.Pod` → `io.k8s.api.core.v1.Pod`, as kube-openapi names it. */
function schemaName(fullName) {
  return fullName.replace(/^\.?k8s\.io\./, 'io.k8s.');
}

// A field's description as kube-openapi publishes it: comment lines, minus tag lines
// (`+listType=map`, `+k8s:optional`, `+kubebuilder:default=…`: read as markers, never
// text), minus notes to Kubernetes' developers (lines from `---` on, and `TODO` lines),
// first paragraph only.
function parseComment(comment) {
  const markers = {};
  const lines = [];
  let developerNotes = false;
  for (const raw of (comment ?? '').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('+')) {
      const m = /^\+([\w.-]+)(?:=(.*))?$/.exec(line);
      if (m) (markers[m[1]] ??= []).push(m[2] ?? '');
      continue;
    }
    if (line === '---') developerNotes = true;
    if (developerNotes || /^TODO\b/.test(line)) continue;
    lines.push(line);
  }
  const paragraph =
    lines
      .join('\n')
      .trim()
      .split(/\n\s*\n/)[0] ?? '';
  return { description: paragraph.replace(/\s*\n\s*/g, ' ').trim(), markers };
}

function scalarSchema(field) {
  switch (field.type) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'double':
    case 'float':
      return { type: 'number', format: 'double' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    default:
      return {};
  }
}

function valueSchema(field) {
  if (field.resolvedType instanceof protobuf.Type) {
    return { $ref: `#/components/schemas/${schemaName(field.resolvedType.fullName.slice(1))}` };
  }
  return scalarSchema(field);
}

const schemas = {};
for (const [fullName0, type] of keep) {
  const fullName = fullName0.slice(1);
  const { description } = parseComment(type.comment);
  const special = SPECIAL[fullName];
  if (special) {
    schemas[schemaName(fullName)] = { description, ...special };
    continue;
  }
  const properties = {};
  const addFields = (t) => {
    for (const field of t.fieldsArray) {
      if (INLINE.has(`${t.fullName.slice(1)}.${field.name}`)) {
        addFields(field.resolvedType);
        continue;
      }
      const { description: d, markers } = parseComment(field.comment);
      let s;
      if (field.map) {
        s = { type: 'object', additionalProperties: valueSchema(field) };
      } else if (field.repeated) {
        s = { type: 'array', items: valueSchema(field) };
      } else {
        const v = valueSchema(field);
        s = v.$ref ? { allOf: [v] } : v;
      }
      if (d) s = { description: d, ...s };
      if (markers.listType) s['x-kubernetes-list-type'] = markers.listType[0];
      if (markers.listMapKey) s['x-kubernetes-list-map-keys'] = markers.listMapKey;
      if (markers.mapType) s['x-kubernetes-map-type'] = markers.mapType[0];
      if (markers.patchMergeKey) s['x-kubernetes-patch-merge-key'] = markers.patchMergeKey[0];
      if (markers.patchStrategy) s['x-kubernetes-patch-strategy'] = markers.patchStrategy[0];
      properties[field.name] = s;
    }
  };
  addFields(type);
  const schema = { description, type: 'object', properties };
  const m = /^k8s\.io\.api\.(\w+)\.(\w+)\.(\w+)$/.exec(fullName);
  if (m && roots.includes(fullName) && properties.metadata) {
    schema['x-kubernetes-group-version-kind'] = [
      { group: GROUPS[m[1]] ?? m[1], kind: m[3], version: m[2] },
    ];
  }
  schemas[schemaName(fullName)] = schema;
}
const schemaTarget = 'packages/testing/src/builtin_schemas.ts';
writeFileSync(
  schemaTarget,
  `// Generated by scripts/gen-k8s-protobuf.mjs from Kubernetes' generated.proto files
// (k8s.io/api and k8s.io/apimachinery); do not edit. ${Object.keys(schemas).length} schemas.
/** OpenAPI v3 component schemas of the built-in kinds, by kube-openapi name (JSON text). */
export const BUILTIN_OPENAPI_SCHEMAS = ${JSON.stringify(JSON.stringify(schemas))};
`,
);
console.log(`wrote ${schemaTarget}: ${Object.keys(schemas).length} schemas`);
