/**
 * The `admission.k8s.io` AdmissionReview kube-apiserver sends to a webhook
 * (`request/admissionreview.go`: every field of the request) and the checks it makes of
 * the answer (`VerifyAdmissionResponse`), with its words; and the Status a denial becomes
 * (`webhook/errors.ToStatusErr`) and the one a failed call becomes under
 * `failurePolicy: Fail` (`Internal error occurred: failed calling webhook …`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Status, UnstructuredObject } from 'kube-controller-kit';
import { ApiError } from 'kube-controller-kit';
import type { UserInfo } from '../authentication.js';
import { badRequest, statusError } from '../status.js';
import type { AdmissionAttributes } from './interfaces.js';
import { admissionOperation } from './interfaces.js';
import { WebhookCallError } from './webhook_client.js';

/** The AdmissionReview versions the server speaks, in its order of preference. */
const KNOWN_VERSIONS = ['v1', 'v1beta1'];

/** The AdmissionReview version to send a webhook: the first of its list the server knows. */
export function reviewVersion(webhookName: string, accepted: string[]): string {
  const v = accepted.find((x) => KNOWN_VERSIONS.includes(x));
  if (v === undefined) {
    throw new WebhookCallError(
      `webhook "${webhookName}" does not accept known AdmissionReview versions (v1, v1beta1)`,
    );
  }
  return v;
}

