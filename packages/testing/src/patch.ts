/**
 * Patch application for the test API server: JSON merge patch (RFC 7386), JSON patch
 * (RFC 6902, including `test`), and the merge subset of strategic-merge patch (lists of
 * known fields merged by their key, `$patch: delete|replace`, `$deleteFromPrimitiveList`).
 *
 * All functions are pure: they return a new value and never modify their inputs.
 *
 * @module
 */
import { KubeControllerKitError } from 'kube-controller-kit';
import { jsonCopy as clone } from './json_copy.js';

/** A patch that cannot be applied (the server answers 422, or 400 for a malformed one). */
export class PatchError extends KubeControllerKitError {
  /** HTTP code the server answers with. */
  readonly code: number;
  /** @param message - what failed; @param code - 400 or 422. */
  constructor(message: string, code = 422) {
    super(message);
    this.code = code;
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Applies an RFC 7386 JSON merge patch. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer: "${path}"`, 400);
  return path.slice(1).split('/').map(unescapePointer);
}

function getAt(doc: unknown, tokens: string[]): { found: boolean; value: unknown } {
  let cur: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      const i = Number(t);
      if (!/^\d+$/.test(t) || i >= cur.length) return { found: false, value: undefined };
      cur = cur[i];
    } else if (isObject(cur)) {
      if (!Object.prototype.hasOwnProperty.call(cur, t)) return { found: false, value: undefined };
      cur = cur[t];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: cur };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

function parentOf(doc: unknown, tokens: string[], path: string): { parent: unknown; last: string } {
  const last = tokens[tokens.length - 1];
  if (last === undefined) throw new PatchError(`cannot operate on the document root: "${path}"`);
  const p = getAt(doc, tokens.slice(0, -1));
  if (!p.found || p.value === null || typeof p.value !== 'object') {
    throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  return { parent: p.value, last };
}

function removeAt(doc: unknown, tokens: string[], path: string): unknown {
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!/^\d+$/.test(last) || i >= parent.length) {
      throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`);
    }
    return parent.splice(i, 1)[0];
  }
  const obj = parent as Record<string, unknown>;
  if (!Object.prototype.hasOwnProperty.call(obj, last)) {
    throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`);
  }
  const v = obj[last];
  delete obj[last];
  return v;
}

function addAt(
  doc: unknown,
  tokens: string[],
  value: unknown,
  path: string,
  replace: boolean,
): unknown {
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    if (last === '-' && !replace) {
      parent.push(value);
      return doc;
    }
    const i = Number(last);
    if (!/^\d+$/.test(last) || i > parent.length || (replace && i >= parent.length)) {
      throw new PatchError(`unable to access invalid index: ${last}: invalid index referenced`);
    }
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
    return doc;
  }
  const obj = parent as Record<string, unknown>;
  if (replace && !Object.prototype.hasOwnProperty.call(obj, last)) {
    throw new PatchError(
      `replace operation does not apply: doc is missing key: ${path}: missing value`,
    );
  }
  obj[last] = value;
  return doc;
}

/** Applies an RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw new PatchError('json patch must be an array of operations', 400);
  }
  let doc = clone(target);
  for (const raw of patch as unknown[]) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new PatchError('invalid JSON patch operation: each needs "op" and "path"', 400);
    }
    const path = raw.path;
    const tokens = parsePointer(path);
    switch (raw.op) {
      case 'add':
        doc = addAt(doc, tokens, clone(raw.value), path, false);
        break;
      case 'replace':
        doc = addAt(doc, tokens, clone(raw.value), path, true);
        break;
      case 'remove':
        removeAt(doc, tokens, path);
        break;
      case 'test': {
        const got = getAt(doc, tokens);
        if (!got.found || !deepEqual(got.value, raw.value)) {
          throw new PatchError(`testing value ${path} failed: test failed`);
        }
        break;
      }
      case 'move':
      case 'copy': {
        if (typeof raw.from !== 'string')
          throw new PatchError(`${raw.op} operation needs "from"`, 400);
        const fromTokens = parsePointer(raw.from);
        const got = getAt(doc, fromTokens);
        if (!got.found)
          throw new PatchError(`doc is missing from path: "${raw.from}": missing value`);
        if (raw.op === 'move') removeAt(doc, fromTokens, raw.from);
        doc = addAt(doc, tokens, clone(got.value), path, false);
        break;
      }
      default:
        throw new PatchError(`Unexpected kind: ${raw.op}`, 400);
    }
  }
  return doc;
}

/** List fields merged by key in strategic-merge patch (the common built-in ones). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  tolerations: 'key',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
};

/** Primitive lists merged as sets in strategic-merge patch. */
const SET_LISTS = new Set(['finalizers']);

function mergeList(field: string, target: unknown[], patch: unknown[]): unknown[] {
  const key = MERGE_KEYS[field];
  if (key && patch.every(isObject)) {
    const out = target.map(clone);
    for (const item of patch) {
      const p = item;
      const directive = p.$patch;
      const idx = out.findIndex((t) => isObject(t) && deepEqual(t[key], p[key]));
      if (directive === 'delete') {
        if (idx >= 0) out.splice(idx, 1);
      } else if (idx >= 0) {
        out[idx] = strategicMerge(out[idx], p);
      } else {
        out.push(strategicMerge(undefined, p));
      }
    }
    return out;
  }
  if (SET_LISTS.has(field)) {
    const out = [...target];
    for (const v of patch) if (!out.some((t) => deepEqual(t, v))) out.push(clone(v));
    return out;
  }
  return clone(patch);
}

/** Applies the merge subset of a strategic-merge patch. */
export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const rest = { ...patch };
    delete rest.$patch;
    return clone(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) {
        out[field] = cur.filter((x) => !v.some((d) => deepEqual(d, x)));
      }
      continue;
    }
    if (v === null) {
      delete out[k];
    } else if (Array.isArray(v)) {
      const cur = out[k];
      out[k] = Array.isArray(cur) ? mergeList(k, cur, v) : mergeList(k, [], v);
    } else if (isObject(v)) {
      const merged = strategicMerge(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** Re-export of the JSON type for callers. */
export type { Json };
