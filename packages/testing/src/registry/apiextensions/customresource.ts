/**
 * Custom resources: one strategy for every CRD's objects, parameterised by the CRD, as
 * apiextensions-apiserver's `pkg/registry/customresource` — no unconditional update, no
 * create on update; the schema of the request's version (OpenAPI and CEL rules,
 * `x-kubernetes-*` list and embedded-resource rules) is its Validate and ValidateUpdate (a
 * status write checks the status, a scale write the whole object); the generic status and
 * generation rules (no status subresource: status counts as spec); read-time defaults;
 * server-side apply's types from the schema. Pruning and schema defaulting of a write stay
 * in the `schema` admission mutation (../../admission/schema_validation.ts), which runs after
 * the mutating webhooks, as kube-apiserver prunes and defaults their output.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { spec, str, versions } from '../../crd.js';
import type { CrdVersion } from '../../crd.js';
import { defaultOnRead, validateCustomResource } from '../../schema/index.js';
import type { StoredObject } from '../../storage.js';
import { fieldPathGetter, strategyOf } from '../kind.js';
import type {
  RegistryServices,
  ResourceType,
  ScaleSubresource,
  StrategyContext,
} from '../types.js';

/** The group and plural a CRD serves. */
export function customResourceNames(crd: UnstructuredObject): { group: string; resource: string } {
  const s = spec(crd);
  return { group: str(s.group), resource: str(s.names?.plural) };
}

/** The `scale` subresource of the storage version. */
function scaleOfVersion(v: CrdVersion | undefined): ScaleSubresource | undefined {
  const s = v?.subresources?.scale;
  if (s === null || typeof s !== 'object') return undefined;
  const { specReplicasPath, statusReplicasPath, labelSelectorPath } = s as Record<string, unknown>;
  if (typeof specReplicasPath !== 'string' || typeof statusReplicasPath !== 'string') {
    return undefined;
  }
  return {
    specReplicasPath,
    statusReplicasPath,
    ...(typeof labelSelectorPath === 'string' && { labelSelectorPath }),
  };
}

/** The schema causes of a custom resource at the request's version. */
function schemaCauses(
  services: RegistryServices,
  obj: UnstructuredObject,
  old: UnstructuredObject | undefined,
  ctx: StrategyContext,
): ReturnType<typeof validateCustomResource> {
  const crs = services.customResourceSchema(ctx.type, ctx.version);
  return crs === undefined
    ? []
    : validateCustomResource(crs, obj, old, { subresource: ctx.subresource });
}

/**
 * The resource a CRD serves, with the custom resource strategy. `services` gives the
 * compiled schemas (by the CRD's resourceVersion) to validation and read-time defaults.
 */
export function customResourceType(
  crd: UnstructuredObject,
  services: RegistryServices,
): ResourceType {
  const s = spec(crd);
  const vs = versions(crd).filter((v) => v.served !== false);
  const storage = vs.find((v) => v.storage === true);
  const ordered = [
    ...(storage ? [str(storage.name)] : []),
    ...vs.filter((v) => v !== storage).map((v) => str(v.name)),
  ];
  const kind = str(s.names?.kind);
  const fieldSelectors = new Map<string, ReturnType<typeof fieldPathGetter>>();
  for (const v of vs) {
    for (const f of v.selectableFields ?? []) {
      const p = str(f.jsonPath).replace(/^\./, '');
      if (p) fieldSelectors.set(p, fieldPathGetter(p));
    }
  }
  const shortNames = s.names?.shortNames;
  const categories = s.names?.categories;
  const type: ResourceType = {
    group: str(s.group),
    resource: str(s.names?.plural),
    kind,
    listKind: str(s.names?.listKind) || `${kind}List`,
    singular: str(s.names?.singular) || kind.toLowerCase(),
    shortNames: Array.isArray(shortNames) ? shortNames.map(str) : [],
    categories: Array.isArray(categories) ? categories.map(str) : [],
    namespaced: str(s.scope) === 'Namespaced',
    versions: ordered,
    statusSubresource: vs.some((v) => v.subresources?.status !== undefined),
    strategicMerge: false,
    fieldSelectors,
    nameRule: 'subdomain',
    tracksGeneration: true,
    crdName: crd.metadata?.name ?? '',
    strategy: strategyOf({
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      validate: (obj, ctx) => schemaCauses(services, obj, undefined, ctx),
      validateUpdate: (obj, old, ctx) => schemaCauses(services, obj, old, ctx),
    }),
    // A stored custom resource with its storage version's read-time defaults.
    readTransform: (stored: StoredObject): StoredObject => {
      const crs = services.customResourceSchema(type, type.versions[0] ?? '');
      const obj = crs === undefined ? undefined : defaultOnRead(crs, stored.obj);
      return obj === undefined ? stored : { ...stored, obj, json: JSON.stringify(obj) };
    },
  };
  const scale = scaleOfVersion(storage);
  if (scale !== undefined) type.scale = scale;
  return type;
}
