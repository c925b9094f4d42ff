/**
 * A client for the TokenRequest subresource (`POST
 * /api/v1/namespaces/<ns>/serviceaccounts/<name>/token`), what `kubectl create token`
 * calls: the API server issues a signed, expiring ServiceAccount token for the given
 * audiences, optionally bound to a Pod or Secret (it stops working when that object is
 * deleted). A pod's projected token is what a controller normally reads; this is for tools
 * and tests that need a token for a ServiceAccount.
 *
 * ```ts
 * const { token, expirationTimestamp } = await createToken(kc, 'ops', 'bot', {
 *   audiences: ['https://kubernetes.default.svc.cluster.local'],
 *   expirationSeconds: 600,
 * });
 * ```
 *
 * @module
 */
import { toTransport } from './transport.js';
import type { KubeConfigLike, Transport } from './transport.js';

/** What a TokenRequest asks for (`authentication.k8s.io/v1` TokenRequestSpec). */
export interface TokenRequestOptions {
  /** Who the token is for; the API server's own audiences when omitted. */
  audiences?: string[];
  /** Lifetime in seconds (the server's default, one hour, when omitted; at least 600). */
  expirationSeconds?: number;
  /** An object the token is bound to: it stops working once that object is deleted. */
  boundObjectRef?: {
    /** `Pod` or `Secret`. */
    kind: 'Pod' | 'Secret';
    /** `v1`. */
    apiVersion?: string;
    /** The object's name (in the ServiceAccount's namespace). */
    name: string;
    /** The object's uid; the request fails if it differs. */
    uid?: string;
  };
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** An issued token (`TokenRequestStatus`). */
export interface IssuedServiceAccountToken {
  /** The bearer token. */
  token: string;
  /** When it expires (RFC 3339). */
  expirationTimestamp: string;
  /** The audiences the server issued it for. */
  audiences: string[];
}

interface TokenRequestAnswer {
  spec?: { audiences?: string[] };
  status?: { token?: string; expirationTimestamp?: string };
}

/**
 * Asks the API server for a ServiceAccount token (TokenRequest).
 *
 * @throws `ApiError` as the server answers: 404 when the ServiceAccount does not exist,
 *   403 without `create` on `serviceaccounts/token`, 422 for a lifetime under 10 minutes.
 */
export async function createToken(
  source: Transport | KubeConfigLike,
  namespace: string,
  serviceAccount: string,
  options: TokenRequestOptions = {},
): Promise<IssuedServiceAccountToken> {
  const spec: Record<string, unknown> = {};
  if (options.audiences !== undefined) spec.audiences = options.audiences;
  if (options.expirationSeconds !== undefined) spec.expirationSeconds = options.expirationSeconds;
  if (options.boundObjectRef !== undefined) {
    spec.boundObjectRef = { apiVersion: 'v1', ...options.boundObjectRef };
  }
  const answer = await toTransport(source).request<TokenRequestAnswer>({
    method: 'POST',
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
    signal: options.signal,
  });
  return {
    token: answer.status?.token ?? '',
    expirationTimestamp: answer.status?.expirationTimestamp ?? '',
    audiences: answer.spec?.audiences ?? [],
  };
}
