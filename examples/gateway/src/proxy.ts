/**
 * The HTTP side of the gateway: matches each request against the current
 * {@link RoutingTable}, checks its auth policy and token bucket, and proxies it to the
 * upstream with node:http. The table is swapped whole by {@link GatewayServer.setTable};
 * a request reads it once, so it never sees half of a change.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { realClock } from 'kube-controller-kit';
import type { Clock, Logger } from 'kube-controller-kit';
import { RoutingTable } from './config.js';
import type { CompiledRoute } from './config.js';

/** Headers that are per connection and never forwarded (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

interface Bucket {
  tokens: number;
  at: number;
}

/** Options of {@link GatewayServer}. */
export interface GatewayServerOptions {
  /** Where it logs. */
  logger: Logger;
  /** Time source of the token buckets (default the real clock). */
  clock?: Clock;
  /** Upstream request timeout in ms (default 30 s): then 504. */
  upstreamTimeoutMs?: number;
}

/** The gateway's HTTP server. */
export class GatewayServer {
  #table = new RoutingTable([]);
  readonly #buckets = new Map<string, Bucket>();
  readonly #server: http.Server;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #timeoutMs: number;

  /** @param options - logger, clock, timeout. */
  constructor(options: GatewayServerOptions) {
    this.#logger = options.logger;
    this.#clock = options.clock ?? realClock;
    this.#timeoutMs = options.upstreamTimeoutMs ?? 30_000;
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  /** The table being served. */
  get table(): RoutingTable {
    return this.#table;
  }

  /** Replaces the table at once; requests already matched finish on the old one. */
  setTable(table: RoutingTable): void {
    this.#table = table;
    // Buckets of a policy that changed or of a route that went away are not needed again.
    const live = new Set(table.routes.map((r) => `${r.rateLimit?.id ?? ''}|${r.key}|`));
    for (const key of this.#buckets.keys()) {
      if (!live.has(key.slice(0, key.lastIndexOf('|') + 1))) this.#buckets.delete(key);
    }
  }

  /** Listens on `host:port` (port 0: a free one); resolves with `http://host:port`. */
  async listen(host: string, port: number, signal: AbortSignal): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ host, port, signal }, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const addr = this.#server.address() as AddressInfo;
    const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `http://${h}:${addr.port}`;
  }

  /** Stops listening and closes every connection, idle or not. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    const route = this.#table.match(req.headers.host ?? '', url.pathname);
    if (route === undefined) {
      return reply(res, 404, { error: 'no route', host: req.headers.host, path: url.pathname });
    }
    let client = req.socket.remoteAddress ?? 'unknown';
    if (route.auth !== undefined) {
      const raw = req.headers[route.auth.header];
      const value = Array.isArray(raw) ? raw[0] : raw;
      const presented =
        route.auth.type === 'bearer' ? /^Bearer\s+(\S+)$/i.exec(value ?? '')?.[1] : value;
      const id = presented === undefined ? undefined : route.auth.keys.get(presented);
      if (id === undefined) {
        res.setHeader(
          'www-authenticate',
          route.auth.type === 'bearer'
            ? 'Bearer realm="gateway"'
            : `ApiKey header="${route.auth.header}"`,
        );
        return reply(res, 401, {
          error: presented === undefined ? 'credentials required' : 'invalid credentials',
          route: route.key,
        });
      }
      client = id;
    }
    if (route.rateLimit !== undefined) {
      const wait = this.#take(route, client);
      if (wait > 0) {
        res.setHeader('retry-after', String(Math.ceil(wait / 1000)));
        return reply(res, 429, { error: 'rate limited', route: route.key });
      }
    }
    this.#forward(req, res, route, url);
  }

  /** Takes a token; returns 0, or the ms until one is available. */
  #take(route: CompiledRoute, client: string): number {
    const limit = route.rateLimit!;
    const key = `${limit.id}|${route.key}|${limit.per === 'client' ? client : ''}`;
    const now = this.#clock.now();
    const bucket = this.#buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(
      limit.burst,
      bucket.tokens + ((now - bucket.at) / 1000) * limit.requestsPerSecond,
    );
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return ((1 - bucket.tokens) / limit.requestsPerSecond) * 1000;
  }

  #forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    route: CompiledRoute,
    url: URL,
  ): void {
    const rest = route.stripPrefix
      ? url.pathname.slice(route.prefix === '/' ? 0 : route.prefix.length)
      : url.pathname;
    const base = route.upstream.pathname.replace(/\/$/, '');
    const path = `${base}${rest.startsWith('/') ? rest : `/${rest}`}${url.search}`;
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (HOP_BY_HOP.has(name) || value === undefined) continue;
      // The credential was for the gateway, not for the upstream.
      if (route.auth !== undefined && name === route.auth.header) continue;
      headers[name] = value;
    }
    headers.host = route.upstream.host;
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-proto'] = 'http';
    const prior = req.headers['x-forwarded-for'];
    const remote = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = prior === undefined ? remote : `${String(prior)}, ${remote}`;
    const transport = route.upstream.protocol === 'https:' ? https : http;
    const upstream = transport.request(
      {
        protocol: route.upstream.protocol,
        hostname: route.upstream.hostname,
        port: route.upstream.port,
        method: req.method,
        path,
        headers,
        timeout: this.#timeoutMs,
      },
      (up) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(up.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        }
        res.writeHead(up.statusCode ?? 502, out);
        up.pipe(res);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', (err) => {
      this.#logger.warn(`gateway: ${route.key}: upstream ${route.upstream.origin}: ${err.message}`);
      if (!res.headersSent) {
        reply(res, err.message === 'upstream timed out' ? 504 : 502, {
          error: 'upstream unavailable',
          route: route.key,
        });
      } else res.destroy(err);
    });
    req.pipe(upstream);
  }
}

function reply(res: http.ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body)}\n`);
}
