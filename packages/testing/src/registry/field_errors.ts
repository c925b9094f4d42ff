/**
 * kube-apiserver's field errors (k8s.io/apimachinery `util/validation/field`) as the
 * {@link StatusCause}s of a 422: the reason, the field path and the message words
 * (`Required value`, `Invalid value: <value>: <detail>`, `Unsupported value`, `Forbidden`).
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { stableJson } from './generic.js';

/** A value as kube-apiserver prints it in a field error: strings quoted, numbers bare. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return 'null';
  return JSON.stringify(value);
}

/** `field: Required value[: detail]`. */
export function required(field: string, detail = ''): StatusCause {
  return {
    reason: 'FieldValueRequired',
    field,
    message: detail === '' ? 'Required value' : `Required value: ${detail}`,
  };
}

/** `field: Invalid value: <value>: detail`. */
export function invalidValue(field: string, value: unknown, detail: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${shown(value)}: ${detail}`,
  };
}

/** `field: Unsupported value: <value>: supported values: "a", "b"`. */
export function notSupported(field: string, value: unknown, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${shown(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  };
}

/** `field: Forbidden: detail`. */
export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

/** `field: Invalid value: <value>: field is immutable` (ValidateImmutableField). */
export function immutable(field: string, value: unknown): StatusCause {
  return invalidValue(field, value, 'field is immutable');
}

/** `field: Too many: <n>: must have at most <max> items`. */
export function tooMany(field: string, n: number, max: number): StatusCause {
  return {
    reason: 'FieldValueTooMany',
    field,
    message: `Too many: ${n}: must have at most ${max} items`,
  };
}

/** A non-empty string at a value, or undefined. */
export function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Whether two JSON values are equal (by their canonical text). */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}
