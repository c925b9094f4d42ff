/**
 * The "simple JSON path" of CRD `additionalPrinterColumns` (kubectl's JSONPath without
 * templates): `.a.b`, `['a.b']`, `[0]`, `[*]`, `..`-free filters `[?(@.type=="Ready")]`.
 * Evaluates to every value the path reaches.
 *
 * @module
 */
import { KubeControllerKitError } from 'kube-controller-kit';

/** A JSONPath that does not parse. */
export class JsonPathError extends KubeControllerKitError {}

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; value: string | number | boolean };

function parse(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const p = path
    .trim()
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/^\$/, '');
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      i++;
      const m = /^[A-Za-z0-9_-]+/.exec(p.slice(i));
      if (!m) throw new JsonPathError(`invalid JSONPath ${JSON.stringify(path)} at ${i}`);
      steps.push({ kind: 'field', name: m[0] });
      i += m[0].length;
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) throw new JsonPathError(`unclosed [ in JSONPath ${JSON.stringify(path)}`);
      let inner = p.slice(i + 1, end);
      if (inner.startsWith('?(')) {
        const close = p.indexOf(')]', i);
        if (close < 0) throw new JsonPathError(`unclosed filter in ${JSON.stringify(path)}`);
        inner = p.slice(i + 3, close);
        const m = /^@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*(.+)$/.exec(inner.trim());
        if (!m?.[1] || m[2] === undefined) {
          throw new JsonPathError(
            `unsupported filter ${JSON.stringify(inner)} in ${JSON.stringify(path)}`,
          );
        }
        const raw = m[2].trim();
        let value: string | number | boolean;
        if (/^["'].*["']$/.test(raw)) value = raw.slice(1, -1);
        else if (raw === 'true' || raw === 'false') value = raw === 'true';
        else value = Number(raw);
        steps.push({ kind: 'filter', path: m[1].slice(1).split('.'), value });
        i = close + 2;
        continue;
      }
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else throw new JsonPathError(`unsupported subscript [${inner}] in ${JSON.stringify(path)}`);
      i = end + 1;
    } else {
      throw new JsonPathError(`invalid JSONPath ${JSON.stringify(path)} at ${i}`);
    }
  }
  return steps;
}

function get(v: unknown, name: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)[name]
    : undefined;
}

/** Every value `path` reaches in `obj` (empty when it reaches none). */
export function evaluateJsonPath(obj: unknown, path: string): unknown[] {
  let cur: unknown[] = [obj];
  for (const step of parse(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      switch (step.kind) {
        case 'field': {
          const x = get(v, step.name);
          if (x !== undefined) next.push(x);
          break;
        }
        case 'index':
          if (Array.isArray(v)) {
            const x: unknown = v[step.index < 0 ? v.length + step.index : step.index];
            if (x !== undefined) next.push(x);
          }
          break;
        case 'all':
          if (Array.isArray(v)) next.push(...(v as unknown[]));
          else if (v !== null && typeof v === 'object')
            next.push(...Object.values(v as Record<string, unknown>));
          break;
        case 'filter':
          if (Array.isArray(v)) {
            for (const item of v as unknown[]) {
              let x: unknown = item;
              for (const f of step.path) x = get(x, f);
              if (x === step.value) next.push(item);
            }
          }
          break;
      }
    }
    cur = next;
  }
  return cur;
}
