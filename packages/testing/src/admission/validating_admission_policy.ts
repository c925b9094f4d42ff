/**
 * The `ValidatingAdmissionPolicy` plugin: `admissionregistration.k8s.io/v1`
 * ValidatingAdmissionPolicies, put in force by their ValidatingAdmissionPolicyBindings,
 * as kube-apiserver evaluates them: the policy's `matchConstraints` and the binding's
 * `matchResources` (rules, excluded rules, resource names, namespace and object
 * selectors, the Equivalent match), `matchConditions`, `variables`, then each
 * `validations` CEL expression with `object`, `oldObject`, `request`, `namespaceObject`,
 * `variables` and `params` (always null: parameter resources are not supported). A failed
 * validation acts by the binding's `validationActions`: `Deny` refuses (reason Invalid,
 * 422, unless the validation names another), `Warn` adds a warning, `Audit` an audit
 * annotation. An expression that errs counts as a failure under `failurePolicy: Fail`.
 *
 * @module
 */
import type { LabelSelectorSpec, UnstructuredObject } from 'kube-controller-kit';
import { statusError } from '../status.js';
import type { VersionConverter } from './admission_review.js';
import { admissionRequest } from './admission_review.js';
import { celErrorText, evaluateCel, fromCel } from './cel.js';
import type { AdmissionAttributes, ValidationInterface } from './interfaces.js';
import type { MatchCondition, RuleWithOperations } from './webhook.js';
import {
  isExemptResource,
  matchingVersion,
  namespaceMatches,
  objectMatches,
  selectorMatches,
} from './webhook.js';

