// Fuzzing the watch line decoder (src/client/watch_decoder.ts) with fast-check: the outcome
// of a stream (events, then an optional WatchDecodeError) must not depend on how its bytes
// are cut into chunks, garbage must only ever produce a WatchDecodeError, a line past the
// limit only a WatchEventTooLargeError once no more than one chunk past the limit was read
// (client-go's ErrObjectTooLarge), invalid UTF-8 decodes the same in any chunking, ERROR
// events pass in order wherever they fall, and the stream always ends.
//
// Each property runs for a fixed time on every CI run with a printed seed; FUZZ_SEED
// replays it and FUZZ_RUNS runs a fixed number of inputs by hand (test/support/fuzz_budget.ts).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { WatchDecodeError, WatchEventTooLargeError } from '../../src/client/errors.js';
import type { Status, WatchEvent } from '../../src/client/types.js';
import { decodeWatchStream } from '../../src/client/watch_decoder.js';
import { fuzz } from '../support/fuzz_budget.js';

interface Obj {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

/** What a stream decodes to: its events, then the decode error that ended it, if any. */
interface Outcome {
  events: WatchEvent<Obj>[];
  error: { line: number; byteOffset: number; name: string } | undefined;
}

/** A decoded outcome, with what the decoder reported of an over-long line. */
interface Decoded extends Outcome {
  closed: boolean;
  tooLarge: { limit: number; bytesRead: number } | undefined;
}

/** A body that hands out exactly the given chunks, one `data` event each. */
function bodyOf(chunks: readonly Buffer[]): Readable {
  let i = 0;
  return new Readable({
    read() {
      // One chunk per read; the decoder must join lines split across them.
      this.push(i < chunks.length ? chunks[i++] : null);
    },
  });
}

/** Iterates the decoder to its end; fails the test (instead of hanging) after 5 s. */
async function decode(chunks: readonly Buffer[], maxEventBytes?: number): Promise<Decoded> {
  let closed = false;
  let tooLarge: Decoded['tooLarge'];
  const body = bodyOf(chunks);
  const it = decodeWatchStream<Obj>(
    body,
    () => {
      closed = true;
      body.destroy();
    },
    'GET /api/v1/pods?watch=true',
    undefined,
    undefined,
    maxEventBytes === undefined ? {} : { maxEventBytes },
  );
  const events: WatchEvent<Obj>[] = [];
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the decoder did not finish within 5 s')), 5000);
  });
  const run = (async (): Promise<Outcome> => {
    try {
      for await (const e of it) events.push(e);
      return { events, error: undefined };
    } catch (err) {
      // Rule: the only error a malformed body produces is the typed WatchDecodeError.
      assert.ok(err instanceof WatchDecodeError, `unexpected error type: ${String(err)}`);
      if (err instanceof WatchEventTooLargeError)
        tooLarge = { limit: err.limit, bytesRead: err.bytesRead };
      return { events, error: { line: err.line, byteOffset: err.byteOffset, name: err.name } };
    }
  })();
  try {
    const out = await Promise.race([run, hang]);
    return { ...out, closed, tooLarge };
  } finally {
    clearTimeout(timer);
  }
}

/** Cuts `bytes` at the given (sorted, deduplicated) offsets. */
function cut(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    if (p > start) out.push(bytes.subarray(start, p));
    start = Math.max(start, p);
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

/**
 * The reference decoder: the whole body at once. Lines are split on `\n` (a `\r` before it
 * is dropped); empty lines are skipped; a line of more than `limit` bytes (its `\r`
 * counted, its `\n` not) fails as too large; a line that is not a JSON object with a known
 * `type` and an object `object` fails with its 1-based number and byte offset. The last,
 * unterminated line is trimmed first (so trailing whitespace is not an error).
 */
function reference(bytes: Buffer, limit = Number.POSITIVE_INFINITY): Outcome {
  const events: WatchEvent<Obj>[] = [];
  let start = 0;
  let line = 0;
  const types = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
  while (start <= bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    const last = nl === -1;
    let end = last ? bytes.length : nl;
    line++;
    if (end - start > limit)
      return { events, error: { line, byteOffset: start, name: 'WatchEventTooLargeError' } };
    if (!last && end > start && bytes[end - 1] === 0x0d) end--;
    let text = bytes.toString('utf8', start, end);
    if (last) text = text.trim();
    if (text !== '') {
      let parsed: unknown;
      let ok = true;
      try {
        parsed = JSON.parse(text);
      } catch {
        ok = false;
      }
      const p = parsed as { type?: unknown; object?: unknown } | null;
      ok =
        ok &&
        typeof p === 'object' &&
        p !== null &&
        types.has(p.type as string) &&
        typeof p.object === 'object' &&
        p.object !== null;
      if (!ok) return { events, error: { line, byteOffset: start, name: 'WatchDecodeError' } };
      events.push(parsed as WatchEvent<Obj>);
    }
    if (last) break;
    start = nl + 1;
  }
  return { events, error: undefined };
}

// Names and values with multi-byte characters (2-, 3- and 4-byte UTF-8) so that a cut
// often lands inside a character.
const textArb = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('é', 'ß€', '日本語', '🙂🚀', 'a\u0000b', '"quoted"', 'back\\slash', '\u2028'),
);

