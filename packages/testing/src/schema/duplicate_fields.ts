/**
 * Duplicate fields in a JSON request body. `JSON.parse` keeps the last of two equal keys
 * silently; kube-apiserver's strict decoder reports each (`duplicate field
 * "spec.replicas"`), rejecting the request with `fieldValidation=Strict` and warning with
 * `Warn`, and keeps the last value as well.
 *
 * @module
 */
import { childPath, indexPath } from './structural.js';

/**
 * The paths of duplicate object keys in a JSON text, in the order they occur (empty for
 * text that is not valid JSON: the parser reports that).
 */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i] ?? '')) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') throw new SyntaxError('key expected');
        const key = str();
        const p = childPath(path, key);
        if (seen.has(key)) out.push(p);
        seen.add(key);
        ws();
        if (text[i] !== ':') throw new SyntaxError(': expected');
        i++;
        value(p);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        throw new SyntaxError(', or } expected');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(indexPath(path, n));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        throw new SyntaxError(', or ] expected');
      }
    }
    if (c === '"') {
      str();
      return;
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) throw new SyntaxError('value expected');
    i += m[0].length;
  };
  try {
    value('');
  } catch {
    return [];
  }
  return out;
}
