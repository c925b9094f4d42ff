/**
 * Admission webhooks as kube-apiserver reads them from their configurations
 * (`admissionregistration.k8s.io/v1` MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration) and decides whether one is called for a request
 * (`generic.Webhook.ShouldCallHook`): namespaceSelector, objectSelector, rules (the shared
 * matcher of `./rules.ts`, with the Equivalent match of another version of the same
 * resource), then `matchConditions`.
 * Requests for the webhook and policy configuration kinds themselves are never sent.
 *
 * @module
 */
import { labelSelectorFromLabelSelector } from 'kube-controller-kit';
import type { LabelSelectorSpec, UnstructuredObject } from 'kube-controller-kit';
import type { ResourceType } from '../registry/resource_registry.js';
import { statusError } from '../status.js';
import { celErrorText, evaluateCel } from './cel.js';
import type { AdmissionAttributes } from './interfaces.js';
import type { RuleWithOperations } from './rules.js';
import type { WebhookClientConfig } from './webhook_client.js';

/** A `matchConditions` entry. */
export interface MatchCondition {
  /** Unique name, used in errors. */
  name: string;
  /** A CEL expression answering a bool. */
  expression: string;
}

/** One webhook of a configuration, with kube-apiserver's defaults filled in. */
export interface Webhook {
  /** The webhook's name (used in every message). */
  name: string;
  /** The name of its configuration (webhooks run sorted by it). */
  configurationName: string;
  /** How it is reached. */
  clientConfig: WebhookClientConfig;
  /** What it is called for. */
  rules: RuleWithOperations[];
  /** `Fail` (default) or `Ignore`. */
  failurePolicy: 'Fail' | 'Ignore';
  /** `Equivalent` (default) or `Exact`. */
  matchPolicy: 'Equivalent' | 'Exact';
  /** Namespaces it is called for (`{}`: all). */
  namespaceSelector: LabelSelectorSpec;
  /** Objects it is called for (`{}`: all). */
  objectSelector: LabelSelectorSpec;
  /** `None`, `NoneOnDryRun`, `Some`, `Unknown`. */
  sideEffects: string | undefined;
  /** Seconds to wait (1 to 30, default 10). */
  timeoutSeconds: number;
  /** The AdmissionReview versions it accepts, in its order of preference. */
  admissionReviewVersions: string[];
  /** CEL conditions that must all hold. */
  matchConditions: MatchCondition[];
  /** Mutating only: `Never` (default) or `IfNeeded`. */
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The webhooks of configuration objects, sorted by configuration name, defaults applied. */
export function webhooksOf(configurations: Iterable<UnstructuredObject>): Webhook[] {
  const sorted = [...configurations].sort((a, b) =>
    (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1,
  );
  const out: Webhook[] = [];
  for (const config of sorted) {
    const list = Array.isArray(config.webhooks) ? (config.webhooks as unknown[]) : [];
    for (const raw of list) {
      if (!isObject(raw)) continue;
      const timeout = typeof raw.timeoutSeconds === 'number' ? raw.timeoutSeconds : 10;
      out.push({
        name: typeof raw.name === 'string' ? raw.name : '',
        configurationName: config.metadata?.name ?? '',
        clientConfig: isObject(raw.clientConfig) ? raw.clientConfig : {},
        rules: Array.isArray(raw.rules) ? (raw.rules as RuleWithOperations[]) : [],
        failurePolicy: raw.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
        matchPolicy: raw.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
        namespaceSelector: isObject(raw.namespaceSelector) ? raw.namespaceSelector : {},
        objectSelector: isObject(raw.objectSelector) ? raw.objectSelector : {},
        sideEffects: typeof raw.sideEffects === 'string' ? raw.sideEffects : undefined,
        timeoutSeconds: Math.min(30, Math.max(1, timeout)),
        admissionReviewVersions: strings(raw.admissionReviewVersions),
        matchConditions: Array.isArray(raw.matchConditions)
          ? (raw.matchConditions as MatchCondition[])
          : [],
        reinvocationPolicy: raw.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
      });
    }
  }
  return out;
}

/** The admissionregistration kinds no webhook or policy is ever called for. */
const EXEMPT = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

/** Whether admission webhooks and policies skip a resource (their own configurations). */
export function isExemptResource(type: ResourceType): boolean {
  return type.group === 'admissionregistration.k8s.io' && EXEMPT.has(type.resource);
}

/** Whether a label selector spec matches labels (`{}` matches all). */
export function selectorMatches(
  spec: LabelSelectorSpec,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return labelSelectorFromLabelSelector(spec).matches(labels ?? {});
}

/**
 * kube-apiserver's namespace matcher: a cluster-scoped object (other than a Namespace)
 * always matches; a Namespace is matched by its own labels; anything else by the labels
 * of its namespace.
 */
export function namespaceMatches(
  spec: LabelSelectorSpec,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  namespaceLabels: (name: string) => Record<string, string> | undefined,
): boolean {
  const isNamespace = attrs.type.group === '' && attrs.type.resource === 'namespaces';
  if (!attrs.type.namespaced && !isNamespace) return true;
  if (isNamespace) {
    return selectorMatches(spec, (obj ?? attrs.old)?.metadata?.labels);
  }
  return selectorMatches(spec, namespaceLabels(attrs.namespace));
}

/** kube-apiserver's object matcher: the new or the old object's labels match. */
export function objectMatches(
  spec: LabelSelectorSpec,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
): boolean {
  if (obj !== undefined && selectorMatches(spec, obj.metadata?.labels)) return true;
  return attrs.old !== undefined && selectorMatches(spec, attrs.old.metadata?.labels);
}

/**
 * Evaluates `matchConditions` (all must be true). An error is a 403 Forbidden under
 * failurePolicy Fail (undefined under Ignore: the webhook is skipped). Answers whether
 * the webhook is called.
 */
export function matchConditionsHold(
  conditions: MatchCondition[],
  vars: Record<string, unknown>,
  failurePolicy: 'Fail' | 'Ignore',
  attrs: AdmissionAttributes,
): boolean {
  for (const c of conditions) {
    let result: unknown;
    try {
      result = evaluateCel(c.expression, vars);
      if (typeof result !== 'boolean') {
        throw new Error(`expression must evaluate to bool, got ${typeof result}`);
      }
    } catch (err) {
      if (failurePolicy === 'Ignore') return false;
      const gr =
        attrs.type.group === ''
          ? attrs.type.resource
          : `${attrs.type.resource}.${attrs.type.group}`;
      throw statusError(
        403,
        'Forbidden',
        `${gr} "${attrs.name}" is forbidden: failed to evaluate match condition "${c.name}": ${celErrorText(err)}`,
        { name: attrs.name, group: attrs.type.group, kind: attrs.type.resource },
      );
    }
    if (result === false) return false;
  }
  return true;
}
