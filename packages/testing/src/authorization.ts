/**
 * Authorization in the test API server, as kube-apiserver's `--authorization-mode`:
 * every request is described by its attributes (who, which verb, on which resource or
 * path; read from the request as kube-apiserver's request-info resolver reads it, before
 * any routing), then asked of the authorizer. `system:masters` is always allowed (the
 * privileged-group authorizer kube-apiserver puts first); then `AlwaysAllow` allows
 * everything, and `RBAC` allows what a Role or ClusterRole bound to the user grants
 * (./rbac.ts). A refusal is the 403 kube-apiserver answers, in its words.
 *
 * @module
 */
import type { Status } from 'kube-controller-kit';
import type { UserInfo } from './authentication.js';
import { SYSTEM_MASTERS } from './authentication.js';
import { failure } from './status.js';

/** How the server authorizes requests (kube-apiserver's `--authorization-mode`). */
export type AuthorizationMode = 'AlwaysAllow' | 'RBAC';

/** What a request asks to do (kube-apiserver's authorizer.Attributes). */
export interface Attributes {
  /** Who asks. */
  user: UserInfo;
  /** The verb: get, list, watch, create, update, patch, delete, deletecollection, impersonate, … (lowercase HTTP method for a path). */
  verb: string;
  /** True for an API resource, false for a non-resource path. */
  resourceRequest: boolean;
  /** The URL path (non-resource requests). */
  path: string;
  /** API group ('' for core). */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name. */
  resource: string;
  /** Subresource ('' when none). */
  subresource: string;
  /** Namespace ('' for cluster scope). */
  namespace: string;
  /** Object name ('' when none). */
  name: string;
}

/** An authorizer's answer. */
export interface Decision {
  /** Whether the request may go on. */
  allowed: boolean;
  /** Why (e.g. `RBAC: allowed by …`, or the rule resolution errors on a refusal). */
  reason: string;
}

/** A rule about resources, as a SelfSubjectRulesReview lists it. */
export interface ResourceRule {
  /** Verbs. */
  verbs: string[];
  /** API groups. */
  apiGroups: string[];
  /** Resources. */
  resources: string[];
  /** Object names (absent: all). */
  resourceNames?: string[];
}

/** A rule about non-resource paths. */
export interface NonResourceRule {
  /** Verbs. */
  verbs: string[];
  /** Paths (a trailing `*` matches a prefix). */
  nonResourceURLs: string[];
}

/** What a user may do in a namespace (a SelfSubjectRulesReview's status). */
export interface SubjectRules {
  /** Rules about resources. */
  resourceRules: ResourceRule[];
  /** Rules about paths. */
  nonResourceRules: NonResourceRule[];
  /** Whether the list may miss some rules. */
  incomplete: boolean;
  /** Errors while resolving rules (e.g. a binding to a missing role). */
  evaluationError?: string;
}

/** Decides requests, and lists what a user may do. */
export interface Authorizer {
  /** The decision on a request. */
  authorize(a: Attributes): Decision;
  /** The rules that apply to a user in a namespace. */
  rulesFor(user: UserInfo, namespace: string): SubjectRules;
}

const EVERYTHING: SubjectRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

/** kube-apiserver's `AlwaysAllow` mode. */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => structuredClone(EVERYTHING),
};

/**
 * The server's authorizer: `system:masters` first (always allowed), then the mode's
 * authorizer.
 */
