/**
 * Keeping credentials out of messages and logs.
 *
 * Every URL the transport puts into an error message or a log line goes through
 * {@link redactUrl}: user-info is dropped and query parameters that can carry a secret
 * (`token`, `access_token`, `password`, …) are replaced.
 *
 * @module
 */

const secretParam = /token|password|passwd|secret|key|auth|credential|signature|sig$/i;

/** Placeholder that replaces secrets. */
export const REDACTED = 'REDACTED';

/**
 * A URL (absolute, or a path with a query) fit for a message: no user-info, and secret
 * looking query parameters replaced by `REDACTED`.
 */
export function redactUrl(url: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://placeholder.invalid');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//').replace(/\?.*$/, '?REDACTED');
  }
  parsed.username = '';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (secretParam.test(name)) parsed.searchParams.set(name, REDACTED);
  }
  if (absolute) return parsed.toString();
  return parsed.pathname + parsed.search;
}

/** Header names whose values are credentials. */
const secretHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-auth-token']);

/** A copy of `headers` with the values of credential headers replaced, for debug logs. */
export function redactHeaders(
  headers: Readonly<Record<string, string | number | string[] | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = secretHeaders.has(k.toLowerCase())
      ? REDACTED
      : Array.isArray(v)
        ? v.join(', ')
        : String(v);
  }
  return out;
}