/** What the policy plugin reads. */
export interface PolicyPluginDeps {
  /** The stored ValidatingAdmissionPolicies. */
  policies(): UnstructuredObject[];
  /** The stored ValidatingAdmissionPolicyBindings. */
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

interface MatchResources {
  resourceRules?: NamedRule[];
  excludeResourceRules?: NamedRule[];
  namespaceSelector?: LabelSelectorSpec;
  objectSelector?: LabelSelectorSpec;
  matchPolicy?: string;
}

interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function spec(o: UnstructuredObject): Record<string, unknown> {
  return isObject(o.spec) ? o.spec : {};
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

function groupResource(attrs: AdmissionAttributes): string {
  const t = attrs.type;
  return t.group === '' ? t.resource : `${t.resource}.${t.group}`;
}

const CODES: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

/** The `ValidatingAdmissionPolicy` validation. */
export function validatingAdmissionPolicyPlugin(deps: PolicyPluginDeps): ValidationInterface {
  return {
    name: 'ValidatingAdmissionPolicy',
    validate(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (attrs.inProcess || isExemptResource(attrs.type)) return;
      const bindings = deps.bindings();
      if (bindings.length === 0) return;
      const policies = new Map<string, UnstructuredObject>();
      for (const p of deps.policies()) policies.set(p.metadata?.name ?? '', p);
      const sorted = [...bindings].sort((a, b) =>
        (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1,
      );
      for (const binding of sorted) evaluateBinding(binding, policies, attrs, obj, deps);
    },
  };
}

function evaluateBinding(
  binding: UnstructuredObject,
  policies: Map<string, UnstructuredObject>,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: PolicyPluginDeps,
): void {
  const bspec = spec(binding);
  const policyName = typeof bspec.policyName === 'string' ? bspec.policyName : '';
  const policy = policies.get(policyName);
  if (policy === undefined) return;
  const pspec = spec(policy);
  const constraints = isObject(pspec.matchConstraints)
    ? (pspec.matchConstraints as MatchResources)
    : {};
  const version = matchResources(constraints, attrs, obj, deps);
  if (version === undefined) return;
  if (isObject(bspec.matchResources)) {
    const m = bspec.matchResources as MatchResources;
    const hasRules = (m.resourceRules ?? []).length > 0;
    const scoped = hasRules ? m : { ...m, resourceRules: constraints.resourceRules ?? [] };
    if (matchResources(scoped, attrs, obj, deps) === undefined) {
      return;
    }
  }
  const failurePolicy = pspec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
  const actions = Array.isArray(bspec.validationActions)
    ? (bspec.validationActions as string[])
    : ['Deny'];
  const request = admissionRequest(attrs, obj, version, deps.convert);
  const base: Record<string, unknown> = {
    object: request.object,
    oldObject: request.oldObject,
    request,
    params: null,
    namespaceObject: attrs.namespace === '' ? null : (deps.namespace(attrs.namespace) ?? null),
  };
  const policyLabel = `ValidatingAdmissionPolicy '${policyName}' with binding '${binding.metadata?.name ?? ''}'`;
  const decide = (message: string, reason: string | undefined): void => {
    if (actions.includes('Warn')) {
      attrs.options.warnings?.push(`Validation failed for ${policyLabel}: ${message}`);
    }
    if (actions.includes('Audit')) {
      deps.recordAuditAnnotation(
        attrs,
        'validation.policy.admission.k8s.io/validation_failure',
        JSON.stringify([
          {
            message,
            policy: policyName,
            binding: binding.metadata?.name ?? '',
            expressionIndex: 0,
            validationActions: actions,
          },
        ]),
      );
    }
    if (!actions.includes('Deny')) return;
    const text = `${policyLabel} denied request: ${message}`;
    const r = reason ?? 'Invalid';
    throw statusError(
      CODES[r] ?? 422,
      r,
      `${groupResource(attrs)} "${attrs.name}" is forbidden: ${text}`,
      {
        name: attrs.name,
        group: attrs.type.group,
        kind: attrs.type.resource,
        causes: [{ message: text }],
      },
    );
  };
  const evaluateWith = (vars: Record<string, unknown>): void => {
    // matchConditions: any false skips; an error fails by the failure policy.
    const conditions = Array.isArray(pspec.matchConditions)
      ? (pspec.matchConditions as MatchCondition[])
      : [];
    for (const c of conditions) {
      let result: unknown;
      try {
        result = evaluateCel(c.expression, { ...vars, variables: {} });
      } catch (err) {
        if (failurePolicy === 'Ignore') return;
        decide(`failed to evaluate match condition "${c.name}": ${celErrorText(err)}`, undefined);
        return;
      }
      if (result !== true) return;
    }
    const variables: Record<string, unknown> = {};
    const defs = Array.isArray(pspec.variables) ? (pspec.variables as unknown[]) : [];
    for (const d of defs) {
      if (!isObject(d) || typeof d.name !== 'string' || typeof d.expression !== 'string') continue;
      try {
        variables[d.name] = fromCel(evaluateCel(d.expression, { ...vars, variables }));
      } catch (err) {
        if (failurePolicy === 'Ignore') return;
        decide(`expression '${d.expression}' resulted in error: ${celErrorText(err)}`, undefined);
        return;
      }
    }
    const validations = Array.isArray(pspec.validations) ? (pspec.validations as Validation[]) : [];
    for (const v of validations) {
      let ok: unknown;
      try {
        ok = evaluateCel(v.expression, { ...vars, variables });
        if (typeof ok !== 'boolean') throw new Error('no such overload');
      } catch (err) {
        if (failurePolicy === 'Ignore') continue;
        decide(`expression '${v.expression}' resulted in error: ${celErrorText(err)}`, undefined);
        continue;
      }
      if (ok) continue;
      let message =
        v.message !== undefined && v.message !== ''
          ? v.message
          : `failed expression: ${v.expression.trim()}`;
      if (v.messageExpression !== undefined && v.messageExpression !== '') {
        try {
          const m = evaluateCel(v.messageExpression, { ...vars, variables });
          if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m.trim();
        } catch {
          // kube-apiserver keeps the static message when messageExpression fails
        }
      }
      decide(message, v.reason);
    }
  };
  // The binding's parameters (policy/generic policy_dispatcher collectParams): each one
  // is evaluated with `params` bound to it; none found is a configuration error under
  // parameterNotFoundAction Deny (failing by the failure policy), a skip under Allow.
  let params: unknown[] = [null];
  if (isObject(pspec.paramKind)) {
    const found = collectParams(pspec.paramKind, bspec.paramRef, attrs, deps);
    if (typeof found === 'string') {
      if (failurePolicy === 'Ignore') return;
      decide(`failed to configure binding: ${found}`, undefined);
      return;
    }
    if (found.length === 0) return;
    params = found;
  }
  for (const param of params) evaluateWith({ ...base, params: param });
}

/**
 * The parameter objects of a binding, or the configuration error (a string) kube-apiserver
 * reports: by `paramRef.name` (one object) or `paramRef.selector` (every match), in
 * `paramRef.namespace`, else the request's namespace for a namespaced `paramKind`.
 */
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
  if (!isObject(paramRef)) return 'no paramRef in policy binding';
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
  } else if (isObject(paramRef.selector)) {
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
