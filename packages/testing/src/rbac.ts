/**
 * The RBAC authorizer of the test API server, with kube-apiserver's semantics
 * (plugin/pkg/auth/authorizer/rbac): a request is allowed when a rule of a role bound to
 * the user grants it — ClusterRoleBindings everywhere, RoleBindings (to a Role or a
 * ClusterRole) in their namespace. A rule grants a request when its verbs, API groups and
 * resources match (`*` matches all; `pods/log` names a subresource and `*\/scale` one
 * subresource of every resource), and its resourceNames (if any) name the object; a
 * rule's nonResourceURLs match a path exactly or, ending in `*`, as a prefix. A binding
 * to a role that does not exist grants nothing, and the refusal says so
 * (`RBAC: role.rbac.authorization.k8s.io "x" not found`).
 *
 * @module
 */
import type { UserInfo } from './authentication.js';
import type {
  Attributes,
  Authorizer,
  Decision,
  NonResourceRule,
  ResourceRule,
  SubjectRules,
} from './authorization.js';

/** The RBAC API group. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A rule of a Role or ClusterRole. */
export interface PolicyRule {
  /** Verbs (`*`: all). */
  verbs?: string[];
  /** API groups (`*`: all). */
  apiGroups?: string[];
  /** Resources, `resource/subresource`, `*` or `*\/subresource`. */
  resources?: string[];
  /** Object names (empty: all). */
  resourceNames?: string[];
  /** Non-resource paths. */
  nonResourceURLs?: string[];
}

/** A subject of a binding. */
export interface Subject {
  /** `User`, `Group` or `ServiceAccount`. */
  kind: string;
  /** The name. */
  name: string;
  /** The namespace of a ServiceAccount (default: the binding's). */
  namespace?: string;
  /** The API group (`rbac.authorization.k8s.io` for users and groups). */
  apiGroup?: string;
}

/** The role a binding grants. */
export interface RoleRef {
  /** `Role` or `ClusterRole`. */
  kind: string;
  /** The role's name. */
  name: string;
  /** Always `rbac.authorization.k8s.io`. */
  apiGroup?: string;
}

/** A RoleBinding or ClusterRoleBinding as stored. */
export interface Binding {
  /** Metadata. */
  metadata?: { name?: string; namespace?: string };
  /** Who is granted. */
  subjects?: Subject[];
  /** What is granted. */
  roleRef?: RoleRef;
}

/** A Role or ClusterRole as stored. */
export interface Role {
  /** Metadata. */
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  /** Its rules. */
  rules?: PolicyRule[] | null;
  /** A ClusterRole's aggregation rule. */
  aggregationRule?: { clusterRoleSelectors?: unknown[] };
}

/** Where the authorizer reads roles and bindings from (the server's storage). */
export interface PolicySource {
  /** Every ClusterRoleBinding. */
  clusterRoleBindings(): Binding[];
  /** The RoleBindings of a namespace. */
  roleBindings(namespace: string): Binding[];
  /** A ClusterRole by name. */
  clusterRole(name: string): Role | undefined;
  /** A Role by namespace and name. */
  role(namespace: string, name: string): Role | undefined;
}

function has(list: readonly string[] | undefined, v: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(v));
}

/** Whether a rule's verbs match. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, verb);
}

/** Whether a rule's resources match a resource and subresource (kube's ResourceMatches). */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Whether a rule's resourceNames allow a name (none listed: every name). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  if (rule.resourceNames === undefined || rule.resourceNames.length === 0) return true;
  return rule.resourceNames.includes(name);
}

/** Whether a rule's nonResourceURLs match a path. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether a rule grants a request (kube's RuleAllows). */
export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (a.resourceRequest) {
    return (
      verbMatches(rule, a.verb) &&
      has(rule.apiGroups, a.group) &&
      resourceMatches(rule, a.resource, a.subresource) &&
      resourceNameMatches(rule, a.name)
    );
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

/** Whether a subject of a binding (in `namespace`, '' for a ClusterRoleBinding) is the user. */
export function appliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns =
        subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : namespace;
      if (ns === '') return false;
      return user.username === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
    return `${s.kind} ${JSON.stringify(`${s.name}/${ns}`)}`;
  }
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** Called for each rule that applies to a user; returns false to stop. */
export type RuleVisitor = (
  source: string,
  rule: PolicyRule | undefined,
  err: string | undefined,
) => boolean;

