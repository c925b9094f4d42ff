/**
 * A built-in kind as its file states it ({@link KindDefinition}) and as the server serves it
 * ({@link ResourceType}): {@link resourceTypeOf} fills what the file leaves out — kube-apiserver's
 * defaults for a kind (version v1, `<Kind>List`, a subdomain name, strategic merge) and the
 * generic strategy (./generic.ts) under the kind's own steps.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { generic } from './generic.js';
import type {
  FieldGetter,
  KindDefinition,
  ResourceStrategy,
  ResourceType,
  ScaleSubresource,
} from './types.js';

/** Reads a dotted path (`spec.nodeName`) from an object as a string. */
export function fieldPathGetter(path: string): FieldGetter {
  const parts = path.split('.');
  return (obj: UnstructuredObject) => {
    let cur: unknown = obj;
    for (const p of parts) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === 'string' ? cur : JSON.stringify(cur);
  };
}

/** The `scale` subresource of the workloads: `.spec.replicas` and `.status.replicas`. */
export const REPLICAS_SCALE: ScaleSubresource = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
};

/** A kind's definition, as written in its file (typed, nothing filled in yet). */
export function defineKind(def: KindDefinition): KindDefinition {
  return def;
}

/** The generic strategy with a kind's own steps over it. */
export function strategyOf(own: Partial<ResourceStrategy> | undefined): ResourceStrategy {
  return own === undefined ? generic : { ...generic, ...own };
}

/** The resource a built-in kind serves: a fresh object (field selectors may be added per server). */
export function resourceTypeOf(def: KindDefinition): ResourceType {
  const type: ResourceType = {
    group: def.group,
    resource: def.resource,
    kind: def.kind,
    listKind: def.listKind ?? `${def.kind}List`,
    singular: def.singular ?? def.kind.toLowerCase(),
    shortNames: [...(def.shortNames ?? [])],
    categories: [...(def.categories ?? [])],
    namespaced: def.namespaced,
    versions: [...(def.versions ?? ['v1'])],
    statusSubresource: def.statusSubresource ?? false,
    strategicMerge: def.strategicMerge ?? true,
    fieldSelectors: new Map((def.fieldSelectors ?? []).map((p) => [p, fieldPathGetter(p)])),
    nameRule: def.nameRule ?? 'subdomain',
    tracksGeneration: def.tracksGeneration ?? false,
    strategy: strategyOf(def.strategy),
  };
  if (def.printers !== undefined) type.printers = def.printers;
  if (def.mergeType !== undefined) type.mergeType = def.mergeType;
  if (def.scale !== undefined) type.scale = { ...def.scale };
  if (def.virtual === true) type.virtual = true;
  if (def.convert !== undefined) type.convert = def.convert;
  if (def.verbs !== undefined) type.verbs = [...def.verbs];
  return type;
}
