/**
 * `x-kubernetes-validations` rules of custom resources, evaluated with a CEL interpreter
 * (`@marcbachmann/cel-js`), worded as kube-apiserver words their failures.
 *
 * Each rule sees `self` (the value at its schema node) and, on update, `oldSelf` (the
 * value at the same place in the old object, correlated through object fields and `map`
 * list keys). A transition rule (one that mentions `oldSelf`) is evaluated only when an
 * old value exists. Other rules are ratcheted: skipped where the value is unchanged.
 * Integers (`type: integer`, int-or-string, and integral numbers in untyped values) are
 * CEL `int`s; `type: number` values are `double`s.
 *
 * Not supported (see docs/testing.md): the cost budget and cost estimation, compile-time
 * type checking of rules against the schema (a CRD with a bad rule is accepted; the rule
 * fails when evaluated), `optionalOldSelf`, the Kubernetes CEL libraries (`isSorted`,
 * `url`, `quantity`, `ip`, `cidr`, `format`, `semver`, regex `find`, …) and
 * `x-kubernetes-validations` on the root `metadata`.
 *
 * @module
 */
import { Environment } from '@marcbachmann/cel-js';
import type { StatusCause } from 'kube-controller-kit';
import type { StructuralSchema, ValidationRule } from './structural.js';
import { childPath, deepEqual, indexPath, isObject, renderValue } from './structural.js';
import { mapListKey } from './validate.js';

type Program = (ctx: Record<string, unknown>) => unknown;

const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
const programs = new Map<string, Program | Error>();

function compile(expr: string): Program | Error {
  let p = programs.get(expr);
  if (p === undefined) {
    try {
      p = env.parse(expr);
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    programs.set(expr, p);
  }
  return p;
}

/** A JSON value as the CEL value kube-apiserver binds for a schema node. */
export function toCel(s: StructuralSchema | undefined, v: unknown): unknown {
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(s?.items, x));
  if (isObject(v)) {
    const props = s?.properties ?? {};
    const extra = isObject(s?.additionalProperties) ? s.additionalProperties : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toCel(props[k] ?? extra, x);
    return out;
  }
  return v;
}

const TRANSITION = /\boldSelf\b/;

/** Whether a rule is a transition rule (refers to `oldSelf`). */
export function isTransitionRule(rule: ValidationRule): boolean {
  return TRANSITION.test(rule.rule);
}

/** `.spec.x`, `['a.b']`, `[0]` relative to `base`, as a field path. */
export function joinFieldPath(base: string, rel: string): string {
  let out = base;
  const re = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(rel)) !== null) {
    if (m[1] !== undefined) out = childPath(out, m[1]);
    else if (m[2] !== undefined) out = childPath(out, m[2].replace(/\\(.)/g, '$1'));
    else out = indexPath(out, Number(m[3]));
    if (re.lastIndex >= rel.length) break;
  }
  return out;
}

