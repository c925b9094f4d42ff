/**
 * Small accessors for defaulting decoded JSON objects in place, with Go's notion of an
 * unset field: a pointer or map is unset when absent or `null`; a string when it is also
 * `''`; a number when it is also `0`.
 *
 * @module
 */

/** A decoded JSON object. */
export type Obj = Record<string, unknown>;

/** Whether `v` is a JSON object (not an array, not null). */
export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The object at `o[key]`, or undefined when it is not one. */
export function child(o: Obj, key: string): Obj | undefined {
  const v = o[key];
  return isObj(v) ? v : undefined;
}

/** The object at `o[key]`, created (`{}`) when unset. */
export function ensure(o: Obj, key: string): Obj {
  const v = o[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  o[key] = created;
  return created;
}

/** The objects of the list at `o[key]` (none when it is not a list). */
export function items(o: Obj | undefined, key: string): Obj[] {
  const v = o?.[key];
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** Sets a pointer-like field (unset when absent or null). */
export function setIfNil(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

/** Sets a Go string field (unset when absent, null or `''`). */
export function setIfEmpty(o: Obj, key: string, value: string): void {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
}

/** Sets a Go non-pointer number field (unset when absent, null or `0`). */
export function setIfZero(o: Obj, key: string, value: number): void {
  if (o[key] === undefined || o[key] === null || o[key] === 0) o[key] = value;
}

/** Whether a Go string field is unset (absent, null or `''`). */
export function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}
