/**
 * RBAC's escalation and bind prevention, as kube-apiserver's RBAC storage applies it
 * (pkg/registry/rbac: role/policybased, rolebinding/policybased, validation): no one
 * grants, through a Role or ClusterRole they write or a binding they make, a permission
 * they do not hold themselves —
 *
 * - a Role or ClusterRole is written only if every one of its rules is covered by the
 *   writer's own rules (in the role's namespace), unless the writer may `escalate` that
 *   role;
 * - a RoleBinding or ClusterRoleBinding is written only if the writer holds every
 *   permission of the role it references, unless the writer may `bind` that role;
 * - a ClusterRole's `aggregationRule` may be set, changed or dropped only by a holder of
 *   every permission (it can gather anything);
 * - `system:masters` is exempt, and a write that only changes the garbage collector's
 *   fields (ownerReferences, finalizers) is not checked.
 *
 * The refusal is kube-apiserver's 403: `clusterroles.rbac.authorization.k8s.io "x" is
 * forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC
 * permissions not currently held:` and the missing rules, one a line.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { SYSTEM_MASTERS } from './authentication.js';
import type { UserInfo } from './authentication.js';
import type { Attributes, Authorizer } from './authorization.js';
import { RBAC_GROUP } from './rbac.js';
import type { PolicyRule, RoleRef, RuleResolver } from './rbac.js';
import type { AdmissionAttributes, ValidationInterface } from './admission/interfaces.js';
import { statusError } from './status.js';

function has(list: readonly string[] | undefined, v: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(v));
}

function resourceCovers(owner: readonly string[] | undefined, requested: string): boolean {
  if (has(owner, requested)) return true;
  const slash = requested.indexOf('/');
  if (slash < 0) return false;
  return owner !== undefined && owner.includes(`*${requested.slice(slash)}`);
}

function urlCovers(owner: readonly string[] | undefined, requested: string): boolean {
  for (const u of owner ?? []) {
    if (u === '*' || u === requested) return true;
    if (u.endsWith('*') && requested.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether an owner rule covers every permission of an atomic rule (kube's ruleCovers). */
function ruleCovers(owner: PolicyRule, atom: PolicyRule): boolean {
  if (!(atom.verbs ?? []).every((v) => has(owner.verbs, v))) return false;
  if ((atom.nonResourceURLs ?? []).length > 0) {
    return (atom.nonResourceURLs ?? []).every((u) => urlCovers(owner.nonResourceURLs, u));
  }
  if (!(atom.apiGroups ?? []).every((g) => has(owner.apiGroups, g))) return false;
  if (!(atom.resources ?? []).every((r) => resourceCovers(owner.resources, r))) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const names = atom.resourceNames ?? [];
  return names.length > 0 && names.every((n) => ownerNames.includes(n));
}

/** A rule broken down into one verb × group × resource × name each (kube's BreakdownRule). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs ?? []) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        if ((rule.resourceNames ?? []).length === 0) {
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        } else {
          for (const name of rule.resourceNames ?? []) {
            out.push({
              verbs: [verb],
              apiGroups: [group],
              resources: [resource],
              resourceNames: [name],
            });
          }
        }
      }
    }
    for (const url of rule.nonResourceURLs ?? [])
      out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

/** The atomic rules of `servant` that no rule of `owner` covers (kube's Covers). */
export function uncoveredRules(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of servant) {
    for (const atom of breakdown(rule)) {
      if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
    }
  }
  return missing;
}