const objArb: fc.Arbitrary<Obj> = fc.record(
  {
    metadata: fc.record({
      name: textArb,
      resourceVersion: fc.nat({ max: 1_000_000 }).map(String),
    }),
    data: fc.dictionary(textArb, textArb, { maxKeys: 3 }),
  },
  { requiredKeys: ['metadata'] },
);

const statusArb: fc.Arbitrary<Status> = fc.record({
  kind: fc.constant('Status'),
  apiVersion: fc.constant('v1'),
  status: fc.constant('Failure'),
  code: fc.constantFrom(410, 500, 403),
  reason: fc.constantFrom('Expired', 'InternalError', 'Forbidden'),
  message: textArb,
});

const eventArb: fc.Arbitrary<WatchEvent<Obj>> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({ type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'), object: objArb })
      .map((e) => e as WatchEvent<Obj>),
  },
  {
    weight: 1,
    arbitrary: statusArb.map((object): WatchEvent<Obj> => ({ type: 'ERROR', object })),
  },
);

/** A valid stream: one event per line, with `\n` or `\r\n`, optionally blank lines. */
const streamArb = fc
  .array(
    fc.record({
      event: eventArb,
      eol: fc.constantFrom('\n', '\r\n'),
      blank: fc.boolean(),
    }),
    { maxLength: 12 },
  )
  .chain((lines) =>
    fc.boolean().map((lastTerminated) => {
      let text = '';
      lines.forEach((l, i) => {
        if (l.blank) text += '\n';
        text += JSON.stringify(l.event);
        if (i < lines.length - 1 || lastTerminated) text += l.eol;
      });
      return { events: lines.map((l) => plain(l.event)), bytes: Buffer.from(text, 'utf8') };
    }),
  );

/** The value as JSON gives it back (plain prototypes), to compare with decoded events. */
function plain<V>(value: V): V {
  return JSON.parse(JSON.stringify(value)) as V;
}

const cutsArb = fc.array(fc.nat({ max: 100_000 }), { maxLength: 40 });

/** The largest piece of a cut (the bound of what the decoder reads past a limit). */
function largestPiece(chunks: readonly Buffer[]): number {
  return chunks.reduce((max, c) => Math.max(max, c.length), 0);
}

// Lines of garbage mixed with valid ones: JSON that is not an event, truncated JSON,
// random text and random bytes (invalid UTF-8 included).
const garbageLineArb: fc.Arbitrary<Buffer> = fc.oneof(
  eventArb.map((e) => Buffer.from(JSON.stringify(e))),
  fc.json().map((j) => Buffer.from(j)),
  fc.string({ maxLength: 30 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a)),
  eventArb.chain((e) => {
    const s = JSON.stringify(e);
    return fc.nat({ max: s.length }).map((n) => Buffer.from(s.slice(0, n)));
  }),
  fc
    .constantFrom(
      '{"type":"ADDED"}',
      '{"type":"ADDED","object":null}',
      '{"type":"ADDED","object":"x"}',
      '{"type":"added","object":{}}',
      '{"type":"ERROR","object":[]}',
      '[]',
      'null',
      '   ',
      '\r',
      '{"type":"ADDED","object":{}}\r',
    )
    .map((s) => Buffer.from(s)),
);

