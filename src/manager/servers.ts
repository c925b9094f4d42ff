/**
 * The manager's HTTP servers: parsing Go-style bind addresses, serving a handler until
 * closed with no socket left behind, and {@link ServerRunnable}, a server as a runnable of
 * the Manager's `httpServers` group (ready once it listens).
 *
 * @module
 */
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../util/logger.js';
import { BindError, InvalidManagerOptionsError } from './errors.js';
import type { GroupRunnable } from './runnable_group.js';

/** A server certificate and key (PEM) for HTTPS, and how to hear of a new pair. */
/** A PEM certificate and its private key, as a server serves them. */
export interface ServingCertificate {
  /** The certificate (chain), PEM. */
  cert: string | Buffer;
  /** The private key, PEM. */
  key: string | Buffer;
}

/** Where a TLS server's certificate comes from (and, optionally, when it changes). */
export interface TlsSource {
  /** The current certificate and key. */
  current(): ServingCertificate;
  /** Calls `changed` when the pair changes on disk; returns the function that stops it. */
  watch?(changed: () => void): () => void;
}

/** An HTTP request handler; a rejection answers 500. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Where a server listens, parsed from `host:port`. `host` undefined = every interface. */
export interface BindAddress {
  /** The address as given. */
  readonly text: string;
  /** The host (without brackets); undefined for `:port` (every interface, as Go does). */
  readonly host: string | undefined;
  /** The port; 0 picks a free one. */
  readonly port: number;
}

/**
 * Parse a bind address as controller-runtime takes it: `:8080` (every interface),
 * `127.0.0.1:8080`, `[::1]:0`, `localhost:9090`; `'0'` or `''` disables the server
 * (returns undefined).
 *
 * @throws {@link InvalidManagerOptionsError} naming the option when the address is malformed.
 *
 * @internal
 */
export function parseBindAddress(option: string, text: string): BindAddress | undefined {
  if (typeof text !== 'string') {
    throw new InvalidManagerOptionsError(`${option} must be a string such as ':8080' or '0'`);
  }
  if (text === '0' || text === '') return undefined;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || !(port >= 0 && port <= 65535)) {
    throw new InvalidManagerOptionsError(
      `${option} ${JSON.stringify(text)} is not a bind address: use host:port (':8080', '127.0.0.1:0', '[::1]:8080') or '0' to disable`,
    );
  }
  const host = m[1] ?? m[2];
  return { text, host: host === '' || host === undefined ? undefined : host, port };
}

/** A running HTTP server that {@link HttpServer.close} stops completely. */
export class HttpServer {
  /** The name in logs and errors (`health probe`, `metrics`). */
  readonly what: string;
  readonly #server: Server;
  #address: AddressInfo | undefined;
  #tls = false;
  #stopWatching: (() => void) | undefined;

  private constructor(what: string, server: Server) {
    this.what = what;
    this.#server = server;
  }

  /**
   * Listen on `bind` and serve `handler`.
   *
   * @throws {@link BindError} when the address cannot be bound.
   */
  static async listen(
    what: string,
    bind: BindAddress,
    handler: RequestHandler,
    tls?: TlsSource,
  ): Promise<HttpServer> {
    const serve = (req: IncomingMessage, res: ServerResponse): void => {
      handler(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.statusCode = 500;
        res.end(`internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    };
    const server =
      tls === undefined ? createServer(serve) : createHttpsServer(tls.current(), serve);
    server.keepAliveTimeout = 5_000;
    const out = new HttpServer(what, server);
    if (tls !== undefined) {
      out.#tls = true;
      // A new certificate on disk is served from the next connection on.
      out.#stopWatching = tls.watch?.(() => {
        (server as ReturnType<typeof createHttpsServer>).setSecureContext(tls.current());
      });
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => {
        server.close();
        reject(new BindError(what, bind.text, err));
      };
      server.once('error', onError);
      const opts =
        bind.host === undefined ? { port: bind.port } : { host: bind.host, port: bind.port };
      server.listen(opts, () => {
        server.off('error', onError);
        resolve();
      });
    });
    out.#address = server.address() as AddressInfo;
    return out;
  }

  /** The bound address (the real port when 0 was asked for). */
  get address(): AddressInfo {
    return this.#address!;
  }

  /** `host:port` of the bound address, IPv6 hosts in brackets. */
  get url(): string {
    const a = this.address;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `${this.#tls ? 'https' : 'http'}://${host}:${a.port}`;
  }

  /** Stop listening and close every connection; resolves once the server is closed. */
  async close(): Promise<void> {
    this.#stopWatching?.();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

/** Options of a {@link ServerRunnable}. */
export interface ServerRunnableOptions {
  /** The name in logs and errors (`health probe`, `metrics`). */
  readonly what: string;
  /** Where it listens. */
  readonly bind: BindAddress;
  /** Where it logs the address it serves at. */
  readonly logger: Logger;
  /**
   * Builds the handler when the server starts; undefined means the server is disabled after
   * all (e.g. prom-client could not be loaded), and the runnable is done at once.
   */
  readonly handler: () => Promise<RequestHandler | undefined> | RequestHandler | undefined;
  /** The log line: `manager: serving <label> at <url><serves>` (label default: `what`). */
  readonly label?: string;
  /** See `label` (e.g. ` (/healthz, /readyz)` or `/metrics`). */
  readonly serves?: string;
  /** Serve HTTPS with this certificate (default plain HTTP). */
  readonly tls?: TlsSource;
}

/**
 * An HTTP server as a runnable: listens when started (ready then; a failure to bind fails
 * it with {@link BindError}), serves until its signal aborts, then closes every connection.
 */
export class ServerRunnable implements GroupRunnable {
  /** `<what> server`. */
  readonly name: string;
  readonly #options: ServerRunnableOptions;
  #server: HttpServer | undefined;
  readonly #listening: Promise<void>;
  #resolveListening!: () => void;
  #rejectListening!: (err: unknown) => void;

  constructor(options: ServerRunnableOptions) {
    this.#options = options;
    this.name = `${options.what} server`;
    this.#listening = new Promise<void>((resolve, reject) => {
      this.#resolveListening = resolve;
      this.#rejectListening = reject;
    });
    this.#listening.catch(() => {});
  }

  /** The bound address once listening; undefined before, when disabled, or after a failure. */
  get address(): AddressInfo | undefined {
    return this.#server?.address;
  }

  /** Listen, serve until `signal` aborts, close. */
  async start(signal: AbortSignal): Promise<void> {
    const { what, bind, logger } = this.#options;
    let handler: RequestHandler | undefined;
    try {
      handler = signal.aborted ? undefined : await this.#options.handler();
      if (handler === undefined || signal.aborted) {
        this.#resolveListening();
        return;
      }
      this.#server = await HttpServer.listen(what, bind, handler, this.#options.tls);
    } catch (err) {
      this.#rejectListening(err);
      throw err;
    }
    logger.info(
      `manager: serving ${this.#options.label ?? what} at ${this.#server.url}${this.#options.serves ?? ''}`,
    );
    this.#resolveListening();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await this.#server.close();
  }

  /** Resolves once listening (or disabled); rejects with the failure to listen. */
  ready(): Promise<void> {
    return this.#listening;
  }
}
