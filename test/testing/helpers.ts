// Helpers for driving the test API server with raw HTTP from tests.
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';

/** Whether a `kubectl` binary is on PATH (kubectl tests skip without one). */
export function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface RawResponse {
  code: number;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown>;
}

/** One HTTP request with a string body; resolves with the whole answer. */
export function raw(
  base: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method,
        headers: {
          'Content-Type': 'application/json',
          // Node sends a DELETE's body unframed unless told its length.
          ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolve({ code: res.statusCode ?? 0, headers: res.headers, body: text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface WatchEventLine {
  type: string;
  object: Record<string, any>;
}

/** A raw watch: events arrive in `events`; `next()` waits for the next one; `ended` settles when the server ends it. */
export class RawWatch {
  readonly events: WatchEventLine[] = [];
  readonly lines: string[] = [];
  code = 0;
  #buffer = '';
  #waiters: (() => void)[] = [];
  #res: IncomingMessage | undefined;
  #req: ReturnType<typeof request> | undefined;
  readonly ended: Promise<'end' | 'error'>;
  #read = 0;

  constructor(base: string, path: string, headers: Record<string, string> = {}) {
    this.ended = new Promise((resolve) => {
      this.#req = request(`${base}${path}`, { headers }, (res) => {
        this.#res = res;
        this.code = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          this.#buffer += c;
          let i: number;
          while ((i = this.#buffer.indexOf('\n')) >= 0) {
            const line = this.#buffer.slice(0, i);
            this.#buffer = this.#buffer.slice(i + 1);
            this.lines.push(line);
            try {
              this.events.push(JSON.parse(line) as WatchEventLine);
            } catch {
              this.events.push({ type: 'UNPARSEABLE', object: { line } });
            }
          }
          this.#wake();
        });
        res.on('end', () => {
          if (this.#buffer) this.lines.push(this.#buffer);
          this.#wake();
          resolve('end');
        });
        res.on('error', () => {
          this.#wake();
          resolve('error');
        });
        res.on('aborted', () => {
          this.#wake();
          resolve('error');
        });
      });
      this.#req.on('error', () => {
        this.#wake();
        resolve('error');
      });
      this.#req.end();
    });
  }

  /** The unparsed rest of the stream (a truncated last line). */
  get remainder(): string {
    return this.#buffer;
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  /** Waits until at least n events have arrived (or the stream ends). */
  async waitFor(n: number): Promise<WatchEventLine[]> {
    let done = false;
    void this.ended.then(() => {
      done = true;
    });
    while (this.events.length < n) {
      if (done)
        throw new Error(
          `watch ended after ${this.events.length} events, wanted ${n}: ${JSON.stringify(this.events)}`,
        );
      await new Promise<void>((r) => {
        this.#waiters.push(r);
        void this.ended.then(() => r());
      });
      await Promise.resolve();
    }
    return this.events.slice(0, n);
  }

  /** The next unread event. */
  async next(): Promise<WatchEventLine> {
    await this.waitFor(this.#read + 1);
    return this.events[this.#read++]!;
  }

  close(): Promise<unknown> {
    this.#res?.destroy();
    this.#req?.destroy();
    return this.ended;
  }
}

/** Waits (turn by turn of the event loop, at most ~2 s) until `cond()` holds. */
export async function until(cond: () => boolean, what = 'condition'): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

/** The `skip` option of a suite that drives kubectl: false when kubectl is installed. */
export function kubectlSkip(): false | string {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'kubectl is not installed on this machine';
  }
}
