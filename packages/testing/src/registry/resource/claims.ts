/**
 * What ResourceClaims and ResourceClaimTemplates share (resource.k8s.io/v1): the defaults
 * of a claim spec's requests (an exact request allocates ExactCount, count 1) and their
 * validation (a name, exactly one of `exactly` and `firstAvailable`, a device class).
 *
 * @module
 */
import type { StatusCause } from 'kube-controller-kit';
import { arr, rec, str } from '../../printers.js';
import { required } from '../field_errors.js';

type Obj = Record<string, unknown>;

/** SetDefaults_ExactDeviceRequest on every request of a claim spec (in place). */
export function defaultClaimSpec(spec: Obj | undefined): void {
  if (spec === undefined) return;
  for (const r of arr(rec(spec.devices).requests)) {
    if (r.exactly !== undefined && r.exactly !== null) {
      const exactly = rec(r.exactly);
      exactly.allocationMode ??= 'ExactCount';
      if (exactly.allocationMode === 'ExactCount') exactly.count ??= 1;
    }
    for (const s of arr(r.firstAvailable)) {
      s.allocationMode ??= 'ExactCount';
      if (s.allocationMode === 'ExactCount') s.count ??= 1;
    }
  }
}

/** The causes of an invalid claim spec at `at` (`spec`, `spec.spec`). */
export function validateClaimSpec(spec: unknown, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  arr(rec(rec(spec).devices).requests).forEach((r, i) => {
    const path = `${at}.devices.requests[${i}]`;
    if (str(r.name, '') === '') causes.push(required(`${path}.name`));
    const exact = r.exactly !== undefined && r.exactly !== null;
    const first = Array.isArray(r.firstAvailable) && r.firstAvailable.length > 0;
    if (exact === first) {
      causes.push(required(path, 'exactly one of `exactly` or `firstAvailable` is required'));
    } else if (exact && str(rec(r.exactly).deviceClassName, '') === '') {
      causes.push(required(`${path}.exactly.deviceClassName`));
    }
  });
  return causes;
}
