/**
 * Kubernetes `MicroTime`: RFC 3339 in UTC with exactly six fractional digits.
 *
 * @module
 */

/**
 * Formats milliseconds since the epoch as a `MicroTime` string, e.g.
 * `2026-01-01T00:00:00.000000Z` (a Lease's `renewTime`, an events.k8s.io Event's `eventTime`).
 */
export function formatMicroTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.000Z
  return `${iso.slice(0, -1)}000Z`;
}