function failure(rule: ValidationRule, path: string, value: unknown, detail: string): StatusCause {
  const field = rule.fieldPath ? joinFieldPath(path, rule.fieldPath) : path;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return { reason: rule.reason, field, message: `Forbidden: ${detail}` };
    case 'FieldValueRequired':
      return { reason: rule.reason, field, message: `Required value: ${detail}` };
    case 'FieldValueDuplicate':
      return {
        reason: rule.reason,
        field,
        message: `Duplicate value: ${renderValueOrOmit(value)}`,
      };
    default: {
      const shown = isObject(value) || Array.isArray(value) ? '' : `${renderValue(value)}: `;
      return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown}${detail}` };
    }
  }
}

function renderValueOrOmit(v: unknown): string {
  return isObject(v) || Array.isArray(v) ? '' : renderValue(v);
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? text).trim();
}

function evaluateRule(
  rule: ValidationRule,
  s: StructuralSchema,
  value: unknown,
  path: string,
  old: unknown,
  hasOld: boolean,
  out: StatusCause[],
): void {
  const program = compile(rule.rule);
  const ctx: Record<string, unknown> = { self: toCel(s, value) };
  if (hasOld) ctx.oldSelf = toCel(s, old);
  if (program instanceof Error) {
    out.push({
      reason: 'FieldValueInvalid',
      field: path,
      message: `Invalid value: "${s.type ?? 'object'}": compilation failed: ${errorText(program)}`,
    });
    return;
  }
  let result: unknown;
  try {
    result = program(ctx);
  } catch (err) {
    out.push({
      reason: 'FieldValueInvalid',
      field: path,
      message: `Invalid value: "${s.type ?? 'object'}": ${errorText(err)}`,
    });
    return;
  }
  if (result === true) return;
  let detail = rule.message !== undefined && rule.message !== '' ? rule.message : '';
  if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
    const mp = compile(rule.messageExpression);
    if (!(mp instanceof Error)) {
      try {
        const m = mp(ctx);
        if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) detail = m;
      } catch {
        // kube-apiserver falls back to the message (or the rule) when the expression fails.
      }
    }
  }
  if (detail === '') detail = `failed rule: ${rule.rule.trim()}`;
  out.push(failure(rule, path, value, detail));
}

function walk(
  s: StructuralSchema,
  v: unknown,
  path: string,
  old: unknown,
  hasOld: boolean,
  out: StatusCause[],
): void {
  if (v === undefined || v === null) return;
  const unchanged = hasOld && deepEqual(v, old);
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    const transition = isTransitionRule(rule);
    if (transition && !hasOld) continue;
    if (!transition && unchanged) continue; // ratcheted
    evaluateRule(rule, s, v, path, old, hasOld, out);
  }
  if (Array.isArray(v) && s.items) {
    const items = s.items;
    const keys = s['x-kubernetes-list-map-keys'];
    v.forEach((item, i) => {
      let o: unknown;
      let has = false;
      if (hasOld && s['x-kubernetes-list-type'] === 'map' && keys && Array.isArray(old)) {
        const key = mapListKey(keys, item);
        o = old.find((x) => deepEqual(mapListKey(keys, x), key));
        has = o !== undefined;
      }
      walk(items, item, indexPath(path, i), o, has, out);
    });
  } else if (isObject(v)) {
    const props = s.properties ?? {};
    const extra = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
    const oldObj = hasOld && isObject(old) ? old : undefined;
    for (const [k, child] of Object.entries(v)) {
      const cs = props[k] ?? extra;
      if (cs === undefined) continue;
      const has = oldObj !== undefined && oldObj[k] !== undefined;
      walk(cs, child, childPath(path, k), oldObj?.[k], has, out);
    }
  }
}

/**
 * Evaluates every `x-kubernetes-validations` rule of `schema` over `value` (and `old` on
 * update); returns the failures as kube-apiserver's causes.
 */
export function validateCelRules(
  schema: StructuralSchema,
  value: unknown,
  old?: { value: unknown },
  path = '',
): StatusCause[] {
  const out: StatusCause[] = [];
  walk(schema, value, path, old?.value, old !== undefined, out);
  return out;
}

/** Whether any node of the schema has `x-kubernetes-validations`. */
export function hasCelRules(s: StructuralSchema | undefined): boolean {
  if (s === undefined) return false;
  if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
  if (Object.values(s.properties ?? {}).some(hasCelRules)) return true;
  if (isObject(s.additionalProperties) && hasCelRules(s.additionalProperties)) return true;
  return hasCelRules(s.items);
}

function goRule(r: ValidationRule): string {
  return JSON.stringify({
    Rule: r.rule,
    Message: r.message ?? '',
    MessageExpression: r.messageExpression ?? '',
    Reason: r.reason ?? null,
    FieldPath: r.fieldPath ?? '',
    OptionalOldSelf: null,
  });
}

/**
 * The rules of a schema that do not compile, as CRD validation causes under `path`
 * (`spec.validation.openAPIV3Schema`): kube-apiserver refuses such a CRD. Only syntax is
 * checked here (kube-apiserver also type-checks rules against the schema).
 */
export function ruleCompilationCauses(schema: StructuralSchema, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const visit = (s: StructuralSchema, p: string): void => {
    (s['x-kubernetes-validations'] ?? []).forEach((r, i) => {
      const at = `${p}.x-kubernetes-validations[${i}]`;
      const rule = typeof r.rule === 'string' ? compile(r.rule) : undefined;
      if (rule instanceof Error) {
        out.push({
          reason: 'FieldValueInvalid',
          field: `${at}.rule`,
          message: `Invalid value: ${goRule(r)}: compilation failed: ${errorText(rule)}`,
        });
      }
      const msg =
        typeof r.messageExpression === 'string' && r.messageExpression !== ''
          ? compile(r.messageExpression)
          : undefined;
      if (msg instanceof Error) {
        out.push({
          reason: 'FieldValueInvalid',
          field: `${at}.messageExpression`,
          message: `Invalid value: ${goRule(r)}: messageExpression compilation failed: ${errorText(msg)}`,
        });
      }
    });
    for (const [k, c] of Object.entries(s.properties ?? {})) visit(c, `${p}.properties[${k}]`);
    if (isObject(s.additionalProperties))
      visit(s.additionalProperties, `${p}.additionalProperties`);
    if (s.items) visit(s.items, `${p}.items`);
  };
  visit(schema, path);
  return out;
}
