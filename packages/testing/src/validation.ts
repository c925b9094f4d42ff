/**
 * Validation of incoming objects, with kube-apiserver's messages.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import type { NameRule } from './registry/resource_registry.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Checks a name against a rule; returns the cause messages (empty when valid). */
export function nameErrors(name: string, rule: NameRule): string[] {
  const errs: string[] = [];
  if (rule === 'label') {
    if (name.length > 63) errs.push('must be no more than 63 characters');
    if (!DNS1123_LABEL.test(name)) {
      errs.push(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
  } else if (rule === 'subdomain') {
    if (name.length > 253) errs.push('must be no more than 253 characters');
    if (!DNS1123_SUBDOMAIN.test(name)) {
      errs.push(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      );
    }
  } else if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) {
    errs.push(`may not be '.' or '..' and may not contain '/' or '%'`);
  }
  return errs;
}

function validateStringMap(
  value: unknown,
  field: string,
  keysOnly: boolean,
  causes: StatusCause[],
): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'object' || Array.isArray(value)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: 'Invalid value: must be a map of strings',
    });
    return;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const slash = k.lastIndexOf('/');
    const nm = slash >= 0 ? k.slice(slash + 1) : k;
    if (!QUALIFIED_NAME.test(nm) || nm.length > 63) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
    if (typeof v !== 'string') {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}[${k}]`,
        message: 'Invalid value: must be a string',
      });
    } else if (!keysOnly && (!LABEL_VALUE.test(v) || v.length > 63)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
  }
}

/** Validates the metadata of an object about to be stored; returns causes. */
export function validateObjectMeta(obj: UnstructuredObject, rule: NameRule): StatusCause[] {
  const causes: StatusCause[] = [];
  const meta = obj.metadata ?? {};
  const name = meta.name ?? '';
  if (name === '') {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    });
  } else {
    for (const m of nameErrors(name, rule)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": ${m}`,
      });
    }
  }
  validateStringMap(meta.labels, 'metadata.labels', false, causes);
  validateStringMap(meta.annotations, 'metadata.annotations', true, causes);
  if (meta.finalizers !== undefined && !Array.isArray(meta.finalizers)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.finalizers',
      message: 'Invalid value: must be a list of strings',
    });
  }
  validateOwnerReferences(meta.ownerReferences, causes);
  return causes;
}

/**
 * kube-apiserver's checks of `metadata.ownerReferences` (its field paths carry no index):
 * apiVersion, kind, name and uid set, at most one controller.
 */
function validateOwnerReferences(refs: unknown, causes: StatusCause[]): void {
  if (refs === undefined || refs === null) return;
  const field = 'metadata.ownerReferences';
  if (!Array.isArray(refs) || refs.some((r) => r === null || typeof r !== 'object')) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: 'Invalid value: must be a list of owner references',
    });
    return;
  }
  const controllers: string[] = [];
  for (const ref of refs as Record<string, unknown>[]) {
    const text = (k: string): string => (typeof ref[k] === 'string' ? ref[k] : '');
    const empty = (k: string, what: string): void => {
      if (text(k) === '') {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${field}.${k}`,
          message: `Invalid value: "": ${what}must not be empty`,
        });
      }
    };
    empty('apiVersion', 'version ');
    empty('kind', '');
    empty('name', '');
    empty('uid', '');
    if (ref.controller === true) controllers.push(`${text('kind')}/${text('name')}`);
  }
  if (controllers.length > 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${JSON.stringify(refs)}: Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
    });
  }
}
