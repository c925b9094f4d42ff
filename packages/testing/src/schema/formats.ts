/**
 * The string formats kube-openapi checks in custom resources (the CRD validator's format
 * registry). A format not listed here is not checked, as on the real server.
 *
 * @module
 */
import { isIPv4, isIPv6 } from 'node:net';

const HOSTNAME =
  /^(?=.{1,253}$)[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*\.?$/;
const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const EMAIL = /^[^@\s<>()[\]\\,;:"]+@[^@\s<>()[\]\\,;:"]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:?\d{2})?$/;
const DURATION =
  /^\s*[-+]?(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|second|seconds|minute|minutes|hour|hours|day|days|week|weeks)\s*)+$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const BASE64 = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URI = /^([a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*|\/[^\s]*)$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

function ipv4(s: string): boolean {
  // Go's net.ParseIP: no leading zeros (since Go 1.17).
  return isIPv4(s) && !s.split('.').some((p) => p.length > 1 && p.startsWith('0'));
}

function cidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (ipv4(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

const CHECKS: Record<string, (s: string) => boolean> = {
  email: (s) => EMAIL.test(s),
  hostname: (s) => HOSTNAME.test(s),
  ipv4,
  ipv6: (s) => isIPv6(s),
  cidr,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  byte: (s) => BASE64.test(s),
  date: (s) => {
    const m = DATE.exec(s);
    return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  'date-time': (s) => {
    const m = DATE_TIME.exec(s);
    return (
      m !== null &&
      validDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
      Number(m[4]) < 24 &&
      Number(m[5]) < 60 &&
      Number(m[6]) < 61
    );
  },
  duration: (s) => DURATION.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => {
    const m = RGBCOLOR.exec(s);
    return m !== null && [m[1], m[2], m[3]].every((c) => Number(c) <= 255);
  },
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  uri: (s) => URI.test(s),
};
CHECKS.datetime = CHECKS['date-time'] as (s: string) => boolean;

/** The formats checked (others, such as `password` or `int32`, accept any string). */
export const CHECKED_FORMATS: readonly string[] = Object.keys(CHECKS).sort();

/** True when `s` is valid for `format` (always true for a format that is not checked). */
export function formatValid(format: string, s: string): boolean {
  const check = CHECKS[format];
  return check === undefined || check(s);
}
