/**
 * ServiceAccount tokens as kube-apiserver issues and checks them (pkg/serviceaccount):
 * the TokenRequest subresource (`POST …/serviceaccounts/<name>/token`, what
 * `kubectl create token` sends) returns a signed JWT with an issuer, audiences, an
 * expiry and a `kubernetes.io` claim naming the ServiceAccount (and the Pod or Secret it
 * is bound to, when asked). A token is accepted only while it has not expired, names one
 * of the accepted audiences, and the objects it is bound to still exist with the same
 * uid (a token outlives neither its ServiceAccount nor its Pod or Secret).
 *
 * The server signs with its own ES256 key, made at start; the user a token stands for is
 * `system:serviceaccount:<namespace>:<name>` in `system:serviceaccounts` and
 * `system:serviceaccounts:<namespace>`, with the ServiceAccount's uid.
 *
 * @module
 */
import { createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { Clock, UnstructuredObject } from 'kube-controller-kit';
import { withAuthenticated } from './authentication.js';
import type { UserInfo } from './authentication.js';
import { badRequest, statusError } from './status.js';

/** The issuer of the server's ServiceAccount tokens (kube-apiserver's usual one). */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The audiences the server accepts for its own API (`--api-audiences`, the issuer by default). */
export const API_AUDIENCES: readonly string[] = [TOKEN_ISSUER];

/** The prefix of a ServiceAccount's user name. */
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The group of every ServiceAccount. */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** The user name of a ServiceAccount. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

/** The namespace and name of a ServiceAccount user name; undefined for other users. */
export function parseServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
}

/** The groups of a ServiceAccount in a namespace. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** Reads the objects a token is bound to. */
export type ObjectLookup = (
  resource: 'serviceaccounts' | 'pods' | 'secrets',
  namespace: string,
  name: string,
) => UnstructuredObject | undefined;

/**
 * The object a ServiceAccount token is bound to (a Pod or Secret): refused once it is gone.
 *
 * @group Users and authorization
 */
export interface BoundObjectReference {
  /** `Pod` or `Secret`. */
  kind?: string;
  /** `v1`. */
  apiVersion?: string;
  /** Its name (in the ServiceAccount's namespace). */
  name?: string;
  /** Its uid (a recreated object with the same name does not match). */
  uid?: string;
}

/**
 * What a TokenRequest asks for (its `spec`).
 *
 * @group Users and authorization
 */
export interface TokenRequestSpec {
  /** Who the token is for (default the API server's audiences). */
  audiences?: string[];
  /** Lifetime in seconds (default 3600, at least 600). */
  expirationSeconds?: number;
  /** A Pod or Secret the token is bound to. */
  boundObjectRef?: BoundObjectReference;
}

/** An issued token and when it expires. */
export interface IssuedToken {
  /** The JWT. */
  token: string;
  /** RFC 3339 expiry. */
  expirationTimestamp: string;
  /** The spec, defaulted as the server answers it. */
  spec: Required<Pick<TokenRequestSpec, 'audiences' | 'expirationSeconds'>> &
    Pick<TokenRequestSpec, 'boundObjectRef'>;
}

interface KubernetesClaim {
  namespace: string;
  serviceaccount: { name: string; uid: string };
  pod?: { name: string; uid: string };
  secret?: { name: string; uid: string };
}

interface Claims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': KubernetesClaim;
}

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function nameUid(v: unknown): { name: string; uid: string } | undefined {
  if (!isRecord(v) || typeof v.name !== 'string' || typeof v.uid !== 'string') return undefined;
  return { name: v.name, uid: v.uid };
}

/** Decodes a compact JWT's claims without checking them; undefined when malformed. */
export function decodeJwt(token: string):
  | {
      header: Record<string, unknown>;
      claims: Record<string, unknown>;
      signed: string;
      signature: Buffer;
    }
  | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, c, s] = parts as [string, string, string];
  const b64 = /^[A-Za-z0-9_-]+$/;
  if (!b64.test(h) || !b64.test(c) || !b64.test(s)) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    const claims: unknown = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    if (!isRecord(header) || !isRecord(claims)) return undefined;
    return { header, claims, signed: `${h}.${c}`, signature: Buffer.from(s, 'base64url') };
  } catch {
    return undefined;
  }
}

/** Issues and checks the server's ServiceAccount tokens. */
export class ServiceAccountTokens {
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  readonly #keyId: string;
  readonly #clock: Clock;
  readonly #lookup: ObjectLookup;

