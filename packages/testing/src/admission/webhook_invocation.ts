/**
 * What the mutating and validating webhook plugins share: the readers they are given
 * (configurations, namespace labels, registered Services, version conversion, the audit
 * record), the decision to call one webhook for a request (`ShouldCallHook`), and the call
 * itself (AdmissionReview out, checked response back, warnings and audit annotations
 * kept).
 *
 * @module
 */
import type { ApiError, UnstructuredObject } from 'kube-controller-kit';
import type { VersionConverter } from './admission_review.js';
import {
  admissionRequest,
  callFailure,
  dryRunUnsupported,
  reviewVersion,
  verifyAdmissionResponse,
} from './admission_review.js';
import type { AdmissionResponse } from './admission_review.js';
import type { AdmissionAttributes } from './interfaces.js';
import type { Webhook } from './webhook.js';
import { matchingVersion } from './rules.js';
import { matchConditionsHold, namespaceMatches, objectMatches } from './webhook.js';
import { WebhookCallError } from './webhook_client.js';
import type { WebhookEndpoints } from './webhook_client.js';

/** What a webhook plugin reads; none of it is the store itself. */
export interface WebhookPluginDeps {
  /** The stored configuration objects of the plugin's kind. */
  configurations(): UnstructuredObject[];
  /** The labels of a namespace (undefined when it does not exist). */
  namespaceLabels(name: string): Record<string, string> | undefined;
  /** The Services tests registered, and the HTTPS client. */
  endpoints: WebhookEndpoints;
  /** Expresses an object at a version (CRD conversion; relabelling by default). */
  convert: VersionConverter;
  /**
   * Expresses an object at a version through its CRD's conversion webhook when it has one
   * (relabelling otherwise): what a webhook matched at another version (`matchPolicy:
   * Equivalent`) is sent, as kube-apiserver converts the versioned attributes.
   */
  convertAsync?: (
    obj: UnstructuredObject,
    attrs: AdmissionAttributes,
    version: string,
  ) => Promise<UnstructuredObject>;
  /** Keeps an audit annotation of a request. */
  recordAuditAnnotation(attrs: AdmissionAttributes, key: string, value: string): void;
}

/** A webhook chosen for a request, at the version its rules matched. */
export interface Invocation {
  /** The webhook. */
  webhook: Webhook;
  /** The version the request is sent at. */
  version: string;
}

/**
 * Whether (and at which version) a webhook is called for a request: namespaceSelector,
 * objectSelector, rules with the Equivalent match, then matchConditions (whose error is a
 * 403 under Fail).
 */
export function shouldCall(
  webhook: Webhook,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: WebhookPluginDeps,
): Invocation | undefined {
  if (!namespaceMatches(webhook.namespaceSelector, attrs, obj, (n) => deps.namespaceLabels(n))) {
    return undefined;
  }
  if (!objectMatches(webhook.objectSelector, attrs, obj)) return undefined;
  const version = matchingVersion(webhook.rules, attrs, webhook.matchPolicy === 'Equivalent');
  if (version === undefined) return undefined;
  if (webhook.matchConditions.length > 0) {
    const request = admissionRequest(attrs, obj, version, deps.convert);
    const vars = { object: request.object, oldObject: request.oldObject, request };
    if (!matchConditionsHold(webhook.matchConditions, vars, webhook.failurePolicy, attrs)) {
      return undefined;
    }
  }
  return { webhook, version };
}

/**
 * The converter of one call: the request's object and old object converted ahead to the
 * version the webhook is called at (through the CRD's conversion webhook, which may take
 * time), anything else as `deps.convert` does.
 */
export async function preparedConverter(
  inv: Invocation,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: WebhookPluginDeps,
): Promise<VersionConverter> {
  const convertAsync = deps.convertAsync;
  if (convertAsync === undefined || inv.version === attrs.version || attrs.kind !== undefined) {
    return deps.convert;
  }
  const done = new Map<UnstructuredObject, UnstructuredObject>();
  for (const o of [obj, attrs.old]) {
    if (o !== undefined && !done.has(o)) done.set(o, await convertAsync(o, attrs, inv.version));
  }
  return (o, a, v) => (v === inv.version ? done.get(o) : undefined) ?? deps.convert(o, a, v);
}

/** The outcome of one call: the checked response, or the error to act on. */
export type CallOutcome =
  | { ok: true; response: AdmissionResponse; convert: VersionConverter }
  | { ok: false; callError: WebhookCallError }
  | { ok: false; error: ApiError };

/**
 * Calls one webhook. Dry-run against side effects is refused (400) whatever the failure
 * policy; a failed call is reported for the plugin to fail open or closed.
 */
export async function callWebhook(
  inv: Invocation,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  mutating: boolean,
  deps: WebhookPluginDeps,
): Promise<CallOutcome> {
  const { webhook } = inv;
  if (attrs.options.dryRun === true) {
    if (webhook.sideEffects === undefined) {
      return { ok: false, callError: new WebhookCallError('Webhook SideEffects is nil') };
    }
    if (webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
      return { ok: false, error: dryRunUnsupported(webhook.name) };
    }
  }
  try {
    const version = reviewVersion(webhook.name, webhook.admissionReviewVersions);
    const convert = await preparedConverter(inv, attrs, obj, deps);
    const request = admissionRequest(attrs, obj, inv.version, convert);
    const review = { apiVersion: `admission.k8s.io/${version}`, kind: 'AdmissionReview', request };
    const answer = await deps.endpoints.post(webhook.clientConfig, review, webhook.timeoutSeconds);
    const response = verifyAdmissionResponse(request.uid as string, version, mutating, answer);
    for (const [k, v] of Object.entries(response.auditAnnotations)) {
      deps.recordAuditAnnotation(attrs, `${webhook.name}/${k}`, v);
    }
    attrs.options.warnings?.push(...response.warnings);
    return { ok: true, response, convert };
  } catch (err) {
    if (err instanceof WebhookCallError) return { ok: false, callError: err };
    throw err;
  }
}

/** The error of a failed call under `failurePolicy: Fail`; undefined under Ignore. */
export function failClosed(webhook: Webhook, err: WebhookCallError): ApiError | undefined {
  return webhook.failurePolicy === 'Ignore' ? undefined : callFailure(webhook.name, err);
}
