/**
 * The manager's HTTP servers: parsing Go-style bind addresses, serving a handler until
 * closed with no socket left behind, and {@link ServerRunnable}, a server as a runnable of
 * the Manager's `httpServers` group (ready once it listens). Each is a
 * `GuardedHttpServer` (src/util/http_server.ts): the request-target parsed (400 when it
 * does not parse) before the handler runs, a throw answered 500, every phase bounded.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../util/clock.js';
import { GuardedHttpServer } from '../util/http_server.js';
import type { HttpServerLimits } from '../util/http_server.js';
import type { Logger } from '../util/logger.js';
import type { RequestTarget } from '../util/request_target.js';
import { BindError, InvalidManagerOptionsError } from './errors.js';
import type { GroupRunnable } from './runnable_group.js';

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

/**
 * An HTTP request handler of the manager's servers. It gets the request-target already
 * parsed (a target that does not parse is answered 400 before it runs); a throw or a
 * rejection is answered 500 and logged.
 */
export type RequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  target: RequestTarget,
) => Promise<void>;

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

/** Where and how a manager server listens (its handler aside). */
export interface HttpServerSettings {
  /** Serve HTTPS with this certificate (default plain HTTP). */
  readonly tls?: TlsSource | undefined;
  /** Limits (defaults: controller-runtime's `httpserver.New`, see docs/limits.md). */
  readonly limits?: HttpServerLimits | undefined;
  /** Where client mistakes (debug) and handler failures (error) are logged. */
  readonly logger: Logger;
  /** The clock of the server's own timers. */
  readonly clock?: Clock | undefined;
}

/** A running HTTP server that {@link HttpServer.close} stops completely. */
export class HttpServer {
  /** The name in logs and errors (`health probe`, `metrics`). */
  readonly what: string;
  readonly #server: GuardedHttpServer;
  readonly #address: AddressInfo;
  readonly #stopWatching: (() => void) | undefined;
  readonly #tls: boolean;

  private constructor(
    what: string,
    server: GuardedHttpServer,
    address: AddressInfo,
    stopWatching: (() => void) | undefined,
    tls: boolean,
  ) {
    this.what = what;
    this.#server = server;
    this.#address = address;
    this.#stopWatching = stopWatching;
    this.#tls = tls;
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
    settings: HttpServerSettings,
  ): Promise<HttpServer> {
    const tls = settings.tls;
    const server = new GuardedHttpServer({
      name: `${what} server`,
      handler,
      logger: settings.logger,
      ...(tls !== undefined ? { tls: tls.current() } : {}),
      ...(settings.limits !== undefined ? { limits: settings.limits } : {}),
      ...(settings.clock !== undefined ? { clock: settings.clock } : {}),
    });
    let address: AddressInfo;
    try {
      address = await server.listen(bind.port, bind.host);
    } catch (err) {
      await server.close();
      throw new BindError(what, bind.text, err);
    }
    // A new certificate on disk is served from the next connection on.
    const stopWatching = tls?.watch?.(() => server.setSecureContext(tls.current()));
    return new HttpServer(what, server, address, stopWatching, tls !== undefined);
  }

  /** The bound address (the real port when 0 was asked for). */
  get address(): AddressInfo {
    return this.#address;
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
    await this.#server.close();
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
  /** Limits (defaults: controller-runtime's, see docs/limits.md). */
  readonly limits?: HttpServerLimits;
  /** The clock of the server's own timers (default real). */
  readonly clock?: Clock;
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
      this.#server = await HttpServer.listen(what, bind, handler, {
        tls: this.#options.tls,
        limits: this.#options.limits,
        logger,
        clock: this.#options.clock,
      });
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
