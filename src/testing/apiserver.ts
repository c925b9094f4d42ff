/**
 * An in-memory Kubernetes API server on loopback, speaking the real JSON wire protocol,
 * for tests of controllers, informers and anything else that talks to Kubernetes.
 *
 * ```ts
 * import { startTestApiServer } from 'kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const kc = server.kubeConfig(); // a @kubernetes/client-node KubeConfig pointing at it
 * // … run the code under test …
 * await server.close();
 * ```
 *
 * @module
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { parseFieldSelector } from '../cache/fields.js';
import type { FieldSelector } from '../cache/fields.js';
import { parseLabelSelector } from '../cache/labels.js';
import type { LabelSelector } from '../cache/labels.js';
import { ApiError } from '../client/errors.js';
import type { Status, UnstructuredObject } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage, KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { generateTestCertificates } from './certs.js';
import type { TestCertificates } from './certs.js';
import * as discovery from './discovery.js';
import { TestApiServerFaults } from './faults.js';
import type { FaultTarget, RequestInfo, RequestVerb, WatchSelector } from './faults.js';
import {
  builtinResources,
  fieldPathGetter,
  groupResourceKey,
  ResourceRegistry,
} from './registry.js';
import type { FieldGetter, ResourceType } from './registry.js';
import { ResourceStore, TooLargeResourceVersion } from './resource_store.js';
import type { ListQuery, ListResult } from './resource_store.js';
import {
  badRequest,
  failure,
  methodNotAllowed,
  pathNotFound,
  statusError,
  tooOld,
} from './status.js';
import { Storage } from './storage.js';
import type { StoredObject } from './storage.js';
import { renderObject, WatchConnection } from './watch.js';
import { warningHeader } from './schema/index.js';
import type { FieldValidation } from './schema/index.js';
import { renderTable, renderTableWatchLine } from './table.js';
import { openApiV3Document, openApiV3Index } from './openapi.js';

/** Authentication the server requires. */
export interface TestApiServerAuth {
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Require a client certificate signed by the server's test CA (needs HTTPS). */
  clientCertificate?: boolean;
}

/** Options of {@link startTestApiServer}. */
export interface TestApiServerOptions {
  /** Serve HTTPS with throwaway certificates (default false; implied by `clientCertificate`). */
  https?: boolean;
  /** Required authentication (default none). */
  auth?: TestApiServerAuth;
  /** Port to bind on 127.0.0.1 (default 0: a free port). */
  port?: number;
  /** Clock for timestamps, bookmarks, watch timeouts and latency (default the real one). */
  clock?: Clock;
  /** Logger (default silent). */
  logger?: Logger;
  /**
   * Interval of BOOKMARK events on watches that allow them (default 60 000 ms). A watch with
   * `timeoutSeconds` also gets one 2 s before it times out. As from kube-apiserver, a
   * bookmark is sent only once the resource has changed since the watch went live (after
   * its replayed or initial events), delivered to this watch or not.
   */
  bookmarkIntervalMs?: number;
  /** Change events kept for watch replay; older ones are compacted (default 100 000). */
  historySize?: number;
  /** Namespaces that exist at start (default `default`, `kube-system`, `kube-public`). */
  namespaces?: string[];
  /** Largest request body accepted (default 3 MiB, as kube-apiserver). */
  maxBodyBytes?: number;
  /** How long a list at a future resourceVersion waits before 504 (default 200 ms). */
  tooLargeResourceVersionWaitMs?: number;
  /**
   * Model kube-apiserver's watch cache for lists (default true): a list at resourceVersion
   * `"0"` is served whole from the cache and its `limit` is ignored. `false` serves it in
   * pages at the latest version, as kube-apiserver does with `--watch-cache=false` — what
   * makes a reflector's paged initial list really paged.
   */
  watchCache?: boolean;
}

/** Names one resource for the in-process helpers: `pods`, `deployments.apps`, or parts. */
export type ResourceRef =
  | string
  | {
      /** API group; omitted or `''` for the core group. */
      group?: string;
      /** Plural resource name. */
      resource: string;
    };

/** A request as the server saw it (see {@link TestApiServer.requests}). */
export interface RecordedRequest extends RequestInfo {
  /** HTTP method. */
  method: string;
  /** Path and query. */
  url: string;
  /** HTTP status answered (0 while a watch is open). */
  code: number;
}

