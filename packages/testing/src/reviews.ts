/**
 * The review resources of the test API server: `authorization.k8s.io/v1`
 * SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview and
 * SelfSubjectRulesReview, and `authentication.k8s.io/v1` SelfSubjectReview and
 * TokenReview. Like kube-apiserver's, they are create-only and never stored: a POST is
 * checked and answered with the same object, its `status` filled in.
 *
 * Access reviews are answered by the server's authorizer (./authorization.ts), with the
 * decision and reason a request with the same attributes would get: everything under
 * `AlwaysAllow`, the bound roles' rules under `RBAC`. A rules review lists what the
 * authorizer resolves for the user; a TokenReview authenticates its token as a request's
 * would be. The checks are the ones kube-apiserver makes before asking its authorizer,
 * worded as it words them (the `/version` this server reports).
 *
 * @module
 */
import type { ApiError, StatusCause, UnstructuredObject } from 'kube-controller-kit';
import type { UserInfo } from './authentication.js';
import type { Attributes, Authorizer } from './authorization.js';
import type { ResourceType } from './registry/resource_registry.js';
import { badRequest, statusError } from './status.js';

/** What a review is answered from besides its body. */
export interface ReviewContext {
  /** The namespace in the request path ('' for cluster-scoped reviews). */
  namespace: string;
  /** Who sent the request. */
  user: UserInfo;
  /** The user a TokenReview's token stands for, if the server accepts the token. */
  tokenUser(token: string, audiences?: readonly string[]): UserInfo | undefined;
  /** The server's authorizer. */
  authorizer: Authorizer;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A 422 as kube-apiserver's review endpoints answer it: the Kind is empty there. */
function invalidReview(group: string, causes: StatusCause[]): ApiError {
  const list = causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
  const summary = list.length === 1 ? (list[0] ?? '') : `[${list.join(', ')}]`;
  // The decoded internal object has no TypeMeta, so kube-apiserver's message starts
  // with `.authorization.k8s.io "" is invalid`.
  return statusError(422, 'Invalid', `.${group} "" is invalid: ${summary}`, { group, causes });
}

function invalidValue(field: string, shown: string, message: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown}: ${message}` };
}

/** How kube-apiserver prints NonResourceAttributes in a field error (Go syntax). */
function showNonResource(v: Record<string, unknown>): string {
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(text(v.path))}, Verb:${JSON.stringify(text(v.verb))}}`;
}

/** Exactly one of resourceAttributes and nonResourceAttributes. */
function attributeCauses(spec: Record<string, unknown>): StatusCause[] {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (isRecord(resource) && isRecord(nonResource)) {
    return [
      invalidValue(
        'spec.nonResourceAttributes',
        showNonResource(nonResource),
        'cannot be specified in combination with resourceAttributes',
      ),
    ];
  }
  if (!isRecord(resource) && !isRecord(nonResource)) {
    return [
      invalidValue(
        'spec.resourceAttributes',
        '"null"',
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    ];
  }
  return [];
}

/** A SubjectAccessReview names a user or a group. */
function subjectCauses(spec: Record<string, unknown>): StatusCause[] {
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (text(spec.user) !== '' || groups.length > 0) return [];
  return [
    invalidValue(
      'spec.user',
      JSON.stringify(text(spec.user)),
      'at least one of user or group must be specified',
    ),
  ];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The attributes a review's spec asks about, for a user. */
function reviewAttributes(spec: Record<string, unknown>, user: UserInfo): Attributes {
  const base: Attributes = {
    user,
    verb: '',
    resourceRequest: false,
    path: '',
    group: '',
    version: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  const r = spec.resourceAttributes;
  if (isRecord(r)) {
    return {
      ...base,
      resourceRequest: true,
      verb: text(r.verb),
      group: text(r.group),
      version: text(r.version),
      resource: text(r.resource),
      subresource: text(r.subresource),
      namespace: text(r.namespace),
      name: text(r.name),
    };
  }
  const n = isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { ...base, verb: text(n.verb), path: text(n.path) };
}

/** The user a SubjectAccessReview names. */
function specUser(spec: Record<string, unknown>): UserInfo {
  const user: UserInfo = { username: text(spec.user), groups: strings(spec.groups) };
  if (text(spec.uid) !== '') user.uid = text(spec.uid);
  if (isRecord(spec.extra)) {
    // Own properties whatever the key (`__proto__` too).
    user.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, strings(v)]));
  }
  return user;
}

