/**
 * The admission chain's contract, as kube-apiserver's `k8s.io/apiserver/pkg/admission`
 * states it: every write is described by {@link AdmissionAttributes}; a
 * {@link MutationInterface} may change the object, a {@link ValidationInterface} may only
 * accept or refuse it. Plugins never import the store: what they need to read (the
 * webhook configurations, the namespaces, a CRD's schema) comes in as functions.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { UserInfo } from '../authentication.js';
import type { ResourceType } from '../registry/resource_registry.js';

/** The options of a write (query parameters and request facts the write path reads). */
export interface WriteOptions {
  /** Keep `status` on create and allow status changes on main-resource writes. */
  seed?: boolean;
  /** Validate and compute, but store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** The `fieldManager` query parameter. */
  fieldManager?: string;
  /** The `force` query parameter (only an apply may set it). */
  force?: boolean;
  /** The request's User-Agent: the default field manager (`kubectl/v1.34` → `kubectl`). */
  userAgent?: string;
  /** The `fieldValidation` query parameter. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** The raw JSON body of a create or update (custom resources: duplicate fields). */
  rawBody?: string;
  /** Warnings for the client (sent as `Warning` headers); admission plugins append to it. */
  warnings?: string[];
  /** Audit annotations admission recorded (`<webhook name>/<key>` → value). */
  auditAnnotations?: Record<string, string>;
  /** Who sent the request (set by the resource handlers; absent for in-process writes). */
  user?: UserInfo;
}

/** The kind of write the store performs. */
export type WriteOperation = 'create' | 'update' | 'patch' | 'apply' | 'delete';

/** The admission operation, as webhooks and policies name it. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** What admission is told about a write (kube-apiserver's `admission.Attributes`). */
export interface AdmissionAttributes {
  /** create (POST or apply of a new object), update (PUT), patch, apply (SSA) or delete. */
  operation: WriteOperation;
  /** The resource written. */
  type: ResourceType;
  /** The version of the request (the object is expressed at it). */
  version: string;
  /** '' for the main resource, `status` or `scale` for a subresource. */
  subresource: string;
  /**
   * The kind of the object admitted when it is not the resource's own: autoscaling/v1
   * `Scale` for a write through `/scale`, as kube-apiserver's scale REST admits it. Such
   * an object is sent as it is (no version conversion).
   */
  kind?: { group: string; version: string; kind: string };
  /** The namespace of the object ('' when cluster-scoped). */
  namespace: string;
  /** The name of the object ('' when a create leaves it to `generateName`). */
  name: string;
  /** The stored object before the write; undefined on create. */
  old: UnstructuredObject | undefined;
  /** The request's options (fieldManager, force, fieldValidation, dryRun, warnings, user). */
  options: WriteOptions;
  /** For apply and patch: the request body as the client sent it (after decoding). */
  body: unknown;
  /** On delete: the DeleteOptions of the request. */
  deleteOptions?: Record<string, unknown>;
  /**
   * Whether the write came in-process (`server.create`/`update`, the server's own
   * controllers): such writes cannot wait, so plugins that call out (webhooks) and
   * policies skip them.
   */
  inProcess: boolean;
}

/** The operation of a write as admission webhooks and policies see it. */
export function admissionOperation(a: AdmissionAttributes): AdmissionOperation {
  if (a.operation === 'delete') return 'DELETE';
  return a.old === undefined ? 'CREATE' : 'UPDATE';
}

/** A result that may be ready now or later (webhooks are calls over the network). */
export type MaybePromise<T> = T | Promise<T>;

/** A plugin that may change the object (kube-apiserver's `MutationInterface`). */
export interface MutationInterface {
  /** A name for logs and errors (e.g. `schema`, `MutatingAdmissionWebhook`). */
  readonly name: string;
  /**
   * Returns the object to continue with (the same one, changed, or a new one) or throws
   * an `ApiError` to refuse the write. `obj` is undefined on delete.
   */
  admit(
    attrs: AdmissionAttributes,
    obj: UnstructuredObject | undefined,
  ): MaybePromise<UnstructuredObject | undefined>;
}

/** A plugin that may only accept or refuse (kube-apiserver's `ValidationInterface`). */
export interface ValidationInterface {
  /** A name for logs and errors. */
  readonly name: string;
  /** Throws an `ApiError` to refuse the write. `obj` is undefined on delete. */
  validate(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined): MaybePromise<void>;
}

/** One plugin of the chain: a mutation, a validation, or both. */
export type AdmissionPlugin =
  MutationInterface | ValidationInterface | (MutationInterface & ValidationInterface);
