/**
 * CEL expressions of admission (webhook `matchConditions`, ValidatingAdmissionPolicy
 * validations, variables and match conditions), evaluated with the same interpreter as
 * CRD validation rules (`@marcbachmann/cel-js`). Integral JSON numbers are CEL `int`s.
 *
 * @module
 */
import { Environment } from '@marcbachmann/cel-js';
import { toCel } from '../schema/cel.js';

type Program = (ctx: Record<string, unknown>) => unknown;

const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
const programs = new Map<string, Program | Error>();

/** The first line of an error's message. */
export function celErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? text).trim();
}

/** A compiled expression, or the compilation error. */
export function compileCel(expr: string): Program | Error {
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

/** A JSON value as a CEL value (null stays null). */
export function celValue(v: unknown): unknown {
  return v === undefined ? null : toCel(undefined, v);
}

/**
 * Evaluates an expression with the given variables (JSON values, converted here).
 * Throws an `Error` with the compiler's or interpreter's message.
 */
export function evaluateCel(expr: string, vars: Record<string, unknown>): unknown {
  const program = compileCel(expr);
  if (program instanceof Error) throw new Error(`compilation failed: ${celErrorText(program)}`);
  const ctx: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) ctx[k] = celValue(v);
  return program(ctx);
}

/** A CEL result as a JSON value (ints back to numbers). */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[String(k)] = fromCel(x);
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fromCel(x);
    return out;
  }
  return v;
}
