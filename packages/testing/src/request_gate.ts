/**
 * The one gate every request to the test API server passes before any handler, in
 * kube-apiserver's filter order: authentication (./authentication.ts; 401 when the
 * credentials are refused), impersonation (./impersonation.ts; 403 when the requester
 * may not impersonate), then authorization of the request's attributes
 * (./authorization.ts; 403 in kube-apiserver's words).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Status } from 'kube-controller-kit';
import type { Authenticator, UserInfo } from './authentication.js';
import type { Attributes, Authorizer } from './authorization.js';
import { forbiddenStatus, requestAttributes } from './authorization.js';
import { impersonate, impersonationHeaders } from './impersonation.js';
import { failure } from './status.js';

/** What the gate decides: the user to serve the request as, or the Status to answer. */
export type GateResult = { user: UserInfo; attributes: Attributes } | { status: Status };

/** Authenticates, impersonates and authorizes requests. */
export class RequestGate {
  readonly #authenticator: Authenticator;
  readonly #authorizer: Authorizer;

  constructor(authenticator: Authenticator, authorizer: Authorizer) {
    this.#authenticator = authenticator;
    this.#authorizer = authorizer;
  }

  /**
   * Decides a request. `path` is its decoded URL path, `query` its parameters (undefined
   * when the URL does not parse: the request is then authorized as a path).
   */
  check(req: IncomingMessage, path: string, query: URLSearchParams): GateResult {
    const authenticated = this.#authenticator.authenticate(req);
    if (authenticated === undefined)
      return { status: failure(401, 'Unauthorized', 'Unauthorized') };
    let user = authenticated;
    const asked = impersonationHeaders(req.headers);
    if (asked !== undefined) {
      const acting = impersonate(user, asked, this.#authorizer, path);
      if ('status' in acting) return acting;
      user = acting.user;
    }
    const attributes = requestAttributes(user, req.method ?? 'GET', path, query);
    const decision = this.#authorizer.authorize(attributes);
    if (!decision.allowed) return { status: forbiddenStatus(attributes, decision.reason) };
    return { user, attributes };
  }
}
