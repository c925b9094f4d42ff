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
import { errorMessage } from '../util/errors.js';
import type { RequestVerb } from './faults.js';
import { isDryRun, parseDeleteOptions, parseListQuery, parseWriteOptions } from './query.js';
import { groupResourceKey } from './registry.js';
import { ResourceStore, TooLargeResourceVersion } from './resource_store.js';
import type { ListQuery, ListResult, WriteOptions } from './resource_store.js';
import { readBody, sendJson, sendStatus, warningHeaders } from './responses.js';
import type { ResourceRequest, ServerContext } from './server_context.js';
import { badRequest, failure, methodNotAllowed, statusError } from './status.js';
import type { StoredObject } from './storage.js';
import { renderTable } from './table.js';
import { renderObject } from './watch.js';
import { serveWatch } from './watch_handler.js';

const META_ONLY = /as=PartialObjectMetadata(List)?\b/;
const TABLE = /as=Table\b/;

/** How a response renders objects, from the Accept header. */
interface Rendering {
  metaOnly: boolean;
  table: boolean;
}

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
    const accept = req.headers.accept ?? '';
    const metaOnly = META_ONLY.test(accept);
    const rendering: Rendering = { metaOnly, table: !metaOnly && TABLE.test(accept) };
    switch (r.verb) {
      case 'get':
        this.#sendOne(res, r, rendering, 200, this.#ctx.store.get(r.type, r.namespace, r.name));
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
      ? renderTable([o], r.type, this.#ctx.clock.now(), String(o.rv), '')
      : this.#render(r, rendering, o);
    sendJson(res, code, body, headers);
  }

  // ---------------------------------------------------------------- reads

  async #list(res: ServerResponse, r: ResourceRequest, rendering: Rendering): Promise<void> {
    const { type, version } = r;
    const result = await this.#listWaiting(
      r,
      parseListQuery(r.query, type, r.namespace, this.#ctx.store),
    );
    if (rendering.table) {
      sendJson(
        res,
        200,
        renderTable(
          result.items,
          type,
          this.#ctx.clock.now(),
          String(result.rv),
          result.continueToken,
        ),
      );
      return;
    }
    const meta: Record<string, unknown> = { resourceVersion: String(result.rv) };
    if (result.continueToken) meta.continue = result.continueToken;
    if (result.remaining !== undefined) meta.remainingItemCount = result.remaining;
    const head = rendering.metaOnly
      ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(meta)},"items":[`
      : `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(ResourceStore.apiVersion(type, version))},"metadata":${JSON.stringify(meta)},"items":[`;
    const parts: string[] = new Array<string>(result.items.length);
    for (let i = 0; i < result.items.length; i++) {
      parts[i] = this.#render(r, rendering, result.items[i] as StoredObject);
    }
    sendJson(res, 200, `${head}${parts.join(',')}]}`);
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
    const out = this.#ctx.store.delete(type, r.namespace, r.name, opts);
    const gone =
      this.#ctx.storage.get(groupResourceKey(type.group, type.resource), out.key) === undefined;
    this.#sendOne(res, r, rendering, gone || isDryRun(r.query) ? 200 : 202, out);
  }

  async #deleteCollection(
    req: IncomingMessage,
    res: ServerResponse,
    r: ResourceRequest,
  ): Promise<void> {
    const { type, version } = r;
    const query = parseListQuery(r.query, type, r.namespace, this.#ctx.store);
    const opts = parseDeleteOptions(await this.#bodyText(req), r.query);
    const deleted = this.#ctx.store.deleteCollection(type, query, opts);
    const render = (o: StoredObject): string => renderObject(o, type, version, false);
    sendJson(
      res,
      200,
      `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(ResourceStore.apiVersion(type, version))},"metadata":{"resourceVersion":"${this.#ctx.storage.resourceVersion}"},"items":[${deleted.map(render).join(',')}]}`,
    );
  }

  async #bodyText(req: IncomingMessage): Promise<string> {
    const { bytes } = await readBody(req, this.#ctx.settings.maxBodyBytes);
    return bytes.toString('utf8');
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
    const { bytes, tooLarge } = await readBody(req, this.#ctx.settings.maxBodyBytes);
    if (tooLarge) {
      sendStatus(
        res,
        failure(
          413,
          'RequestEntityTooLarge',
          `Request entity too large: limit is ${this.#ctx.settings.maxBodyBytes}`,
        ),
      );
      return;
    }
    const contentType =
      (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    const body = this.#decodeBody(r, contentType, bytes);
    const opts = parseWriteOptions(r.query);
    const { code, stored } = this.#commitWrite(r, contentType, body, opts);
    this.#sendOne(res, r, rendering, code, stored, warningHeaders(opts.warnings));
  }

  /** Decodes a write body by its content type; 415 for a type the verb does not take. */
  #decodeBody(r: ResourceRequest, contentType: string, bytes: Buffer): unknown {
    if (
      r.verb !== 'patch' &&
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
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${r.type.kind}): couldn't get version/kind; json parse error: ${errorMessage(err)}`,
      );
    }
  }

  /** Hands a decoded write to the store: create, update, apply or patch. */
  #commitWrite(
    r: ResourceRequest,
    contentType: string,
    body: unknown,
    opts: WriteOptions,
  ): { code: number; stored: StoredObject } {
    const { store } = this.#ctx;
    const { type, version, namespace, name, subresource } = r;
    const verb: RequestVerb = r.verb;
    switch (verb) {
      case 'create':
        return { code: 201, stored: store.create(type, version, namespace, body, opts) };
      case 'update':
        return {
          code: 200,
          stored: store.update(type, version, namespace, name, body, subresource, opts),
        };
      case 'patch': {
        const out =
          contentType === APPLY_PATCH
            ? store.apply(type, version, namespace, name, body, subresource, opts)
            : store.patch(type, version, namespace, name, contentType, body, subresource, opts);
        return { code: out.created ? 201 : 200, stored: out.stored };
      }
      default:
        throw methodNotAllowed(verb, type.group, type.resource);
    }
  }
}