/** A running test API server. */
export interface TestApiServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Fault injection controls. */
  readonly faults: TestApiServerFaults;
  /** The TLS material when serving HTTPS. */
  readonly certificates: TestCertificates | undefined;
  /** The latest resourceVersion (as the number it is internally). */
  readonly resourceVersion: number;
  /** A @kubernetes/client-node KubeConfig with this server as its current context. */
  kubeConfig(namespace?: string): KubeConfig;
  /** Writes a kubeconfig file for kubectl and other tools. */
  writeKubeconfig(path: string): Promise<void>;
  /** Creates an object in-process (no HTTP; status kept as given). Returns the stored copy. */
  create<T extends UnstructuredObject = UnstructuredObject>(resource: ResourceRef, obj: T): T;
  /** Creates many objects in-process without returning copies (fast seeding for benchmarks). */
  seed(resource: ResourceRef, objects: Iterable<UnstructuredObject>): void;
  /** Replaces an object in-process (status too). Honours a resourceVersion precondition. */
  update<T extends UnstructuredObject = UnstructuredObject>(resource: ResourceRef, obj: T): T;
  /** Gets an object in-process, or undefined. */
  get<T extends UnstructuredObject = UnstructuredObject>(
    resource: ResourceRef,
    name: string,
    namespace?: string,
  ): T | undefined;
  /** Lists objects in-process, in key order. */
  list<T extends UnstructuredObject = UnstructuredObject>(
    resource: ResourceRef,
    namespace?: string,
  ): T[];
  /** Deletes an object in-process (finalizers still hold it). Returns false when absent. */
  delete(resource: ResourceRef, name: string, namespace?: string): boolean;
  /** Makes a field path selectable on a resource (optionally with a custom getter). */
  registerFieldSelector(resource: ResourceRef, fieldPath: string, getter?: FieldGetter): void;
  /** Number of open watches, optionally of one resource. */
  watchCount(resource?: ResourceRef): number;
  /** Resolves when at least `count` watches of a resource are open. */
  waitForWatch(resource: ResourceRef, count?: number, signal?: AbortSignal): Promise<void>;
  /** Every request handled so far (for assertions); cleared by `clearRequests()`. */
  readonly requests: readonly RecordedRequest[];
  /** Forgets the recorded requests. */
  clearRequests(): void;
  /** Stops the server: ends every watch, socket and timer. */
  close(): Promise<void>;
}

/** A failure of the in-process helpers or of the server's start. */
export class TestApiServerError extends KubeControllerKitError {}

const META_ONLY = /as=PartialObjectMetadata(List)?\b/;
const TABLE = /as=Table\b/;

interface ParsedPath {
  type: ResourceType;
  version: string;
  namespace: string;
  name: string;
  subresource: string;
  legacyWatch: boolean;
}

/**
 * The schema options of a write: `fieldValidation` (checked as kube-apiserver checks it:
 * 422 naming the verb's options kind), the raw body (to find duplicate fields in creates
 * and updates) and where the write's warnings go.
 */
function writeSchemaOptions(
  q: URLSearchParams,
  verb: RequestVerb,
  rawBody: string | undefined,
): { fieldValidation?: FieldValidation; rawBody?: string; warnings: string[] } {
  const fv = q.get('fieldValidation') ?? '';
  if (fv !== '' && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') {
    const kind =
      verb === 'create' ? 'CreateOptions' : verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
    const message = `Unsupported value: ${JSON.stringify(fv)}: supported values: "", "Ignore", "Strict", "Warn"`;
    throw statusError(
      422,
      'Invalid',
      `${kind}.meta.k8s.io "" is invalid: fieldValidation: ${message}`,
      {
        group: 'meta.k8s.io',
        kind,
        causes: [{ reason: 'FieldValueNotSupported', message, field: 'fieldValidation' }],
      },
    );
  }
  return {
    ...(fv !== '' && { fieldValidation: fv }),
    ...(rawBody !== undefined && { rawBody }),
    warnings: [],
  };
}

