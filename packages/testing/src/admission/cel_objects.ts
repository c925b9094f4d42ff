/**
 * The CEL of MutatingAdmissionPolicy mutations beyond what `@marcbachmann/cel-js` parses:
 * object initialisation (`Object{spec: Object.spec{replicas: 3}}`, `JSONPatch{op: "add",
 * path: "/x", value: 1}`) and the `jsonpatch.escapeKey` function. The interpreter has no
 * message literals, so an expression is rewritten before it is compiled: a type name
 * followed by `{` becomes a map literal carrying its type name under {@link TYPE_KEY},
 * its field names become string keys, and `jsonpatch.escapeKey(` calls a registered
 * function. After evaluation {@link objectValue} checks what kube-apiserver's
 * `CheckTypeNamesMatchFieldPathNames` checks (`Object.spec{…}` only as the value of
 * `spec`, `Object.spec.containers{…}` only as an item of `spec.containers`) and drops the
 * type names.
 *
 * @module
 */

/** The key that carries an initialiser's type name in the rewritten map literal. */
export const TYPE_KEY = '$type';

/** The function `jsonpatch.escapeKey` is rewritten to. */
export const ESCAPE_KEY_FUNCTION = 'jsonpatch_escapeKey';

/** JSON Pointer escaping of one key (RFC 6901: `~` as `~0`, `/` as `~1`). */
export function escapeJsonPointerKey(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

interface Frame {
  /** The closing character. */
  close: string;
  /** An object initialiser (its field names are quoted). */
  message: boolean;
  /** A field name comes next (after `{` or `,`). */
  expectField: boolean;
  /** No field written yet (the first one needs a comma after the type entry). */
  first: boolean;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/** The end (exclusive) of a string literal starting at `i` (its prefix included). */
function stringEnd(src: string, i: number): number {
  let j = i;
  let raw = false;
  while (j < src.length && /[rRbB]/.test(src[j] as string)) {
    if (src[j] === 'r' || src[j] === 'R') raw = true;
    j++;
  }
  const q = src[j] as string;
  const triple = src.startsWith(q.repeat(3), j);
  const delim = triple ? q.repeat(3) : q;
  j += delim.length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') {
      j += 2;
      continue;
    }
    if (src.startsWith(delim, j)) return j + delim.length;
    if (!triple && src[j] === '\n') break;
    j++;
  }
  return src.length;
}

function isStringStart(src: string, i: number): boolean {
  let j = i;
  for (let n = 0; n < 2 && j < src.length && /[rRbB]/.test(src[j] as string); n++) j++;
  return src[j] === '"' || src[j] === "'";
}

function skipSpace(src: string, i: number): number {
  let j = i;
  while (j < src.length && /\s/.test(src[j] as string)) j++;
  return j;
}

/** A dotted identifier chain starting at `i`: its text (spaces removed) and its end. */
function identChain(src: string, i: number): { name: string; end: number } {
  const parts: string[] = [];
  let j = i;
  for (;;) {
    const start = j;
    while (j < src.length && IDENT_PART.test(src[j] as string)) j++;
    parts.push(src.slice(start, j));
    const k = skipSpace(src, j);
    if (src[k] === '.' && IDENT_START.test(src[skipSpace(src, k + 1)] ?? '')) {
      j = skipSpace(src, k + 1);
      continue;
    }
    return { name: parts.join('.'), end: j };
  }
}

/**
 * Rewrites object initialisers and `jsonpatch.escapeKey` so the interpreter can parse
 * the expression; anything else is left as written.
 */
export function rewriteObjectInitializers(src: string): string {
  let out = '';
  const stack: Frame[] = [];
  let prev = ''; // the last significant character written
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;
    const top = stack[stack.length - 1];
    if (/\s/.test(ch)) {
      out += ch;
      i++;
      continue;
    }
    if (isStringStart(src, i)) {
      const end = stringEnd(src, i);
      out += src.slice(i, end);
      prev = '"';
      i = end;
      continue;
    }
    if (IDENT_START.test(ch) && prev !== '.') {
      const { name, end } = identChain(src, i);
      const next = skipSpace(src, end);
      if (top?.message === true && top.expectField && src[next] === ':') {
        out += `${top.first ? ', ' : ''}"${name}"`;
        top.expectField = false;
        top.first = false;
        prev = '"';
        i = end;
        continue;
      }
      if (src[next] === '{' && /^[A-Z]/.test(name)) {
        out += `{"${TYPE_KEY}": "${name}"`;
        stack.push({ close: '}', message: true, expectField: true, first: true });
        prev = '{';
        i = next + 1;
        continue;
      }
      if (name === 'jsonpatch.escapeKey' && src[next] === '(') {
        out += ESCAPE_KEY_FUNCTION;
        prev = 'a';
        i = end;
        continue;
      }
      out += src.slice(i, end);
      prev = 'a';
      i = end;
      continue;
    }
    if (ch === '{' || ch === '(' || ch === '[') {
      stack.push({
        close: ch === '{' ? '}' : ch === '(' ? ')' : ']',
        message: false,
        expectField: false,
        first: false,
      });
    } else if (ch === '}' || ch === ')' || ch === ']') {
      stack.pop();
    } else if (ch === ',' && top?.message === true) {
      top.expectField = true;
    }
    out += ch;
    prev = ch;
    i++;
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A JSON value evaluated from a rewritten expression, its initialisers' type names
 * checked against the field path they sit at (kube-apiserver's words: `type mismatch:
 * unexpected type name "Object.spec.wrong", expected "Object.spec.selector", which
 * matches field name path from root Object type`) and dropped.
 */
export function objectValue(v: unknown, expected: string | undefined): unknown {
  if (Array.isArray(v)) return v.map((x) => objectValue(x, expected));
  if (!isRecord(v)) return v;
  const typeName = typeof v[TYPE_KEY] === 'string' ? v[TYPE_KEY] : undefined;
  if (typeName !== undefined && expected !== undefined && typeName !== expected) {
    throw new Error(
      `type mismatch: unexpected type name "${typeName}", expected "${expected}", which matches field name path from root Object type`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === TYPE_KEY) continue;
    out[k] = objectValue(x, typeName === undefined ? undefined : `${typeName}.${k}`);
  }
  return out;
}

/** The type name of an initialiser's value (undefined for any other value). */
export function typeNameOf(v: unknown): string | undefined {
  return isRecord(v) && typeof v[TYPE_KEY] === 'string' ? v[TYPE_KEY] : undefined;
}
