/**
 * CustomResourceDefinition handling: validation and the status the real server sets
 * (NamesAccepted and Established). The resource a CRD serves is
 * ./registry/apiextensions/customresource.ts's.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ruleCompilationCauses } from './schema/cel.js';

/** A version of a CRD's `spec.versions`, as read (every field unchecked). */
export interface CrdVersion {
  name?: unknown;
  served?: unknown;
  storage?: unknown;
  subresources?: { status?: unknown; scale?: unknown };
  selectableFields?: { jsonPath?: unknown }[];
}

/** A CRD's `spec`, as read (every field unchecked). */
export interface CrdSpec {
  group?: unknown;
  scope?: unknown;
  names?: {
    plural?: unknown;
    singular?: unknown;
    kind?: unknown;
    listKind?: unknown;
    shortNames?: unknown;
    categories?: unknown;
  };
  versions?: unknown;
}

/** A CRD's spec (`{}` when it has none). */
export function spec(crd: UnstructuredObject): CrdSpec {
  const s = crd.spec;
  return s !== null && typeof s === 'object' ? s : {};
}

/** A string, or `''`. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A CRD's versions (`[]` when it has none). */
export function versions(crd: UnstructuredObject): CrdVersion[] {
  const v = spec(crd).versions;
  return Array.isArray(v) ? (v as CrdVersion[]) : [];
}

/**
 * CEL rules that do not compile. kube-apiserver reports them under `spec.validation` when
 * every version has the same schema, else under each version's schema.
 */
function rulesThatDoNotCompile(vs: CrdVersion[]): StatusCause[] {
  const schemas = vs.map((v) => {
    const s = (v as { schema?: { openAPIV3Schema?: unknown } }).schema?.openAPIV3Schema;
    return s !== null && typeof s === 'object' ? s : undefined;
  });
  const first = schemas[0];
  const shared =
    first !== undefined && schemas.every((s) => JSON.stringify(s) === JSON.stringify(first));
  if (shared) return ruleCompilationCauses(first, 'spec.validation.openAPIV3Schema');
  return schemas.flatMap((s, i) =>
    s === undefined ? [] : ruleCompilationCauses(s, `spec.versions[${i}].schema.openAPIV3Schema`),
  );
}

/** Validation causes for a CRD (empty when valid). */
export function validateCrd(crd: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const s = spec(crd);
  const group = str(s.group);
  const plural = str(s.names?.plural);
  const kind = str(s.names?.kind);
  const req = (field: string): void => {
    causes.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
  };
  if (group === '') req('spec.group');
  else if (!group.includes('.')) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.group',
      message: `Invalid value: "${group}": should be a domain with at least one dot`,
    });
  }
  if (plural === '') req('spec.names.plural');
  if (kind === '') req('spec.names.kind');
  const scope = str(s.scope);
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: "${scope}": supported values: "Cluster", "Namespaced"`,
    });
  }
  const vs = versions(crd);
  if (vs.length === 0) req('spec.versions');
  if (vs.filter((v) => v.storage === true).length !== 1 && vs.length > 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.versions',
      message: 'Invalid value: must have exactly one version marked as storage version',
    });
  }
  causes.push(...rulesThatDoNotCompile(vs));
  const name = crd.metadata?.name ?? '';
  if (plural !== '' && group !== '' && name !== `${plural}.${group}`) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
    });
  }
  return causes;
}

/** Sets the status a real server's controllers set on an accepted CRD. */
export function withCrdStatus(crd: UnstructuredObject, now: string): UnstructuredObject {
  const s = spec(crd);
  const names = { ...(s.names ?? {}) } as Record<string, unknown>;
  names.singular ??= str(s.names?.kind).toLowerCase();
  names.listKind ??= `${str(s.names?.kind)}List`;
  const storage = versions(crd).find((v) => v.storage === true);
  const cond = (type: string, reason: string, message: string): Record<string, unknown> => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    ...crd,
    status: {
      conditions: [
        cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
        cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ],
      acceptedNames: names,
      storedVersions: storage ? [str(storage.name)] : [],
    },
  };
}
