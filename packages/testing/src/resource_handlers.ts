/**
 * The resource handlers of the test API server: one method per verb on a resource
 * (get, list, delete, deletecollection, create, update, patch, apply). Reads render
 * objects, lists or tables; every write goes through {@link ResourceHandlers.write},
 * which decodes the body, parses the write options and calls the store's create, update,
 * patch or apply (where the write hooks run).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, formatShardSelector } from 'kube-controller-kit';
import type { RequestVerb } from './faults.js';
import { decodeObjectBody, negotiate } from './negotiation.js';
import type { Rendering } from './negotiation.js';
import {
  decodeMessage,
  decodeEnvelope,
  encodeObject,
  PROTOBUF_MEDIA_TYPE,
  protobufType,
} from './protobuf/codec.js';
import { parseDeleteOptions, parseListQuery, parseWriteOptions } from './query.js';
import { groupResourceKey } from './registry/resource_registry.js';
import { TooLargeResourceVersion } from './list.js';
import type { ListQuery, ListResult } from './list.js';
import { ResourceStore } from './resource_store.js';
import type { WriteOptions, WriteRequest } from './resource_store.js';
import { readBody, sendBody, sendJson, warningHeaders } from './responses.js';
import type { ResourceRequest, ServerContext } from './server_context.js';
import { badRequest, methodNotAllowed, statusError } from './status.js';
import type { StoredObject } from './storage.js';
import { answerReview } from './reviews.js';
import { answerTokenRequest } from './service_account_tokens.js';
import { renderTable } from './table.js';
import { renderObject } from './watch.js';
import { serveWatch } from './watch_handler.js';

/** The content type of server-side apply bodies. */
const APPLY_PATCH = 'application/apply-patch+yaml';

/** Serves the verbs of resources. */
export class ResourceHandlers {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /** Serves one resource request (the router has parsed it and found its verb). */
  async serve(req: IncomingMessage, res: ServerResponse, r: ResourceRequest): Promise<void> {
    const rendering = negotiate(req.headers.accept ?? '', r.type, r.version);
    if (r.type.virtual === true) {
      await this.#review(req, res, r, rendering);
      return;
    }
    if (r.subresource === 'token') {
      await this.#tokenRequest(req, res, r);
      return;
    }
    if (r.subresource === 'scale') {
      if (r.type.crdName !== undefined) await this.#customResourceScale(req, res, r);
      else await this.#scale(req, res, r, rendering);
      return;
    }
    switch (r.verb) {
      case 'get':
        this.#sendOne(
          res,
          r,
          rendering,
          200,
          await this.#readAt(r, this.#ctx.store.get(r.type, r.namespace, r.name)),
        );
        return;
      case 'list':
        await this.#list(res, r, rendering);
        return;
      case 'watch':
        serveWatch(this.#ctx, res, r, rendering);
        return;
      case 'delete':
        await this.#delete(req, res, r, rendering);
        return;
      case 'deletecollection':
        await this.#deleteCollection(req, res, r);
        return;
      case 'create':
      case 'update':
      case 'patch':
        await this.write(req, res, r, rendering);
        return;
    }
  }

  // ---------------------------------------------------------------- rendering

