/**
 * Admission webhooks: a handler takes an `admission.k8s.io/v1` AdmissionRequest and
 * decides; {@link AdmissionWebhook} does the HTTP part as controller-runtime's
 * `admission.Webhook` does.
 *
 * - The body must be present (else code 400 `request body is empty`), at most 7 MiB (else
 *   413 `request entity is too large; limit is 7340032 bytes`), of content type
 *   `application/json` (else 400 `contentType=<type>, expected application/json`) and a
 *   decodable AdmissionReview (else 400): JSON nested at most `MAX_JSON_DEPTH` (1,000)
 *   deep, with the request's typed fields of their types (`uid` a string, `kind` an object
 *   of strings, `dryRun` a boolean, …; a missing `uid` is `''`, as Go decodes it). These
 *   failures are AdmissionReview responses with HTTP 200, as controller-runtime writes them.
 * - The response echoes the request's `uid` and the review's `apiVersion` (v1, or v1beta1
 *   when that is what came); a missing `status` becomes `{code: 200}` when allowed;
 *   patches become base64 JSON Patch with `patchType: JSONPatch`.
 * - A handler that throws (or rejects) is a panic: code 500 `panic: <message>
 *   [recovered]`, and `controller_runtime_webhook_panics_total` counts it.
 *
 * @module
 */
import type { Status } from '../client/types.js';
import type { Logger } from '../util/logger.js';
import type { CounterMetric } from '../util/metrics.js';
import { defaultLogger } from '../util/logger.js';
import { errorMessage } from '../util/errors.js';
import { parseJson } from '../util/json.js';
import type { HttpWebhook, WebhookHttpRequest, WebhookHttpResponse } from './http.js';
import { MAX_REQUEST_BYTES, isJsonContentType } from './http.js';
import type { WebhookMetricsProvider } from './metrics.js';
import { getDefaultWebhookMetricsProvider } from './metrics.js';
import type { AdmissionRequest, AdmissionResponse, JsonPatchOperation } from './types.js';

/** What an admission handler decides: an AdmissionResponse without `uid`, with patches as operations. */
export interface AdmissionDecision {
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Code, reason and message: what the client sees on a denial. */
  status?: Status;
  /** JSON Patch operations to apply to the object (mutating webhooks only). */
  patches?: JsonPatchOperation[];
  /** Warnings returned to the client. */
  warnings?: string[];
  /** Annotations for the audit event. */
  auditAnnotations?: Record<string, string>;
}

/**
 * A raw admission handler. It may throw only on a bug: a throw is answered with code 500
 * and counted as a panic. To deny, return {@link denied} (or another decision).
 */
export type AdmissionHandler = (
  request: AdmissionRequest,
  signal: AbortSignal,
) => AdmissionDecision | Promise<AdmissionDecision>;

/** Allowed, with an optional message (controller-runtime's `Allowed`: code 200). */
export function allowed(message?: string): AdmissionDecision {
  return validationDecision(true, message);
}

/** Denied with a message (controller-runtime's `Denied`: code 403, reason Forbidden). */
export function denied(message?: string): AdmissionDecision {
  return validationDecision(false, message);
}

/** Allowed with these patches (controller-runtime's `Patched`). */
export function patched(patches: JsonPatchOperation[], message?: string): AdmissionDecision {
  return { ...allowed(message), patches };
}

/** Not allowed because the webhook failed: `code` and the error's message (controller-runtime's `Errored`). */
export function errored(code: number, err: unknown): AdmissionDecision {
  return { allowed: false, status: { code, message: errorMessage(err) } };
}

function validationDecision(isAllowed: boolean, message?: string): AdmissionDecision {
  const status: Status = isAllowed ? { code: 200 } : { code: 403, reason: 'Forbidden' };
  if (message !== undefined && message !== '') status.message = message;
  return { allowed: isAllowed, status };
}

/** Options of an {@link AdmissionWebhook}. */
export interface AdmissionWebhookOptions {
  /** Where problems are logged (default: the library's default logger). */
  logger?: Logger;
  /** Where panics are counted (default: the provider set with `setDefaultWebhookMetricsProvider`). */
  metricsProvider?: WebhookMetricsProvider;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Serves one {@link AdmissionHandler} over HTTP, as controller-runtime's `admission.Webhook`. */
export class AdmissionWebhook implements HttpWebhook {
  /** The handler this webhook serves. */
  readonly handler: AdmissionHandler;
  readonly #logger: Logger;
  readonly #panics: CounterMetric | undefined;

  /** @param handler - decides each request. */
  constructor(handler: AdmissionHandler, options: AdmissionWebhookOptions = {}) {
    this.handler = handler;
    this.#logger = options.logger ?? defaultLogger;
    this.#panics = (
      options.metricsProvider ?? getDefaultWebhookMetricsProvider()
    )?.newPanicsMetric();
  }

  /** {@inheritDoc HttpWebhook.serveHTTP} */
  async serveHTTP(request: WebhookHttpRequest): Promise<WebhookHttpResponse> {
    const fail = (code: number, message: string, apiVersion?: string): WebhookHttpResponse => {
      this.#logger.warn(`admission webhook ${request.path}: ${message}`);
      return reviewResponse(apiVersion, complete('', errored(code, message)));
    };
    if (request.bodyTooLarge) {
      return fail(413, `request entity is too large; limit is ${MAX_REQUEST_BYTES} bytes`);
    }
    if (request.body.length === 0) return fail(400, 'request body is empty');
    if (!isJsonContentType(request.contentType)) {
      return fail(400, `contentType=${request.contentType ?? ''}, expected application/json`);
    }
    let review: unknown;
    try {
      review = parseJson(request.body.toString('utf8'));
    } catch (err) {
      return fail(400, `couldn't decode the AdmissionReview: ${errorMessage(err)}`);
    }
    const decoded = decodeReview(review);
    if (typeof decoded === 'string') return fail(400, decoded);
    return reviewResponse(decoded.apiVersion, await this.handle(decoded.request, request.signal));
  }

