/**
 * The request-target of an HTTP request, parsed as Go's `url.ParseRequestURI` parses it for
 * `net/http`'s server: what every server of the kit routes on, so that no handler parses
 * `req.url` itself (`new URL('//', base)` throws; Go's server never lets a handler see a
 * target it could not parse).
 *
 * - origin-form (`/path?query`): the path is everything before the first `?`, taken as a
 *   path even when it starts with `//` (`//x:99999/validate` is the path
 *   `//x:99999/validate`, not a host and a port, as Go reads a request's target);
 * - absolute-form (`https://host:port/path?query`): the scheme, the authority (userinfo,
 *   host, an optional port of digits) and the path (`/` when empty);
 * - anything else does not parse: empty, asterisk-form (`*`, which Go's ServeMux answers
 *   400 too), a relative reference (`validate`, `../x`), a scheme without `//` (`mailto:x`),
 *   a control byte (below 0x20, or 0x7f), a `%` not followed by two hex digits, a host or
 *   port that is not well formed.
 *
 * The path is percent-decoded (its bytes read as UTF-8, invalid sequences as U+FFFD); the
 * query is kept raw and offered as `URLSearchParams`, which never throws.
 *
 * @module
 */

/** A request-target that parsed. */
export interface RequestTarget {
  /** The target as it came (`req.url`). */
  readonly raw: string;
  /** The decoded path, always starting with `/` (`/healthz`, `//x:99999/validate`). */
  readonly path: string;
  /** The path as it came, still percent-encoded. */
  readonly rawPath: string;
  /** The query without its `?` (`''` when none). */
  readonly rawQuery: string;
  /** The query's parameters. */
  readonly query: URLSearchParams;
}

/** Why a request-target did not parse (what Go's server logs before its 400). */
export interface RequestTargetError {
  /** What was wrong, for a log line. */
  readonly error: string;
}

/** The longest target echoed back in an error message (the rest is cut). */
const MAX_QUOTED = 64;

/** The target, quoted and cut for a log line. */
export function quoteTarget(target: string): string {
  return JSON.stringify(target.length > MAX_QUOTED ? `${target.slice(0, MAX_QUOTED)}…` : target);
}

function isHex(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x46) ||
    (code >= 0x61 && code <= 0x66)
  );
}

function hexValue(code: number): number {
  if (code <= 0x39) return code - 0x30;
  return (code | 0x20) - 0x61 + 10;
}

/** Index of the first control byte (Go's `stringContainsCTLByte`), or -1. */
function controlByteAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return i;
  }
  return -1;
}

/** Index of the first `%` not followed by two hex digits, or -1. */
function badEscapeAt(text: string): number {
  for (let i = text.indexOf('%'); i !== -1; i = text.indexOf('%', i + 1)) {
    if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) return i;
  }
  return -1;
}

/**
 * Percent-decode a path whose escapes are known to be valid. The characters of the target
 * are bytes (Node gives the request line as Latin-1); the decoded bytes are read as UTF-8.
 */
function decodePath(rawPath: string): string {
  if (rawPath.indexOf('%') === -1 && !/[^\x20-\x7e]/.test(rawPath)) return rawPath;
  const bytes: number[] = [];
  for (let i = 0; i < rawPath.length; i++) {
    const c = rawPath.charCodeAt(i);
    if (c === 0x25) {
      bytes.push(hexValue(rawPath.charCodeAt(i + 1)) * 16 + hexValue(rawPath.charCodeAt(i + 2)));
      i += 2;
    } else if (c <= 0xff) {
      bytes.push(c);
    } else {
      for (const b of Buffer.from(rawPath[i] ?? '', 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The scheme of an absolute target (Go's `getScheme`): `''` when there is none. */
function schemeOf(target: string): string | RequestTargetError {
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (letter) continue;
    const digitOrSign = (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
    if (digitOrSign) {
      if (i === 0) return '';
      continue;
    }
    if (c === 0x3a) {
      return i === 0 ? { error: 'missing protocol scheme' } : target.slice(0, i);
    }
    return '';
  }
  return '';
}

/** Checks an authority (`user@host:port`, `[::1]:80`): undefined when well formed. */
function authorityError(authority: string): string | undefined {
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : authority.slice(at + 1);
  if (at !== -1 && /[^A-Za-z0-9\-._~!$&'()*+,;=:%]/.test(authority.slice(0, at))) {
    return 'invalid userinfo';
  }
  let port = '';
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close === -1) return 'missing "]" in host';
    port = host.slice(close + 1);
    if (port !== '' && !port.startsWith(':'))
      return `invalid port ${JSON.stringify(port)} after host`;
  } else {
    const colon = host.lastIndexOf(':');
    if (colon !== -1) port = host.slice(colon);
  }
  if (port !== '' && !/^:\d*$/.test(port)) return `invalid port ${JSON.stringify(port)} after host`;
  if (badEscapeAt(host) !== -1) return 'invalid URL escape in host';
  return undefined;
}

/**
 * Parse a request-target (`req.url`; HTTP/2's `:path`). Never throws.
 *
 * @returns the {@link RequestTarget}, or a {@link RequestTargetError} saying why it does not
 * parse (the server answers it 400 before any handler runs).
 */
export function parseRequestTarget(target: string | undefined): RequestTarget | RequestTargetError {
  if (target === undefined || target === '') return { error: 'empty request-target' };
  if (target === '*') return { error: 'asterisk-form request-target "*"' };
  const ctl = controlByteAt(target);
  if (ctl !== -1) return { error: `invalid control character at offset ${ctl}` };
  const scheme = schemeOf(target);
  if (typeof scheme !== 'string') return scheme;
  let rest = target.slice(scheme === '' ? 0 : scheme.length + 1);
  const q = rest.indexOf('?');
  const rawQuery = q === -1 ? '' : rest.slice(q + 1);
  rest = q === -1 ? rest : rest.slice(0, q);
  if (scheme !== '') {
    // absolute-form: scheme://authority/path
    if (!rest.startsWith('//')) return { error: `${scheme}: URL without "//" (opaque)` };
    const slash = rest.indexOf('/', 2);
    const authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    const problem = authorityError(authority);
    if (problem !== undefined) return { error: problem };
    rest = slash === -1 ? '/' : rest.slice(slash);
  } else if (!rest.startsWith('/')) {
    return { error: 'invalid URI for request (not an absolute path or URL)' };
  }
  const escape = badEscapeAt(rest);
  if (escape !== -1) return { error: `invalid URL escape at offset ${escape} of the path` };
  return {
    raw: target,
    path: decodePath(rest),
    rawPath: rest,
    rawQuery,
    query: new URLSearchParams(rawQuery),
  };
}

/** True when {@link parseRequestTarget} returned an error. */
export function isRequestTargetError(
  parsed: RequestTarget | RequestTargetError,
): parsed is RequestTargetError {
  return 'error' in parsed;
}
