/**
 * JSON Patch (RFC 6902) between two JSON documents, as a defaulting webhook answers with
 * it: the operations that turn the object as received into the object as defaulted.
 *
 * @module
 */
import type { JsonPatchOperation } from './types.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return false;
}

function diff(from: unknown, to: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (equal(from, to)) return;
  if (isPlainObject(from) && isPlainObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key)) ops.push({ op: 'remove', path: `${path}/${escapeToken(key)}` });
    }
    for (const key of Object.keys(to)) {
      const childPath = `${path}/${escapeToken(key)}`;
      if (!Object.hasOwn(from, key)) ops.push({ op: 'add', path: childPath, value: to[key] });
      else diff(from[key], to[key], childPath, ops);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) diff(from[i], to[i], `${path}/${i}`, ops);
    for (let i = common; i < to.length; i++)
      ops.push({ op: 'add', path: `${path}/${i}`, value: to[i] });
    // Remove from the end first, so that each index is still valid when its turn comes.
    for (let i = from.length - 1; i >= common; i--)
      ops.push({ op: 'remove', path: `${path}/${i}` });
    return;
  }
  ops.push({ op: 'replace', path, value: to });
}

/**
 * The JSON Patch that turns `original` into `current`. Both are JSON values (`current` is
 * first put through JSON, as it would be sent, so `undefined` fields count as absent).
 * Objects are compared field by field, arrays index by index (growing or shrinking at the
 * end); anything else that differs is replaced. A field present in both and unchanged gives
 * no operation, so fields the caller's type does not know survive untouched.
 */
export function createJsonPatch(original: unknown, current: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  const normalized: unknown = current === undefined ? null : JSON.parse(JSON.stringify(current));
  diff(original, normalized, '', ops);
  return ops;
}
