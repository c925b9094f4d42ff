/**
 * What the two admission policy plugins (ValidatingAdmissionPolicy and
 * MutatingAdmissionPolicy) share, as kube-apiserver's `policy/generic` and
 * `policy/matching` packages share it: which bindings of which policies apply to a request
 * (the policy's `matchConstraints`, then the binding's `matchResources`: rules, excluded
 * rules, resource names, namespace and object selectors, the Equivalent match), the
 * parameters of a binding (`paramKind`/`paramRef`), the variables CEL sees, and the
 * policy's `matchConditions` and `variables`.
 *
 * @module
 */
import type { LabelSelectorSpec, UnstructuredObject } from 'kube-controller-kit';
import type { VersionConverter } from './admission_review.js';
import { admissionRequest } from './admission_review.js';
import { celErrorText, evaluateCel, fromCel } from './cel.js';
import type { AdmissionAttributes } from './interfaces.js';
import type { RuleWithOperations } from './rules.js';
import { matchingVersion } from './rules.js';
import type { MatchCondition } from './webhook.js';
import { namespaceMatches, objectMatches, selectorMatches } from './webhook.js';

/** What a policy plugin reads. */
export interface PolicyPluginDeps {
  /** The stored policies of the plugin's kind. */
  policies(): UnstructuredObject[];
  /** The stored bindings of the plugin's kind. */
  bindings(): UnstructuredObject[];
  /** A namespace object (undefined when absent). */
  namespace(name: string): UnstructuredObject | undefined;
  /** Expresses an object at a version. */
  convert: VersionConverter;
  /** Keeps an audit annotation of a request. */
  recordAuditAnnotation(attrs: AdmissionAttributes, key: string, value: string): void;
  /**
   * The parameter resources of a policy's `paramKind` (undefined when no served resource
   * has that apiVersion and kind): whether they are namespaced, and their objects in a
   * namespace (all namespaces when undefined).
   */
  paramResource?(
    apiVersion: string,
    kind: string,
  ): { namespaced: boolean; list(namespace: string | undefined): UnstructuredObject[] } | undefined;
}

interface NamedRule extends RuleWithOperations {
  resourceNames?: string[];
}

/** A policy's `matchConstraints` or a binding's `matchResources`. */
export interface MatchResources {
  /** The rules that select requests (with optional resource names). */
  resourceRules?: NamedRule[];
  /** The rules that exclude requests. */
  excludeResourceRules?: NamedRule[];
  /** Namespaces selected by their labels (`{}`: all). */
  namespaceSelector?: LabelSelectorSpec;
  /** Objects selected by their labels (`{}`: all). */
  objectSelector?: LabelSelectorSpec;
  /** `Equivalent` (default) or `Exact`. */
  matchPolicy?: string;
}

/** Whether a value is a JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object's `spec` (`{}` when it has none). */
export function specOf(o: UnstructuredObject): Record<string, unknown> {
  return isRecord(o.spec) ? o.spec : {};
}

function namedRulesMatch(
  rules: NamedRule[],
  attrs: AdmissionAttributes,
  equivalent: boolean,
): string | undefined {
  const applicable = rules.filter(
    (r) => (r.resourceNames ?? []).length === 0 || (r.resourceNames ?? []).includes(attrs.name),
  );
  return matchingVersion(applicable, attrs, equivalent);
}

/** Whether match resources select a request; the version matched, or undefined. */
function matchResources(
  m: MatchResources,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: PolicyPluginDeps,
): string | undefined {
  const ns = (n: string): Record<string, string> | undefined => deps.namespace(n)?.metadata?.labels;
  if (!namespaceMatches(m.namespaceSelector ?? {}, attrs, obj, ns)) return undefined;
  if (!objectMatches(m.objectSelector ?? {}, attrs, obj)) return undefined;
  const equivalent = m.matchPolicy !== 'Exact';
  if (namedRulesMatch(m.excludeResourceRules ?? [], attrs, equivalent) !== undefined) {
    return undefined;
  }
  return namedRulesMatch(m.resourceRules ?? [], attrs, equivalent);
}

