/**
 * The router of the test API server: parses a request's URL, records it, passes it
 * through the gate (authentication, impersonation, authorization: ./request_gate.ts), answers discovery, health and OpenAPI paths, maps a resource path and
 * method to a verb (as kube-apiserver's request-info resolver does), applies injected
 * latency and failures, and hands the request to the resource handlers. Failures thrown
 * below it as `ApiError` become their `Status`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from 'kube-controller-kit';
import type { Status } from 'kube-controller-kit';
import * as discovery from './discovery.js';
import type { RequestInfo, RequestVerb, TestApiServerFaults } from './faults.js';
import { openApiV3Document, openApiV3Index } from './openapi.js';
import { serveOpenApiV2 } from './openapi_v2.js';
import { groupResourceKey } from './registry/resource_registry.js';
import type { ResourceHandlers } from './resource_handlers.js';
import { TooLargeResourceVersion } from './list.js';
import { sendBody, sendJson, sendStatus } from './responses.js';
import { ISSUER_DISCOVERY_PATHS, openIdConfiguration } from './service_account_tokens.js';
import type { ResourceRequest, ServerContext } from './server_context.js';
import { badRequest, failure, methodNotAllowed, pathNotFound, statusError } from './status.js';

/**
 * A request as the server saw it (see `TestApiServer.requests`).
 *
 * @group Faults
 */
export interface RecordedRequest extends RequestInfo {
  /** HTTP method. */
  method: string;
  /** Path and query. */
  url: string;
  /** HTTP status answered (0 while a watch is open). */
  code: number;
}

/** What the router needs beyond the shared context. */
export interface RouterOptions {
  /** Fault injection. */
  faults: TestApiServerFaults;
  /** Receives every request's record (its `code` is filled when the response finishes). */
  record(r: RecordedRequest): void;
}

const CRD_KEY = groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions');

/** A resource path before its verb is known. */
type ResourcePath = Omit<ResourceRequest, 'verb' | 'query' | 'user'> & { legacyWatch: boolean };

