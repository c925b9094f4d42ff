/**
 * Defaults and validation of MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding
 * (`admissionregistration.k8s.io/v1`), with kube-apiserver's field paths and words for
 * the refusals a policy author meets first: `failurePolicy` (default `Fail`),
 * `reinvocationPolicy` (default `Never`), `paramKind`, `matchConstraints` (required, with
 * resource rules, only CREATE and UPDATE), `matchConditions` and `variables` names,
 * `mutations` (at least one; `patchType` with its expression, which must compile), and a
 * binding's `policyName` and `paramRef`.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { compileCel } from '../../admission/cel.js';
import { rewriteObjectInitializers } from '../../admission/cel_objects.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const q = (v: unknown): string => JSON.stringify(v);

function required(field: string, detail = ''): StatusCause {
  return {
    reason: 'FieldValueRequired',
    field,
    message: detail === '' ? 'Required value' : `Required value: ${detail}`,
  };
}

function notSupported(field: string, value: unknown, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${q(value)}: supported values: ${supported.map(q).join(', ')}`,
  };
}

function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${q(value)}: ${detail}` };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

/** SetDefaults of the policy: failurePolicy Fail, reinvocationPolicy Never, matchPolicy Equivalent, selectors `{}`. */
export function defaultMutatingAdmissionPolicy(obj: UnstructuredObject): UnstructuredObject {
  if (!isRecord(obj.spec)) return obj;
  const spec: Record<string, unknown> = { ...obj.spec };
  spec.failurePolicy ??= 'Fail';
  spec.reinvocationPolicy ??= 'Never';
  if (isRecord(spec.matchConstraints))
    spec.matchConstraints = defaultMatchResources(spec.matchConstraints);
  return { ...obj, spec };
}

/** SetDefaults of the binding: its matchResources as a policy's. */
export function defaultMutatingAdmissionPolicyBinding(obj: UnstructuredObject): UnstructuredObject {
  if (!isRecord(obj.spec) || !isRecord(obj.spec.matchResources)) return obj;
  return {
    ...obj,
    spec: { ...obj.spec, matchResources: defaultMatchResources(obj.spec.matchResources) },
  };
}

function defaultMatchResources(m: Record<string, unknown>): Record<string, unknown> {
  return {
    ...m,
    matchPolicy: m.matchPolicy ?? 'Equivalent',
    namespaceSelector: m.namespaceSelector ?? {},
    objectSelector: m.objectSelector ?? {},
  };
}

const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const MUTATING_OPERATIONS = ['*', 'CREATE', 'UPDATE'];

function compileErrors(expression: string, field: string, mutation: boolean): StatusCause[] {
  const p = compileCel(mutation ? rewriteObjectInitializers(expression) : expression);
  if (!(p instanceof Error)) return [];
  const first = (p.message.split('\n')[0] ?? p.message).trim();
  return [invalid(field, expression, `compilation failed: ${first}`)];
}

function validateMatchResources(
  m: Record<string, unknown>,
  at: string,
  policy: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  if (m.matchPolicy !== undefined && m.matchPolicy !== 'Equivalent' && m.matchPolicy !== 'Exact') {
    causes.push(notSupported(`${at}.matchPolicy`, m.matchPolicy, ['Equivalent', 'Exact']));
  }
  const rules = Array.isArray(m.resourceRules) ? m.resourceRules : [];
  if (policy && rules.length === 0) causes.push(required(`${at}.resourceRules`));
  rules.forEach((r, i) => {
    const rule = isRecord(r) ? r : {};
    for (const key of ['operations', 'apiGroups', 'apiVersions', 'resources']) {
      if (!Array.isArray(rule[key]) || (rule[key] as unknown[]).length === 0) {
        causes.push(required(`${at}.resourceRules[${i}].${key}`));
      }
    }
    for (const op of Array.isArray(rule.operations) ? rule.operations : []) {
      if (!MUTATING_OPERATIONS.includes(String(op))) {
        causes.push(notSupported(`${at}.resourceRules.operations`, op, MUTATING_OPERATIONS));
      }
    }
  });
  return causes;
}

