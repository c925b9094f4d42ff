/**
 * Who a request to the test API server comes from, decided as kube-apiserver's
 * authenticators decide it: a verified client certificate names its user by its Common
 * Name and its groups by its Organizations; the configured bearer token stands for
 * `test-user` in `system:masters` (the same identity as the test client certificate);
 * anything else is `system:anonymous` (the server admits anonymous requests unless it
 * requires credentials). Every authenticated user is also in `system:authenticated`.
 *
 * The server has no authorizer: every user may do everything.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** A user as kube-apiserver's authenticators describe one (`authentication.k8s.io/v1` UserInfo). */
export interface UserInfo {
  /** The user's name. */
  username: string;
  /** The groups the user is in. */
  groups: string[];
}

/** The credentials the server requires. */
export interface ServerAuth {
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Require a client certificate signed by the server's CA. */
  clientCertificate?: boolean;
}

/** The user the configured bearer token stands for. */
export const TOKEN_USER = 'test-user';

const AUTHENTICATED = 'system:authenticated';

/** Who the request comes from when it carries no credentials the server accepts. */
export const ANONYMOUS: Readonly<UserInfo> = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Decides who a request (or a TokenReview's token) is. */
export class Authenticator {
  readonly #auth: ServerAuth | undefined;

  /** @param auth - the credentials the server requires (none: anonymous requests pass). */
  constructor(auth: ServerAuth | undefined) {
    this.#auth = auth;
  }

  /** Whether the server refuses requests without credentials. */
  get required(): boolean {
    return (
      this.#auth !== undefined && (this.#auth.token !== undefined || !!this.#auth.clientCertificate)
    );
  }

  /** The user a bearer token stands for; undefined when the server does not know it. */
  token(token: string): UserInfo | undefined {
    if (this.#auth?.token === undefined || token !== this.#auth.token) return undefined;
    return { username: TOKEN_USER, groups: ['system:masters', AUTHENTICATED] };
  }

  /**
   * The user of a request; undefined when the server requires credentials and the
   * request has none it accepts (401).
   */
  authenticate(req: IncomingMessage): UserInfo | undefined {
    const socket = req.socket as Partial<TLSSocket>;
    if (socket.authorized === true && typeof socket.getPeerCertificate === 'function') {
      const subject = socket.getPeerCertificate().subject as
        { CN?: string | string[]; O?: string | string[] } | undefined;
      const username = asList(subject?.CN)[0];
      if (username !== undefined && username !== '') {
        return { username, groups: [...asList(subject?.O), AUTHENTICATED] };
      }
    }
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) {
      const user = this.token(header.slice('Bearer '.length));
      if (user) return user;
    }
    return this.required ? undefined : { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
  }
}
