/**
 * CertificateSigningRequest (certificates.k8s.io/v1, cluster-scoped): status set only
 * through /status, a PEM CERTIFICATE REQUEST, a signerName and usages
 * (ValidateCertificateSigningRequestCreate), and the printer's SignerName, Requestor,
 * RequestedDuration and Condition columns.
 *
 * Not served: the `approval` subresource, and the requesting user's name, uid, groups and
 * extra written into the spec on create.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { ageColumn, arr, col, humanAge, nameColumn, rec, str } from '../../printers.js';
import { invalidValue, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

const PEM_ERROR = 'PEM block type must be CERTIFICATE REQUEST';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const request = typeof spec.request === 'string' ? spec.request : '';
  const text = Buffer.from(request, 'base64').toString('latin1');
  if (!/-----BEGIN CERTIFICATE REQUEST-----[\s\S]+-----END CERTIFICATE REQUEST-----/.test(text)) {
    causes.push(invalidValue('spec.request', request === '' ? '' : '<bytes>', PEM_ERROR));
  }
  if (str(spec.signerName, '') === '') causes.push(required('spec.signerName'));
  const usages = spec.usages;
  if (!Array.isArray(usages) || usages.length === 0) causes.push(required('spec.usages'));
  const seconds = spec.expirationSeconds;
  if (typeof seconds === 'number' && seconds < 600) {
    causes.push(
      invalidValue(
        'spec.expirationSeconds',
        seconds,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
  }
  return causes;
}

/** CertificateSigningRequests. */
export const certificateSigningRequests = defineKind({
  group: 'certificates.k8s.io',
  resource: 'certificatesigningrequests',
  kind: 'CertificateSigningRequest',
  namespaced: false,
  shortNames: ['csr'],
  statusSubresource: true,
  printers: [
    nameColumn,
    ageColumn,
    {
      column: col(
        'SignerName',
        'string',
        0,
        'signerName indicates the requested signer, and is a qualified name.',
      ),
      cell: (o) => str(rec(o.spec).signerName, ''),
    },
    {
      column: col(
        'Requestor',
        'string',
        0,
        'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block.',
      ),
      cell: (o) => str(rec(o.spec).username, ''),
    },
    {
      column: col(
        'RequestedDuration',
        'string',
        0,
        'expirationSeconds is the requested duration of validity of the issued certificate.',
      ),
      cell: (o) => {
        const s = rec(o.spec).expirationSeconds;
        return typeof s === 'number' ? humanAge(s * 1000) : '<none>';
      },
    },
    {
      column: col('Condition', 'string', 0, 'conditions applied to the request.'),
      cell: (o) => {
        const status = rec(o.status);
        const types = arr(status.conditions)
          .map((c) => str(c.type, ''))
          .filter((t) => t !== '');
        const unique = [...new Set(types)];
        if (str(status.certificate, '') !== '') unique.push('Issued');
        return unique.length === 0 ? 'Pending' : unique.join(',');
      },
    },
  ],
  strategy: {
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validate(obj)),
  },
});
