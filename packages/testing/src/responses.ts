/**
 * Writing responses and reading request bodies for the test API server's HTTP layer.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Status } from 'kube-controller-kit';

/** Sends a JSON body (already serialized) unless the response has started or died. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  sendBody(res, code, 'application/json', body, headers);
}

/** Sends a body of a content type unless the response has started or died. */
export function sendBody(
  res: ServerResponse,
  code: number,
  contentType: string,
  body: string | Uint8Array,
  headers: Record<string, string | string[]> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    ...headers,
  });
  res.end(body);
}

/** Sends a Status as JSON with its code. */
export function sendStatus(
  res: ServerResponse,
  status: Status,
  headers: Record<string, string | string[]> = {},
): void {
  sendJson(res, status.code ?? 500, JSON.stringify(status), headers);
}

/** A request body read up to a limit. */
export interface RequestBody {
  /** The bytes read (empty when too large). */
  bytes: Buffer;
  /** True when the body exceeded the limit. */
  tooLarge: boolean;
}

/** Reads a request body, keeping at most `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    else chunks.push(chunk);
  }
  return { bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge };
}

/**
 * `Warning` headers as kube-apiserver sends them: `299 - "<text>"`, one per warning, the
 * text's quotes and backslashes escaped.
 */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  if (warnings.length === 0) return {};
  return {
    Warning: warnings.map((w) => `299 - "${w.replace(/[\\"]/g, (c) => `\\${c}`)}"`),
  };
}
