/**
 * The gateway's three custom resources (gateway.example.com/v1, crds.yaml) as TypeScript
 * types, and the `ApiResource`s that name them for clients and informers.
 */
import type { ApiResource, Condition, ObjectMeta } from 'kube-controller-kit';

/** The API group of the gateway's resources. */
export const GROUP = 'gateway.example.com';

/** The status every gateway resource gets: an `Accepted` condition. */
export interface GatewayStatus {
  /** `Accepted`: True when the resource is valid and serving, False with the reason. */
  conditions?: Condition[];
}

/** Common envelope of the three kinds. */
type GatewayObject<S> = {
  /** `gateway.example.com/v1`. */
  apiVersion?: string;
  /** The kind. */
  kind?: string;
  /** Standard object metadata. */
  metadata?: ObjectMeta;
  /** What the user asked for. */
  spec: S;
  /** What the gateway made of it. */
  status?: GatewayStatus;
};

/** Where requests for a host and path prefix go. */
export interface ApiRouteSpec {
  /** The exact `Host` to match (port ignored, case-insensitive); absent or empty: any host. */
  host?: string;
  /** The path prefix to match on a segment boundary (`/api` matches `/api` and `/api/x`, not `/apix`). */
  pathPrefix: string;
  /** The `http:` or `https:` URL to forward to; its path is prepended to the forwarded path. */
  upstream: string;
  /** Remove `pathPrefix` from the path before forwarding (default false). */
  stripPrefix?: boolean;
  /** The name of an AuthPolicy in the route's namespace. */
  authPolicy?: string;
  /** The name of a RateLimitPolicy in the route's namespace. */
  rateLimitPolicy?: string;
}

/** Who may call a route. */
export interface AuthPolicySpec {
  /** `apiKey`: the key in a header; `bearer`: `Authorization: Bearer <token>`. */
  type: string;
  /** The header carrying the API key (default `x-api-key`); `apiKey` only. */
  header?: string;
  /** Accepted keys or tokens, inline. */
  keys?: string[];
  /** A Secret in the policy's namespace with more keys, one per line, under `key` (default `keys`). */
  secretRef?: { name: string; key?: string };
}

/** How often a route may be called: a token bucket. */
export interface RateLimitPolicySpec {
  /** Tokens added per second (may be fractional, must be > 0). */
  requestsPerSecond: number;
  /** The bucket's size: requests allowed at once (integer >= 1). */
  burst: number;
  /** `route` (default): one bucket per route; `client`: one per API key, else per client address. */
  per?: string;
}

/** An `ApiRoute`. */
export type ApiRoute = GatewayObject<ApiRouteSpec>;
/** An `AuthPolicy`. */
export type AuthPolicy = GatewayObject<AuthPolicySpec>;
/** A `RateLimitPolicy`. */
export type RateLimitPolicy = GatewayObject<RateLimitPolicySpec>;

/** `apiroutes.gateway.example.com/v1`. */
export const apiRoutesResource: ApiResource<ApiRoute> = {
  group: GROUP,
  version: 'v1',
  resource: 'apiroutes',
  kind: 'ApiRoute',
  namespaced: true,
};

/** `authpolicies.gateway.example.com/v1`. */
export const authPoliciesResource: ApiResource<AuthPolicy> = {
  group: GROUP,
  version: 'v1',
  resource: 'authpolicies',
  kind: 'AuthPolicy',
  namespaced: true,
};

/** `ratelimitpolicies.gateway.example.com/v1`. */
export const rateLimitPoliciesResource: ApiResource<RateLimitPolicy> = {
  group: GROUP,
  version: 'v1',
  resource: 'ratelimitpolicies',
  kind: 'RateLimitPolicy',
  namespaced: true,
};
