// A TCP proxy in front of a server, for network partitions in tests: every connection a
// client opens through it is piped to the server until `cut()`, which destroys every open
// connection (watches, keep-alive sockets, requests in flight) and resets each new one at
// once — the client can reach nothing, exactly as if its network were gone. `heal()` lets
// new connections through again. One proxy per client, so a cut isolates that client only.
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export class PartitionProxy {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  readonly #listening: Promise<string>;
  #cut = false;

  /** Starts listening on loopback at once; `url` resolves to the proxy's URL. */
  constructor(target: URL) {
    const port = Number(target.port);
    const host = target.hostname;
    this.#server = createServer((client) => {
      if (this.#cut) {
        client.resetAndDestroy();
        return;
      }
      const upstream = connect(port, host);
      for (const s of [client, upstream]) {
        this.#open.add(s);
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        s.on('close', () => {
          this.#open.delete(s);
          (s === client ? upstream : client).destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.#listening = new Promise<string>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        const { port: p } = this.#server.address() as AddressInfo;
        resolve(`${target.protocol}//127.0.0.1:${p}`);
      });
    });
  }

  /** The proxy's URL (the target's scheme), once it listens. */
  get url(): Promise<string> {
    return this.#listening;
  }

  /** True while partitioned. */
  get isCut(): boolean {
    return this.#cut;
  }

  /** Partitions: destroys every open connection and resets new ones until {@link heal}. */
  cut(): void {
    this.#cut = true;
    for (const s of this.#open) s.destroy();
  }

  /** Ends the partition: new connections reach the server again. */
  heal(): void {
    this.#cut = false;
  }

  /** Stops listening and destroys every connection. */
  async close(): Promise<void> {
    await this.#listening.catch(() => undefined);
    for (const s of this.#open) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
