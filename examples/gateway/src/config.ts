/**
 * From resources to a routing table: validates every ApiRoute, AuthPolicy and
 * RateLimitPolicy, and compiles the valid ones into an immutable {@link RoutingTable}. A
 * resource that is invalid now but was valid before keeps serving its last good version
 * (until it is fixed or deleted): one bad edit never takes a working route down.
 *
 * Pure code, no I/O: the controller feeds it the listers' objects, the gateway serves the
 * table it returns.
 */
import { createHash } from 'node:crypto';
import type { DeepReadonly } from 'kube-controller-kit';
import type { ApiRoute, AuthPolicy, RateLimitPolicy } from './types.js';

/** A compiled AuthPolicy. */
export interface CompiledAuth {
  /** `namespace/name` of the policy. */
  readonly policy: string;
  /** `apiKey` or `bearer`. */
  readonly type: 'apiKey' | 'bearer';
  /** The header read (lower case): `x-api-key` or `authorization`. */
  readonly header: string;
  /** Accepted key → client id (a short hash, never the key itself: it ends up in logs). */
  readonly keys: ReadonlyMap<string, string>;
}

/** A compiled RateLimitPolicy. */
export interface CompiledRateLimit {
  /** `namespace/name@uid/generation`: buckets restart when the policy changes. */
  readonly id: string;
  /** Tokens per second. */
  readonly requestsPerSecond: number;
  /** Bucket size. */
  readonly burst: number;
  /** One bucket per route, or per client of the route. */
  readonly per: 'route' | 'client';
}

/** A compiled ApiRoute. */
export interface CompiledRoute {
  /** `namespace/name` of the route. */
  readonly key: string;
  /** Lower-case host, `''` for any. */
  readonly host: string;
  /** Normalized prefix: starts with `/`, no trailing `/` unless it is `/`. */
  readonly prefix: string;
  /** Where requests go. */
  readonly upstream: URL;
  /** Remove the prefix before forwarding. */
  readonly stripPrefix: boolean;
  /** Who may call it, if restricted. */
  readonly auth: CompiledAuth | undefined;
  /** How often, if limited. */
  readonly rateLimit: CompiledRateLimit | undefined;
}

/** The routes the gateway serves, most specific first; never changed once built. */
export class RoutingTable {
  /** Routes in match order: a host before any host, then the longest prefix. */
  readonly routes: readonly CompiledRoute[];

  /** @param routes - the routes, in any order. */
  constructor(routes: readonly CompiledRoute[]) {
    this.routes = [...routes].sort(
      (a, b) =>
        Number(b.host !== '') - Number(a.host !== '') ||
        b.prefix.length - a.prefix.length ||
        (a.key < b.key ? -1 : 1),
    );
  }

  /** The route serving `host` (port ignored) and `path`, or undefined. */
  match(host: string, path: string): CompiledRoute | undefined {
    const h = host.replace(/:\d+$/, '').toLowerCase();
    return this.routes.find(
      (r) => (r.host === '' || r.host === h) && prefixMatches(r.prefix, path),
    );
  }
}