export function withPrivilegedGroup(mode: Authorizer): Authorizer {
  return {
    authorize(a) {
      if (a.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
      return mode.authorize(a);
    },
    rulesFor(user, namespace) {
      if (user.groups.includes(SYSTEM_MASTERS)) return structuredClone(EVERYTHING);
      return mode.rulesFor(user, namespace);
    },
  };
}

/** The resource part of a message: `pods`, `pods/log`. */
function resourceWithSub(a: Attributes): string {
  return a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
}

/**
 * The reason of a 403 as kube-apiserver words it (responsewriters' forbiddenMessage):
 * `User "u" cannot list resource "pods" in API group "" in the namespace "default"`,
 * `… at the cluster scope`, or `User "u" cannot get path "/metrics"`.
 */
export function forbiddenMessage(a: Attributes): string {
  const user = JSON.stringify(a.user.username);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const what = `User ${user} cannot ${a.verb} resource ${JSON.stringify(resourceWithSub(a))} in API group ${JSON.stringify(a.group)}`;
  return a.namespace !== ''
    ? `${what} in the namespace ${JSON.stringify(a.namespace)}`
    : `${what} at the cluster scope`;
}

/**
 * The 403 Status of a refused request: `pods is forbidden: …`, `pods "web" is forbidden:
 * …`, `forbidden: …` for a path, with the authorizer's reason appended after `: `.
 */
export function forbiddenStatus(a: Attributes, reason: string): Status {
  let message = forbiddenMessage(a);
  if (reason !== '') message = `${message}: ${reason}`;
  const qualified =
    a.resource === '' ? '' : a.group === '' ? a.resource : `${a.resource}.${a.group}`;
  const full =
    qualified === ''
      ? `forbidden: ${message}`
      : a.name === ''
        ? `${qualified} is forbidden: ${message}`
        : `${qualified} ${JSON.stringify(a.name)} is forbidden: ${message}`;
  // StatusDetails' fields are omitted when empty, as in kube-apiserver's JSON.
  const details: NonNullable<Status['details']> = {};
  if (a.name !== '') details.name = a.name;
  if (a.group !== '') details.group = a.group;
  if (a.resource !== '') details.kind = a.resource;
  return failure(403, 'Forbidden', full, details);
}

/** A path segment kube-apiserver accepts as an object name (path.IsValidPathSegmentName). */
function validPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

/** The name a `fieldSelector` pins with `metadata.name=x` (or `==`), if any. */
function fieldSelectorName(selector: string | null): string | undefined {
  if (selector === null || selector === '') return undefined;
  let found: string | undefined;
  for (const term of selector.split(',')) {
    const m = /^\s*metadata\.name\s*(==|=)\s*(.*?)\s*$/.exec(term);
    if (m) found = m[2];
  }
  return found;
}

/**
 * The attributes of a request, read from its method, path and query as kube-apiserver's
 * request-info resolver reads them (independently of which resources exist):
 * `/api/v1/…` and `/apis/<group>/<version>/…` are resource requests (verb from the method,
 * `list`/`watch` for a GET without a name, `deletecollection` for a DELETE without one, a
 * `metadata.name` field selector naming the object); anything else is a path.
 */
export function requestAttributes(
  user: UserInfo,
  method: string,
  path: string,
  query: URLSearchParams,
): Attributes {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  const segments = trimmed === '' ? [] : trimmed.split('/');
  const a: Attributes = {
    user,
    verb: method.toLowerCase(),
    resourceRequest: false,
    path,
    group: '',
    version: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  let parts = [...segments];
  if (parts.length < 3) return a;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return a;
  parts = parts.slice(1);
  let group = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return a;
    group = parts[0] ?? '';
    parts = parts.slice(1);
  }
  const version = parts[0] ?? '';
  parts = parts.slice(1);
  let verb: string;
  if (parts[0] === 'watch' || parts[0] === 'proxy') {
    if (parts.length < 2) return a;
    verb = parts[0];
    parts = parts.slice(1);
  } else {
    switch (method) {
      case 'POST':
        verb = 'create';
        break;
      case 'GET':
      case 'HEAD':
        verb = 'get';
        break;
      case 'PUT':
        verb = 'update';
        break;
      case 'PATCH':
        verb = 'patch';
        break;
      case 'DELETE':
        verb = 'delete';
        break;
      default:
        verb = '';
    }
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1] ?? '';
    if (parts.length > 2 && parts[2] !== 'status' && parts[2] !== 'finalize') {
      parts = parts.slice(2);
    }
  }
  let resource = parts[0] ?? '';
  let name = '';
  let subresource = '';
  if (parts.length >= 3 && verb !== 'proxy') subresource = parts[2] ?? '';
  if (parts.length >= 2) name = parts[1] ?? '';
  resource = parts[0] ?? resource;
  if (name === '' && verb === 'get') {
    const watch = query.get('watch');
    verb = watch === 'true' || watch === '1' ? 'watch' : 'list';
    const pinned = fieldSelectorName(query.get('fieldSelector'));
    if (pinned !== undefined && validPathSegmentName(pinned)) name = pinned;
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return {
    ...a,
    verb,
    resourceRequest: true,
    group,
    version,
    resource,
    subresource,
    namespace,
    name,
  };
}