/** `pods`, `deployments.apps`: the resource as kube-apiserver's messages name it. */
export function groupResource(attrs: AdmissionAttributes): string {
  const t = attrs.type;
  return t.group === '' ? t.resource : `${t.resource}.${t.group}`;
}

/** A binding whose policy exists, in the order kube-apiserver evaluates them. */
export interface PolicyBinding {
  /** The policy. */
  policy: UnstructuredObject;
  /** The binding. */
  binding: UnstructuredObject;
  /** The policy's spec. */
  pspec: Record<string, unknown>;
  /** The binding's spec. */
  bspec: Record<string, unknown>;
  /** The policy's name. */
  policyName: string;
  /** The binding's name. */
  bindingName: string;
  /** `Fail` (default) or `Ignore`. */
  failurePolicy: 'Fail' | 'Ignore';
}

const byName = (a: UnstructuredObject, b: UnstructuredObject): number => {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The bindings whose `policyName` names an existing policy, sorted by binding name
 * (`byPolicy`: by policy name, then binding name). A binding without its policy does
 * nothing (kube-apiserver: the binding waits for its policy).
 */
export function policyBindings(deps: PolicyPluginDeps, byPolicy = false): PolicyBinding[] {
  const bindings = deps.bindings();
  if (bindings.length === 0) return [];
  const policies = new Map<string, UnstructuredObject>();
  for (const p of deps.policies()) policies.set(p.metadata?.name ?? '', p);
  const out: PolicyBinding[] = [];
  for (const binding of [...bindings].sort(byName)) {
    const bspec = specOf(binding);
    const policyName = typeof bspec.policyName === 'string' ? bspec.policyName : '';
    const policy = policies.get(policyName);
    if (policy === undefined) continue;
    const pspec = specOf(policy);
    out.push({
      policy,
      binding,
      pspec,
      bspec,
      policyName,
      bindingName: binding.metadata?.name ?? '',
      failurePolicy: pspec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    });
  }
  if (byPolicy) out.sort((a, b) => byName(a.policy, b.policy));
  return out;
}

/**
 * The version at which a binding applies to a request (the policy's `matchConstraints`,
 * then the binding's `matchResources`, whose rules default to the policy's), or undefined.
 */
export function bindingMatches(
  pb: PolicyBinding,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: PolicyPluginDeps,
): string | undefined {
  const constraints = isRecord(pb.pspec.matchConstraints)
    ? (pb.pspec.matchConstraints as MatchResources)
    : {};
  const version = matchResources(constraints, attrs, obj, deps);
  if (version === undefined) return undefined;
  if (isRecord(pb.bspec.matchResources)) {
    const m = pb.bspec.matchResources as MatchResources;
    const hasRules = (m.resourceRules ?? []).length > 0;
    const scoped = hasRules ? m : { ...m, resourceRules: constraints.resourceRules ?? [] };
    if (matchResources(scoped, attrs, obj, deps) === undefined) return undefined;
  }
  return version;
}

/**
 * The variables every policy expression sees: `object`, `oldObject`, `request`,
 * `namespaceObject` and `params` (null until a parameter is bound).
 */
export function policyVariables(
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  version: string,
  deps: PolicyPluginDeps,
): Record<string, unknown> {
  const request = admissionRequest(attrs, obj, version, deps.convert);
  return {
    object: request.object,
    oldObject: request.oldObject,
    request,
    params: null,
    namespaceObject: attrs.namespace === '' ? null : (deps.namespace(attrs.namespace) ?? null),
  };
}

/**
 * The parameter objects of a binding (`[null]` for a policy without `paramKind`), or the
 * configuration error kube-apiserver reports (`failed to configure binding: …`): by
 * `paramRef.name` (one object) or `paramRef.selector` (every match), in
 * `paramRef.namespace`, else the request's namespace for a namespaced `paramKind`. An
 * empty list means none was found under `parameterNotFoundAction: Allow` (skip).
 */
export function bindingParams(
  pb: PolicyBinding,
  attrs: AdmissionAttributes,
  deps: PolicyPluginDeps,
): unknown[] | string {
  if (!isRecord(pb.pspec.paramKind)) return [null];
  const found = collectParams(pb.pspec.paramKind, pb.bspec.paramRef, attrs, deps);
  return typeof found === 'string' ? `failed to configure binding: ${found}` : found;
}

function collectParams(
  paramKind: Record<string, unknown>,
  paramRef: unknown,
  attrs: AdmissionAttributes,
  deps: PolicyPluginDeps,
): unknown[] | string {
  const apiVersion = typeof paramKind.apiVersion === 'string' ? paramKind.apiVersion : '';
  const kind = typeof paramKind.kind === 'string' ? paramKind.kind : '';
  const resource = deps.paramResource?.(apiVersion, kind);
  if (resource === undefined) {
    return `failed to find resource referenced by paramKind: '${apiVersion}, Kind=${kind}'`;
  }
  if (!isRecord(paramRef)) return 'no paramRef in policy binding';
  let namespace: string | undefined;
  if (resource.namespaced) {
    namespace = typeof paramRef.namespace === 'string' ? paramRef.namespace : '';
    if (namespace === '') namespace = attrs.namespace;
    if (namespace === '') {
      return 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources';
    }
  }
  let found: UnstructuredObject[];
  if (typeof paramRef.name === 'string' && paramRef.name !== '') {
    const name = paramRef.name;
    found = resource.list(namespace).filter((o) => o.metadata?.name === name);
  } else if (isRecord(paramRef.selector)) {
    const selector = paramRef.selector as LabelSelectorSpec;
    found = resource.list(namespace).filter((o) => selectorMatches(selector, o.metadata?.labels));
  } else {
    return 'one of name or selector must be provided';
  }
  if (found.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    return 'no params found for policy binding with `Deny` parameterNotFoundAction';
  }
  return found;
}

/** What a policy's `matchConditions` and `variables` decided for one parameter. */
export type Preamble =
  | { kind: 'skip' }
  | { kind: 'error'; message: string }
  | { kind: 'ok'; variables: Record<string, unknown> };

/**
 * Evaluates a policy's `matchConditions` (any false skips the policy) and its
 * `variables` (each sees the ones before it) with the given bindings. An error is
 * returned in kube-apiserver's words for the caller to fail by the failure policy.
 */
export function evaluatePreamble(
  pspec: Record<string, unknown>,
  vars: Record<string, unknown>,
): Preamble {
  const conditions = Array.isArray(pspec.matchConditions)
    ? (pspec.matchConditions as MatchCondition[])
    : [];
  for (const c of conditions) {
    let result: unknown;
    try {
      result = evaluateCel(c.expression, { ...vars, variables: {} });
    } catch (err) {
      return {
        kind: 'error',
        message: `failed to evaluate match condition "${c.name}": ${celErrorText(err)}`,
      };
    }
    if (result !== true) return { kind: 'skip' };
  }
  const variables: Record<string, unknown> = {};
  const defs = Array.isArray(pspec.variables) ? (pspec.variables as unknown[]) : [];
  for (const d of defs) {
    if (!isRecord(d) || typeof d.name !== 'string' || typeof d.expression !== 'string') continue;
    try {
      variables[d.name] = fromCel(evaluateCel(d.expression, { ...vars, variables }));
    } catch (err) {
      return {
        kind: 'error',
        message: `expression '${d.expression}' resulted in error: ${celErrorText(err)}`,
      };
    }
  }
  return { kind: 'ok', variables };
}
