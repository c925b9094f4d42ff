/**
 * Decoding a watch stream: one JSON event per line, yielded as the bytes arrive.
 *
 * The body is never buffered whole: each chunk is scanned for newlines, complete lines are
 * parsed and yielded at once, and the bytes of an unfinished line wait for the next chunk
 * (so a line split across chunks, even inside a multi-byte character, is joined). A line
 * that is not a watch event ends the stream with a {@link WatchDecodeError} naming the
 * line and its byte offset, and the connection is closed. A line longer than
 * `maxEventBytes` (default {@link defaultMaxWatchEventBytes}, 16 MiB, client-go's) ends it
 * with a {@link WatchEventTooLargeError} as soon as the limit is passed: the unfinished
 * line held is never larger than the limit, whatever the server sends. Leaving the `for await` loop, or
 * aborting the signal, closes the connection; an abort ends the iteration quietly.
 *
 * @module
 */
import type { Readable } from 'node:stream';
import { WatchDecodeError, WatchEventTooLargeError } from './errors.js';
import type { WatchEvent } from './types.js';

/**
 * The default bound of one watch event's line, in bytes: 16 MiB, client-go's (the
 * `maxBytes` of apimachinery's streaming decoder, past which it answers
 * `ErrObjectTooLarge`). etcd stores values of at most 1.5 MiB by default, so an object's
 * JSON stays far below it.
 */
export const defaultMaxWatchEventBytes = 16 * 1024 * 1024;

/** Options of {@link decodeWatchStream}. */
export interface WatchDecodeOptions {
  /**
   * The longest line (one event, its newline not counted) the decoder accepts, in bytes of
   * the decompressed body. A longer line ends the stream with a
   * {@link WatchEventTooLargeError} once the limit is passed, so the decoder never holds
   * more than this of an unfinished line. Default {@link defaultMaxWatchEventBytes}.
   */
  maxEventBytes?: number;
}

/** How much of an over-long line is decoded for the error's excerpt. */
const EXCERPT_BYTES = 512;

const NEWLINE = 0x0a;
const eventTypes = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

function parseLine<T>(context: string, text: string, line: number, offset: number): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new WatchDecodeError(context, line, offset, text, err);
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    !eventTypes.has((parsed as { type?: unknown }).type as string) ||
    typeof (parsed as { object?: unknown }).object !== 'object' ||
    (parsed as { object?: unknown }).object === null
  ) {
    throw new WatchDecodeError(context, line, offset, text);
  }
  return parsed as WatchEvent<T>;
}

/** The error of a body closed before its end (stream.finished()'s words and code). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * A watch iterator that also hands out, synchronously, the events it has already decoded
 * (what {@link decodeWatchStream} returns). The reflector drains it this way after each
 * `next()`, so a chunk holding many events costs one promise, not one per event.
 */
export interface BufferedWatchIterator<T> extends AsyncIterableIterator<WatchEvent<T>> {
  /** The next event already decoded, or `undefined` when none is buffered. */
  takeBuffered(): WatchEvent<T> | undefined;
}

/** Events decoded ahead of the reader before the body is paused (backpressure). */
const HIGH_WATER = 1024;

/**
 * The iterator behind {@link decodeWatchStream}: the body flows, each chunk is split into
 * events synchronously, and `next()` hands them out without a generator's per-event
 * overhead. When more than `HIGH_WATER` events wait, the body is paused.
 */
class WatchEventIterator<T> implements BufferedWatchIterator<T> {
  readonly #body: Readable;
  readonly #close: () => void;
  readonly #context: string;
  readonly #signal: AbortSignal | undefined;
  readonly #retype: ((object: Record<string, unknown>) => void) | undefined;
  readonly #maxEventBytes: number;
  #queue: WatchEvent<T>[] = [];
  #head = 0;
  /** The bytes of an unfinished line, as received (joined once its newline arrives). */
  #pending: Buffer[] = [];
  #pendingLength = 0;
  /** Stream offset of the first byte of the unfinished line (or of the next chunk). */
  #pendingOffset = 0;
  #line = 0;
  #ended = false;
  #failed = false;
  #error: Error | undefined;
  #done = false;
  #paused = false;
  #waiter:
    | { resolve: (r: IteratorResult<WatchEvent<T>>) => void; reject: (e: unknown) => void }
    | undefined;
  readonly #cleanup: () => void;

