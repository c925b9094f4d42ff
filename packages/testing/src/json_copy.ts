/**
 * One deep copy of JSON values for the test server: what `JSON.parse(JSON.stringify(v))`
 * returns, without the text in between.
 *
 * @module
 */

/**
 * A deep copy of `v` with JSON's semantics (undefined members dropped, non-finite numbers
 * null, `toJSON` honoured), a few times cheaper than the round trip. `undefined` stays
 * `undefined`.
 */
export function jsonCopy<T>(v: T): T {
  return copyValue(v) as T;
}

/**
 * What `JSON.parse(JSON.stringify(v))` returns, without the text in between (a few times
 * cheaper): plain objects and arrays are walked, anything else (a Date, a boxed value)
 * takes the round trip.
 */
function copyValue(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'object':
      break;
    case 'bigint':
      return JSON.parse(JSON.stringify(v)) as unknown; // throws, as JSON does
    default:
      return undefined; // undefined, functions, symbols
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyValue(v[i]) ?? null;
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in v) {
    return JSON.parse(JSON.stringify(v)) as unknown;
  }
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) {
    const c = copyValue(src[k]);
    if (c === undefined) continue;
    // JSON.parse makes `__proto__` an own key; an assignment would set the prototype.
    if (k === '__proto__') {
      Object.defineProperty(out, k, {
        value: c,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[k] = c;
  }
  return out;
}