function tooLargeStatus(err: TooLargeResourceVersion): Status {
  return failure(
    504,
    'Timeout',
    `Too large resource version: ${err.asked}, current: ${err.current}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
  );
}

/** Routes requests to discovery or to the resource handlers. */
export class Router {
  readonly #ctx: ServerContext;
  readonly #handlers: ResourceHandlers;
  readonly #options: RouterOptions;

  constructor(ctx: ServerContext, handlers: ResourceHandlers, options: RouterOptions) {
    this.#ctx = ctx;
    this.#handlers = handlers;
    this.#options = options;
  }

  /** Handles one request to completion (a watch: until it is established). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    let url: URL | undefined;
    try {
      // A path is taken as a path even when it starts with `//` (not a host).
      url = rawUrl.startsWith('/')
        ? new URL(`http://localhost${rawUrl}`)
        : new URL(rawUrl, 'http://localhost');
    } catch {
      url = undefined;
    }
    const method = req.method ?? 'GET';
    const record: RecordedRequest = {
      method,
      url: req.url ?? '/',
      code: 0,
      verb: 'get',
      group: '',
      resource: '',
      namespace: '',
      name: '',
      subresource: '',
    };
    this.#options.record(record);
    res.on('finish', () => {
      record.code = res.statusCode;
    });
    const gate = this.#ctx.gate.check(
      req,
      gatePath(url, rawUrl),
      url?.searchParams ?? new URLSearchParams(),
    );
    if ('status' in gate) {
      req.resume();
      sendStatus(res, gate.status);
      return;
    }
    const user = gate.user;
    if (url === undefined) {
      req.resume();
      sendStatus(
        res,
        badRequest(`the request target ${JSON.stringify(rawUrl)} is not a valid URL`).status,
      );
      return;
    }
    let segments: string[];
    try {
      segments = url.pathname
        .split('/')
        .filter((s) => s !== '')
        .map(decodeURIComponent);
    } catch {
      req.resume();
      sendStatus(
        res,
        badRequest(
          `the request path ${JSON.stringify(url.pathname)} has an invalid percent-encoding`,
        ).status,
      );
      return;
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (method === 'GET' && path === '/openapi/v2') {
      serveOpenApiV2(req, res);
      return;
    }
    if (method === 'GET' && ISSUER_DISCOVERY_PATHS.includes(path)) {
      // kube-apiserver's openidmetadata handlers: cacheable for an hour; the key set has
      // its own media type.
      const cache = { 'Cache-Control': 'public, max-age=3600' };
      if (path === '/openid/v1/jwks') {
        sendBody(
          res,
          200,
          'application/jwk-set+json',
          JSON.stringify(this.#ctx.serviceAccountTokens.jwks()),
          cache,
        );
      } else {
        const host = req.socket.localAddress ?? '127.0.0.1';
        const address = `${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort ?? 0}`;
        sendJson(res, 200, JSON.stringify(openIdConfiguration(address)), cache);
      }
      return;
    }
    if (method === 'GET') {
      const doc = this.#discovery(path, segments, req);
      if (doc !== undefined) {
        if (typeof doc === 'string') {
          res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end(doc);
        } else if (doc === null) {
          sendStatus(res, pathNotFound().status);
        } else {
          sendJson(res, 200, JSON.stringify(doc));
        }
        return;
      }
    }
    const parsed = this.#parsePath(segments);
    if (parsed === undefined || parsed === 'discovery') {
      req.resume();
      sendStatus(res, pathNotFound().status);
      return;
    }
    const q = url.searchParams;
    const verb = resolveVerb(method, parsed, q);
    Object.assign(record, {
      verb: verb ?? 'get',
      group: parsed.type.group,
      resource: parsed.type.resource,
      namespace: parsed.namespace,
      name: parsed.name,
      subresource: parsed.subresource,
    });
    if (verb === undefined) {
      req.resume();
      sendStatus(
        res,
        parsed.type.virtual === true || parsed.type.verbs !== undefined
          ? // No route serves this method on a create-only resource (go-restful's 405).
            statusError(
              405,
              'MethodNotAllowed',
              'the server does not allow this method on the requested resource',
              {},
            ).status
          : methodNotAllowed(method, parsed.type.group, parsed.type.resource).status,
      );
      return;
    }
    const info: RequestInfo = {
      verb,
      group: parsed.type.group,
      resource: parsed.type.resource,
      namespace: parsed.namespace,
      name: parsed.name,
      subresource: parsed.subresource,
    };
    const { faults } = this.#options;
    const latency = faults.latencyFor(info);
    if (latency > 0) await this.#ctx.timers.sleep(latency);
    const injected = faults.takeFailure(info);
    if (injected) {
      req.resume();
      const headers: Record<string, string> = {};
      if (injected.retryAfterSeconds !== undefined) {
        headers['Retry-After'] = String(injected.retryAfterSeconds);
      }
      sendStatus(res, injected.status, headers);
      return;
    }
    const request: ResourceRequest = {
      type: parsed.type,
      version: parsed.version,
      namespace: parsed.namespace,
      name: parsed.name,
      subresource: parsed.subresource,
      verb,
      query: q,
      user,
    };
    try {
      await this.#handlers.serve(req, res, request);
    } catch (err) {
      if (err instanceof ApiError) sendStatus(res, err.status);
      else if (err instanceof TooLargeResourceVersion) sendStatus(res, tooLargeStatus(err));
      else throw err;
    }
  }

  /** A discovery, health or OpenAPI document; null for 404; undefined when not such a path. */
  #discovery(path: string, segments: string[], req: IncomingMessage): unknown {
    const registry = this.#ctx.registry;
    switch (path) {
      case '/version':
        return discovery.versionInfo();
      case '/healthz':
      case '/livez':
      case '/readyz':
        return 'ok';
      case '/api':
        return discovery.coreVersions(
          `${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? 0}`,
        );
      case '/apis':
        return discovery.groupList(registry);
      case '/openapi/v3':
        return openApiV3Index(registry, String(registry.generation));
      default:
        break;
    }
    if (segments[0] === 'openapi' && segments[1] === 'v3') {
      const g = segments[2] === 'api' ? '' : (segments[3] ?? '');
      const v = segments[2] === 'api' ? (segments[3] ?? '') : (segments[4] ?? '');
      return (
        openApiV3Document(registry, g, v, (name) => {
          const crd = this.#ctx.storage.get(CRD_KEY, name);
          return crd?.obj;
        }) ?? null
      );
    }
    if (segments[0] === 'api' && segments.length === 2) {
      return discovery.resourceList(registry, '', segments[1] ?? '') ?? null;
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      return discovery.group(registry, segments[1] ?? '') ?? null;
    }
    if (segments[0] === 'apis' && segments.length === 3) {
      return discovery.resourceList(registry, segments[1] ?? '', segments[2] ?? '') ?? null;
    }
    return undefined;
  }

  /** Parses `/api/v1/…` and `/apis/<group>/<version>/…` into a resource path. */
  #parsePath(segments: string[]): ResourcePath | 'discovery' | undefined {
    const registry = this.#ctx.registry;
    let group = '';
    let version: string;
    let rest: string[];
    if (segments[0] === 'api') {
      version = segments[1] ?? '';
      rest = segments.slice(2);
    } else if (segments[0] === 'apis') {
      group = segments[1] ?? '';
      version = segments[2] ?? '';
      rest = segments.slice(3);
    } else return undefined;
    if (rest.length === 0) return 'discovery';
    let legacyWatch = false;
    if (rest[0] === 'watch') {
      legacyWatch = true;
      rest = rest.slice(1);
    }
    let namespace = '';
    let resource: string;
    let name = '';
    let subresource = '';
    const nsType =
      rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== undefined
        ? registry.lookup(group, version, rest[2])
        : undefined;
    if (nsType?.namespaced) {
      namespace = rest[1] ?? '';
      resource = rest[2] ?? '';
      name = rest[3] ?? '';
      subresource = rest[4] ?? '';
      if (rest.length > 5) return undefined;
    } else {
      resource = rest[0] ?? '';
      name = rest[1] ?? '';
      subresource = rest[2] ?? '';
      if (rest.length > 3) return undefined;
    }
    const type = registry.lookup(group, version, resource);
    if (!type) return undefined;
    // A review is created at its collection only: no object path exists.
    if (type.virtual === true && (name !== '' || legacyWatch)) return undefined;
    if (!type.namespaced && namespace !== '') return undefined;
    if (type.namespaced && namespace === '' && name !== '') return undefined;
    if (
      subresource !== '' &&
      !(subresource === 'status' && type.statusSubresource) &&
      !(subresource === 'scale' && type.scale !== undefined) &&
      !(subresource === 'token' && type.group === '' && type.resource === 'serviceaccounts')
    )
      return undefined;
    return { type, version, namespace, name, subresource, legacyWatch };
  }
}