/** The status of an access review: the authorizer's decision and reason. */
function decide(authorizer: Authorizer, a: Attributes): Record<string, unknown> {
  const d = authorizer.authorize(a);
  const status: Record<string, unknown> = { allowed: d.allowed };
  if (d.reason !== '') status.reason = d.reason;
  return status;
}

function withStatus(
  body: UnstructuredObject,
  status: Record<string, unknown>,
  metadata?: Record<string, unknown>,
): UnstructuredObject {
  return {
    ...body,
    metadata: metadata ?? (isRecord(body.metadata) ? body.metadata : {}),
    status,
  };
}

function localSubjectAccessReview(
  body: UnstructuredObject,
  ctx: ReviewContext,
): UnstructuredObject {
  const metadata = isRecord(body.metadata) ? { ...body.metadata } : {};
  const objectNamespace = text(metadata.namespace);
  if (objectNamespace !== '' && objectNamespace !== ctx.namespace) {
    throw badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  metadata.namespace = ctx.namespace;
  const spec = isRecord(body.spec) ? body.spec : {};
  const causes = [...attributeCauses(spec), ...subjectCauses(spec)];
  const resource = spec.resourceAttributes;
  if (isRecord(resource) && text(resource.namespace) !== ctx.namespace) {
    causes.push(
      invalidValue(
        'spec.resourceAttributes.namespace',
        JSON.stringify(text(resource.namespace)),
        'must match metadata.namespace',
      ),
    );
  }
  if (isRecord(spec.nonResourceAttributes)) {
    causes.push(
      invalidValue(
        'spec.nonResourceAttributes',
        showNonResource(spec.nonResourceAttributes),
        'disallowed on this kind of request',
      ),
    );
  }
  if (causes.length > 0) throw invalidReview('authorization.k8s.io', causes);
  return withStatus(body, decide(ctx.authorizer, reviewAttributes(spec, specUser(spec))), metadata);
}

function tokenReview(body: UnstructuredObject, ctx: ReviewContext): UnstructuredObject {
  const spec = isRecord(body.spec) ? body.spec : {};
  const audiences = strings(spec.audiences);
  const user = ctx.tokenUser(text(spec.token), audiences.length > 0 ? audiences : undefined);
  if (!user) return withStatus(body, { authenticated: false, user: {} });
  const status: Record<string, unknown> = { authenticated: true, user };
  if (Array.isArray(spec.audiences) && spec.audiences.length > 0) status.audiences = spec.audiences;
  return withStatus(body, status);
}

/**
 * Answers a POST of a review resource: the body with its `status` filled in, or the
 * 400 or 422 kube-apiserver answers a malformed review with.
 */
export function answerReview(
  type: ResourceType,
  body: UnstructuredObject,
  ctx: ReviewContext,
): UnstructuredObject {
  const spec = isRecord(body.spec) ? body.spec : {};
  switch (`${type.resource}.${type.group}`) {
    case 'selfsubjectaccessreviews.authorization.k8s.io': {
      const causes = attributeCauses(spec);
      if (causes.length > 0) throw invalidReview(type.group, causes);
      return withStatus(body, decide(ctx.authorizer, reviewAttributes(spec, ctx.user)));
    }
    case 'subjectaccessreviews.authorization.k8s.io': {
      const causes = [...attributeCauses(spec), ...subjectCauses(spec)];
      if (causes.length > 0) throw invalidReview(type.group, causes);
      return withStatus(body, decide(ctx.authorizer, reviewAttributes(spec, specUser(spec))));
    }
    case 'localsubjectaccessreviews.authorization.k8s.io':
      return localSubjectAccessReview(body, ctx);
    case 'selfsubjectrulesreviews.authorization.k8s.io':
      if (text(spec.namespace) === '') throw badRequest('no namespace on request');
      return withStatus(body, { ...ctx.authorizer.rulesFor(ctx.user, text(spec.namespace)) });
    case 'selfsubjectreviews.authentication.k8s.io':
      return withStatus(body, { userInfo: ctx.user });
    case 'tokenreviews.authentication.k8s.io':
      return tokenReview(body, ctx);
    default:
      throw badRequest(`${type.resource}.${type.group} is not a review resource`);
  }
}
