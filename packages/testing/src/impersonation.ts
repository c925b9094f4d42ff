/**
 * User impersonation as kube-apiserver's filter does it (endpoints/filters/impersonation):
 * `Impersonate-User`, `Impersonate-Group` (repeatable), `Impersonate-Uid` and
 * `Impersonate-Extra-<key>` headers (what `kubectl --as`, `--as-group` and `--as-uid`
 * send) make the request act as another user, once the requester is allowed to
 * `impersonate` each of them: `users` (or, for `system:serviceaccount:<ns>:<name>`, that
 * `serviceaccounts` object), `groups`, `uids` and `userextras/<key>` in
 * `authentication.k8s.io`. The user acted as is in `system:authenticated` (or
 * `system:unauthenticated` for `system:anonymous`), and a ServiceAccount in its groups.
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Status } from 'kube-controller-kit';
import type { UserInfo } from './authentication.js';
import { ANONYMOUS, withAuthenticated } from './authentication.js';
import type { Attributes, Authorizer } from './authorization.js';
import { forbiddenStatus } from './authorization.js';
import { parseServiceAccountUsername, serviceAccountGroups } from './service_account_tokens.js';
import { failure } from './status.js';

const EXTRA_PREFIX = 'impersonate-extra-';

function values(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** What the headers of a request ask to impersonate; undefined when they ask nothing. */
export interface ImpersonationRequest {
  /** `Impersonate-User`. */
  user: string | undefined;
  /** `Impersonate-Group` values. */
  groups: string[];
  /** `Impersonate-Uid`. */
  uid: string | undefined;
  /** `Impersonate-Extra-<key>` values, keys percent-decoded and lowercased. */
  extra: Record<string, string[]>;
}

/** Reads the impersonation headers; undefined when there are none. */
export function impersonationHeaders(
  headers: IncomingHttpHeaders,
): ImpersonationRequest | undefined {
  const user = values(headers['impersonate-user'])[0];
  const groups = values(headers['impersonate-group']).flatMap((v) =>
    v.split(',').map((g) => g.trim()),
  );
  const uid = values(headers['impersonate-uid'])[0];
  // A Map, then own properties: keys like `constructor` or `__proto__` are keys like others.
  const extra = new Map<string, string[]>();
  let any = user !== undefined || groups.length > 0 || uid !== undefined;
  for (const [name, v] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    any = true;
    let key = name.slice(EXTRA_PREFIX.length);
    try {
      key = decodeURIComponent(key);
    } catch {
      // kept as sent
    }
    key = key.toLowerCase();
    extra.set(key, [
      ...(extra.get(key) ?? []),
      ...values(v).flatMap((x) => x.split(',').map((s) => s.trim())),
    ]);
  }
  return any ? { user, groups, uid, extra: Object.fromEntries(extra) } : undefined;
}

/**
 * The user a request acts as, or the Status to answer (403 when the requester may not
 * impersonate someone, 500 when it names groups, a uid or extras without a user).
 */
export function impersonate(
  requester: UserInfo,
  request: ImpersonationRequest,
  authorizer: Authorizer,
  path: string,
): { user: UserInfo } | { status: Status } {
  if (request.user === undefined || request.user === '') {
    return {
      status: failure(
        500,
        'InternalError',
        `Internal error occurred: requested impersonation of groups, uid or extra without impersonating a user (path ${JSON.stringify(path)})`,
      ),
    };
  }
  const base: Omit<Attributes, 'resource' | 'name' | 'group' | 'namespace' | 'subresource'> = {
    user: requester,
    verb: 'impersonate',
    resourceRequest: true,
    path,
    version: '',
  };
  const checks: Attributes[] = [];
  const sa = parseServiceAccountUsername(request.user);
  checks.push(
    sa !== undefined
      ? {
          ...base,
          group: '',
          resource: 'serviceaccounts',
          namespace: sa.namespace,
          name: sa.name,
          subresource: '',
        }
      : {
          ...base,
          group: '',
          resource: 'users',
          namespace: '',
          name: request.user,
          subresource: '',
        },
  );
  for (const g of request.groups) {
    checks.push({
      ...base,
      group: '',
      resource: 'groups',
      namespace: '',
      name: g,
      subresource: '',
    });
  }
  if (request.uid !== undefined) {
    checks.push({
      ...base,
      group: 'authentication.k8s.io',
      resource: 'uids',
      namespace: '',
      name: request.uid,
      subresource: '',
    });
  }
  for (const [key, vs] of Object.entries(request.extra)) {
    for (const v of vs) {
      checks.push({
        ...base,
        group: 'authentication.k8s.io',
        resource: 'userextras',
        namespace: '',
        name: v,
        subresource: key,
      });
    }
  }
  for (const a of checks) {
    const d = authorizer.authorize(a);
    if (!d.allowed) return { status: forbiddenStatus(a, d.reason) };
  }
  let groups = [...request.groups];
  if (sa !== undefined && groups.length === 0) groups = serviceAccountGroups(sa.namespace);
  if (request.user === ANONYMOUS.username) {
    if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  } else {
    groups = withAuthenticated(groups);
  }
  const user: UserInfo = { username: request.user, groups };
  if (request.uid !== undefined) user.uid = request.uid;
  if (Object.keys(request.extra).length > 0) user.extra = request.extra;
  return { user };
}