/** A line without a newline of `length` bytes: valid JSON padded long, or filler, or bytes. */
const longLineArb = (length: number): fc.Arbitrary<Buffer> =>
  fc.oneof(
    // A valid event, just too large: its note padded with multi-byte characters.
    fc.constantFrom('x', 'é', '日', '🙂').map((c) => {
      const head = '{"type":"ADDED","object":{"metadata":{"name":"big"},"note":"';
      const tail = '"}}';
      const room = Math.max(0, length - head.length - tail.length);
      const pad = c.repeat(Math.ceil(room / Buffer.byteLength(c)));
      return Buffer.from(head + pad + tail);
    }),
    fc.constant(Buffer.alloc(length, 'a')),
    fc
      .uint8Array({ minLength: length, maxLength: length })
      .map((a) => Buffer.from(a.map((b) => (b === 0x0a ? 0x20 : b)))),
  );

describe('watch decoder fuzzing', () => {
  test('any chunking of a valid stream decodes to exactly the events of the whole stream', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(streamArb, cutsArb, async ({ events, bytes }, cuts) => {
        const whole = await decode([bytes]);
        const chunked = await decode(cut(bytes, cuts));
        assert.equal(whole.error, undefined);
        assert.deepEqual(whole.events, events);
        assert.equal(chunked.error, undefined);
        assert.deepEqual(chunked.events, events);
        assert.ok(chunked.closed, 'the connection is closed when the stream ends');
      }),
    );
  });

  test('a stream cut into single bytes (every multi-byte character split) decodes the same', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(streamArb, async ({ events, bytes }) => {
        const bytewise = [...bytes].map((b) => Buffer.from([b]));
        assert.deepEqual((await decode(bytewise)).events, events);
      }),
      { timeMs: 1000 },
    );
  });

  test('ERROR events interleaved anywhere among the others pass through as typed ERROR events, in order, and do not end the stream', async (t) => {
    const statusEvent = statusArb.map((object): WatchEvent<Obj> => ({ type: 'ERROR', object }));
    await fuzz(
      t,
      fc.asyncProperty(
        fc.array(fc.oneof(eventArb, statusEvent), { minLength: 1, maxLength: 12 }),
        cutsArb,
        async (events, cuts) => {
          const text = events.map((e) => JSON.stringify(e) + '\n').join('');
          const out = await decode(cut(Buffer.from(text), cuts));
          assert.equal(out.error, undefined);
          assert.deepEqual(out.events, events.map(plain), 'every event, ERROR ones in place');
          out.events.forEach((e, i) => {
            if (events[i]!.type === 'ERROR') assert.equal(e.type, 'ERROR');
          });
        },
      ),
    );
  });

  test('invalid or split UTF-8 inside a line decodes the same whole and in any chunking (bytes are joined before they are decoded)', async (t) => {
    // Bytes that are not valid UTF-8 on their own: lone continuation bytes, truncated
    // 2-, 3- and 4-byte sequences, overlong forms, surrogates encoded as UTF-8.
    const badUtf8 = fc.constantFrom(
      [0x80],
      [0xbf],
      [0xc3],
      [0xe6, 0x97],
      [0xf0, 0x9f, 0x99],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xff],
      [0xfe, 0xff],
    );
    await fuzz(
      t,
      fc.asyncProperty(
        fc.array(fc.record({ text: textArb, bad: fc.array(badUtf8, { maxLength: 3 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        cutsArb,
        async (parts, cuts) => {
          const lines = parts.map(({ text, bad }, i) => {
            const head = Buffer.from(
              `{"type":"ADDED","object":{"metadata":{"name":"n${i}"},"note":"`,
            );
            const body = Buffer.from(JSON.stringify(text).slice(1, -1));
            return Buffer.concat([
              head,
              body,
              ...bad.map((b) => Buffer.from(b)),
              Buffer.from('"}}\n'),
            ]);
          });
          const bytes = Buffer.concat(lines);
          const whole = await decode([bytes]);
          const chunked = await decode(cut(bytes, cuts));
          const bytewise = await decode([...bytes].map((b) => Buffer.from([b])));
          assert.equal(whole.error, undefined);
          assert.equal(whole.events.length, parts.length);
          assert.deepEqual(chunked.events, whole.events);
          assert.deepEqual(bytewise.events, whole.events);
        },
      ),
      { timeMs: 1500 },
    );
  });

  test('garbage never throws anything but WatchDecodeError, at the reference line and byte offset, and always ends', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(
        fc.array(garbageLineArb, { maxLength: 10 }),
        fc.boolean(),
        cutsArb,
        async (lines, terminated, cuts) => {
          const nl = Buffer.from('\n');
          const parts: Buffer[] = [];
          lines.forEach((l, i) => {
            parts.push(l);
            if (i < lines.length - 1 || terminated) parts.push(nl);
          });
          const bytes = Buffer.concat(parts);
          const expected = reference(bytes);
          const whole = await decode([bytes]);
          const chunked = await decode(cut(bytes, cuts));
          assert.deepEqual({ events: whole.events, error: whole.error }, expected);
          assert.deepEqual({ events: chunked.events, error: chunked.error }, expected);
          assert.ok(whole.closed && chunked.closed, 'the connection is closed in every case');
        },
      ),
    );
  });

  test('a line past maxEventBytes ends the stream with WatchEventTooLargeError at the reference line, having read at most one chunk past the limit (client-go ErrObjectTooLarge)', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(
        fc.integer({ min: 8, max: 600 }).chain((limit) =>
          fc.tuple(
            fc.constant(limit),
            fc.array(
              fc.oneof(
                { weight: 3, arbitrary: garbageLineArb },
                // Over the limit, at it, or just under it.
                {
                  weight: 2,
                  arbitrary: fc.constantFrom(-1, 0, 1, 2, 300).chain((d) => longLineArb(limit + d)),
                },
              ),
              { maxLength: 8 },
            ),
          ),
        ),
        fc.boolean(),
        cutsArb,
        async ([limit, lines], terminated, cuts) => {
          const nl = Buffer.from('\n');
          const parts: Buffer[] = [];
          lines.forEach((l, i) => {
            parts.push(l);
            if (i < lines.length - 1 || terminated) parts.push(nl);
          });
          const bytes = Buffer.concat(parts);
          const expected = reference(bytes, limit);
          for (const chunks of [[bytes], cut(bytes, cuts)]) {
            const out = await decode(chunks, limit);
            assert.deepEqual({ events: out.events, error: out.error }, expected);
            assert.ok(out.closed, 'the connection is closed');
            if (expected.error?.name === 'WatchEventTooLargeError') {
              const read = out.tooLarge!;
              assert.equal(read.limit, limit);
              assert.ok(read.bytesRead > limit, `read ${read.bytesRead} > ${limit}`);
              // The bound: the decoder stopped within the chunk that crossed the limit.
              assert.ok(
                read.bytesRead <= limit + largestPiece(chunks),
                `read ${read.bytesRead}, limit ${limit}, largest chunk ${largestPiece(chunks)}`,
              );
            }
          }
        },
      ),
    );
  });

  test('pure random bytes in random chunks end with events or a WatchDecodeError, never a hang', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 400 }),
        cutsArb,
        fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
        async (raw, cuts, limit) => {
          const bytes = Buffer.from(raw);
          const out = await decode(cut(bytes, cuts), limit);
          const expected = reference(bytes, limit);
          assert.deepEqual({ events: out.events, error: out.error }, expected);
        },
      ),
    );
  });

  test('a long stream (past the backpressure high-water mark) decodes the same in any chunking', async (t) => {
    await fuzz(
      t,
      fc.asyncProperty(fc.integer({ min: 1, max: 4096 }), async (chunkSize) => {
        const lines: string[] = [];
        for (let i = 0; i < 3000; i++) {
          lines.push(
            JSON.stringify({
              type: 'ADDED',
              object: { metadata: { name: `pod-${i}-é🙂`, resourceVersion: String(i) } },
            }),
          );
        }
        const bytes = Buffer.from(lines.join('\n') + '\n');
        const chunks: Buffer[] = [];
        for (let i = 0; i < bytes.length; i += chunkSize)
          chunks.push(bytes.subarray(i, i + chunkSize));
        const out = await decode(chunks);
        assert.equal(out.error, undefined);
        assert.equal(out.events.length, 3000);
        out.events.forEach((e, i) => {
          assert.equal((e.object as Obj).metadata.resourceVersion, String(i));
        });
      }),
      { maxRuns: 15 },
    );
  });
});
