/**
 * The `ValidatingAdmissionPolicy` plugin: `admissionregistration.k8s.io/v1`
 * ValidatingAdmissionPolicies, put in force by their ValidatingAdmissionPolicyBindings,
 * as kube-apiserver evaluates them: the policy's `matchConstraints` and the binding's
 * `matchResources` (rules, excluded rules, resource names, namespace and object
 * selectors, the Equivalent match), `matchConditions`, `variables` (./policy_dispatch.ts,
 * shared with MutatingAdmissionPolicy), then each `validations` CEL expression with
 * `object`, `oldObject`, `request`, `namespaceObject`, `variables` and `params` (each
 * parameter object of the binding's `paramRef` in turn, null without `paramKind`). A failed
 * validation acts by the binding's `validationActions`: `Deny` refuses (reason Invalid,
 * 422, unless the validation names another), `Warn` adds a warning, `Audit` an audit
 * annotation. An expression that errs counts as a failure under `failurePolicy: Fail`.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { statusError } from '../status.js';
import { celErrorText, evaluateCel } from './cel.js';
import type { AdmissionAttributes, ValidationInterface } from './interfaces.js';
import type { PolicyBinding, PolicyPluginDeps } from './policy_dispatch.js';
import {
  bindingMatches,
  bindingParams,
  evaluatePreamble,
  groupResource,
  policyBindings,
  policyVariables,
} from './policy_dispatch.js';
import { isExemptResource } from './webhook.js';

export type { PolicyPluginDeps } from './policy_dispatch.js';

interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

const CODES: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

/** The `ValidatingAdmissionPolicy` validation. */
export function validatingAdmissionPolicyPlugin(deps: PolicyPluginDeps): ValidationInterface {
  return {
    name: 'ValidatingAdmissionPolicy',
    validate(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (attrs.inProcess || isExemptResource(attrs.type)) return;
      for (const pb of policyBindings(deps)) evaluateBinding(pb, attrs, obj, deps);
    },
  };
}

function evaluateBinding(
  pb: PolicyBinding,
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: PolicyPluginDeps,
): void {
  const { bspec, pspec, policyName, failurePolicy } = pb;
  const version = bindingMatches(pb, attrs, obj, deps);
  if (version === undefined) return;
  const actions = Array.isArray(bspec.validationActions)
    ? (bspec.validationActions as string[])
    : ['Deny'];
  const base = policyVariables(attrs, obj, version, deps);
  const policyLabel = `ValidatingAdmissionPolicy '${policyName}' with binding '${pb.bindingName}'`;
  const decide = (message: string, reason: string | undefined): void => {
    if (actions.includes('Warn')) {
      attrs.options.warnings?.push(`Validation failed for ${policyLabel}: ${message}`);
    }
    if (actions.includes('Audit')) {
      deps.recordAuditAnnotation(
        attrs,
        'validation.policy.admission.k8s.io/validation_failure',
        JSON.stringify([
          {
            message,
            policy: policyName,
            binding: pb.bindingName,
            expressionIndex: 0,
            validationActions: actions,
          },
        ]),
      );
    }
    if (!actions.includes('Deny')) return;
    const text = `${policyLabel} denied request: ${message}`;
    const r = reason ?? 'Invalid';
    throw statusError(
      CODES[r] ?? 422,
      r,
      `${groupResource(attrs)} "${attrs.name}" is forbidden: ${text}`,
      {
        name: attrs.name,
        group: attrs.type.group,
        kind: attrs.type.resource,
        causes: [{ message: text }],
      },
    );
  };
  const evaluateWith = (vars: Record<string, unknown>): void => {
    // matchConditions: any false skips; an error fails by the failure policy.
    const preamble = evaluatePreamble(pspec, vars);
    if (preamble.kind === 'skip') return;
    if (preamble.kind === 'error') {
      if (failurePolicy === 'Fail') decide(preamble.message, undefined);
      return;
    }
    const { variables } = preamble;
    const validations = Array.isArray(pspec.validations) ? (pspec.validations as Validation[]) : [];
    for (const v of validations) {
      let ok: unknown;
      try {
        ok = evaluateCel(v.expression, { ...vars, variables });
        if (typeof ok !== 'boolean') throw new Error('no such overload');
      } catch (err) {
        if (failurePolicy === 'Ignore') continue;
        decide(`expression '${v.expression}' resulted in error: ${celErrorText(err)}`, undefined);
        continue;
      }
      if (ok) continue;
      let message =
        v.message !== undefined && v.message !== ''
          ? v.message
          : `failed expression: ${v.expression.trim()}`;
      if (v.messageExpression !== undefined && v.messageExpression !== '') {
        try {
          const m = evaluateCel(v.messageExpression, { ...vars, variables });
          if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m.trim();
        } catch {
          // kube-apiserver keeps the static message when messageExpression fails
        }
      }
      decide(message, v.reason);
    }
  };
  // The binding's parameters (policy/generic policy_dispatcher collectParams): each one
  // is evaluated with `params` bound to it; none found is a configuration error under
  // parameterNotFoundAction Deny (failing by the failure policy), a skip under Allow.
  const params = bindingParams(pb, attrs, deps);
  if (typeof params === 'string') {
    if (failurePolicy === 'Fail') decide(params, undefined);
    return;
  }
  for (const param of params) evaluateWith({ ...base, params: param });
}
