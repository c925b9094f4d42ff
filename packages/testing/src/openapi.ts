/**
 * OpenAPI v3 documents as kube-apiserver publishes them for kubectl: the `/openapi/v3`
 * index of group versions and, per group version, the paths of each resource with their
 * operations, the `x-kubernetes-group-version-kind` extension and the `fieldValidation`
 * parameter (kubectl then leaves field validation to the server), and component schemas:
 * the built-in kinds' (generated from Kubernetes' proto definitions, see
 * `scripts/gen-k8s-protobuf.mjs`) and each CRD version's `openAPIV3Schema`, with
 * `apiVersion`, `kind` and `metadata` (ObjectMeta) added as kube-apiserver adds them, and
 * every schema they reference. That is what `kubectl explain` reads.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { BUILTIN_API_PACKAGES } from './builtin_packages.js';
import { BUILTIN_OPENAPI_SCHEMAS } from './builtin_schemas.js';
import type { ResourceRegistry, ResourceType } from './registry/resource_registry.js';
import { KUBERNETES_VERSION } from './discovery.js';

type Schema = Record<string, unknown>;

let builtins: Record<string, Schema> | undefined;
function builtinSchemas(): Record<string, Schema> {
  builtins ??= JSON.parse(BUILTIN_OPENAPI_SCHEMAS) as Record<string, Schema>;
  return builtins;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The kube-openapi name of a kind: `io.k8s.api.core.v1.Pod`, `com.example.v1.Widget`. */
function schemaName(t: ResourceType, version: string): string {
  const pkg = BUILTIN_API_PACKAGES[t.group];
  if (t.crdName === undefined && pkg !== undefined) return `io.k8s.api.${pkg}.${version}.${t.kind}`;
  return `${t.group.split('.').reverse().join('.')}.${version}.${t.kind}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The schema of a CRD version, as kube-apiserver publishes it. */
function crdSchema(t: ResourceType, version: string, crd: UnstructuredObject): Schema | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const v = versions.find((x): x is Record<string, unknown> => isRecord(x) && x.name === version);
  const schema = v && isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
  if (!isRecord(schema)) return undefined;
  const out = structuredClone(schema);
  const properties = isRecord(out.properties) ? out.properties : {};
  out.properties = {
    apiVersion: {
      description:
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
      type: 'string',
    },
    kind: {
      description:
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.',
      type: 'string',
    },
    metadata: {
      description:
        "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
      allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
    },
    ...properties,
  };
  out['x-kubernetes-group-version-kind'] = [{ group: t.group, kind: t.kind, version }];
  return out;
}

/** Adds the schemas `schema` references (transitively) from the built-in set. */
function addReferenced(schema: unknown, into: Record<string, Schema>): void {
  if (Array.isArray(schema)) {
    for (const x of schema) addReferenced(x, into);
    return;
  }
  if (!isRecord(schema)) return;
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string') {
      const name = v.replace('#/components/schemas/', '');
      const found = builtinSchemas()[name];
      if (found && !(name in into)) {
        into[name] = found;
        addReferenced(found, into);
      }
    } else addReferenced(v, into);
  }
}

/** Finds the CRD object of a custom resource (by the CRD's name). */
export type CrdLookup = (crdName: string) => UnstructuredObject | undefined;

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** `/openapi/v3`: the index of group-version documents. */
export function openApiV3Index(registry: ResourceRegistry, hash: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of registry.groups()) {
    for (const v of versions) {
      const p = gvPath(group, v);
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
    }
  }
  return { paths };
}

function op(
  t: ResourceType,
  version: string,
  action: string,
  write: boolean,
): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [
    { name: 'pretty', in: 'query', schema: { type: 'string', uniqueItems: true } },
  ];
  if (write) {
    for (const name of ['dryRun', 'fieldManager', 'fieldValidation']) {
      parameters.push({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });
    }
  }
  return {
    operationId: `${action}${t.kind}`,
    parameters,
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: t.group, version, kind: t.kind },
  };
}

/** `/openapi/v3/{api/v1 | apis/group/version}`, or undefined when not served. */
export function openApiV3Document(
  registry: ResourceRegistry,
  group: string,
  version: string,
  crdLookup: CrdLookup = () => undefined,
): Record<string, unknown> | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, Schema> = {};
  for (const t of types) {
    const name = schemaName(t, version);
    let schema: Schema | undefined;
    if (t.crdName !== undefined) {
      const crd = crdLookup(t.crdName);
      schema = crd ? crdSchema(t, version, crd) : undefined;
    } else schema = builtinSchemas()[name];
    if (schema) {
      schemas[name] = schema;
      addReferenced(schema, schemas);
    }
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}`;
    if (t.virtual === true) {
      // A review is only ever created.
      paths[base] = { post: op(t, version, 'post', true) };
      continue;
    }
    paths[base] = {
      get: op(t, version, 'list', false),
      post: op(t, version, 'post', true),
      delete: op(t, version, 'deletecollection', false),
    };
    paths[`${base}/{name}`] = {
      get: op(t, version, 'get', false),
      put: op(t, version, 'put', true),
      patch: op(t, version, 'patch', true),
      delete: op(t, version, 'delete', false),
    };
    if (t.statusSubresource) {
      paths[`${base}/{name}/status`] = {
        get: op(t, version, 'get', false),
        put: op(t, version, 'put', true),
        patch: op(t, version, 'patch', true),
      };
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION },
    paths,
    components: { schemas },
  };
}
