/**
 * The `Status` object (meta/v1) every Kubernetes API server answers failures with, its
 * reasons and causes, and a builder for failures, shared by the client (which reads them)
 * and the test API server (which writes them).
 *
 * @module
 */
import type { ListMeta } from './meta.js';

/** Why a request failed, as a `Status` gives it. */
export type StatusReason =
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  | (string & {});

/** One cause of a failure (for Invalid, one per bad field). */
export interface StatusCause {
  /** A machine-readable cause, such as `FieldValueRequired`. */
  reason?: string;
  /** Human-readable detail. */
  message?: string;
  /** The field at fault, such as `metadata.name`. */
  field?: string;
}

/** Details of a failure. */
export interface StatusDetails {
  /** Name of the object concerned. */
  name?: string;
  /** API group of the object concerned. */
  group?: string;
  /** Kind (or resource) of the object concerned. */
  kind?: string;
  /** UID of the object concerned. */
  uid?: string;
  /** The individual causes. */
  causes?: StatusCause[];
  /** How long to wait before retrying, when the server says. */
  retryAfterSeconds?: number;
}

/** The API server's `Status` object (meta/v1), returned with every error. */
export interface Status {
  /** Always `Status`. */
  kind?: 'Status';
  /** Always `v1`. */
  apiVersion?: string;
  /** List metadata (unused). */
  metadata?: ListMeta;
  /** `Success` or `Failure`. */
  status?: 'Success' | 'Failure';
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason. */
  reason?: StatusReason;
  /** Extra detail. */
  details?: StatusDetails;
  /** The HTTP status code. */
  code?: number;
}

/**
 * Builds a failure `Status` as kube-apiserver renders one: `kind`, `apiVersion`, empty
 * `metadata`, `status: Failure`, the message, the reason, the details when given, then the
 * code.
 *
 * Exported for `@kube-controller-kit/testing`, not part of the API.
 *
 * @internal
 */
export function failureStatus(
  code: number,
  reason: StatusReason,
  message: string,
  details?: StatusDetails,
): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
  s.reason = reason;
  if (details) s.details = details;
  s.code = code;
  return s;
}
