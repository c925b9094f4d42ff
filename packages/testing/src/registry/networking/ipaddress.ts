/**
 * IPAddress (networking.k8s.io/v1, cluster-scoped): named by an IP address in canonical
 * form (ValidateIPAddressName), with a required parentRef (resource and name), and the
 * printer's ParentRef column.
 *
 * @module
 */
import { isIP } from 'node:net';
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { col, nameColumn, rec, str } from '../../printers.js';
import { immutable, invalidValue, required, sameJson } from '../field_errors.js';
import { defineKind } from '../kind.js';

/** An IP address's canonical text (netip.Addr.String), or undefined when it is not one. */
export function canonicalIp(text: string): string | undefined {
  const kind = isIP(text);
  if (kind === 4) {
    const parts = text.split('.');
    return parts.every((p) => p === String(Number(p))) ? text : parts.map(Number).join('.');
  }
  if (kind === 6) {
    try {
      const host = new URL(`http://[${text}]/`).hostname;
      return host.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = obj.metadata?.name ?? '';
  if (name !== '') {
    const canonical = canonicalIp(name);
    if (canonical === undefined) {
      causes.push(
        invalidValue(
          'metadata.name',
          name,
          `ParseAddr(${JSON.stringify(name)}): unable to parse IP`,
        ),
      );
    } else if (canonical !== name) {
      causes.push(invalidValue('metadata.name', name, 'must be a canonical format IP address'));
    }
  }
  const ref = rec(obj.spec).parentRef;
  if (ref === undefined || ref === null) {
    causes.push(required('spec.parentRef'));
  } else {
    if (str(rec(ref).resource, '') === '') causes.push(required('spec.parentRef.resource'));
    if (str(rec(ref).name, '') === '') causes.push(required('spec.parentRef.name'));
  }
  return causes;
}

/** IPAddresses. */
export const ipAddresses = defineKind({
  group: 'networking.k8s.io',
  resource: 'ipaddresses',
  kind: 'IPAddress',
  namespaced: false,
  shortNames: ['ip'],
  nameRule: 'pathSegment',
  printers: [
    nameColumn,
    {
      column: col(
        'ParentRef',
        'string',
        0,
        'ParentRef references the resource that an IPAddress is attached to.',
      ),
      cell: (o) => {
        const ref = rec(o.spec).parentRef;
        if (ref === undefined || ref === null) return '<none>';
        const r = rec(ref);
        const group = str(r.group, '');
        let out = (
          group === '' ? str(r.resource, '') : `${str(r.resource, '')}.${group}`
        ).toLowerCase();
        if (str(r.namespace, '') !== '') out += `/${str(r.namespace, '')}`;
        return `${out}/${str(r.name, '')}`;
      },
    },
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      const ref = rec(obj.spec).parentRef;
      if (!sameJson(ref, rec(old.spec).parentRef)) causes.push(immutable('spec.parentRef', ref));
      return causes;
    },
  },
});