  constructor(
    body: Readable,
    close: () => void,
    context: string,
    signal: AbortSignal | undefined,
    retype: ((object: Record<string, unknown>) => void) | undefined,
    maxEventBytes: number,
  ) {
    this.#body = body;
    this.#close = close;
    this.#context = context;
    this.#signal = signal;
    this.#retype = retype;
    this.#maxEventBytes = maxEventBytes;
    // Four listeners, not stream.finished()'s eight or so: an open watch keeps them all.
    // 'close' before 'end' is a premature close, as finished() reports it.
    const onData = (chunk: Buffer): void => this.#onData(chunk);
    const onEnd = (): void => this.#onEnd();
    const onError = (err: unknown): void => this.#fail(err);
    const onClose = (): void => {
      if (!body.readableEnded) this.#fail(prematureClose());
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
    this.#cleanup = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The next event already decoded, or `undefined` when none is buffered (then `next()`
   * waits for one, or tells the end or the failure). A consumer that drains the buffer
   * this way after each `next()` pays one promise per chunk read, not one per event.
   */
  takeBuffered(): WatchEvent<T> | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const value = this.#queue[this.#head++]!;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    }
    if (this.#paused && this.#queue.length - this.#head < HIGH_WATER / 2) {
      this.#paused = false;
      this.#body.resume();
    }
    return value;
  }

  next(): Promise<IteratorResult<WatchEvent<T>>> {
    const value = this.takeBuffered();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    if (this.#failed) {
      this.#finish();
      const error = this.#error ?? new Error('watch stream failed');
      const aborted = this.#signal?.aborted === true && !(error instanceof WatchDecodeError);
      return aborted ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(error);
    }
    if (this.#ended) {
      this.#finish();
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#queue = [];
    this.#head = 0;
    this.#finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#cleanup();
    this.#close();
  }

  #wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    const value = this.takeBuffered();
    if (value !== undefined) waiter.resolve({ value, done: false });
    else this.next().then(waiter.resolve, waiter.reject);
  }

  #fail(err: unknown): void {
    if (this.#failed || this.#done) return;
    this.#failed = true;
    this.#error = err instanceof Error ? err : new Error(String(err));
    this.#wake();
  }

  #onEnd(): void {
    if (this.#failed || this.#done) return;
    if (this.#pending.length > 0) {
      const text = this.#takePending().toString('utf8').trim();
      if (text !== '') {
        try {
          this.#push(parseLine<T>(this.#context, text, this.#line + 1, this.#pendingOffset));
        } catch (err) {
          this.#fail(err);
          return;
        }
      }
    }
    this.#ended = true;
    this.#wake();
  }

