/**
 * The `MutatingAdmissionPolicy` plugin: `admissionregistration.k8s.io/v1`
 * MutatingAdmissionPolicies, put in force by their MutatingAdmissionPolicyBindings, as
 * kube-apiserver's `policy/mutating` dispatcher applies them. It runs first among the
 * mutations, before the mutating webhooks (kube-apiserver's plugin order). Bindings are
 * matched as ValidatingAdmissionPolicy matches them (./policy_dispatch.ts:
 * `matchConstraints`, `matchResources`, parameters), then per parameter the policy's
 * `matchConditions` and `variables` are evaluated and its `mutations` applied in order to
 * the object as the previous one left it:
 * - `ApplyConfiguration`: a CEL expression answering `Object{…}`, merged into the object
 *   as server-side apply merges (structured-merge-diff's `Merge` over the kind's schema:
 *   maps key by key, `map` lists item by item); an atomic list or map in it is refused
 *   (`may not mutate atomic arrays, maps or structs`). No field manager owns what it set.
 * - `JSONPatch`: a CEL expression answering a list of `JSONPatch{op, path, value, from}`,
 *   applied as RFC 6902; a failed `test` leaves the object as it was.
 *
 * A policy with `reinvocationPolicy: IfNeeded` runs again in the chain's second run when
 * the object changed after it (./reinvocation.ts). A configuration or evaluation error is
 * dropped under `failurePolicy: Ignore`; under `Fail` (the default) the request is refused
 * with 403 and kube-apiserver's words (`policy '<p>' with binding '<b>' denied request:
 * …`). DELETE and CONNECT requests have no object: policies match them but change
 * nothing. Requests written in-process are not admitted (as the other policy plugin).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { JsonValue } from '../fieldmanager/path.js';
import { openRoot } from '../fieldmanager/builtin_schema.js';
import type { TypeNode } from '../fieldmanager/schema.js';
import { fieldType } from '../fieldmanager/schema.js';
import { merge } from '../fieldmanager/typed.js';
import { applyJsonPatch } from '../patch.js';
import { statusError } from '../status.js';
import { objectAt } from './admission_review.js';
import { celErrorText, evaluateCel, fromCel } from './cel.js';
import { objectValue, typeNameOf } from './cel_objects.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';
import type { PolicyBinding, PolicyPluginDeps } from './policy_dispatch.js';
import {
  bindingMatches,
  bindingParams,
  evaluatePreamble,
  isRecord,
  policyBindings,
  policyVariables,
} from './policy_dispatch.js';
import { ReinvocationContext } from './reinvocation.js';
import { isExemptResource } from './webhook.js';

/** The plugin's name (kube-apiserver's). */
export const MUTATING_ADMISSION_POLICY = 'MutatingAdmissionPolicy';

/** One refusal: the binding it came from and what went wrong. */
interface PolicyError {
  pb: PolicyBinding;
  message: string;
  /** `Invalid` for an evaluation error; none for a configuration error (Forbidden). */
  reason?: 'Invalid';
}