/** `Warning` headers for warning texts (one header line each, as kube-apiserver sends). */
function warningHeaders(warnings: string[]): Record<string, string[]> {
  return warnings.length === 0 ? {} : { Warning: warnings.map(warningHeader) };
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

class TestApiServerImpl implements TestApiServer, FaultTarget {
  url = '';
  readonly faults: TestApiServerFaults;
  certificates: TestCertificates | undefined;
  readonly #storage: Storage;
  readonly #registry = new ResourceRegistry();
  readonly #store: ResourceStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #options: TestApiServerOptions;
  readonly #watches = new Map<string, Set<WatchConnection>>();
  readonly #watchWaiters = new Set<() => void>();
  #server: Server | undefined;
  #closed = false;
  #requests: RecordedRequest[] = [];
  readonly #pendingTimers = new Set<{ cancel(): void }>();

  constructor(options: TestApiServerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#log = options.logger ?? noopLogger;
    this.#storage = new Storage({ historySize: options.historySize ?? 100_000 });
    for (const t of builtinResources()) this.#registry.add(t);
    this.#store = new ResourceStore(
      this.#storage,
      this.#registry,
      this.#clock,
      options.watchCache ?? true,
    );
    this.faults = new TestApiServerFaults(this);
    this.#storage.onChange((e) => {
      const set = this.#watches.get(e.grKey);
      if (set) for (const w of set) w.send(e);
    });
    const nsType = this.#type('namespaces');
    for (const ns of options.namespaces ?? ['default', 'kube-system', 'kube-public']) {
      this.#store.create(nsType, 'v1', '', { metadata: { name: ns } });
    }
  }

  get resourceVersion(): number {
    return this.#storage.resourceVersion;
  }

  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  clearRequests(): void {
    this.#requests = [];
  }

  async start(): Promise<void> {
    const o = this.#options;
    const useTls = o.https === true || o.auth?.clientCertificate === true;
    let server: Server;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.#handle(req, res).catch((err: unknown) => {
        this.#log.error('test API server: request failed', { err: errorMessage(err) });
        if (!res.headersSent)
          this.#sendStatus(res, failure(500, 'InternalError', errorMessage(err)));
        else res.destroy();
      });
    };
    if (useTls) {
      this.certificates = await generateTestCertificates();
      server = createHttpsServer(
        {
          key: this.certificates.serverKey,
          cert: this.certificates.serverCert,
          ca: this.certificates.caCert,
          requestCert: o.auth?.clientCertificate === true,
          rejectUnauthorized: false,
        },
        handler,
      );
    } else {
      server = createHttpServer(handler);
    }
    server.keepAliveTimeout = 5000;
    // A request Node.js cannot parse (e.g. raw non-ASCII bytes in the path) gets a 400
    // Status and the connection is closed, as kube-apiserver answers 400; a socket with a
    // response in flight is only closed.
    const busy = new WeakSet<object>();
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      busy.add(req.socket);
      res.on('close', () => busy.delete(req.socket));
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable || busy.has(socket) || err.code === 'ECONNRESET') {
        socket.destroy();
        return;
      }
      const body = JSON.stringify(
        failure(400, 'BadRequest', `the request could not be parsed: ${err.code ?? err.message}`),
      );
      const raw = (err as { rawPacket?: unknown }).rawPacket;
      const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n` +
          (head ? '' : body),
      );
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    this.url = `${useTls ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  // ---------------------------------------------------------------- in-process helpers

  #type(ref: ResourceRef): ResourceType {
    let group = '';
    let resource: string;
    if (typeof ref === 'string') {
      const dot = ref.indexOf('.');
      resource = dot < 0 ? ref : ref.slice(0, dot);
      group = dot < 0 ? '' : ref.slice(dot + 1);
    } else {
      resource = ref.resource;
      group = ref.group ?? '';
    }
    const t = this.#registry.byGroupResource(group, resource);
    if (!t) {
      throw new TestApiServerError(
        `the test API server does not serve ${groupResourceKey(group, resource)}; use a built-in resource or create its CustomResourceDefinition first`,
      );
    }
    return t;
  }

  #wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new TestApiServerError(errorMessage(err), { cause: err });
    }
  }

  create<T extends UnstructuredObject = UnstructuredObject>(resource: ResourceRef, obj: T): T {
    const t = this.#type(resource);
    const ns = obj.metadata?.namespace ?? (t.namespaced ? 'default' : '');
    const version = obj.apiVersion?.split('/').pop() ?? t.versions[0] ?? 'v1';
    const copy = JSON.parse(JSON.stringify(obj)) as T;
    return this.#wrap(
      () => JSON.parse(this.#store.create(t, version, ns, copy, { seed: true }).json) as T,
    );
  }

  seed(resource: ResourceRef, objects: Iterable<UnstructuredObject>): void {
    const t = this.#type(resource);
    for (const obj of objects) {
      const ns = obj.metadata?.namespace ?? (t.namespaced ? 'default' : '');
      const version = obj.apiVersion?.split('/').pop() ?? t.versions[0] ?? 'v1';
      const copy = JSON.parse(JSON.stringify(obj)) as UnstructuredObject;
      this.#wrap(() => this.#store.create(t, version, ns, copy, { seed: true }));
    }
  }

  update<T extends UnstructuredObject = UnstructuredObject>(resource: ResourceRef, obj: T): T {
    const t = this.#type(resource);
    const ns = obj.metadata?.namespace ?? (t.namespaced ? 'default' : '');
    const version = obj.apiVersion?.split('/').pop() ?? t.versions[0] ?? 'v1';
    return this.#wrap(
      () =>
        structuredClone(
          this.#store.update(
            t,
            version,
            ns,
            obj.metadata?.name ?? '',
            JSON.parse(JSON.stringify(obj)),
            '',
            {
              seed: true,
            },
          ).obj,
        ) as T,
    );
  }

  get<T extends UnstructuredObject = UnstructuredObject>(
    resource: ResourceRef,
    name: string,
    namespace?: string,
  ): T | undefined {
    const t = this.#type(resource);
    const o = this.#storage.get(
      groupResourceKey(t.group, t.resource),
      t.namespaced ? `${namespace ?? 'default'}/${name}` : name,
    );
    return o ? (structuredClone(o.obj) as T) : undefined;
  }

  list<T extends UnstructuredObject = UnstructuredObject>(
    resource: ResourceRef,
    namespace?: string,
  ): T[] {
    const t = this.#type(resource);
    return this.#storage
      .list(groupResourceKey(t.group, t.resource), t.namespaced ? namespace : undefined)
      .map((o) => structuredClone(o.obj) as T);
  }

  delete(resource: ResourceRef, name: string, namespace?: string): boolean {
    const t = this.#type(resource);
    try {
      this.#store.delete(t, namespace ?? (t.namespaced ? 'default' : ''), name);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return false;
      throw err;
    }
  }

  registerFieldSelector(resource: ResourceRef, fieldPath: string, getter?: FieldGetter): void {
    this.#type(resource).fieldSelectors.set(fieldPath, getter ?? fieldPathGetter(fieldPath));
  }

  watchCount(resource?: ResourceRef): number {
    if (resource !== undefined) {
      const t = this.#type(resource);
      return this.#watches.get(groupResourceKey(t.group, t.resource))?.size ?? 0;
    }
    let n = 0;
    for (const s of this.#watches.values()) n += s.size;
    return n;
  }

  waitForWatch(resource: ResourceRef, count = 1, signal?: AbortSignal): Promise<void> {
    if (this.watchCount(resource) >= count) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (this.watchCount(resource) >= count) {
          cleanup();
          resolve();
        }
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason as Error);
      };
      const cleanup = (): void => {
        this.#watchWaiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      this.#watchWaiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  // ---------------------------------------------------------------- kubeconfig

  kubeConfig(namespace?: string): KubeConfig {
    const kc = new KubeConfig();
    const user: { name: string; token?: string; certData?: string; keyData?: string } = {
      name: 'test-user',
    };
    if (this.#options.auth?.token !== undefined) user.token = this.#options.auth.token;
    if (this.#options.auth?.clientCertificate && this.certificates) {
      user.certData = Buffer.from(this.certificates.clientCert).toString('base64');
      user.keyData = Buffer.from(this.certificates.clientKey).toString('base64');
    }
    const cluster: { name: string; server: string; skipTLSVerify: boolean; caData?: string } = {
      name: 'test-apiserver',
      server: this.url,
      // client-node refuses plain http unless TLS verification is marked skipped.
      skipTLSVerify: this.certificates === undefined,
    };
    if (this.certificates)
      cluster.caData = Buffer.from(this.certificates.caCert).toString('base64');
    const context: { name: string; cluster: string; user: string; namespace?: string } = {
      name: 'test-apiserver',
      cluster: 'test-apiserver',
      user: 'test-user',
    };
    if (namespace !== undefined) context.namespace = namespace;
    kc.loadFromOptions({
      clusters: [cluster],
      users: [user],
      contexts: [context],
      currentContext: 'test-apiserver',
    });
    return kc;
  }

  async writeKubeconfig(path: string): Promise<void> {
    const lines = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test-apiserver',
      '  cluster:',
      `    server: ${yamlString(this.url)}`,
    ];
    if (this.certificates) {
      lines.push(
        `    certificate-authority-data: ${Buffer.from(this.certificates.caCert).toString('base64')}`,
      );
    }
    lines.push('users:', '- name: test-user', '  user:');
    let userFields = 0;
    if (this.#options.auth?.token !== undefined) {
      lines.push(`    token: ${yamlString(this.#options.auth.token)}`);
      userFields++;
    }
    if (this.#options.auth?.clientCertificate && this.certificates) {
      lines.push(
        `    client-certificate-data: ${Buffer.from(this.certificates.clientCert).toString('base64')}`,
        `    client-key-data: ${Buffer.from(this.certificates.clientKey).toString('base64')}`,
      );
      userFields++;
    }
    if (userFields === 0) lines[lines.length - 1] = '  user: {}';
    lines.push(
      'contexts:',
      '- name: test-apiserver',
      '  context:',
      '    cluster: test-apiserver',
      '    user: test-user',
      'current-context: test-apiserver',
      '',
    );
    await writeFile(path, lines.join('\n'), { mode: 0o600 });
  }

  // ---------------------------------------------------------------- fault target

  #selectWatches(selector: WatchSelector | undefined): WatchConnection[] {
    const out: WatchConnection[] = [];
    for (const set of this.#watches.values()) {
      for (const w of set) {
        const f = w.filter;
        if (selector?.resource !== undefined && selector.resource !== f.type.resource) continue;
        if (selector?.group !== undefined && selector.group !== f.type.group) continue;
        if (selector?.namespace !== undefined && selector.namespace !== f.namespace) continue;
        out.push(w);
      }
    }
    return out;
  }

  forEachWatch(
    selector: WatchSelector | undefined,
    action: 'end' | 'destroy' | 'pause' | 'resume' | { closeAfter: number } | { write: string },
  ): number {
    const ws = this.#selectWatches(selector);
    for (const w of ws) {
      if (action === 'end') w.end();
      else if (action === 'destroy') w.destroy();
      else if (action === 'pause') w.pause();
      else if (action === 'resume') w.resume();
      else if ('closeAfter' in action) w.closeAfter(action.closeAfter);
      else w.writeRaw(action.write);
    }
    return ws.length;
  }

  compact(): void {
    this.#storage.compact();
  }

  restart(forgetHistory: boolean): void {
    for (const w of this.#selectWatches(undefined)) w.destroy();
    this.#server?.closeAllConnections();
    if (forgetHistory) this.#storage.compact();
  }

  // ---------------------------------------------------------------- close

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#selectWatches(undefined)) w.end();
    for (const t of this.#pendingTimers) t.cancel();
    this.#pendingTimers.clear();
    const server = this.#server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  // ---------------------------------------------------------------- HTTP

  #sendJson(
    res: ServerResponse,
    code: number,
    body: string,
    headers: Record<string, string | string[]> = {},
  ): void {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(code, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Content-Length': String(Buffer.byteLength(body)),
      ...headers,
    });
    res.end(body);
  }

  #sendStatus(res: ServerResponse, status: Status, headers: Record<string, string> = {}): void {
    this.#sendJson(res, status.code ?? 500, JSON.stringify(status), headers);
  }

  #authorized(req: IncomingMessage): boolean {
    const auth = this.#options.auth;
    if (!auth || (auth.token === undefined && !auth.clientCertificate)) return true;
    if (auth.token !== undefined && req.headers.authorization === `Bearer ${auth.token}`)
      return true;
    if (auth.clientCertificate) {
      const sock = req.socket as { authorized?: boolean };
      if (sock.authorized === true) return true;
    }
    return false;
  }

  async #readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
    const limit = this.#options.maxBodyBytes ?? 3 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), tooLarge };
  }

  #parsePath(segments: string[]): ParsedPath | 'discovery' | undefined {
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
        ? this.#registry.lookup(group, version, rest[2])
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
    const type = this.#registry.lookup(group, version, resource);
    if (!type) return undefined;
    if (!type.namespaced && namespace !== '') return undefined;
    if (type.namespaced && namespace === '' && name !== '') return undefined;
    if (
      subresource !== '' &&
      !(subresource === 'status' && type.statusSubresource) &&
      !(subresource === 'scale' && type.scaleSubresource === true)
    )
      return undefined;
    return { type, version, namespace, name, subresource, legacyWatch };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
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
    this.#requests.push(record);
    if (this.#requests.length > 10_000) this.#requests.splice(0, 5_000);
    res.on('finish', () => {
      record.code = res.statusCode;
    });
    if (!this.#authorized(req)) {
      req.resume();
      this.#sendStatus(res, failure(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    if (url === undefined) {
      req.resume();
      this.#sendStatus(
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
      this.#sendStatus(
        res,
        badRequest(
          `the request path ${JSON.stringify(url.pathname)} has an invalid percent-encoding`,
        ).status,
      );
      return;
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (method === 'GET') {
      const doc = this.#discovery(path, segments, req);
      if (doc !== undefined) {
        if (typeof doc === 'string') {
          res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end(doc);
        } else if (doc === null) {
          this.#sendStatus(res, pathNotFound().status);
        } else {
          this.#sendJson(res, 200, JSON.stringify(doc));
        }
        return;
      }
    }
    const parsed = this.#parsePath(segments);
    if (parsed === undefined || parsed === 'discovery') {
      req.resume();
      this.#sendStatus(res, pathNotFound().status);
      return;
    }
    const q = url.searchParams;
    const isWatch = parsed.legacyWatch || q.get('watch') === 'true' || q.get('watch') === '1';
    let verb: RequestVerb | undefined;
    switch (method) {
      case 'GET':
        verb = parsed.name !== '' ? (isWatch ? 'watch' : 'get') : isWatch ? 'watch' : 'list';
        break;
      case 'POST':
        verb = parsed.name === '' && parsed.subresource === '' ? 'create' : undefined;
        break;
      case 'PUT':
        verb = parsed.name !== '' ? 'update' : undefined;
        break;
      case 'PATCH':
        verb = parsed.name !== '' ? 'patch' : undefined;
        break;
      case 'DELETE':
        verb =
          parsed.name !== ''
            ? 'delete'
            : parsed.subresource === ''
              ? 'deletecollection'
              : undefined;
        break;
      default:
        verb = undefined;
    }
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
      this.#sendStatus(
        res,
        methodNotAllowed(method, parsed.type.group, parsed.type.resource).status,
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
    const latency = this.faults.latencyFor(info);
    if (latency > 0) await this.#sleep(latency);
    const injected = this.faults.takeFailure(info);
    if (injected) {
      req.resume();
      const headers: Record<string, string> = {};
      if (injected.retryAfterSeconds !== undefined) {
        headers['Retry-After'] = String(injected.retryAfterSeconds);
      }
      this.#sendStatus(res, injected.status, headers);
      return;
    }
    try {
      await this.#serve(req, res, parsed, verb, q);
    } catch (err) {
      if (err instanceof ApiError) this.#sendStatus(res, err.status);
      else if (err instanceof TooLargeResourceVersion) this.#sendStatus(res, tooLargeStatus(err));
      else throw err;
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = this.#clock.setTimeout(() => {
        this.#pendingTimers.delete(timer);
        resolve();
      }, ms);
      this.#pendingTimers.add(timer);
    });
  }

  #discovery(path: string, segments: string[], req: IncomingMessage): unknown {
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
        return discovery.groupList(this.#registry);
      case '/openapi/v2':
        return null;
      case '/openapi/v3':
        return openApiV3Index(this.#registry, String(this.#registry.generation));
      default:
        break;
    }
    if (segments[0] === 'openapi' && segments[1] === 'v3') {
      const g = segments[2] === 'api' ? '' : (segments[3] ?? '');
      const v = segments[2] === 'api' ? (segments[3] ?? '') : (segments[4] ?? '');
      return openApiV3Document(this.#registry, g, v) ?? null;
    }
    if (segments[0] === 'api' && segments.length === 2) {
      return discovery.resourceList(this.#registry, '', segments[1] ?? '') ?? null;
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      return discovery.group(this.#registry, segments[1] ?? '') ?? null;
    }
    if (segments[0] === 'apis' && segments.length === 3) {
      return discovery.resourceList(this.#registry, segments[1] ?? '', segments[2] ?? '') ?? null;
    }
    return undefined;
  }

  #selectors(
    q: URLSearchParams,
    type: ResourceType,
  ): { label?: LabelSelector; field?: FieldSelector } {
    const out: { label?: LabelSelector; field?: FieldSelector } = {};
    const ls = q.get('labelSelector');
    const fs = q.get('fieldSelector');
    try {
      if (ls) {
        const sel = parseLabelSelector(ls);
        if (!sel.isEmpty()) out.label = sel;
      }
    } catch (err) {
      throw badRequest(`unable to parse requirement: ${errorMessage(err)}`);
    }
    try {
      if (fs) {
        const sel = parseFieldSelector(fs);
        if (!sel.isEmpty()) out.field = sel;
      }
    } catch (err) {
      throw badRequest(`invalid field selector: ${errorMessage(err)}`);
    }
    this.#store.checkFieldSelector(type, out.field);
    return out;
  }

  #listQuery(q: URLSearchParams, p: ParsedPath): ListQuery {
    const { label, field } = this.#selectors(q, p.type);
    const limitText = q.get('limit');
    const limit = limitText ? Number(limitText) : 0;
    if (!Number.isInteger(limit) || limit < 0) {
      throw badRequest(
        `limit: Invalid value: "${limitText ?? ''}": must be a non-negative integer`,
      );
    }
    const rvm = q.get('resourceVersionMatch');
    if (rvm !== null && rvm !== '' && rvm !== 'Exact' && rvm !== 'NotOlderThan') {
      throw statusError(
        422,
        'Invalid',
        `resourceVersionMatch: Unsupported value: "${rvm}": supported values: "Exact", "NotOlderThan"`,
      );
    }
    return {
      namespace: p.namespace === '' ? undefined : p.namespace,
      label,
      field,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: rvm === null || rvm === '' ? undefined : rvm,
      limit,
      continueToken: q.get('continue') || undefined,
    };
  }

  async #listWaiting(type: ResourceType, query: ListQuery): Promise<ListResult> {
    try {
      return this.#store.list(type, query);
    } catch (err) {
      if (!(err instanceof TooLargeResourceVersion)) throw err;
      const wait = this.#options.tooLargeResourceVersionWaitMs ?? 200;
      const reached = await new Promise<boolean>((resolve) => {
        const unsubscribe = this.#storage.onChange(() => {
          if (this.#storage.resourceVersion >= err.asked) {
            timer.cancel();
            this.#pendingTimers.delete(timer);
            unsubscribe();
            resolve(true);
          }
        });
        const timer = this.#clock.setTimeout(() => {
          this.#pendingTimers.delete(timer);
          unsubscribe();
          resolve(false);
        }, wait);
        this.#pendingTimers.add(timer);
      });
      if (!reached) throw err;
      return this.#store.list(type, query);
    }
  }

  async #serve(
    req: IncomingMessage,
    res: ServerResponse,
    p: ParsedPath,
    verb: RequestVerb,
    q: URLSearchParams,
  ): Promise<void> {
    const accept = req.headers.accept ?? '';
    const metaOnly = META_ONLY.test(accept);
    const table = !metaOnly && TABLE.test(accept);
    const dryRun = q.getAll('dryRun').includes('All');
    const { type, version } = p;
    if (p.subresource === 'scale') {
      await this.#serveScale(req, res, p, verb, q, dryRun);
      return;
    }
    const render = (o: StoredObject): string => renderObject(o, type, version, metaOnly);
    let one = (code: number, o: StoredObject, headers: Record<string, string[]> = {}): void => {
      if (table)
        this.#sendJson(
          res,
          code,
          renderTable([o], type, this.#clock.now(), String(o.rv), ''),
          headers,
        );
      else this.#sendJson(res, code, render(o), headers);
    };
    switch (verb) {
      case 'get': {
        one(200, this.#store.get(type, p.namespace, p.name));
        return;
      }
      case 'list': {
        const result = await this.#listWaiting(type, this.#listQuery(q, p));
        if (table) {
          this.#sendJson(
            res,
            200,
            renderTable(
              result.items,
              type,
              this.#clock.now(),
              String(result.rv),
              result.continueToken,
            ),
          );
          return;
        }
        const meta: Record<string, unknown> = { resourceVersion: String(result.rv) };
        if (result.continueToken) meta.continue = result.continueToken;
        if (result.remaining !== undefined) meta.remainingItemCount = result.remaining;
        const head = metaOnly
          ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(meta)},"items":[`
          : `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(ResourceStore.apiVersion(type, version))},"metadata":${JSON.stringify(meta)},"items":[`;
        const parts: string[] = new Array<string>(result.items.length);
        for (let i = 0; i < result.items.length; i++)
          parts[i] = render(result.items[i] as StoredObject);
        this.#sendJson(res, 200, `${head}${parts.join(',')}]}`);
        return;
      }
      case 'watch':
        this.#watch(res, p, q, metaOnly, table);
        return;
      case 'deletecollection': {
        const query = this.#listQuery(q, p);
        const opts = await this.#deleteOptions(req, dryRun);
        const deleted = this.#store.deleteCollection(type, query, opts);
        this.#sendJson(
          res,
          200,
          `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(ResourceStore.apiVersion(type, version))},"metadata":{"resourceVersion":"${this.#storage.resourceVersion}"},"items":[${deleted.map(render).join(',')}]}`,
        );
        return;
      }
      case 'delete': {
        const opts = await this.#deleteOptions(req, dryRun);
        const out = this.#store.delete(type, p.namespace, p.name, opts);
        const gone =
          this.#storage.get(groupResourceKey(type.group, type.resource), out.key) === undefined;
        one(gone || dryRun ? 200 : 202, out);
        return;
      }
      default:
        break;
    }
    // Writes with a body.
    const { text, tooLarge } = await this.#readBody(req);
    if (tooLarge) {
      this.#sendStatus(
        res,
        failure(
          413,
          'RequestEntityTooLarge',
          `Request entity too large: limit is ${this.#options.maxBodyBytes ?? 3145728}`,
        ),
      );
      return;
    }
    const contentType =
      (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    if (
      verb !== 'patch' &&
      contentType !== 'application/json' &&
      contentType !== '' &&
      !contentType.endsWith('yaml')
    ) {
      throw statusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: ${errorMessage(err)}`,
      );
    }
    const opts = { dryRun, ...writeSchemaOptions(q, verb, verb === 'patch' ? undefined : text) };
    const sendOne = one;
    one = (code, o) => sendOne(code, o, warningHeaders(opts.warnings));
    switch (verb) {
      case 'create': {
        one(201, this.#store.create(type, version, p.namespace, body, opts));
        return;
      }
      case 'update': {
        one(200, this.#store.update(type, version, p.namespace, p.name, body, p.subresource, opts));
        return;
      }
      case 'patch': {
        const out = this.#store.patch(
          type,
          version,
          p.namespace,
          p.name,
          contentType,
          body,
          p.subresource,
          opts,
        );
        one(out.created ? 201 : 200, out.stored);
        return;
      }
      default:
        throw methodNotAllowed(req.method ?? '', type.group, type.resource);
    }
  }

  /** GET, PUT and PATCH of a custom resource's `scale` subresource. */
  async #serveScale(
    req: IncomingMessage,
    res: ServerResponse,
    p: ParsedPath,
    verb: RequestVerb,
    q: URLSearchParams,
    dryRun: boolean,
  ): Promise<void> {
    if (verb === 'get') {
      this.#sendJson(res, 200, JSON.stringify(this.#store.getScale(p.type, p.namespace, p.name)));
      return;
    }
    if (verb !== 'update' && verb !== 'patch') {
      throw methodNotAllowed(req.method ?? '', p.type.group, p.type.resource);
    }
    const { text } = await this.#readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw badRequest(
        `the object provided is unrecognized (must be of type Scale): couldn't get version/kind; json parse error: ${errorMessage(err)}`,
      );
    }
    const opts = { dryRun, ...writeSchemaOptions(q, verb, undefined) };
    const contentType =
      (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    const scale =
      verb === 'update'
        ? this.#store.updateScale(p.type, p.namespace, p.name, body, opts)
        : this.#store.patchScale(p.type, p.namespace, p.name, contentType, body, opts);
    this.#sendJson(res, 200, JSON.stringify(scale), warningHeaders(opts.warnings));
  }

  async #deleteOptions(
    req: IncomingMessage,
    dryRun: boolean,
  ): Promise<{
    preconditions?: { uid?: string; resourceVersion?: string };
    gracePeriodSeconds?: number;
    dryRun?: boolean;
  }> {
    const { text } = await this.#readBody(req);
    const out: {
      preconditions?: { uid?: string; resourceVersion?: string };
      gracePeriodSeconds?: number;
      dryRun?: boolean;
    } = {};
    if (dryRun) out.dryRun = true;
    const grace = new URL(req.url ?? '/', 'http://localhost').searchParams.get(
      'gracePeriodSeconds',
    );
    if (grace !== null && grace !== '' && Number.isFinite(Number(grace))) {
      out.gracePeriodSeconds = Number(grace);
    }
    if (text.trim() === '') return out;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw badRequest(`invalid DeleteOptions: ${errorMessage(err)}`);
    }
    if (body === null || typeof body !== 'object') return out;
    const b = body as {
      preconditions?: { uid?: unknown; resourceVersion?: unknown };
      gracePeriodSeconds?: unknown;
      dryRun?: unknown;
    };
    if (b.preconditions) {
      const pre: { uid?: string; resourceVersion?: string } = {};
      if (typeof b.preconditions.uid === 'string') pre.uid = b.preconditions.uid;
      if (typeof b.preconditions.resourceVersion === 'string')
        pre.resourceVersion = b.preconditions.resourceVersion;
      out.preconditions = pre;
    }
    if (typeof b.gracePeriodSeconds === 'number') out.gracePeriodSeconds = b.gracePeriodSeconds;
    if (Array.isArray(b.dryRun) && b.dryRun.includes('All')) out.dryRun = true;
    return out;
  }

  #watch(
    res: ServerResponse,
    p: ParsedPath,
    q: URLSearchParams,
    metaOnly: boolean,
    table: boolean,
  ): void {
    const { type } = p;
    const { label, field } = this.#selectors(q, type);
    const rvText = q.get('resourceVersion') ?? '';
    const rvm = q.get('resourceVersionMatch') ?? '';
    const sie = q.get('sendInitialEvents');
    const bookmarks = q.get('allowWatchBookmarks') === 'true';
    if (sie === 'true' && rvm !== 'NotOlderThan') {
      throw statusError(
        422,
        'Invalid',
        `resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`,
      );
    }
    if (sie === 'true' && !bookmarks) {
      throw statusError(
        422,
        'Invalid',
        `allowWatchBookmarks: Forbidden: sendInitialEvents requires allowWatchBookmarks=true`,
      );
    }
    if (sie === null && rvm !== '') {
      throw statusError(
        422,
        'Invalid',
        `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`,
      );
    }
    if (rvText !== '' && !/^\d+$/.test(rvText)) {
      throw badRequest(
        `resourceVersion: Invalid value: "${rvText}": must be a valid resource version`,
      );
    }
    const timeoutText = q.get('timeoutSeconds');
    const timeoutSeconds = timeoutText ? Number(timeoutText) : undefined;
    const namespace = p.namespace === '' ? undefined : p.namespace;
    let name = p.name;
    const nameField = name !== '' ? parseFieldSelector(`metadata.name=${name}`) : undefined;
    name = '';
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    const current = this.#storage.resourceVersion;
    const initial = sie === 'true' || (sie !== 'false' && (rvText === '' || rvText === '0'));
    const startRv = initial ? current : Number(rvText);
    const grKey = groupResourceKey(type.group, type.resource);
    const conn = new WatchConnection({
      res,
      type,
      version: p.version,
      namespace,
      label,
      field: field ?? nameField,
      metaOnly,
      clock: this.#clock,
      bookmarkIntervalMs: bookmarks ? (this.#options.bookmarkIntervalMs ?? 60_000) : undefined,
      timeoutMs:
        timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
      startRv,
      onClose: (w) => {
        this.#watches.get(grKey)?.delete(w);
      },
    });
    if (table)
      conn.lineRenderer = (t, stored) => renderTableWatchLine(t, stored, type, this.#clock.now());
    if (!initial && startRv < this.#storage.compactedResourceVersion) {
      conn.sendErrorAndEnd(tooOld(rvText, this.#storage.compactedResourceVersion + 1).status);
      return;
    }
    let set = this.#watches.get(grKey);
    if (!set) {
      set = new Set();
      this.#watches.set(grKey, set);
    }
    if (initial) {
      for (const o of this.#storage.list(grKey, type.namespaced ? namespace : undefined)) {
        if (conn.matches(o)) conn.sendSynthetic(o);
      }
      if (sie === 'true') {
        conn.sendBookmark(current, { 'k8s.io/initial-events-end': 'true' });
      }
    } else {
      for (const e of this.#storage.eventsAfter(grKey, startRv) ?? []) conn.send(e);
    }
    if (conn.closed) return;
    conn.startLive();
    set.add(conn);
    for (const w of [...this.#watchWaiters]) w();
  }
}

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

/**
 * Starts an in-memory Kubernetes API server on 127.0.0.1 (a free port unless `port` is
 * given). Close it with `close()` when the test is done.
 */
export async function startTestApiServer(
  options: TestApiServerOptions = {},
): Promise<TestApiServer> {
  const server = new TestApiServerImpl(options);
  await server.start();
  return server;
}
