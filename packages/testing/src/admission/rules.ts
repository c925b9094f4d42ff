/**
 * The rule matcher every admission webhook and policy shares (kube-apiserver's
 * `admission/plugin/webhook/predicates/rules`): whether one `RuleWithOperations` selects a
 * request, by scope, operation, group, version and resource, and the version a set of
 * rules matches a request at (its own, or with `matchPolicy: Equivalent` another served
 * version of the same resource). Mutating and validating webhooks, ValidatingAdmissionPolicy
 * `matchConstraints` and bindings' `matchResources` (`resourceRules` and
 * `excludeResourceRules`) all ask it: webhooks through {@link matchingVersion}, policies
 * (whose rules may name objects) through {@link namedRulesMatch}.
 *
 * A resource entry is `resource` or `resource/subresource`, each side `*` for any:
 *
 * | entry         | main resource | its subresources |
 * | ------------- | ------------- | ---------------- |
 * | `pods`        | yes           | no               |
 * | `pods/*`      | yes           | all              |
 * | `pods/status` | no            | `status` only    |
 * | `*`           | every one     | no               |
 * | `*` + `/scale`| no            | `scale` of any   |
 * | `*` + `/*`    | every one     | all              |
 *
 * A subresource `*` matches any subresource **including none**: `configmaps/*` selects
 * writes to `configmaps` themselves (kube-apiserver's own test "r & subresources").
 *
 * @module
 */
import type { AdmissionAttributes } from './interfaces.js';
import { admissionOperation } from './interfaces.js';

/** One rule of a webhook or policy (`RuleWithOperations`). */
export interface RuleWithOperations {
  /** CREATE, UPDATE, DELETE, CONNECT or `*`. */
  operations?: string[];
  /** API groups (`''` is core; `*` all). */
  apiGroups?: string[];
  /** API versions (`*` all). */
  apiVersions?: string[];
  /** Resources: `pods`, `pods/status`, `*` (main resources), `pods/*`, `*` slash `scale`, `*` slash `*`. */
  resources?: string[];
  /** `Cluster`, `Namespaced` or `*` (default). */
  scope?: string;
}

/** What a rule is checked against (the request's attributes). */
export interface RuleTarget {
  /** CREATE, UPDATE, DELETE, CONNECT. */
  operation: string;
  /** The resource's group. */
  group: string;
  /** The version asked (or an equivalent one). */
  version: string;
  /** The plural resource name. */
  resource: string;
  /** The subresource ('' for the main resource). */
  subresource: string;
  /** The request's namespace ('' for a cluster-scoped object; a Namespace's own name for a Namespace). */
  namespace: string;
}

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  return (items ?? []).some((x) => x === '*' || x === requested);
}

function isNamespaceResource(t: RuleTarget): boolean {
  return t.group === '' && t.resource === 'namespaces';
}

/**
 * The rule's scope against the request: `Namespaced` selects requests in a namespace
 * (never a Namespace itself), `Cluster` requests outside any namespace and Namespaces
 * (whose requests carry their own name as namespace), `*` or none both.
 */
function scopeMatches(rule: RuleWithOperations, t: RuleTarget): boolean {
  switch (rule.scope ?? '*') {
    case '*':
      return true;
    case 'Namespaced':
      return !isNamespaceResource(t) && t.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(t) || t.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(items: readonly string[] | undefined, t: RuleTarget): boolean {
  for (const entry of items ?? []) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === t.resource) && (sub === '*' || sub === t.subresource)) return true;
  }
  return false;
}

/** Whether a rule selects a request (kube-apiserver's `rules.Matcher.Matches`). */
export function ruleMatches(rule: RuleWithOperations, t: RuleTarget): boolean {
  return (
    scopeMatches(rule, t) &&
    exactOrWildcard(rule.operations, t.operation) &&
    exactOrWildcard(rule.apiGroups, t.group) &&
    exactOrWildcard(rule.apiVersions, t.version) &&
    resourceMatches(rule.resources, t)
  );
}

/**
 * The version a set of rules matches a request at: the request's own version, or (with
 * `matchPolicy: Equivalent`) another served version of the same resource; undefined when
 * none matches.
 */
export function matchingVersion(
  rules: readonly RuleWithOperations[],
  attrs: AdmissionAttributes,
  equivalent: boolean,
): string | undefined {
  const base: RuleTarget = {
    operation: admissionOperation(attrs),
    group: attrs.type.group,
    version: attrs.version,
    resource: attrs.type.resource,
    subresource: attrs.subresource,
    namespace: attrs.namespace,
  };
  if (rules.some((r) => ruleMatches(r, base))) return attrs.version;
  if (!equivalent) return undefined;
  for (const v of attrs.type.versions) {
    if (v === attrs.version) continue;
    if (rules.some((r) => ruleMatches(r, { ...base, version: v }))) return v;
  }
  return undefined;
}

/** A policy's rule (`NamedRuleWithOperations`): a rule that may also name the objects it selects. */
export interface NamedRuleWithOperations extends RuleWithOperations {
  /** Object names the rule selects; empty or absent selects every name. */
  resourceNames?: string[];
}

/**
 * The version a policy's rules (`matchConstraints.resourceRules`, a binding's
 * `matchResources.resourceRules` or `excludeResourceRules`) match a request at, as
 * {@link matchingVersion}, counting only rules whose `resourceNames` is empty or holds the
 * request's object name; undefined when none matches.
 */
export function namedRulesMatch(
  rules: readonly NamedRuleWithOperations[],
  attrs: AdmissionAttributes,
  equivalent: boolean,
): string | undefined {
  const applicable = rules.filter(
    (r) => (r.resourceNames ?? []).length === 0 || (r.resourceNames ?? []).includes(attrs.name),
  );
  return matchingVersion(applicable, attrs, equivalent);
}