/** Whether `prefix` matches `path` on a segment boundary. */
export function prefixMatches(prefix: string, path: string): boolean {
  if (prefix === '/') return true;
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** What the gateway made of one resource: its `Accepted` condition. */
export interface Verdict {
  /** The kind. */
  readonly kind: 'ApiRoute' | 'AuthPolicy' | 'RateLimitPolicy';
  /** `namespace/name`. */
  readonly key: string;
  /** True when the current spec is valid and in use. */
  readonly accepted: boolean;
  /** CamelCase reason: `Accepted`, `InvalidUpstream`, `UnknownAuthPolicy`, `Conflict`, … */
  readonly reason: string;
  /** For people. */
  readonly message: string;
}

/** The resources a compile reads, as the listers hold them. */
export interface ConfigInputs {
  /** Every ApiRoute. */
  routes: readonly DeepReadonly<ApiRoute>[];
  /** Every AuthPolicy. */
  authPolicies: readonly DeepReadonly<AuthPolicy>[];
  /** Every RateLimitPolicy. */
  rateLimitPolicies: readonly DeepReadonly<RateLimitPolicy>[];
  /** A Secret's decoded data value, or undefined when the Secret or the key is missing. */
  secretValue: (namespace: string, name: string, key: string) => string | undefined;
}

/** A resource was invalid: the reason and the message of its condition. */
class Invalid extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const HEADER = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function keyOf(obj: DeepReadonly<{ metadata?: { namespace?: string; name?: string } }>): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

function uidOf(obj: DeepReadonly<{ metadata?: { uid?: string } }>): string {
  return obj.metadata?.uid ?? '';
}

function clientId(key: string): string {
  return `key-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/** Validates and normalizes an ApiRoute's own fields (not its references). */
export function checkRoute(
  spec: DeepReadonly<ApiRoute['spec']>,
): Pick<CompiledRoute, 'host' | 'prefix' | 'upstream' | 'stripPrefix'> {
  const host = (spec.host ?? '').toLowerCase();
  if (host !== '' && !HOST.test(host)) {
    throw new Invalid('InvalidHost', `spec.host "${spec.host}" is not a DNS name`);
  }
  const raw = spec.pathPrefix;
  if (typeof raw !== 'string' || !raw.startsWith('/') || /[\s?#]/.test(raw) || raw.includes('//')) {
    throw new Invalid(
      'InvalidPathPrefix',
      `spec.pathPrefix "${String(raw)}" must start with "/" and contain no whitespace, "?", "#" or "//"`,
    );
  }
  if (raw.split('/').some((s) => s === '..' || s === '.')) {
    throw new Invalid('InvalidPathPrefix', `spec.pathPrefix "${raw}" has a "." or ".." segment`);
  }
  const prefix = raw.length > 1 ? raw.replace(/\/+$/, '') : raw;
  let upstream: URL;
  try {
    upstream = new URL(spec.upstream);
  } catch {
    throw new Invalid('InvalidUpstream', `spec.upstream "${spec.upstream}" is not a URL`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new Invalid(
      'InvalidUpstream',
      `spec.upstream "${spec.upstream}" must be an http: or https: URL, not ${upstream.protocol}`,
    );
  }
  if (upstream.search !== '' || upstream.hash !== '' || upstream.username !== '') {
    throw new Invalid(
      'InvalidUpstream',
      `spec.upstream "${spec.upstream}" must have no query, fragment or credentials`,
    );
  }
  return { host, prefix, upstream, stripPrefix: spec.stripPrefix === true };
}

/** Compiles an AuthPolicy. */
export function checkAuthPolicy(
  policy: DeepReadonly<AuthPolicy>,
  secretValue: ConfigInputs['secretValue'],
): CompiledAuth {
  const { spec } = policy;
  if (spec.type !== 'apiKey' && spec.type !== 'bearer') {
    throw new Invalid('InvalidType', `spec.type "${spec.type}" must be apiKey or bearer`);
  }
  if (spec.type === 'bearer' && spec.header !== undefined) {
    throw new Invalid('InvalidHeader', 'spec.header applies to type apiKey only');
  }
  const header = (spec.header ?? 'x-api-key').toLowerCase();
  if (!HEADER.test(header)) {
    throw new Invalid('InvalidHeader', `spec.header "${spec.header}" is not a header name`);
  }
  const keys: string[] = [];
  for (const [i, k] of (spec.keys ?? []).entries()) {
    if (typeof k !== 'string' || k === '' || /\s/.test(k)) {
      throw new Invalid('InvalidKey', `spec.keys[${i}] is empty or has whitespace`);
    }
    keys.push(k);
  }
  if (spec.secretRef !== undefined) {
    const ns = policy.metadata?.namespace ?? '';
    const dataKey = spec.secretRef.key ?? 'keys';
    const value = secretValue(ns, spec.secretRef.name, dataKey);
    if (value === undefined) {
      throw new Invalid(
        'SecretNotFound',
        `Secret ${ns}/${spec.secretRef.name} with data key "${dataKey}" not found`,
      );
    }
    for (const line of value.split('\n')) if (line.trim() !== '') keys.push(line.trim());
  }
  if (keys.length === 0) {
    throw new Invalid('NoKeys', 'no keys: set spec.keys or spec.secretRef');
  }
  return {
    policy: keyOf(policy),
    type: spec.type,
    header: spec.type === 'bearer' ? 'authorization' : header,
    keys: new Map(keys.map((k) => [k, clientId(k)])),
  };
}

/** Compiles a RateLimitPolicy. */
export function checkRateLimitPolicy(policy: DeepReadonly<RateLimitPolicy>): CompiledRateLimit {
  const { requestsPerSecond: rps, burst, per = 'route' } = policy.spec;
  if (typeof rps !== 'number' || !Number.isFinite(rps) || rps <= 0) {
    throw new Invalid('InvalidRate', `spec.requestsPerSecond ${String(rps)} must be above 0`);
  }
  if (!Number.isInteger(burst) || burst < 1) {
    throw new Invalid('InvalidBurst', `spec.burst ${String(burst)} must be an integer >= 1`);
  }
  if (per !== 'route' && per !== 'client') {
    throw new Invalid('InvalidPer', `spec.per "${per}" must be route or client`);
  }
  return {
    id: `${keyOf(policy)}@${uidOf(policy)}/${policy.metadata?.generation ?? 0}`,
    requestsPerSecond: rps,
    burst,
    per,
  };
}

interface LastGood<T> {
  uid: string;
  value: T;
}

/**
 * Compiles resources into routing tables, remembering the last good version of each
 * resource: an invalid resource that was valid before keeps serving as it was.
 */
export class GatewayConfig {
  readonly #routes = new Map<string, LastGood<CompiledRoute>>();
  readonly #auth = new Map<string, LastGood<CompiledAuth>>();
  readonly #limits = new Map<string, LastGood<CompiledRateLimit>>();

  /** Builds the table for `inputs` and says what became of each resource. */
  compile(inputs: ConfigInputs): { table: RoutingTable; verdicts: Verdict[] } {
    const verdicts: Verdict[] = [];
    const auth = this.#policies(
      'AuthPolicy',
      inputs.authPolicies,
      this.#auth,
      (p) => checkAuthPolicy(p, inputs.secretValue),
      verdicts,
    );
    const limits = this.#policies(
      'RateLimitPolicy',
      inputs.rateLimitPolicies,
      this.#limits,
      checkRateLimitPolicy,
      verdicts,
    );
    // Oldest first: of two routes claiming the same host and prefix, the older keeps it.
    const routes = [...inputs.routes].sort((a, b) => {
      const ta = a.metadata?.creationTimestamp ?? '';
      const tb = b.metadata?.creationTimestamp ?? '';
      return ta < tb ? -1 : ta > tb ? 1 : keyOf(a) < keyOf(b) ? -1 : 1;
    });
    const claimed = new Map<string, string>();
    const serving: CompiledRoute[] = [];
    const fallbacks: CompiledRoute[] = [];
    const present = new Set<string>();
    for (const route of routes) {
      const key = keyOf(route);
      present.add(key);
      const ns = route.metadata?.namespace ?? '';
      try {
        const own = checkRoute(route.spec);
        const ref = <T>(name: string | undefined, kind: string, from: Map<string, T>) => {
          if (name === undefined || name === '') return undefined;
          const found = from.get(`${ns}/${name}`);
          if (found === undefined) {
            throw new Invalid(
              `Unknown${kind}`,
              `${kind} ${ns}/${name} does not exist or has never been valid`,
            );
          }
          return found;
        };
        const compiled: CompiledRoute = {
          key,
          ...own,
          auth: ref(route.spec.authPolicy, 'AuthPolicy', auth),
          rateLimit: ref(route.spec.rateLimitPolicy, 'RateLimitPolicy', limits),
        };
        const slot = `${compiled.host} ${compiled.prefix}`;
        const holder = claimed.get(slot);
        if (holder !== undefined) {
          throw new Invalid(
            'Conflict',
            `host "${compiled.host || '*'}" and prefix ${compiled.prefix} are served by ApiRoute ${holder}`,
          );
        }
        claimed.set(slot, key);
        serving.push(compiled);
        this.#routes.set(key, { uid: uidOf(route), value: compiled });
        verdicts.push({
          kind: 'ApiRoute',
          key,
          accepted: true,
          reason: 'Accepted',
          message: `serving ${compiled.host || '*'}${compiled.prefix} -> ${compiled.upstream.href}`,
        });
      } catch (err) {
        if (!(err instanceof Invalid)) throw err;
        const last = this.#routes.get(key);
        const kept = last !== undefined && last.uid === uidOf(route);
        if (kept) fallbacks.push(last.value);
        else this.#routes.delete(key);
        verdicts.push({
          kind: 'ApiRoute',
          key,
          accepted: false,
          reason: err.reason,
          message: `${err.message}; ${kept ? 'the last good version keeps serving' : 'not served'}`,
        });
      }
    }
    for (const route of fallbacks) {
      const slot = `${route.host} ${route.prefix}`;
      if (claimed.has(slot)) continue;
      claimed.set(slot, route.key);
      serving.push(route);
    }
    for (const key of [...this.#routes.keys()]) if (!present.has(key)) this.#routes.delete(key);
    return { table: new RoutingTable(serving), verdicts };
  }

  #policies<P extends DeepReadonly<AuthPolicy | RateLimitPolicy>, C>(
    kind: 'AuthPolicy' | 'RateLimitPolicy',
    objects: readonly P[],
    lastGood: Map<string, LastGood<C>>,
    check: (p: P) => C,
    verdicts: Verdict[],
  ): Map<string, C> {
    const usable = new Map<string, C>();
    const present = new Set<string>();
    for (const policy of objects) {
      const key = keyOf(policy);
      present.add(key);
      try {
        const compiled = check(policy);
        usable.set(key, compiled);
        lastGood.set(key, { uid: uidOf(policy), value: compiled });
        verdicts.push({ kind, key, accepted: true, reason: 'Accepted', message: 'in use' });
      } catch (err) {
        if (!(err instanceof Invalid)) throw err;
        const last = lastGood.get(key);
        const kept = last !== undefined && last.uid === uidOf(policy);
        if (kept) usable.set(key, last.value);
        else lastGood.delete(key);
        verdicts.push({
          kind,
          key,
          accepted: false,
          reason: err.reason,
          message: `${err.message}; ${kept ? 'the last good version stays in use' : 'routes referencing it are not served'}`,
        });
      }
    }
    for (const key of [...lastGood.keys()]) if (!present.has(key)) lastGood.delete(key);
    return usable;
  }
}
