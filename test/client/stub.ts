// Small node:http stubs for the client tests: a server on 127.0.0.1 port 0 whose handler the
// test supplies, and a KubeConfig pointing at it with a recognizable token.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { LogFields, Logger } from '../../src/util/logger.js';

export const TOKEN = 'sekret-TOKEN-4f1d2c9e8b7a';

export interface Stub {
  url: string;
  server: http.Server;
  requests: http.IncomingMessage[];
  connections: number;
  close(): Promise<void>;
}

export async function startStub(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): Promise<Stub> {
  const requests: http.IncomingMessage[] = [];
  const stub: Stub = {
    url: '',
    server: undefined as unknown as http.Server,
    requests,
    connections: 0,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    requests.push(req);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', () => {
    stub.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  stub.url = `http://127.0.0.1:${port}`;
  stub.server = server;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

export function kubeConfigFor(
  server: string,
  user: Record<string, unknown> = { token: TOKEN },
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: server.startsWith('http:') }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

export function json(
  res: http.ServerResponse,
  code: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** A logger that records every line (message and fields, rendered). */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const rec = (level: string) => (message: string, fields?: LogFields) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  };
  return { lines, debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') };
}

/** Resolves when `cond()` holds, checking on each turn of the event loop (bounded). */
export async function until(cond: () => boolean, turns = 100_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error('condition not reached');
}