/** Merges atomic rules that differ only in their verb (kube's CompactRules). */
function compact(rules: readonly PolicyRule[]): PolicyRule[] {
  const simple = new Map<string, PolicyRule>();
  const out: PolicyRule[] = [];
  for (const r of rules) {
    const isSimple =
      (r.resourceNames ?? []).length === 0 &&
      (r.nonResourceURLs ?? []).length === 0 &&
      (r.apiGroups ?? []).length === 1 &&
      (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups?.[0] ?? ''}\u0000${r.resources?.[0] ?? ''}`;
    const existing = simple.get(key);
    if (existing === undefined) {
      const copy: PolicyRule = {
        verbs: [...(r.verbs ?? [])],
        apiGroups: [...(r.apiGroups ?? [])],
        resources: [...(r.resources ?? [])],
      };
      simple.set(key, copy);
      out.push(copy);
    } else {
      for (const v of r.verbs ?? [])
        if (!(existing.verbs ?? []).includes(v)) existing.verbs?.push(v);
    }
  }
  return out;
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
function goQuoted(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** A rule as kube-apiserver prints a missing one (rbacv1helpers.CompactString). */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoted(r.apiGroups ?? [])}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoted(r.resources ?? [])}`);
  if ((r.nonResourceURLs ?? []).length > 0)
    parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs ?? [])}`);
  if ((r.resourceNames ?? []).length > 0)
    parts.push(`ResourceNames:${goQuoted(r.resourceNames ?? [])}`);
  if ((r.verbs ?? []).length > 0) parts.push(`Verbs:${goQuoted(r.verbs ?? [])}`);
  return `{${parts.join(', ')}}`;
}

/** Every permission (what `cluster-admin` grants). */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** Whether a ClusterRole has an aggregation rule with at least one selector. */
function hasAggregationRule(obj: UnstructuredObject): boolean {
  const rule = (obj as { aggregationRule?: { clusterRoleSelectors?: unknown[] } | null })
    .aggregationRule;
  return Array.isArray(rule?.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

const KINDS: Record<string, 'role' | 'binding'> = {
  roles: 'role',
  clusterroles: 'role',
  rolebindings: 'binding',
  clusterrolebindings: 'binding',
};

function rulesOf(obj: UnstructuredObject): PolicyRule[] {
  const rules = (obj as { rules?: unknown }).rules;
  return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
}

/** The object without the fields only the garbage collector's writes change. */
function withoutGcFields(obj: UnstructuredObject): string {
  const { metadata, ...rest } = obj;
  const {
    ownerReferences: _o,
    finalizers: _f,
    resourceVersion: _r,
    managedFields: _m,
    generation: _g,
    ...meta
  } = metadata ?? {};
  return JSON.stringify({ ...rest, metadata: meta });
}

/**
 * The admission plugin that refuses privilege escalation through RBAC objects (on the server
 * in `RBAC` mode). Writes without a requester (in-process seeding, the server's own
 * controllers) are not checked.
 */
export function escalationCheckPlugin(
  authorizer: Authorizer,
  resolver: RuleResolver,
): ValidationInterface {
  return {
    name: 'rbac-escalation',
    validate(ctx: AdmissionAttributes, obj: UnstructuredObject | undefined): void {
      const user = ctx.options.user;
      if (
        obj === undefined ||
        user === undefined ||
        ctx.type.group !== RBAC_GROUP ||
        ctx.subresource !== ''
      )
        return;
      const kind = KINDS[ctx.type.resource];
      if (kind === undefined || user.groups.includes(SYSTEM_MASTERS)) return;
      if (ctx.old !== undefined && withoutGcFields(ctx.old) === withoutGcFields(obj)) return;
      const namespace = ctx.type.namespaced ? (obj.metadata?.namespace ?? '') : '';
      const name = obj.metadata?.name ?? '';
      const attrs = (verb: string, resource: string, objectName: string): Attributes => ({
        user,
        verb,
        resourceRequest: true,
        path: '',
        group: RBAC_GROUP,
        version: 'v1',
        resource,
        subresource: '',
        namespace,
        name: objectName,
      });
      let granted: PolicyRule[];
      if (kind === 'role') {
        // The request's name, as kube-apiserver's RoleEscalationAuthorized reads it from the
        // request info: '' for a POST, the URL's for a PUT, PATCH or apply, even one that
        // creates the role.
        const requestName = ctx.operation === 'create' ? '' : ctx.name;
        if (authorizer.authorize(attrs('escalate', ctx.type.resource, requestName)).allowed) return;
        granted = rulesOf(obj);
      } else {
        const ref = (obj as { roleRef?: RoleRef }).roleRef;
        if (ref === undefined) return;
        const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
        if (authorizer.authorize(attrs('bind', refResource, ref.name)).allowed) return;
        const resolved = resolver.roleRefRules(ref, namespace);
        if ('error' in resolved) {
          throw statusError(
            404,
            'NotFound',
            `${refResource}.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found`,
            {
              name: ref.name,
              group: RBAC_GROUP,
              kind: refResource,
            },
          );
        }
        granted = resolved.rules;
      }
      refuseEscalation(user, resolver, namespace, granted, ctx.type.resource, name);
      // An aggregation rule can gather anything and prevent tightening: only a holder of
      // every permission may set, change or drop one.
      if (
        ctx.type.resource === 'clusterroles' &&
        (hasAggregationRule(obj) || (ctx.old !== undefined && hasAggregationRule(ctx.old))) &&
        uncoveredRules(resolver.rulesFor(user, '').rules, FULL_AUTHORITY).length > 0
      ) {
        throw statusError(
          403,
          'Forbidden',
          `clusterroles.${RBAC_GROUP} ${JSON.stringify(name)} is forbidden: must have cluster-admin privileges to use the aggregationRule`,
          { name, group: RBAC_GROUP, kind: 'clusterroles' },
        );
      }
      return;
    },
  };
}

function refuseEscalation(
  user: UserInfo,
  resolver: RuleResolver,
  namespace: string,
  granted: readonly PolicyRule[],
  resource: string,
  name: string,
): void {
  const own = resolver.rulesFor(user, namespace);
  const missing = uncoveredRules(own.rules, granted);
  if (missing.length === 0) return;
  const lines = [...new Set(compact(missing).map(compactString))].sort();
  let message = `user ${JSON.stringify(user.username)} (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (own.errors.length > 0) message += `; resolution errors: [${own.errors.join(' ')}]`;
  throw statusError(
    403,
    'Forbidden',
    `${resource}.${RBAC_GROUP} ${JSON.stringify(name)} is forbidden: ${message}`,
    {
      name,
      group: RBAC_GROUP,
      kind: resource,
    },
  );
}