  #render(r: ResourceRequest, rendering: Rendering, o: StoredObject): string {
    return renderObject(o, r.type, r.version, rendering.metaOnly);
  }

  #sendOne(
    res: ServerResponse,
    r: ResourceRequest,
    rendering: Rendering,
    code: number,
    o: StoredObject,
    headers: Record<string, string | string[]> = {},
  ): void {
    const body = rendering.table
      ? renderTable([o], this.#ctx.tableContext(r.type, r.version), String(o.rv), '')
      : this.#render(r, rendering, o);
    this.#send(res, rendering, code, body, headers);
  }

  /** Sends a rendered JSON body, re-encoded as protobuf when that was negotiated. */
  #send(
    res: ServerResponse,
    rendering: Rendering,
    code: number,
    json: string,
    headers: Record<string, string | string[]> = {},
  ): void {
    if (rendering.protobuf) {
      const bytes = encodeObject(JSON.parse(json) as Record<string, unknown>);
      if (bytes) {
        sendBody(res, code, PROTOBUF_MEDIA_TYPE, bytes, headers);
        return;
      }
    }
    sendJson(res, code, json, headers);
  }

  // ---------------------------------------------------------------- reads

  async #list(res: ServerResponse, r: ResourceRequest, rendering: Rendering): Promise<void> {
    const { type, version } = r;
    const query = parseListQuery(
      r.query,
      type,
      r.namespace,
      this.#ctx.store,
      this.#ctx.settings.featureGates,
    );
    const listed = await this.#listWaiting(r, query);
    const result = { ...listed, items: await this.#readAllAt(r, listed.items) };
    if (rendering.table) {
      sendJson(
        res,
        200,
        renderTable(
          result.items,
          this.#ctx.tableContext(type, version),
          String(result.rv),
          result.continueToken,
        ),
      );
      return;
    }
    const meta: Record<string, unknown> = { resourceVersion: String(result.rv) };
    if (result.continueToken) meta.continue = result.continueToken;
    if (result.remaining !== undefined) meta.remainingItemCount = result.remaining;
    // kube-apiserver 1.36 echoes the selector normalised (`, ` between the arguments) on
    // lists of built-in kinds; a custom resource list is filtered but says nothing.
    if (query.shard !== undefined && type.crdName === undefined) {
      meta.shardInfo = { selector: formatShardSelector(query.shard.ranges) };
    }
    const head = rendering.metaOnly
      ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(meta)},"items":[`
      : `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(ResourceStore.apiVersion(type, version))},"metadata":${JSON.stringify(meta)},"items":[`;
    const parts: string[] = new Array<string>(result.items.length);
    for (let i = 0; i < result.items.length; i++) {
      parts[i] = this.#render(r, rendering, result.items[i] as StoredObject);
    }
    this.#send(res, rendering, 200, `${head}${parts.join(',')}]}`);
  }

  /** A list at a future resourceVersion waits for it (as the watch cache does), then 504. */
  async #listWaiting(r: ResourceRequest, query: ListQuery): Promise<ListResult> {
    const { store, storage, timers } = this.#ctx;
    try {
      return store.list(r.type, query);
    } catch (err) {
      if (!(err instanceof TooLargeResourceVersion)) throw err;
      const reached = await new Promise<boolean>((resolve) => {
        const unsubscribe = storage.onChange(() => {
          if (storage.resourceVersion >= err.asked) {
            timers.cancel(timer);
            unsubscribe();
            resolve(true);
          }
        });
        const timer = timers.setTimeout(() => {
          unsubscribe();
          resolve(false);
        }, this.#ctx.settings.tooLargeResourceVersionWaitMs);
      });
      if (!reached) throw err;
      return store.list(r.type, query);
    }
  }

  // ---------------------------------------------------------------- deletes

  async #delete(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
    rendering: Rendering,
  ): Promise<void> {
    const { type } = r;
    const opts = parseDeleteOptions(await this.#bodyText(req), r.query);
    const writeOptions = this.#requestOptions(req, r, { warnings: [] as string[] });
    const { stored: out } = await this.#ctx.store.write({
      verb: 'delete',
      type,
      version: r.version,
      namespace: r.namespace,
      name: r.name,
      subresource: '',
      deleteOptions: opts,
      options: writeOptions,
    });
    const gone =
      this.#ctx.storage.get(groupResourceKey(type.group, type.resource), out.key) === undefined;
    // kube-apiserver answers 200 whether the object went or was only marked (finalizers, a
    // grace period, a terminating namespace); 202 only for an object kept while the request
    // set orphanDependents: false (a compatibility rule of its delete handler).
    const accepted = !gone && opts.orphanDependents === false && opts.dryRun !== true;
    const shown = await this.#readAt(r, out);
    this.#sendOne(
      res,
      r,
      rendering,
      accepted ? 202 : 200,
      shown,
      warningHeaders(writeOptions.warnings),
    );
  }

  async #deleteCollection(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
  ): Promise<void> {
    const { type, version } = r;
    const query = parseListQuery(
      r.query,
      type,
      r.namespace,
      this.#ctx.store,
      this.#ctx.settings.featureGates,
    );
    const opts = parseDeleteOptions(await this.#bodyText(req), r.query);
    const deleted = this.#ctx.store.deleteCollection(type, query, opts);
    const render = (o: StoredObject): string => renderObject(o, type, version, false);
    sendJson(
      res,
      200,
      `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(ResourceStore.apiVersion(type, version))},"metadata":{"resourceVersion":"${this.#ctx.storage.resourceVersion}"},"items":[${deleted.map(render).join(',')}]}`,
    );
  }

  /** The DeleteOptions body as JSON text (a protobuf body is decoded first). */
  async #bodyText(req: IncomingMessage): Promise<string> {
    const { bytes } = await readBody(req, this.#ctx.settings.maxBodyBytes);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (contentType === PROTOBUF_MEDIA_TYPE && bytes.length > 0) {
      const type = protobufType('v1', 'DeleteOptions');
      if (!type) return '';
      try {
        return JSON.stringify(decodeMessage(type, decodeEnvelope(bytes).raw));
      } catch (err) {
        throw badRequest(`invalid DeleteOptions: ${errorMessage(err)}`);
      }
    }
    return bytes.toString('utf8');
  }

  /**
   * The body of a write and its media type (JSON when unnamed); 413 beyond the size
   * limit.
   */
  async #readWriteBody(req: IncomingMessage): Promise<{ bytes: Buffer; contentType: string }> {
    const { bytes, tooLarge } = await readBody(req, this.#ctx.settings.maxBodyBytes);
    if (tooLarge) {
      throw statusError(
        413,
        'RequestEntityTooLarge',
        `Request entity too large: limit is ${this.#ctx.settings.maxBodyBytes}`,
      );
    }
    const contentType =
      (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    return { bytes, contentType };
  }

  // ---------------------------------------------------------------- reviews

  /**
   * A POST of a review (the router lets no other method through): the body, checked as
   * any create body is, answered 201 with its status filled in; nothing is stored.
   */
  async #review(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
    rendering: Rendering,
  ): Promise<void> {
    const { bytes, contentType } = await this.#readWriteBody(req);
    const body = this.#ctx.store.checkEnvelope(
      r.type,
      r.version,
      await this.#decodeBody(r, contentType, bytes),
    );
    const answer = answerReview(r.type, body, {
      namespace: r.namespace,
      user: r.user,
      tokenUser: (token, audiences) => this.#ctx.authenticator.token(token, audiences),
      authorizer: this.#ctx.authorizer,
    });
    const out = {
      ...answer,
      apiVersion: ResourceStore.apiVersion(r.type, r.version),
      kind: r.type.kind,
    };
    this.#send(res, rendering, 201, JSON.stringify(out));
  }

  // ---------------------------------------------------------------- scale

  /**
   * The `scale` subresource: get answers the object's Scale; update and patch write the
   * Scale's `spec.replicas` into the object (its resourceVersion, when given, is a
   * precondition) and answer the new Scale.
   */
  async #scale(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
    rendering: Rendering,
  ): Promise<void> {
    const { store } = this.#ctx;
    const { type, namespace, name } = r;
    const send = (code: number, stored: StoredObject, headers = {}): void =>
      this.#send(res, rendering, code, JSON.stringify(store.scaleOf(type, stored)), headers);
    const existing = store.get(type, namespace, name);
    if (r.verb === 'get') {
      send(200, existing);
      return;
    }
    if (r.verb !== 'update' && r.verb !== 'patch') {
      throw methodNotAllowed(req.method ?? '', type.group, `${type.resource}/scale`);
    }
    const { bytes, contentType } = await this.#readWriteBody(req);
    const body = await this.#decodeBody(r, contentType, bytes);
    const opts = this.#requestOptions(req, r, parseWriteOptions(r.query, r.verb));
    const { stored } = await store.write(this.#writeRequest(r, 'scale', contentType, body, opts));
    send(200, stored, warningHeaders(opts.warnings));
  }

  /** A TokenRequest (`POST serviceaccounts/<name>/token`): a signed token for the ServiceAccount. */
  async #tokenRequest(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
  ): Promise<void> {
    const { bytes, contentType } = await this.#readWriteBody(req);
    const body =
      bytes.length === 0 ? {} : await decodeObjectBody(contentType, bytes, r.type, r.version);
    const answer = answerTokenRequest(
      this.#ctx.serviceAccountTokens,
      r.namespace,
      r.name,
      body,
      new Date(this.#ctx.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
    sendJson(res, 201, JSON.stringify(answer));
  }

  // ---------------------------------------------------------------- the write path

  /**
   * The write path of every create (POST), update (PUT), patch and apply (PATCH with
   * `application/apply-patch+yaml`): reads and decodes the body, parses the write
   * options, calls the store (whose write hooks validate, default and record field
   * ownership) and answers the stored object with any warnings as `Warning` headers.
   */
  async write(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
    rendering: Rendering,
  ): Promise<void> {
    const { bytes, contentType } = await this.#readWriteBody(req);
    const body = await this.#decodeBody(r, contentType, bytes);
    const opts = this.#requestOptions(req, r, parseWriteOptions(r.query, r.verb));
    if (r.verb !== 'patch') opts.rawBody = bytes.toString('utf8');
    const { code, stored } = this.#ctx.converter.converts(r.type, r.version)
      ? await this.#commitConvertedWrite(r, contentType, body, opts)
      : await this.#commitWrite(r, contentType, body, opts);
    this.#sendOne(res, r, rendering, code, stored, warningHeaders(opts.warnings));
  }

  /**
   * GET, PUT and PATCH of a custom resource's `scale` subresource (autoscaling/v1 Scale),
   * through its CRD's scale paths and the custom resource write path (./schema).
   */
  async #customResourceScale(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
  ): Promise<void> {
    const { store } = this.#ctx;
    const { type, namespace, name } = r;
    if (r.verb === 'get') {
      sendJson(res, 200, JSON.stringify(store.scaleOf(type, store.get(type, namespace, name))));
      return;
    }
    if (r.verb !== 'update' && r.verb !== 'patch') {
      throw methodNotAllowed(r.verb, type.group, type.resource);
    }
    const { bytes } = await readBody(req, this.#ctx.settings.maxBodyBytes);
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw badRequest(
        `the object provided is unrecognized (must be of type Scale): couldn't get version/kind; json parse error: ${errorMessage(err)}`,
      );
    }
    const opts = this.#requestOptions(req, r, parseWriteOptions(r.query, r.verb));
    const contentType =
      (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    const { stored } = await store.write(this.#writeRequest(r, 'scale', contentType, body, opts));
    sendJson(res, 200, JSON.stringify(store.scaleOf(type, stored)), warningHeaders(opts.warnings));
  }

  /**
   * Decodes a write body by its content type: a create or update takes JSON, YAML or (for
   * built-in kinds) protobuf; a patch takes JSON, and an apply JSON or YAML. A patch type
   * the server does not know is refused by the store (415).
   */
  async #decodeBody(r: ResourceRequest, contentType: string, bytes: Buffer): Promise<unknown> {
    if (r.verb !== 'patch') return decodeObjectBody(contentType, bytes, r.type, r.version);
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text);
    } catch (err) {
      if (contentType === APPLY_PATCH) {
        return decodeObjectBody('application/yaml', bytes, r.type, r.version);
      }
      throw badRequest(
        `the object provided is unrecognized (must be of type ${r.type.kind}): couldn't get version/kind; json parse error: ${errorMessage(err)}`,
      );
    }
  }

  /** A stored object as the request's version shows it (through a conversion webhook). */
  async #readAt(r: ResourceRequest, stored: StoredObject): Promise<StoredObject> {
    const [out] = await this.#readAllAt(r, [stored], false);
    return out ?? stored;
  }

  /** Stored objects at the request's version, converted in one ConversionReview. */
  async #readAllAt(
    r: ResourceRequest,
    items: StoredObject[],
    list = true,
  ): Promise<StoredObject[]> {
    const { converter } = this.#ctx;
    if (items.length === 0 || !converter.converts(r.type, r.version)) return items;
    const objs = await converter.convert(
      r.type,
      items.map((o) => o.obj),
      r.version,
      list,
    );
    return items.map((o, i) => {
      const obj = objs[i] ?? o.obj;
      return { ...o, obj, json: JSON.stringify(obj) };
    });
  }

  /**
   * A write at a version other than the storage version of a CRD that converts through a
   * webhook. As on kube-apiserver, the write is made and admitted at the request's version
   * (webhooks and policies see `kind` and `requestKind` at it; its schema validates it; its
   * managedFields entry names it): the store converts the stored object to it, and the
   * result to the storage version to store it. The answer is converted back.
   */
  async #commitConvertedWrite(
    r: ResourceRequest,
    contentType: string,
    body: unknown,
    opts: WriteOptions,
  ): Promise<{ code: number; stored: StoredObject }> {
    const written = await this.#commitWrite(r, contentType, body, opts);
    return { code: written.code, stored: await this.#readAt(r, written.stored) };
  }

  /** The request's facts every write carries: who sent it and with which User-Agent. */
  #requestOptions<T extends WriteOptions>(req: IncomingMessage, r: ResourceRequest, opts: T): T {
    opts.user = r.user;
    if (req.headers['user-agent'] !== undefined) opts.userAgent = req.headers['user-agent'];
    return opts;
  }

  /** Hands a decoded write to the store: create, update, apply or patch. */
  async #commitWrite(
    r: ResourceRequest,
    contentType: string,
    body: unknown,
    opts: WriteOptions,
  ): Promise<{ code: number; stored: StoredObject }> {
    const verb: RequestVerb = r.verb;
    if (verb !== 'create' && verb !== 'update' && verb !== 'patch') {
      throw methodNotAllowed(verb, r.type.group, r.type.resource);
    }
    const out = await this.#ctx.store.write(
      this.#writeRequest(r, r.subresource, contentType, body, opts),
    );
    return { code: out.created ? 201 : 200, stored: out.stored };
  }

  /** The store's request for a write (create, update or patch) of a resource request. */
  #writeRequest(
    r: ResourceRequest,
    subresource: string,
    contentType: string,
    body: unknown,
    opts: WriteOptions,
  ): WriteRequest {
    return {
      verb: r.verb === 'create' ? 'create' : r.verb === 'update' ? 'update' : 'patch',
      type: r.type,
      version: r.version,
      namespace: r.namespace,
      name: r.verb === 'create' ? '' : r.name,
      subresource,
      body,
      contentType,
      options: opts,
    };
  }
}
