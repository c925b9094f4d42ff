/**
 * Typed admission handlers: {@link Defaulter} and {@link Validator}, as
 * controller-runtime's `admission.Defaulter[T]` and `admission.Validator[T]`.
 *
 * How a thrown error is answered (controller-runtime's mapping of a returned error):
 * - an {@link ApiError} keeps its Status (code, reason, message): `throw new
 *   ApiError({code: 422, reason: 'Invalid', message: '…'})`;
 * - an {@link AdmissionDenial} denies with its message (403) and keeps its warnings;
 * - any other `Error` denies with code 403 reason Forbidden and the error's message;
 * - a programming error (`TypeError`, `RangeError`, `ReferenceError`, …), which is what a
 *   Go panic is here, is answered with code 500 and counted in
 *   `controller_runtime_webhook_panics_total`.
 *
 * Objects arrive as the API server sent them (parsed JSON, every field kept); each handler
 * gets its own copy.
 *
 * @module
 */
import { ApiError } from '../client/errors.js';
import type { KubeObject, Status } from '../client/types.js';
import type { AdmissionDecision, AdmissionHandler } from './admission.js';
import { allowed, denied, errored } from './admission.js';
import { WebhookError } from './errors.js';
import { isProgrammingError } from './http.js';
import { createJsonPatch } from './json_patch.js';
import type { AdmissionRequest } from './types.js';

/** A denial from a typed handler, with warnings to return beside it. */
export class AdmissionDenial extends WebhookError {
  /** Warnings returned with the denial. */
  readonly warnings: string[];

  /**
   * @param message - what the client sees after `admission webhook "<name>" denied the request: `.
   * @param warnings - warnings returned with the denial.
   */
  constructor(message: string, warnings: string[] = []) {
    super(message);
    this.warnings = warnings;
  }
}

/**
 * Sets defaults on an object being created or updated (controller-runtime's
 * `Defaulter[T]`). Change `obj` in place, or return a new object. The webhook answers with
 * the JSON Patch from the object as received to the object as defaulted; a field neither
 * touched nor known to `T` is never removed. Not called on DELETE (answered allowed).
 */
export interface Defaulter<T extends KubeObject> {
  /** Default `obj` (a copy of the request's object); throw to deny. */
  default(obj: T, request: AdmissionRequest<T>, signal: AbortSignal): void | T | Promise<void | T>;
}

/** What a validation returns: warnings for the client, or nothing. */
export type ValidationWarnings = readonly string[] | void | undefined;

/**
 * Validates objects being created, updated or deleted (controller-runtime's
 * `Validator[T]`). Throw to deny. A method left out admits that operation.
 */
export interface Validator<T extends KubeObject> {
  /** A new object; `obj` is the request's `object`. */
  validateCreate?(
    obj: T,
    request: AdmissionRequest<T>,
    signal: AbortSignal,
  ): ValidationWarnings | Promise<ValidationWarnings>;
  /** A change; `oldObj` is the stored object, `obj` the new one. */
  validateUpdate?(
    oldObj: T,
    obj: T,
    request: AdmissionRequest<T>,
    signal: AbortSignal,
  ): ValidationWarnings | Promise<ValidationWarnings>;
  /**
   * A deletion; `obj` is the request's `oldObject` (kube-apiserver sends `object: null` on
   * DELETE).
   */
  validateDelete?(
    obj: T,
    request: AdmissionRequest<T>,
    signal: AbortSignal,
  ): ValidationWarnings | Promise<ValidationWarnings>;
}

function decisionFromError(err: unknown, warnings: readonly string[] = []): AdmissionDecision {
  if (isProgrammingError(err)) throw err;
  let decision: AdmissionDecision;
  if (err instanceof ApiError) {
    const status: Status = { ...err.status };
    status.code ??= err.code;
    decision = { allowed: false, status };
  } else if (err instanceof AdmissionDenial) {
    decision = denied(err.message);
    warnings = [...warnings, ...err.warnings];
  } else {
    decision = denied(err instanceof Error ? err.message : String(err));
  }
  return warnings.length > 0 ? { ...decision, warnings: [...warnings] } : decision;
}

function decoded<T>(value: unknown, what: string): { obj: T } | { fail: AdmissionDecision } {
  if (typeof value !== 'object' || value === null) {
    return { fail: errored(400, `there is no content to decode: the request has no ${what}`) };
  }
  return { obj: structuredClone(value) as T };
}

/** The admission handler of a {@link Defaulter}: answers with the defaulting JSON Patch. */
export function defaultingHandler<T extends KubeObject>(defaulter: Defaulter<T>): AdmissionHandler {
  return async (request, signal) => {
    if (request.operation === 'DELETE') return allowed();
    const received = request.object;
    const input = decoded<T>(received, 'object');
    if ('fail' in input) return input.fail;
    let result: void | T;
    try {
      result = await defaulter.default(
        input.obj,
        request as unknown as AdmissionRequest<T>,
        signal,
      );
    } catch (err) {
      return decisionFromError(err);
    }
    const patches = createJsonPatch(received, result ?? input.obj);
    return patches.length > 0 ? { allowed: true, patches, status: { code: 200 } } : allowed();
  };
}

/** The admission handler of a {@link Validator}. CONNECT is admitted without a call. */
export function validatingHandler<T extends KubeObject>(validator: Validator<T>): AdmissionHandler {
  return async (request, signal) => {
    const typed = request as unknown as AdmissionRequest<T>;
    let warnings: ValidationWarnings;
    try {
      switch (request.operation) {
        case 'CONNECT':
          return allowed();
        case 'CREATE': {
          const obj = decoded<T>(request.object, 'object');
          if ('fail' in obj) return obj.fail;
          warnings = await validator.validateCreate?.(obj.obj, typed, signal);
          break;
        }
        case 'UPDATE': {
          const obj = decoded<T>(request.object, 'object');
          if ('fail' in obj) return obj.fail;
          const old = decoded<T>(request.oldObject, 'oldObject');
          if ('fail' in old) return old.fail;
          warnings = await validator.validateUpdate?.(old.obj, obj.obj, typed, signal);
          break;
        }
        case 'DELETE': {
          const old = decoded<T>(request.oldObject, 'oldObject');
          if ('fail' in old) return old.fail;
          warnings = await validator.validateDelete?.(old.obj, typed, signal);
          break;
        }
        default:
          return errored(400, `unknown operation "${String(request.operation)}"`);
      }
    } catch (err) {
      return decisionFromError(err);
    }
    const list = warnings ?? [];
    return list.length > 0 ? { ...allowed(), warnings: [...list] } : allowed();
  };
}
