// The Logger works with pino's (fields, message) and winston's (message, fields) signatures,
// through adapters or detection, and an Error passed as a field keeps its stack in every
// logger: the console logger, pino's JSON lines and winston's. Each writes the error's
// message once in a line (issue #36, item 5): the stack keeps its frames, not V8's
// `Name: message` header, and an ApiError's `summary` is not copied beside its message.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { pino } from 'pino';
import winston from 'winston';
import { ApiError } from '../../src/client/errors.js';
import { Transport } from '../../src/client/transport.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import {
  consoleLogger,
  isPinoLogger,
  isWinstonLogger,
  noopLogger,
  pinoLogger,
  serializeError,
  toLogger,
  winstonLogger,
} from '../../src/util/logger.js';
import type { Logger } from '../../src/util/logger.js';
import { Queue, runWorkers } from '../../src/workqueue/index.js';
import { eventually } from '../support/eventually.js';

/** JSON lines written to a stream. */
function lines(stream: PassThrough, raw: string[] = []): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const l of chunk.toString('utf8').split('\n')) {
      if (l === '') continue;
      raw.push(l);
      out.push(JSON.parse(l));
    }
  });
  return out;
}

/** How many times `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

function pinoTo(t: TestContext, level = 'debug') {
  const stream = new PassThrough();
  t.after(() => stream.destroy());
  const raw: string[] = [];
  const written = lines(stream, raw);
  return { logger: pino({ level }, stream), written, raw };
}

function winstonTo(t: TestContext, level = 'debug') {
  const stream = new PassThrough();
  const logger = winston.createLogger({
    level,
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
  t.after(() => {
    logger.close();
    stream.destroy();
  });
  const raw: string[] = [];
  return { logger, written: lines(stream, raw), raw };
}

function failing(): ApiError {
  const cause = new Error('socket hang up');
  return new ApiError(
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'nope',
    },
    { context: 'GET /api/v1/pods', cause },
  );
}

test('pino: pinoLogger calls (fields, message), and an Error field keeps type, message, stack, code, reason and cause, its message once', async (t) => {
  const { logger: p, written, raw } = pinoTo(t);
  const logger = pinoLogger(p);
  const err = failing();
  logger.warn('list failed', { resource: 'pods', attempt: 2, error: err });
  logger.debug('detail', { n: 1 });
  await eventually('two pino lines', () => written.length === 2);
  const [warn, debug] = written;
  assert.equal(warn!.msg, 'list failed');
  assert.equal(warn!.level, 40);
  assert.equal(warn!.resource, 'pods');
  assert.equal(warn!.attempt, 2);
  const e = warn!.error as Record<string, unknown>;
  assert.equal(e.type, 'ApiError');
  assert.equal(e.message, 'GET /api/v1/pods: forbidden: nope');
  assert.equal(e.code, 403);
  assert.equal(e.reason, 'Forbidden');
  assert.match(String(e.stack), /^\s+at /, 'the stack is its frames');
  assert.match(String(e.stack), /logger\.test\.ts/);
  assert.equal(e.summary, undefined, 'the summary restates the message');
  assert.equal((e.cause as Record<string, unknown>).message, 'socket hang up');
  assert.equal(occurrences(raw[0]!, 'forbidden: nope'), 1, `said once: ${raw[0]}`);
  assert.equal(occurrences(raw[0]!, 'socket hang up'), 1, 'the cause once too');
  assert.equal(debug!.msg, 'detail');
  assert.equal(debug!.n, 1);
});

test('pino passed as it is would lose the fields; toLogger recognizes it and keeps them', async (t) => {
  const { logger: p, written } = pinoTo(t);
  // What happens without the adapter: pino reads the second argument as a format argument.
  (p as unknown as Logger).info('raw', { resource: 'pods' });
  assert.equal(isPinoLogger(p), true);
  assert.equal(isWinstonLogger(p), false);
  toLogger(p).info('adapted', { resource: 'pods' });
  await eventually('two pino lines', () => written.length === 2);
  assert.equal(written[0]!.msg, 'raw');
  assert.equal(written[0]!.resource, undefined, 'pino dropped the fields');
  assert.equal(written[1]!.msg, 'adapted');
  assert.equal(written[1]!.resource, 'pods');
});

test('winston: winstonLogger calls log(level, message, fields), and an Error field keeps its stack, its message once', async (t) => {
  const { logger: w, written, raw } = winstonTo(t);
  const logger = winstonLogger(w);
  const err = failing();
  logger.error('watch failed', { resource: 'pods', error: err });
  logger.debug('detail', { n: 1 });
  await eventually('two winston lines', () => written.length === 2);
  const [line, debug] = written;
  assert.equal(line!.level, 'error');
  assert.equal(line!.message, 'watch failed');
  assert.equal(line!.resource, 'pods');
  const e = line!.error as Record<string, unknown>;
  assert.equal(e.type, 'ApiError');
  assert.equal(e.code, 403);
  assert.match(String(e.stack), /^\s+at /);
  assert.equal((e.cause as Record<string, unknown>).message, 'socket hang up');
  assert.equal(occurrences(raw[0]!, 'forbidden: nope'), 1, `said once: ${raw[0]}`);
  assert.equal(debug!.level, 'debug');
  assert.equal(debug!.n, 1);
});

test('winston passed as it is writes an Error field as {}; toLogger recognizes it and keeps the stack', async (t) => {
  const { logger: w, written } = winstonTo(t);
  (w as unknown as Logger).warn('raw', { error: new Error('boom') });
  assert.equal(isWinstonLogger(w), true);
  assert.equal(isPinoLogger(w), false);
  toLogger(w).warn('adapted', { error: new Error('boom') });
  await eventually('two winston lines', () => written.length === 2);
  assert.deepEqual(written[0]!.error, {}, 'winston lost the error');
  assert.equal((written[1]!.error as Record<string, unknown>).message, 'boom');
  assert.match(String((written[1]!.error as Record<string, unknown>).stack), /^\s+at /);
});

test('toLogger passes a Logger (or console) through unchanged', () => {
  assert.equal(toLogger(noopLogger), noopLogger);
  assert.equal(toLogger(console), console);
});

test('the console logger prints an Error field message once, on the line, and its type, frames and causes below', (t) => {
  const written: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  t.after(() => {
    process.stderr.write = original;
  });
  consoleLogger('info').warn('list failed', { resource: 'pods', error: failing() });
  consoleLogger('info').debug('hidden', {});
  process.stderr.write = original;
  assert.equal(written.length, 1);
  const [first, ...rest] = written[0]!.trimEnd().split('\n');
  assert.equal(
    first,
    'WARN [kube-controller-kit] list failed resource=pods error=GET /api/v1/pods: forbidden: nope',
  );
  const below = rest.join('\n');
  assert.match(below, /^ {2}error: ApiError\n {4}at /);
  assert.match(below, /logger\.test\.ts/);
  assert.match(below, /caused by: Error: socket hang up\n {4}at /);
  assert.equal(occurrences(written[0]!, 'forbidden: nope'), 1, 'the message is said once');
  assert.equal(occurrences(written[0]!, 'socket hang up'), 1, 'the cause once too');
});

test('serializeError bounds the cause chain and copies only primitive fields', () => {
  let err: Error = new Error('root');
  for (let i = 0; i < 10; i++) err = new Error(`level ${i}`, { cause: err });
  let s = serializeError(err);
  let depth = 0;
  while (typeof s.cause === 'object') {
    s = s.cause as typeof s;
    depth++;
  }
  assert.equal(depth, 5);
  const api = serializeError(failing());
  assert.equal(api.status, undefined, 'the Status object is not copied');
  assert.equal(api.summary, undefined, 'the summary restates the message: left out');
  assert.equal(api.code, 403);
  const custom = new Error('set by hand');
  custom.stack = 'a stack without the usual header';
  assert.equal(serializeError(custom).stack, 'a stack without the usual header', 'kept whole');
  const multiline = new Error('first line\nsecond line');
  assert.match(
    String(serializeError(multiline).stack),
    /^\s+at /,
    'a multi-line header is taken off',
  );
});

test('a transport given a pino logger writes its debug lines with their fields (toLogger applied)', async (t) => {
  const server = await startTestApiServer();
  const { logger: p, written } = pinoTo(t);
  const transport = new Transport(server.kubeConfig(), { logger: p });
  t.after(async () => {
    transport.close();
    await server.close();
  });
  server.faults.failNext(1, { verb: 'list', code: 429, retryAfterSeconds: 0 });
  await transport.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
  await eventually('the retry line', () =>
    written.some((l) => l.msg === 'retrying after Retry-After'),
  );
  const line = written.find((l) => l.msg === 'retrying after Retry-After')!;
  assert.equal(line.code, 429);
  assert.equal(line.request, 'GET /api/v1/namespaces/default/configmaps');
});

test('runWorkers given a winston logger logs a failed handler with the error stack (toLogger applied)', async (t) => {
  const { logger: w, written } = winstonTo(t);
  const queue = new Queue<string>();
  queue.add('k');
  const ac = new AbortController();
  const running = runWorkers(
    queue,
    1,
    () => {
      ac.abort();
      throw new Error('reconcile exploded');
    },
    ac.signal,
    { logger: w },
  );
  await running;
  queue.shutDown();
  await eventually('the failure line', () => written.length === 1);
  assert.equal(written[0]!.message, 'work queue handler failed');
  assert.equal(written[0]!.item, 'k');
  assert.equal((written[0]!.error as Record<string, unknown>).message, 'reconcile exploded');
  assert.match(String((written[0]!.error as Record<string, unknown>).stack), /^\s+at /);
});