  /**
   * Run the handler on one request and complete its response (uid, default status,
   * encoded patch). A throw is a panic: code 500, counted.
   */
  async handle(request: AdmissionRequest, signal: AbortSignal): Promise<AdmissionResponse> {
    let decision: AdmissionDecision;
    try {
      decision = await this.handler(request, signal);
    } catch (err) {
      this.#panics?.inc();
      this.#logger.error('admission webhook handler threw', {
        uid: request.uid,
        error: errorMessage(err),
      });
      decision = errored(500, `panic: ${errorMessage(err)} [recovered]`);
    }
    return complete(request.uid, decision);
  }
}

/** The JSON type a field of the review must have (`null` is always accepted, as Go's decoder does). */
type FieldShape =
  'string' | 'boolean' | 'strings' | 'stringLists' | { [field: string]: FieldShape };

const GVK: FieldShape = { group: 'string', version: 'string', kind: 'string' };
const GVR: FieldShape = { group: 'string', version: 'string', resource: 'string' };

/**
 * The typed fields of an AdmissionRequest. `object`, `oldObject` and `options` are raw
 * JSON (controller-runtime's `runtime.RawExtension`): any value; the typed handlers check
 * them.
 */
const REQUEST_SHAPE: FieldShape = {
  uid: 'string',
  kind: GVK,
  resource: GVR,
  subResource: 'string',
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: 'string',
  name: 'string',
  namespace: 'string',
  operation: 'string',
  userInfo: { username: 'string', uid: 'string', groups: 'strings', extra: 'stringLists' },
  dryRun: 'boolean',
};

function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Where `value` does not have the JSON type `shape` says, as Go's decoder would refuse it
 * (`request.uid: expected string, got number`); undefined when it does.
 */
function shapeError(value: unknown, shape: FieldShape, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const expected = (what: string): string => `${path}: expected ${what}, got ${typeName(value)}`;
  switch (shape) {
    case 'string':
    case 'boolean':
      return typeof value === shape ? undefined : expected(shape);
    case 'strings':
      if (!Array.isArray(value)) return expected('an array of strings');
      for (let i = 0; i < value.length; i++) {
        if (typeof value[i] !== 'string' && value[i] !== null) {
          return `${path}[${i}]: expected string, got ${typeName(value[i])}`;
        }
      }
      return undefined;
    case 'stringLists':
      if (!isRecord(value)) return expected('an object of string arrays');
      for (const [key, list] of Object.entries(value)) {
        const problem = shapeError(list, 'strings', `${path}.${key}`);
        if (problem !== undefined) return problem;
      }
      return undefined;
    default:
      if (!isRecord(value)) return expected('an object');
      for (const [field, fieldShape] of Object.entries(shape)) {
        const problem = shapeError(value[field], fieldShape, `${path}.${field}`);
        if (problem !== undefined) return problem;
      }
      return undefined;
  }
}

function decodeReview(review: unknown): { apiVersion: string; request: AdmissionRequest } | string {
  if (!isRecord(review)) return "couldn't decode the AdmissionReview: not a JSON object";
  const header = shapeError(review, { apiVersion: 'string', kind: 'string' }, 'review');
  if (header !== undefined) return `couldn't decode the AdmissionReview: ${header}`;
  const apiVersion = typeof review.apiVersion === 'string' ? review.apiVersion : '';
  if (
    (apiVersion !== '' &&
      apiVersion !== 'admission.k8s.io/v1' &&
      apiVersion !== 'admission.k8s.io/v1beta1') ||
    (review.kind !== undefined && review.kind !== null && review.kind !== 'AdmissionReview')
  ) {
    return `couldn't decode the AdmissionReview: unexpected ${apiVersion}, Kind=${String(review.kind)}`;
  }
  const request = review.request;
  if (!isRecord(request)) return "couldn't decode the AdmissionReview: it has no request";
  const problem = shapeError(request, REQUEST_SHAPE, 'request');
  if (problem !== undefined) return `couldn't decode the AdmissionReview: ${problem}`;
  // A missing uid is the empty string, as Go decodes it.
  if (typeof request.uid !== 'string') request.uid = '';
  return {
    apiVersion: apiVersion === '' ? 'admission.k8s.io/v1' : apiVersion,
    request: request as unknown as AdmissionRequest,
  };
}

function complete(uid: string, decision: AdmissionDecision): AdmissionResponse {
  const response: AdmissionResponse = { uid, allowed: decision.allowed };
  const status: Status = { ...(decision.status ?? {}) };
  if (status.code === undefined || status.code === 0) status.code = 200;
  response.status = status;
  if (decision.patches !== undefined && decision.patches.length > 0) {
    response.patch = Buffer.from(JSON.stringify(decision.patches)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  if (decision.warnings !== undefined && decision.warnings.length > 0) {
    response.warnings = decision.warnings;
  }
  if (decision.auditAnnotations !== undefined) {
    response.auditAnnotations = decision.auditAnnotations;
  }
  return response;
}

function reviewResponse(
  apiVersion: string | undefined,
  response: AdmissionResponse,
): WebhookHttpResponse {
  return {
    statusCode: 200,
    body: { apiVersion: apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response },
  };
}