/** The `MutatingAdmissionPolicy` mutation. */
export function mutatingAdmissionPolicyPlugin(deps: PolicyPluginDeps): MutationInterface {
  return {
    name: MUTATING_ADMISSION_POLICY,
    admit(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (attrs.inProcess || isExemptResource(attrs.type)) return obj;
      const bindings = policyBindings(deps, true);
      if (bindings.length === 0) return obj;
      return dispatch(bindings, attrs, obj, deps);
    },
  };
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function paramKey(param: unknown): string {
  if (!isRecord(param) || !isRecord(param.metadata)) return '';
  return `${text(param.metadata.namespace)}/${text(param.metadata.name)}`;
}

function dispatch(
  bindings: PolicyBinding[],
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: PolicyPluginDeps,
): UnstructuredObject | undefined {
  const context = attrs.reinvocation ?? new ReinvocationContext();
  const state = context.plugin(MUTATING_ADMISSION_POLICY);
  if (context.isReinvoke && state.outputChangedSinceLastInvocation(obj)) {
    // another plugin (a webhook) changed the object since the policies ran
    state.requireReinvokingPreviouslyInvoked();
  }
  let current = obj;
  const errors: PolicyError[] = [];
  try {
    for (const pb of bindings) {
      const version = bindingMatches(pb, attrs, current, deps);
      if (version === undefined) continue;
      const params = bindingParams(pb, attrs, deps);
      if (typeof params === 'string') {
        errors.push({ pb, message: params });
        continue;
      }
      for (const param of params) {
        const key = `${pb.policyName}/${pb.bindingName}/${paramKey(param)}`;
        const vars = { ...policyVariables(attrs, current, version, deps), params: param };
        const preamble = evaluatePreamble(pb.pspec, vars);
        if (preamble.kind === 'error') {
          errors.push({ pb, message: preamble.message, reason: 'Invalid' });
          continue;
        }
        if (preamble.kind === 'skip') continue;
        if (context.isReinvoke && !state.shouldReinvoke(key)) continue;
        const before = JSON.stringify(current);
        const mutations = Array.isArray(pb.pspec.mutations) ? pb.pspec.mutations : [];
        for (const mutation of mutations) {
          if (current === undefined) continue; // DELETE: nothing to patch
          try {
            current = mutate(
              mutation,
              current,
              attrs,
              version,
              {
                ...policyVariables(attrs, current, version, deps),
                params: param,
                variables: preamble.variables,
              },
              deps,
            );
          } catch (err) {
            errors.push({ pb, message: celErrorText(err), reason: 'Invalid' });
          }
        }
        if (JSON.stringify(current) !== before) {
          state.requireReinvokingPreviouslyInvoked();
          context.shouldReinvoke = true;
        }
        if (pb.pspec.reinvocationPolicy === 'IfNeeded') state.addReinvocable(key);
      }
    }
  } finally {
    state.setLastInvocationOutput(current);
  }
  const failing = errors.filter((e) => e.pb.failurePolicy === 'Fail');
  const first = failing[0];
  if (first === undefined) return current;
  const text = (e: PolicyError): string =>
    `policy '${e.pb.policyName}' with binding '${e.pb.bindingName}' denied request: ${e.message}`;
  throw statusError(403, first.reason ?? 'Forbidden', text(first), {
    name: attrs.name,
    group: attrs.type.group,
    kind: attrs.type.resource,
    causes: failing.map((e) => ({ message: text(e) })),
  });
}

/** Applies one mutation to the object (expressed at the matched version and back). */
function mutate(
  mutation: unknown,
  current: UnstructuredObject,
  attrs: AdmissionAttributes,
  version: string,
  vars: Record<string, unknown>,
  deps: PolicyPluginDeps,
): UnstructuredObject {
  if (!isRecord(mutation)) return current;
  const at = objectAt(deps.convert, current, attrs, version);
  let next: UnstructuredObject;
  if (mutation.patchType === 'JSONPatch') {
    const expression = isRecord(mutation.jsonPatch) ? mutation.jsonPatch.expression : undefined;
    next = jsonPatch(text(expression), at, vars);
  } else {
    const expression = isRecord(mutation.applyConfiguration)
      ? mutation.applyConfiguration.expression
      : undefined;
    next = applyConfiguration(text(expression), at, attrs, vars);
  }
  const back =
    version !== attrs.version && attrs.kind === undefined
      ? deps.convert(next, attrs, attrs.version)
      : next;
  const out: UnstructuredObject = { ...back };
  if (current.apiVersion !== undefined) out.apiVersion = current.apiVersion;
  return out;
}

function evaluate(expression: string, vars: Record<string, unknown>): unknown {
  try {
    return evaluateCel(expression, vars, true);
  } catch (err) {
    const text = celErrorText(err);
    if (text.startsWith('compilation failed')) throw new Error(text);
    throw new Error(`expression '${expression}' resulted in error: ${text}`);
  }
}

/** `ApplyConfiguration`: the expression's `Object{…}` merged into the object. */
function applyConfiguration(
  expression: string,
  obj: UnstructuredObject,
  attrs: AdmissionAttributes,
  vars: Record<string, unknown>,
): UnstructuredObject {
  const raw = fromCel(evaluate(expression, vars));
  if (typeNameOf(raw) !== 'Object') {
    throw new Error(
      `type mismatch: ApplyConfiguration expression must evaluate to Object, got ${typeNameOf(raw) ?? typeof raw}`,
    );
  }
  const patch = objectValue(raw, 'Object') as Record<string, JsonValue>;
  const type = (attrs.type.mergeType ?? openRoot).type;
  const atomics = findAtomics(patch, type, '');
  if (atomics.length > 0) {
    throw new Error(
      `error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`,
    );
  }
  // the apply configuration has the object's apiVersion and kind (smd.go sets its GVK)
  const typed: Record<string, JsonValue> = { ...patch };
  if (obj.apiVersion !== undefined) typed.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) typed.kind = obj.kind;
  const merged = merge(obj as unknown as JsonValue, typed, type);
  return merged as unknown as UnstructuredObject;
}

/**
 * The paths of the atomic lists, maps and structs an apply configuration sets
 * (structured-merge-diff's `findAtomics`): only those the schema declares atomic, not
 * the lists of fields the test server knows no type for.
 */
function findAtomics(v: JsonValue, t: TypeNode, path: string): string[] {
  const out: string[] = [];
  if (t.kind === 'map' && isRecord(v)) {
    if (t.atomic) out.push(path);
    for (const [k, x] of Object.entries(v)) {
      out.push(...findAtomics(x, fieldType(t, k).type, `${path}.${k}`));
    }
  } else if (t.kind === 'list' && Array.isArray(v)) {
    if (t.listType === 'atomic') out.push(path);
    v.forEach((x, i) => out.push(...findAtomics(x, t.elementType, `${path}[${i}]`)));
  }
  return out;
}

/** `JSONPatch`: the expression's operations applied to the object. */
function jsonPatch(
  expression: string,
  obj: UnstructuredObject,
  vars: Record<string, unknown>,
): UnstructuredObject {
  const raw = fromCel(evaluate(expression, vars));
  if (!Array.isArray(raw)) {
    throw new Error('type mismatch: JSONPatchType.expression should evaluate to array');
  }
  const ops = raw.map((op) => {
    if (typeNameOf(op) !== 'JSONPatch') {
      throw new Error(
        'type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch',
      );
    }
    const o = objectValue(op, undefined) as Record<string, unknown>;
    const patchOp: Record<string, unknown> = { op: o.op ?? '', path: o.path ?? '' };
    if (typeof o.from === 'string' && o.from !== '') patchOp.from = o.from;
    if (o.value !== undefined) patchOp.value = o.value;
    return patchOp;
  });
  try {
    return applyJsonPatch(obj, ops) as UnstructuredObject;
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    // a failed `test` operation: the patch is not applied, and that is no error
    if (text.includes('test failed')) return obj;
    throw new Error(`JSONPath: ${text}`);
  }
}