/**
 * Resolves the rules of users from roles and bindings (kube's DefaultRuleResolver):
 * ClusterRoleBindings first, then (in a namespace) its RoleBindings.
 */
export class RuleResolver {
  readonly #source: PolicySource;

  constructor(source: PolicySource) {
    this.#source = source;
  }

  /** The rules a role reference grants in a namespace, or the error kube-apiserver reports. */
  roleRefRules(ref: RoleRef, namespace: string): { rules: PolicyRule[] } | { error: string } {
    if (ref.kind === 'Role') {
      const role = this.#source.role(namespace, ref.name);
      if (role === undefined)
        return { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
      return { rules: role.rules ?? [] };
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.#source.clusterRole(ref.name);
      if (role === undefined) {
        return {
          error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`,
        };
      }
      return { rules: role.rules ?? [] };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /** Visits every rule that applies to a user in a namespace ('' for cluster scope only). */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    const walk = (
      binding: Binding,
      ns: string,
      kind: 'ClusterRoleBinding' | 'RoleBinding',
    ): boolean => {
      const subject = (binding.subjects ?? []).find((s) => appliesTo(user, s, ns));
      if (subject === undefined || binding.roleRef === undefined) return true;
      const resolved = this.roleRefRules(binding.roleRef, ns);
      if ('error' in resolved) return visit('', undefined, resolved.error);
      const name = binding.metadata?.name ?? '';
      const source =
        kind === 'ClusterRoleBinding'
          ? `ClusterRoleBinding ${JSON.stringify(name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, '')}`
          : `RoleBinding ${JSON.stringify(`${name}/${ns}`)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, ns)}`;
      for (const rule of resolved.rules) if (!visit(source, rule, undefined)) return false;
      return true;
    };
    for (const b of this.#source.clusterRoleBindings()) {
      if (!walk(b, '', 'ClusterRoleBinding')) return;
    }
    if (namespace === '') return;
    for (const b of this.#source.roleBindings(namespace)) {
      if (!walk(b, namespace, 'RoleBinding')) return;
    }
  }

  /** Every rule that applies to a user in a namespace, and the resolution errors. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, err) => {
      if (rule !== undefined) rules.push(rule);
      if (err !== undefined) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}

/** `utilerrors.NewAggregate(errs).Error()`: one message, or `[a, b]`. */
export function aggregateErrors(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}

/** kube-apiserver's RBAC authorizer. */
export class RbacAuthorizer implements Authorizer {
  readonly #resolver: RuleResolver;

  constructor(source: PolicySource) {
    this.#resolver = new RuleResolver(source);
  }

  /** The rule resolver (for the escalation checks). */
  get resolver(): RuleResolver {
    return this.#resolver;
  }

  authorize(a: Attributes): Decision {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    this.#resolver.visitRulesFor(a.user, a.namespace, (source, rule, err) => {
      if (rule !== undefined && ruleAllows(a, rule)) {
        allowedBy = source;
        return false;
      }
      if (err !== undefined) errors.push(err);
      return true;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    const { rules, errors } = this.#resolver.rulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if ((r.nonResourceURLs ?? []).length > 0) {
        nonResourceRules.push({
          verbs: [...(r.verbs ?? [])],
          nonResourceURLs: [...(r.nonResourceURLs ?? [])],
        });
      } else {
        const rr: ResourceRule = {
          verbs: [...(r.verbs ?? [])],
          apiGroups: [...(r.apiGroups ?? [])],
          resources: [...(r.resources ?? [])],
        };
        if ((r.resourceNames ?? []).length > 0) rr.resourceNames = [...(r.resourceNames ?? [])];
        resourceRules.push(rr);
      }
    }
    const out: SubjectRules = { resourceRules, nonResourceRules, incomplete: errors.length > 0 };
    if (errors.length > 0) out.evaluationError = aggregateErrors(errors);
    return out;
  }
}
