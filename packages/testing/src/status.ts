/**
 * The Status objects the test API server answers failures with, worded as
 * kube-apiserver words them.
 *
 * @module
 */
import { ApiError, failureStatus, groupResourceKey } from 'kube-controller-kit';
import type { Status, StatusCause, StatusReason } from 'kube-controller-kit';

/** Builds a failure Status. */
export const failure = failureStatus;

/**
 * The details as kube-apiserver serializes them: `StatusDetails`' name, group, kind and uid
 * are `omitempty`, so an empty one (the core group's `''`) is left out.
 */
function omitEmpty(details: Status['details']): Status['details'] {
  if (details === undefined) return undefined;
  const out = { ...details };
  for (const k of ['name', 'group', 'kind', 'uid'] as const) {
    if (out[k] === '') delete out[k];
  }
  return out;
}

/** Throws-able failure carrying its Status (the server renders `err.status`). */
export function statusError(
  code: number,
  reason: StatusReason,
  message: string,
  details?: Status['details'],
): ApiError {
  return new ApiError(failure(code, reason, message, omitEmpty(details)));
}

/** `group/resource` qualified as in messages: `pods`, `leases.coordination.k8s.io`. */
export const qualified = groupResourceKey;

/** 404 for a named object. */
export function notFound(group: string, resource: string, name: string): ApiError {
  return statusError(404, 'NotFound', `${qualified(group, resource)} "${name}" not found`, {
    name,
    group,
    kind: resource,
  });
}

/** 409 AlreadyExists. */
export function alreadyExists(group: string, resource: string, name: string): ApiError {
  return statusError(
    409,
    'AlreadyExists',
    `${qualified(group, resource)} "${name}" already exists`,
    { name, group, kind: resource },
  );
}

/** 409 Conflict for a stale resourceVersion or failed precondition. */
export function conflict(group: string, resource: string, name: string, why?: string): ApiError {
  return statusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(group, resource)} "${name}": ${
      why ??
      'the object has been modified; please apply your changes to the latest version and try again'
    }`,
    { name, group, kind: resource },
  );
}

/** 422 Invalid with field causes. */
export function invalid(
  group: string,
  kind: string,
  name: string,
  causes: StatusCause[],
): ApiError {
  const list = causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
  const summary = list.length === 1 ? (list[0] ?? '') : `[${list.join(', ')}]`;
  return statusError(
    422,
    'Invalid',
    `${group === '' ? kind : `${kind}.${group}`} "${name}" is invalid: ${summary}`,
    { name, group, kind, causes },
  );
}

/** 400 BadRequest. */
export function badRequest(message: string): ApiError {
  return statusError(400, 'BadRequest', message);
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(verb: string, group: string, resource: string): ApiError {
  return statusError(
    405,
    'MethodNotAllowed',
    `${verb} is not supported on resources of kind "${qualified(group, resource)}"`,
    { group, kind: resource },
  );
}

/** 404 for a path that serves nothing. */
export function pathNotFound(): ApiError {
  return statusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 410 Expired for a watch or list from a compacted version. */
export function tooOld(rv: string, oldest: number): ApiError {
  return statusError(410, 'Expired', `too old resource version: ${rv} (${oldest})`);
}