  /** Queues one decoded event, its object retyped first (never an ERROR event's Status). */
  #push(event: WatchEvent<T>): void {
    if (this.#retype !== undefined && event.type !== 'ERROR') {
      this.#retype(event.object as Record<string, unknown>);
    }
    this.#queue.push(event);
  }

  /** The bytes of the unfinished line, joined, and forgets them. */
  #takePending(): Buffer {
    const parts = this.#pending;
    this.#pending = [];
    this.#pendingLength = 0;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /**
   * The error of a line longer than the limit: `head` is its start, `bytesRead` how much of
   * it was read, `offset` where it starts in the stream.
   */
  #tooLarge(head: readonly Buffer[], bytesRead: number, offset: number): WatchEventTooLargeError {
    const parts: Buffer[] = [];
    let length = 0;
    for (const part of head) {
      if (length >= EXCERPT_BYTES) break;
      parts.push(part.subarray(0, EXCERPT_BYTES - length));
      length += parts[parts.length - 1]!.length;
    }
    const excerpt = Buffer.concat(parts).toString('utf8');
    return new WatchEventTooLargeError(
      this.#context,
      this.#line + 1,
      offset,
      excerpt,
      this.#maxEventBytes,
      bytesRead,
    );
  }

  /** Parses the line `buf[start, nl)` (a trailing CR dropped) found at stream offset `offset`. */
  #parseLine(buf: Buffer, start: number, nl: number, offset: number): void {
    if (nl - start > this.#maxEventBytes)
      throw this.#tooLarge([buf.subarray(start, nl)], nl - start, offset);
    let end = nl;
    if (end > start && buf[end - 1] === 0x0d) end--;
    this.#line++;
    if (end > start) {
      this.#push(parseLine<T>(this.#context, buf.toString('utf8', start, end), this.#line, offset));
    }
  }

  #onData(chunk: Buffer): void {
    if (this.#failed || this.#done) return;
    // Stream offset of chunk[0]: after the bytes of the unfinished line.
    let base = this.#pendingOffset + this.#pendingLength;
    let start = 0;
    try {
      if (this.#pending.length > 0) {
        // Only the unfinished line is joined with the head of this chunk (never the whole
        // chunk: a chunk of many events is not copied).
        const nl = chunk.indexOf(NEWLINE);
        const read = this.#pendingLength + (nl === -1 ? chunk.length : nl);
        if (read > this.#maxEventBytes)
          throw this.#tooLarge([...this.#pending, chunk], read, this.#pendingOffset);
        if (nl === -1) {
          this.#pending.push(chunk);
          this.#pendingLength += chunk.length;
          return;
        }
        const offset = this.#pendingOffset;
        this.#pending.push(chunk.subarray(0, nl));
        const line = this.#takePending();
        this.#parseLine(line, 0, line.length, offset);
        start = nl + 1;
      }
      for (;;) {
        const nl = chunk.indexOf(NEWLINE, start);
        if (nl === -1) break;
        this.#parseLine(chunk, start, nl, base + start);
        start = nl + 1;
      }
      // The rest of the chunk starts a line: held until its newline, never past the limit.
      if (chunk.length - start > this.#maxEventBytes)
        throw this.#tooLarge([chunk.subarray(start)], chunk.length - start, base + start);
    } catch (err) {
      // Stop reading: the events before the bad line are still handed out, then the error.
      this.#body.destroy();
      this.#fail(err);
      return;
    }
    if (start < chunk.length) {
      this.#pending.push(start === 0 ? chunk : chunk.subarray(start));
      this.#pendingLength = chunk.length - start;
    }
    base += start;
    this.#pendingOffset = base;
    if (!this.#paused && this.#queue.length - this.#head >= HIGH_WATER) {
      this.#paused = true;
      this.#body.pause();
    }
    this.#wake();
  }
}

/**
 * Events of a newline-delimited JSON watch body.
 *
 * @param body - the (decompressed) response body.
 * @param close - closes the connection; called when the iteration ends for any reason.
 * @param context - `METHOD /path` (redacted) for error messages.
 * @param signal - when aborted, the iteration ends without an error.
 * @param retype - called on the object of every event but `ERROR`, before it is handed
 *   out (the metadata-only client sets the resource's apiVersion and kind here).
 * @param options - the line limit.
 * @throws RangeError when `maxEventBytes` is not a positive integer.
 */
export function decodeWatchStream<T>(
  body: Readable,
  close: () => void,
  context: string,
  signal?: AbortSignal,
  retype?: (object: Record<string, unknown>) => void,
  options: WatchDecodeOptions = {},
): BufferedWatchIterator<T> {
  const maxEventBytes = checkedMaxEventBytes(options.maxEventBytes);
  return new WatchEventIterator<T>(body, close, context, signal, retype, maxEventBytes);
}

/**
 * `maxEventBytes` checked: a positive safe integer, or the default when undefined.
 *
 * @throws RangeError otherwise.
 */
export function checkedMaxEventBytes(value: number | undefined): number {
  if (value === undefined) return defaultMaxWatchEventBytes;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(
      `maxWatchEventBytes must be a positive integer number of bytes, got ${String(value)}`,
    );
  return value;
}
