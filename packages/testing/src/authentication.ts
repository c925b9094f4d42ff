/**
 * Who a request to the test API server comes from, decided as kube-apiserver's
 * authenticators decide it, in their order:
 *
 * - a verified client certificate names its user by its Common Name and its groups by
 *   its Organizations;
 * - a bearer token is looked up among the static tokens given to the server (the
 *   configured `auth.token` and the admin token stand for `test-user` in `system:masters`,
 *   the same identity as the test client certificate; `addUser` adds more), then checked
 *   as a ServiceAccount token the server issued (./service_account_tokens.ts). A bearer
 *   token the server does not accept is refused (401), never taken as anonymous;
 * - a request without credentials is `system:anonymous` in `system:unauthenticated`,
 *   unless the server requires credentials (401).
 *
 * Every authenticated user is also in `system:authenticated`.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** A user as kube-apiserver's authenticators describe one (`authentication.k8s.io/v1` UserInfo). */
export interface UserInfo {
  /** The user's name. */
  username: string;
  /** A unique value that identifies the user across time (a ServiceAccount's uid). */
  uid?: string;
  /** The groups the user is in. */
  groups: string[];
  /** Further information the authenticator gives (e.g. the bound Pod of a token). */
  extra?: Record<string, string[]>;
}

/** The credentials the server requires. */
export interface ServerAuth {
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Require a client certificate signed by the server's CA. */
  clientCertificate?: boolean;
}

/** The user the configured bearer token and the test client certificate stand for. */
export const TOKEN_USER = 'test-user';

/** The group every authenticated user is in. */
export const AUTHENTICATED = 'system:authenticated';

/** The group of the superusers (kube-apiserver's privileged group). */
export const SYSTEM_MASTERS = 'system:masters';

/** Who the request comes from when it carries no credentials the server accepts. */
export const ANONYMOUS: Readonly<UserInfo> = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

/** Checks a bearer token that is not a static one (ServiceAccount tokens). */
export type TokenAuthenticator = (
  token: string,
  audiences?: readonly string[],
) => UserInfo | undefined;

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** `groups` with `system:authenticated` added once. */
export function withAuthenticated(groups: readonly string[]): string[] {
  return groups.includes(AUTHENTICATED) ? [...groups] : [...groups, AUTHENTICATED];
}

/** Decides who a request (or a TokenReview's token) is. */
export class Authenticator {
  readonly #auth: ServerAuth | undefined;
  readonly #tokens = new Map<string, UserInfo>();
  #serviceAccountTokens: TokenAuthenticator | undefined;

  /** @param auth - the credentials the server requires (none: anonymous requests pass). */
  constructor(auth: ServerAuth | undefined) {
    this.#auth = auth;
    if (auth?.token !== undefined) {
      this.#tokens.set(auth.token, { username: TOKEN_USER, groups: [SYSTEM_MASTERS] });
    }
  }

  /** Whether the server refuses requests without credentials. */
  get required(): boolean {
    return (
      this.#auth !== undefined && (this.#auth.token !== undefined || !!this.#auth.clientCertificate)
    );
  }

  /** Accepts a static bearer token for a user (`system:authenticated` is added). */
  addToken(token: string, user: UserInfo): void {
    this.#tokens.set(token, { ...user, groups: [...user.groups] });
  }

  /** Sets the authenticator of ServiceAccount tokens. */
  useServiceAccountTokens(fn: TokenAuthenticator): void {
    this.#serviceAccountTokens = fn;
  }

  /**
   * The user a bearer token stands for; undefined when the server does not accept it.
   * `audiences` (a TokenReview's) narrows which ServiceAccount tokens are accepted.
   */
  token(token: string, audiences?: readonly string[]): UserInfo | undefined {
    const known = this.#tokens.get(token);
    if (known !== undefined) {
      return { ...structuredClone(known), groups: withAuthenticated(known.groups) };
    }
    return this.#serviceAccountTokens?.(token, audiences);
  }

  /**
   * The user of a request; undefined when the request's credentials are refused, or when
   * the server requires credentials and the request has none (401).
   */
  authenticate(req: IncomingMessage): UserInfo | undefined {
    const socket = req.socket as Partial<TLSSocket>;
    if (socket.authorized === true && typeof socket.getPeerCertificate === 'function') {
      const subject = socket.getPeerCertificate().subject as
        { CN?: string | string[]; O?: string | string[] } | undefined;
      const username = asList(subject?.CN)[0];
      if (username !== undefined && username !== '') {
        return { username, groups: withAuthenticated(asList(subject?.O)) };
      }
    }
    const header = req.headers.authorization;
    if (header !== undefined) {
      const token = bearerToken(header);
      // kube-apiserver's bearer token authenticator: a header that names a Bearer token
      // the server does not accept is 401, even where anonymous requests are allowed.
      if (token !== undefined) return this.token(token);
    }
    return this.required ? undefined : { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
  }
}

/**
 * The token of an `Authorization` header, as kube-apiserver's bearer token authenticator
 * reads it: the header split on single spaces, the scheme `Bearer` (case-insensitive)
 * first, the token second. Undefined when the header is of another scheme or its token
 * is empty (the request is then taken as carrying no token).
 */
export function bearerToken(header: string): string | undefined {
  const parts = header.trim().split(' ', 3);
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] ?? '';
  return token === '' ? undefined : token;
}
