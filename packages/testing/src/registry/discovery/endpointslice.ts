/**
 * EndpointSlice (discovery.k8s.io/v1): the backends of a Service as kube-controller-manager's
 * EndpointSlice controller writes them. Ports default to protocol TCP and an empty name;
 * metadata.generation moves on any change but metadata; addressType is required, one of
 * IPv4, IPv6, FQDN, and immutable.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, arr, col, nameColumn } from '../../printers.js';
import { immutable, notSupported, required, tooMany } from '../field_errors.js';
import { defineKind } from '../kind.js';

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];
const MAX_ENDPOINTS = 1000;
const MAX_PORTS = 20000;
const MAX_ADDRESSES = 100;

/** A list of up to three entries and `+ N more...`, `<unset>` when empty (listWithMoreString). */
function listWithMore(list: string[]): string {
  const shown = list.slice(0, 3).join(',');
  if (list.length > 3) return `${shown} + ${list.length - 3} more...`;
  return shown === '' ? '<unset>' : shown;
}

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const addressType = obj.addressType;
  if (addressType === undefined || addressType === '') causes.push(required('addressType'));
  else if (typeof addressType !== 'string' || !ADDRESS_TYPES.includes(addressType))
    causes.push(notSupported('addressType', addressType, ADDRESS_TYPES));
  const endpoints = Array.isArray(obj.endpoints) ? obj.endpoints : [];
  if (endpoints.length > MAX_ENDPOINTS)
    causes.push(tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  arr(endpoints).forEach((e, i) => {
    const addresses = Array.isArray(e.addresses) ? e.addresses : [];
    if (addresses.length === 0)
      causes.push(required(`endpoints[${i}].addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES)
      causes.push(tooMany(`endpoints[${i}].addresses`, addresses.length, MAX_ADDRESSES));
  });
  const ports = Array.isArray(obj.ports) ? obj.ports : [];
  if (ports.length > MAX_PORTS) causes.push(tooMany('ports', ports.length, MAX_PORTS));
  return causes;
}

/** EndpointSlices. */
export const endpointSlices = defineKind({
  group: 'discovery.k8s.io',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  namespaced: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col(
        'AddressType',
        'string',
        0,
        'addressType specifies the type of address carried by this EndpointSlice.',
      ),
      cell: (o) => (typeof o.addressType === 'string' ? o.addressType : ''),
    },
    {
      column: col(
        'Ports',
        'string',
        0,
        'ports specifies the list of network ports exposed by each endpoint in this slice.',
      ),
      cell: (o) =>
        listWithMore(
          arr(o.ports).map((p) =>
            typeof p.port === 'number'
              ? String(p.port)
              : typeof p.name === 'string' && p.name !== ''
                ? p.name
                : '*',
          ),
        ),
    },
    {
      column: col(
        'Endpoints',
        'string',
        0,
        'endpoints is a list of unique endpoints in this slice.',
      ),
      cell: (o) =>
        listWithMore(
          arr(o.endpoints).flatMap((e) =>
            (Array.isArray(e.addresses) ? e.addresses : []).map(String),
          ),
        ),
    },
    ageColumn,
  ],
  strategy: {
    decode: defaulter((obj) => {
      for (const p of arr(obj.ports)) {
        p.name ??= '';
        p.protocol ??= 'TCP';
      }
    }),
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      if (old.addressType !== obj.addressType)
        causes.push(immutable('addressType', obj.addressType));
      return causes;
    },
  },
});