  constructor(clock: Clock, lookup: ObjectLookup) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    this.#publicKey = publicKey;
    this.#keyId = b64url(
      createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-16),
    );
    this.#clock = clock;
    this.#lookup = lookup;
  }

  /**
   * The public keys tokens are signed with, as a JSON Web Key Set (kube-apiserver's
   * `/openid/v1/jwks`, `serviceaccount.publicJWKSFromKeys`): one signing key per entry.
   */
  jwks(): { keys: Record<string, string>[] } {
    const jwk = this.#publicKey.export({ format: 'jwk' });
    return {
      keys: [
        {
          use: 'sig',
          kty: jwk.kty ?? 'EC',
          kid: this.#keyId,
          crv: jwk.crv ?? 'P-256',
          alg: 'ES256',
          x: jwk.x ?? '',
          y: jwk.y ?? '',
        },
      ],
    };
  }

  /**
   * Issues a token for a ServiceAccount, as the TokenRequest subresource does.
   *
   * @throws `ApiError` 404 when the ServiceAccount (or the bound object) does not exist,
   *   422 for a lifetime under 10 minutes or a bound object of another kind, 409 when the
   *   bound object's uid differs.
   */
  issue(namespace: string, name: string, spec: TokenRequestSpec = {}): IssuedToken {
    const sa = this.#lookup('serviceaccounts', namespace, name);
    if (sa === undefined) {
      throw statusError(404, 'NotFound', `serviceaccounts "${name}" not found`, {
        kind: 'serviceaccounts',
        name,
      });
    }
    const expirationSeconds = spec.expirationSeconds ?? 3600;
    if (!Number.isInteger(expirationSeconds) || expirationSeconds < 600) {
      throw invalidTokenRequest(
        'spec.expirationSeconds',
        String(expirationSeconds),
        'may not specify a duration less than 10 minutes',
      );
    }
    if (expirationSeconds > 2 ** 32) {
      throw invalidTokenRequest(
        'spec.expirationSeconds',
        String(expirationSeconds),
        'may not specify a duration larger than 2^32 seconds',
      );
    }
    const audiences = spec.audiences?.length ? [...spec.audiences] : [...API_AUDIENCES];
    const claim: KubernetesClaim = {
      namespace,
      serviceaccount: { name, uid: sa.metadata?.uid ?? '' },
    };
    const ref = spec.boundObjectRef;
    if (ref !== undefined && ref.kind !== undefined && ref.kind !== '') {
      const kind = ref.kind;
      if (kind !== 'Pod' && kind !== 'Secret') {
        throw invalidTokenRequest(
          'spec.boundObjectRef.kind',
          JSON.stringify(kind),
          'supported values: "Pod", "Secret"',
        );
      }
      const resource = kind === 'Pod' ? 'pods' : 'secrets';
      const bound = this.#lookup(resource, namespace, ref.name ?? '');
      if (bound === undefined) {
        throw statusError(404, 'NotFound', `${resource} "${ref.name ?? ''}" not found`, {
          kind: resource,
          name: ref.name ?? '',
        });
      }
      const uid = bound.metadata?.uid ?? '';
      if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== uid) {
        throw statusError(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${resource} "${ref.name ?? ''}": the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
          { kind: resource, name: ref.name ?? '' },
        );
      }
      claim[kind === 'Pod' ? 'pod' : 'secret'] = { name: ref.name ?? '', uid };
    }
    const now = Math.floor(this.#clock.now() / 1000);
    const claims: Claims = {
      aud: audiences,
      exp: now + expirationSeconds,
      iat: now,
      iss: TOKEN_ISSUER,
      jti: randomUUID(),
      'kubernetes.io': claim,
      nbf: now,
      sub: serviceAccountUsername(namespace, name),
    };
    const header = { alg: 'ES256', kid: this.#keyId };
    const signed = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(signed), {
      key: this.#privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    const out: IssuedToken = {
      token: `${signed}.${b64url(signature)}`,
      expirationTimestamp: new Date(claims.exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      spec: { audiences, expirationSeconds },
    };
    if (ref !== undefined) out.spec.boundObjectRef = { ...ref };
    return out;
  }

  /**
   * The user a token stands for, or undefined when it is not one of the server's tokens,
   * has expired, names none of `audiences` (default the API server's), or is bound to an
   * object that no longer exists (or was recreated).
   */
  authenticate(token: string, audiences: readonly string[] = API_AUDIENCES): UserInfo | undefined {
    const jwt = decodeJwt(token);
    if (jwt === undefined || jwt.header.alg !== 'ES256') return undefined;
    const valid = verify(
      'sha256',
      Buffer.from(jwt.signed),
      { key: this.#publicKey, dsaEncoding: 'ieee-p1363' },
      jwt.signature,
    );
    if (!valid) return undefined;
    const c = jwt.claims;
    if (c.iss !== TOKEN_ISSUER) return undefined;
    const now = this.#clock.now() / 1000;
    if (typeof c.exp !== 'number' || now >= c.exp) return undefined;
    if (typeof c.nbf === 'number' && now < c.nbf) return undefined;
    const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
    if (!aud.some((a) => typeof a === 'string' && audiences.includes(a))) return undefined;
    const k = c['kubernetes.io'];
    if (!isRecord(k) || typeof k.namespace !== 'string') return undefined;
    const sa = nameUid(k.serviceaccount);
    if (sa === undefined) return undefined;
    const alive = (
      resource: 'serviceaccounts' | 'pods' | 'secrets',
      ref: { name: string; uid: string },
    ): boolean => {
      const o = this.#lookup(resource, k.namespace as string, ref.name);
      return (
        o !== undefined &&
        o.metadata?.uid === ref.uid &&
        (o.metadata.deletionTimestamp === undefined || o.metadata.deletionTimestamp === null)
      );
    };
    if (!alive('serviceaccounts', sa)) return undefined;
    const extra: Record<string, string[]> = {};
    if (typeof c.jti === 'string') {
      extra['authentication.kubernetes.io/credential-id'] = [`JTI=${c.jti}`];
    }
    const pod = k.pod === undefined ? undefined : nameUid(k.pod);
    if (k.pod !== undefined) {
      if (pod === undefined || !alive('pods', pod)) return undefined;
      extra['authentication.kubernetes.io/pod-name'] = [pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [pod.uid];
    }
    if (k.secret !== undefined) {
      const secret = nameUid(k.secret);
      if (secret === undefined || !alive('secrets', secret)) return undefined;
    }
    return {
      username: serviceAccountUsername(k.namespace, sa.name),
      uid: sa.uid,
      groups: withAuthenticated(serviceAccountGroups(k.namespace)),
      extra,
    };
  }
}

function invalidTokenRequest(field: string, shown: string, message: string): Error {
  const full = `Invalid value: ${shown}: ${message}`;
  return statusError(
    422,
    'Invalid',
    `TokenRequest.authentication.k8s.io "" is invalid: ${field}: ${full}`,
    {
      group: 'authentication.k8s.io',
      kind: 'TokenRequest',
      causes: [{ reason: 'FieldValueInvalid', message: full, field }],
    },
  );
}

/**
 * The TokenRequest a POST to `serviceaccounts/<name>/token` answers: the request with its
 * spec defaulted and its status (token, expiry) filled in.
 */
export function answerTokenRequest(
  tokens: ServiceAccountTokens,
  namespace: string,
  name: string,
  body: unknown,
  now: string,
): UnstructuredObject {
  if (!isRecord(body)) throw badRequest('the body of a TokenRequest must be a JSON object');
  if (body.kind !== undefined && body.kind !== 'TokenRequest') {
    throw badRequest(
      `the object provided is unrecognized (must be of type TokenRequest): kind ${JSON.stringify(body.kind)}`,
    );
  }
  const spec = isRecord(body.spec) ? body.spec : {};
  const request: TokenRequestSpec = {};
  if (Array.isArray(spec.audiences)) {
    request.audiences = spec.audiences.filter((a): a is string => typeof a === 'string');
  }
  if (typeof spec.expirationSeconds === 'number')
    request.expirationSeconds = spec.expirationSeconds;
  if (isRecord(spec.boundObjectRef)) {
    const r = spec.boundObjectRef;
    request.boundObjectRef = {};
    for (const k of ['kind', 'apiVersion', 'name', 'uid'] as const) {
      if (typeof r[k] === 'string') request.boundObjectRef[k] = r[k];
    }
  }
  const issued = tokens.issue(namespace, name, request);
  const meta = isRecord(body.metadata) ? body.metadata : {};
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    // kube-apiserver's TokenREST fills the system fields of the answer as of any create.
    metadata: { ...meta, name, namespace, uid: randomUUID(), creationTimestamp: now },
    spec: issued.spec,
    status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
  };
}

/**
 * The OpenID Connect discovery document of the service account issuer (kube-apiserver's
 * `/.well-known/openid-configuration`, `serviceaccount.NewOpenIDMetadata`): the issuer, where
 * its keys are (`https://<the server's address>/openid/v1/jwks` when no
 * `--service-account-jwks-uri` is given) and the signing algorithms of its keys.
 */
export function openIdConfiguration(serverAddress: string): Record<string, unknown> {
  return {
    issuer: TOKEN_ISSUER,
    jwks_uri: `https://${serverAddress}/openid/v1/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
  };
}

/** The paths of the issuer discovery documents (each also with a trailing slash). */
export const ISSUER_DISCOVERY_PATHS = ['/.well-known/openid-configuration', '/openid/v1/jwks'];