/** The causes of an invalid MutatingAdmissionPolicy (empty when valid). */
export function validateMutatingAdmissionPolicy(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const fp = spec.failurePolicy;
  if (fp === undefined) causes.push(required('spec.failurePolicy'));
  else if (fp !== 'Fail' && fp !== 'Ignore') {
    causes.push(notSupported('spec.failurePolicy', fp, ['Fail', 'Ignore']));
  }
  if (isRecord(spec.paramKind)) {
    if (typeof spec.paramKind.apiVersion !== 'string' || spec.paramKind.apiVersion === '') {
      causes.push(required('spec.paramKind.apiVersion'));
    }
    if (typeof spec.paramKind.kind !== 'string' || spec.paramKind.kind === '') {
      causes.push(required('spec.paramKind.kind'));
    }
  }
  if (!isRecord(spec.matchConstraints)) causes.push(required('spec.matchConstraints'));
  else causes.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints', true));
  const conditions = Array.isArray(spec.matchConditions) ? spec.matchConditions : [];
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const at = `spec.matchConditions[${i}]`;
    const mc = isRecord(c) ? c : {};
    const expression = typeof mc.expression === 'string' ? mc.expression.trim() : '';
    if (expression === '') causes.push(required(`${at}.expression`));
    else causes.push(...compileErrors(expression, `${at}.expression`, false));
    const name = typeof mc.name === 'string' ? mc.name : '';
    if (name === '') causes.push(required(`${at}.name`));
    else if (names.has(name)) {
      causes.push({
        reason: 'FieldValueDuplicate',
        field: `${at}.name`,
        message: `Duplicate value: ${q(name)}`,
      });
    }
    names.add(name);
  });
  const variables = Array.isArray(spec.variables) ? spec.variables : [];
  variables.forEach((v, i) => {
    const at = `spec.variables[${i}]`;
    const variable = isRecord(v) ? v : {};
    const name = typeof variable.name === 'string' ? variable.name.trim() : '';
    if (name === '') causes.push(required(`${at}.name`, 'name is not specified'));
    else if (!CEL_IDENT.test(name)) {
      causes.push(invalid(`${at}.name`, variable.name, 'must be a valid CEL identifier'));
    }
    const expression = typeof variable.expression === 'string' ? variable.expression.trim() : '';
    if (expression === '') causes.push(required(`${at}.expression`, 'expression is not specified'));
    else causes.push(...compileErrors(expression, `${at}.expression`, false));
  });
  const mutations = Array.isArray(spec.mutations) ? spec.mutations : [];
  if (mutations.length === 0) {
    causes.push(required('spec.mutations', 'mutations must contain at least one item'));
  }
  mutations.forEach((m, i) =>
    causes.push(...validateMutation(isRecord(m) ? m : {}, `spec.mutations[${i}]`)),
  );
  const rp = spec.reinvocationPolicy;
  if (rp === undefined || rp === '') causes.push(required('spec.reinvocationPolicy'));
  else if (rp !== 'Never' && rp !== 'IfNeeded') {
    causes.push(notSupported('spec.reinvocationPolicy', rp, ['IfNeeded', 'Never']));
  }
  return causes;
}

function validateMutation(m: Record<string, unknown>, at: string): StatusCause[] {
  const patchType = m.patchType;
  if (patchType === undefined || patchType === '') return [required(`${at}.patchType`)];
  const causes: StatusCause[] = [];
  const field = patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration';
  const other = patchType === 'JSONPatch' ? 'applyConfiguration' : 'jsonPatch';
  if (patchType !== 'JSONPatch' && patchType !== 'ApplyConfiguration') {
    return [notSupported(`${at}.patchType`, patchType, ['ApplyConfiguration', 'JSONPatch'])];
  }
  const body = m[field];
  if (!isRecord(body)) {
    causes.push(
      required(`${at}.${field}`, `must be specified when patchType is ${String(patchType)}`),
    );
  } else {
    const expression = typeof body.expression === 'string' ? body.expression.trim() : '';
    if (expression === '') causes.push(required(`${at}.${field}.expression`));
    else causes.push(...compileErrors(expression, `${at}.${field}.expression`, true));
  }
  if (m[other] !== undefined && m[other] !== null) {
    causes.push(
      invalid(
        `${at}.${other}`,
        `{${other}}`,
        `must not be specified when patchType is ${String(patchType)}`,
      ),
    );
  }
  return causes;
}

/** The causes of an invalid MutatingAdmissionPolicyBinding (empty when valid). */
export function validateMutatingAdmissionPolicyBinding(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isRecord(obj.spec) ? obj.spec : {};
  if (typeof spec.policyName !== 'string' || spec.policyName === '') {
    causes.push(required('spec.policyName'));
  }
  if (isRecord(spec.paramRef)) {
    const pr = spec.paramRef;
    const hasName = typeof pr.name === 'string' && pr.name !== '';
    const hasSelector = pr.selector !== undefined && pr.selector !== null;
    if (hasName && hasSelector) {
      causes.push(forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
      causes.push(forbidden('spec.paramRef.selector', 'name and selector are mutually exclusive'));
    }
    if (!hasName && !hasSelector) {
      causes.push(required('spec.paramRef', 'one of name or selector must be specified'));
    }
    const action = pr.parameterNotFoundAction;
    if (action === undefined || action === '') {
      causes.push(required('spec.paramRef.parameterNotFoundAction'));
    } else if (action !== 'Deny' && action !== 'Allow') {
      causes.push(notSupported('spec.paramRef.parameterNotFoundAction', action, ['Deny', 'Allow']));
    }
  }
  if (isRecord(spec.matchResources)) {
    causes.push(...validateMatchResources(spec.matchResources, 'spec.matchResources', false));
  }
  return causes;
}
