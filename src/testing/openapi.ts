/**
 * Minimal OpenAPI v3 documents, enough for kubectl: the `/openapi/v3` index of group
 * versions and, per group version, the paths of each resource with their operations, the
 * `x-kubernetes-group-version-kind` extension and the `fieldValidation` parameter. That
 * tells kubectl the server validates fields itself, so it neither needs schemas nor falls
 * back to the protobuf OpenAPI v2 document. No schemas are served: kubectl then computes
 * apply patches from its compiled-in types (built-ins) or as merge patches (custom
 * resources).
 *
 * @module
 */
import type { ResourceRegistry, ResourceType } from './registry.js';

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
): Record<string, unknown> | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const t of types) {
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}`;
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
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}