/** The apiVersion of a resource at a version. */
function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** An object expressed at a version (the store keeps the storage version's apiVersion). */
export type VersionConverter = (
  obj: UnstructuredObject,
  attrs: AdmissionAttributes,
  version: string,
) => UnstructuredObject;

/** Sets the apiVersion of the version asked: the conversion of versions that share a schema. */
export const relabelVersion: VersionConverter = (obj, attrs, version) => ({
  ...obj,
  apiVersion: apiVersionOf(attrs.type.group, version),
});

/**
 * An admitted object at a version: converted, unless the write admits another kind than
 * the resource's (a Scale), which is sent as it is.
 */
export function objectAt(
  convert: VersionConverter,
  obj: UnstructuredObject,
  attrs: AdmissionAttributes,
  version: string,
): UnstructuredObject {
  return attrs.kind === undefined ? convert(obj, attrs, version) : obj;
}

function requestOptions(attrs: AdmissionAttributes): Record<string, unknown> {
  const op = admissionOperation(attrs);
  const o = attrs.options;
  if (op === 'DELETE') {
    return { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...attrs.deleteOptions };
  }
  const out: Record<string, unknown> = {
    kind: op === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
    apiVersion: 'meta.k8s.io/v1',
  };
  if (o.dryRun === true) out.dryRun = ['All'];
  if (o.fieldManager !== undefined) out.fieldManager = o.fieldManager;
  if (o.fieldValidation !== undefined) out.fieldValidation = o.fieldValidation;
  return out;
}

function userInfoOf(user: UserInfo | undefined): Record<string, unknown> {
  const u = (user ?? { username: '', groups: [] }) as UserInfo & {
    uid?: string;
    extra?: Record<string, string[]>;
  };
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid !== undefined && u.uid !== '') out.uid = u.uid;
  if (u.groups.length > 0) out.groups = u.groups;
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

/**
 * The `request` of an AdmissionReview for a write, its objects at `version` (the one a
 * webhook's rules matched; the request's own unless an Equivalent match chose another).
 */
export function admissionRequest(
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  version: string,
  convert: VersionConverter,
): Record<string, unknown> {
  const { type } = attrs;
  const at = (o: UnstructuredObject | undefined): UnstructuredObject | null =>
    o === undefined ? null : objectAt(convert, o, attrs, version);
  const request: Record<string, unknown> = {
    uid: randomUUID(),
    // A write through `/scale` admits an autoscaling/v1 Scale: kind and requestKind name
    // it, resource and requestResource the parent (pkg/registry/apps/deployment/storage).
    kind: attrs.kind ?? { group: type.group, version, kind: type.kind },
    resource: { group: type.group, version, resource: type.resource },
    requestKind: attrs.kind ?? { group: type.group, version: attrs.version, kind: type.kind },
    requestResource: { group: type.group, version: attrs.version, resource: type.resource },
  };
  if (attrs.subresource !== '') {
    request.subResource = attrs.subresource;
    request.requestSubResource = attrs.subresource;
  }
  if (attrs.name !== '') request.name = attrs.name;
  if (attrs.namespace !== '') request.namespace = attrs.namespace;
  request.operation = admissionOperation(attrs);
  request.userInfo = userInfoOf(attrs.options.user);
  request.object = at(obj);
  request.oldObject = admissionOperation(attrs) === 'CREATE' ? null : at(attrs.old);
  request.dryRun = attrs.options.dryRun === true;
  request.options = requestOptions(attrs);
  return request;
}

/** The response of a webhook, checked. */
export interface AdmissionResponse {
  /** Whether the webhook allowed the request. */
  allowed: boolean;
  /** Its Status on denial. */
  status: Partial<Status> | undefined;
  /** The JSON Patch operations (mutating webhooks), decoded. */
  patch: unknown[] | undefined;
  /** Warnings for the client. */
  warnings: string[];
  /** Audit annotations (key → value, not yet prefixed). */
  auditAnnotations: Record<string, string>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function invalidResponse(message: string): WebhookCallError {
  return new WebhookCallError(`received invalid webhook response: ${message}`);
}

/** Checks a webhook's answer as kube-apiserver's `VerifyAdmissionResponse` does. */
export function verifyAdmissionResponse(
  uid: string,
  version: string,
  mutating: boolean,
  review: unknown,
): AdmissionResponse {
  const expected = `admission.k8s.io/${version}`;
  const r = isObject(review) ? review : {};
  if (r.apiVersion !== expected || r.kind !== 'AdmissionReview') {
    throw invalidResponse(
      `expected webhook response of ${expected}, Kind=AdmissionReview, got ${typeof r.apiVersion === 'string' ? r.apiVersion : ''}, Kind=${typeof r.kind === 'string' ? r.kind : ''}`,
    );
  }
  if (!isObject(r.response)) throw invalidResponse('webhook response was absent');
  const res = r.response;
  const got = typeof res.uid === 'string' ? res.uid : '';
  if (got !== uid)
    throw invalidResponse(
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`,
    );
  const hasPatch = typeof res.patch === 'string' && res.patch !== '';
  const patchType = typeof res.patchType === 'string' ? res.patchType : '';
  let patch: unknown[] | undefined;
  if (mutating) {
    if (hasPatch && patchType === '') {
      throw invalidResponse('webhook returned response.patch but not response.patchType');
    }
    if (!hasPatch && patchType !== '') {
      throw invalidResponse('webhook returned response.patchType but not response.patch');
    }
    if (hasPatch) {
      if (patchType !== 'JSONPatch') {
        throw invalidResponse(
          `webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`,
        );
      }
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(res.patch as string, 'base64').toString('utf8'));
      } catch (err) {
        throw new WebhookCallError(
          `received undecodable patch in webhook response: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      if (!Array.isArray(decoded)) {
        throw new WebhookCallError(
          'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
        );
      }
      patch = decoded;
    }
  } else {
    if (hasPatch) throw invalidResponse('validating webhook may not return response.patch');
    if (patchType !== '') {
      throw invalidResponse('validating webhook may not return response.patchType');
    }
  }
  const auditAnnotations: Record<string, string> = {};
  if (isObject(res.auditAnnotations)) {
    for (const [k, v] of Object.entries(res.auditAnnotations)) {
      if (typeof v === 'string') auditAnnotations[k] = v;
    }
  }
  return {
    allowed: res.allowed === true,
    status: isObject(res.status) ? res.status : undefined,
    patch,
    warnings: Array.isArray(res.warnings)
      ? res.warnings.filter((w): w is string => typeof w === 'string')
      : [],
    auditAnnotations,
  };
}

/**
 * The error a denial becomes, as kube-apiserver v1.36 (the version the server reports)
 * makes it in `webhook/errors.ToStatusErr`: the webhook's Status kept (code, reason,
 * details), its message prefixed `admission webhook "<name>" denied the request: ` (or its
 * reason, or `without explanation`), a code below 400 raised to 400 and the status
 * `Failure`. Unlike a ValidatingAdmissionPolicy denial (`admission.NewForbidden`), no
 * `<resource> "<name>" is forbidden:` prefix is added.
 */
export function denial(webhookName: string, status: Partial<Status> | undefined): ApiError {
  const s = status ?? {};
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  let message: string;
  if (typeof s.message === 'string' && s.message !== '') message = `${deniedBy}: ${s.message}`;
  else if (typeof s.reason === 'string' && s.reason !== '') message = `${deniedBy}: ${s.reason}`;
  else message = `${deniedBy} without explanation`;
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  const out: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    code,
  };
  if (typeof s.reason === 'string' && s.reason !== '') out.reason = s.reason;
  if (s.details !== undefined) out.details = s.details;
  return new ApiError(out);
}

/** The 500 a failed call becomes under `failurePolicy: Fail` (`apierrors.NewInternalError`). */
export function callFailure(webhookName: string, err: WebhookCallError): ApiError {
  const text = `failed calling webhook "${webhookName}": ${err.message}`;
  return statusError(500, 'InternalError', `Internal error occurred: ${text}`, {
    causes: [{ message: text }],
  });
}

/** A 500 `Internal error occurred: <message>`. */
export function internalError(message: string): ApiError {
  return statusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/** The 400 of a dry-run request to a webhook with side effects. */
export function dryRunUnsupported(webhookName: string): ApiError {
  return badRequest(`admission webhook "${webhookName}" does not support dry run`);
}
