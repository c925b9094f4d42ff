// Helpers of the manager tests: plain HTTP GETs that leave no socket open, a recording
// logger.
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/util/logger.js';

/** GET `path` from `address` with a fresh connection that is closed afterwards. */
export function httpGet(
  address: AddressInfo | undefined,
  path: string,
): Promise<{ status: number; body: string; contentType: string }> {
  if (address === undefined) return Promise.reject(new Error('server not listening'));
  return new Promise((resolve, reject) => {
    const req = get(
      {
        host: address.address,
        port: address.port,
        path,
        agent: false,
        headers: { Connection: 'close' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            contentType: String(res.headers['content-type'] ?? ''),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** A logger that keeps `level message` lines. */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (message: string): void =>
      void lines.push(`${level} ${message}`);
  return {
    lines,
    logger: { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
  };
}
