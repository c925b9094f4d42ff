/**
 * The wire types a webhook server speaks: `admission.k8s.io/v1` AdmissionReview and
 * `apiextensions.k8s.io/v1` ConversionReview, as kube-apiserver sends and reads them.
 *
 * @module
 */
import type { KubeObject, Status, UnstructuredObject } from '../client/types.js';

/** The operation an admission request is about. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** A group/version/kind as an AdmissionRequest names it. */
export interface GroupVersionKindRef {
  /** API group (`''` for the core group). */
  group: string;
  /** API version. */
  version: string;
  /** Kind. */
  kind: string;
}

/** A group/version/resource as an AdmissionRequest names it. */
export interface GroupVersionResourceRef {
  /** API group (`''` for the core group). */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name. */
  resource: string;
}

/** The user a request came from (`authentication.k8s.io/v1` UserInfo). */
export interface AdmissionUserInfo {
  /** User name. */
  username?: string;
  /** User uid. */
  uid?: string;
  /** Groups the user is in. */
  groups?: string[];
  /** Other attributes the authenticator gave. */
  extra?: Record<string, string[]>;
}

/** `admission.k8s.io/v1` AdmissionRequest: what kube-apiserver asks a webhook about. */
export interface AdmissionRequest<T extends KubeObject = UnstructuredObject> {
  /** Identifies this call; the response must echo it. */
  uid: string;
  /** The kind of the object, after `matchPolicy: Equivalent` conversion. */
  kind: GroupVersionKindRef;
  /** The resource being addressed. */
  resource: GroupVersionResourceRef;
  /** The subresource (`status`, `scale`), if any. */
  subResource?: string;
  /** The kind as the client asked for it. */
  requestKind?: GroupVersionKindRef;
  /** The resource as the client asked for it. */
  requestResource?: GroupVersionResourceRef;
  /** The subresource as the client asked for it. */
  requestSubResource?: string;
  /** The object's name (may be empty on CREATE with generateName). */
  name?: string;
  /** The object's namespace, for namespaced resources. */
  namespace?: string;
  /** CREATE, UPDATE, DELETE or CONNECT. */
  operation: AdmissionOperation;
  /** Who asked. */
  userInfo: AdmissionUserInfo;
  /** The object as it would be stored; `null` on DELETE. */
  object?: T | null;
  /** The object as stored before; `null` on CREATE and CONNECT. */
  oldObject?: T | null;
  /** True for a dry run: the webhook must have no side effects. */
  dryRun?: boolean;
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: UnstructuredObject | null;
}

/** `admission.k8s.io/v1` AdmissionResponse. */
export interface AdmissionResponse {
  /** The request's uid, echoed. */
  uid: string;
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Why it was denied, or extra detail; `code` and `message` are what the client sees. */
  status?: Status;
  /** Base64 of a JSON Patch (RFC 6902) to apply to the object. */
  patch?: string;
  /** Always `JSONPatch` when `patch` is set. */
  patchType?: 'JSONPatch';
  /** Annotations kube-apiserver adds to the audit event (as `<webhook name>/<key>`). */
  auditAnnotations?: Record<string, string>;
  /** Warnings returned to the client (`Warning` headers). */
  warnings?: string[];
}

/** `admission.k8s.io/v1` AdmissionReview: request in, response out. */
export interface AdmissionReview<T extends KubeObject = UnstructuredObject> {
  /** `admission.k8s.io/v1`. */
  apiVersion: string;
  /** `AdmissionReview`. */
  kind: 'AdmissionReview';
  /** Set on the way in. */
  request?: AdmissionRequest<T>;
  /** Set on the way out. */
  response?: AdmissionResponse;
}

/** One JSON Patch (RFC 6902) operation, as a defaulting webhook returns them. */
export interface JsonPatchOperation {
  /** `add`, `replace` or `remove`. */
  op: 'add' | 'replace' | 'remove';
  /** A JSON Pointer (RFC 6901) to the field: `/spec/replicas`, `~1` for `/`, `~0` for `~`. */
  path: string;
  /** The new value (`add` and `replace`). */
  value?: unknown;
}

/** `apiextensions.k8s.io/v1` ConversionRequest. */
export interface ConversionRequest {
  /** Identifies this call; the response must echo it. */
  uid: string;
  /** The `group/version` to convert to. */
  desiredAPIVersion: string;
  /** The objects to convert (all of one kind). */
  objects: UnstructuredObject[];
}

/** `apiextensions.k8s.io/v1` ConversionResponse. */
export interface ConversionResponse {
  /** The request's uid, echoed. */
  uid: string;
  /** The converted objects, in the request's order. */
  convertedObjects: UnstructuredObject[];
  /** `status: Success`, or `Failure` with a message. */
  result: Status;
}

/** `apiextensions.k8s.io/v1` ConversionReview. */
export interface ConversionReview {
  /** `apiextensions.k8s.io/v1`. */
  apiVersion: string;
  /** `ConversionReview`. */
  kind: 'ConversionReview';
  /** Set on the way in. */
  request?: ConversionRequest;
  /** Set on the way out. */
  response?: ConversionResponse;
}