/** The decoded path of a request, as kube-apiserver's filters see it. */
function gatePath(url: URL | undefined, rawUrl: string): string {
  const pathname = url?.pathname ?? rawUrl.split('?')[0] ?? '/';
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** The verb of a resource request from its method, path and `watch` parameter. */
function resolveVerb(method: string, p: ResourcePath, q: URLSearchParams): RequestVerb | undefined {
  const verb = resolveAnyVerb(method, p, q);
  // A kind that serves only some verbs (componentstatuses) has no route for the others.
  return verb !== undefined && p.type.verbs !== undefined && !p.type.verbs.includes(verb)
    ? undefined
    : verb;
}

/** The verb of a resource request, whether or not its kind serves it. */
function resolveAnyVerb(
  method: string,
  p: ResourcePath,
  q: URLSearchParams,
): RequestVerb | undefined {
  const isWatch = p.legacyWatch || q.get('watch') === 'true' || q.get('watch') === '1';
  if (p.type.virtual === true) return method === 'POST' ? 'create' : undefined;
  switch (method) {
    case 'GET':
      // A subresource (status, scale) is read with get only: no watch of it.
      if (p.subresource === 'token') return undefined;
      if (p.subresource !== '') return isWatch ? undefined : 'get';
      return isWatch ? 'watch' : p.name !== '' ? 'get' : 'list';
    case 'POST':
      // TokenRequest: a POST to a ServiceAccount's `token` subresource creates a token.
      if (p.subresource === 'token') return p.name !== '' ? 'create' : undefined;
      return p.name === '' && p.subresource === '' ? 'create' : undefined;
    case 'PUT':
      return p.name !== '' && p.subresource !== 'token' ? 'update' : undefined;
    case 'PATCH':
      return p.name !== '' && p.subresource !== 'token' ? 'patch' : undefined;
    case 'DELETE':
      // status and scale answer get, update and patch only: DELETE of one is 405, never a
      // delete of the object itself.
      if (p.subresource !== '') return undefined;
      return p.name !== '' ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}
