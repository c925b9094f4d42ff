// Fuzzing the watch line decoder (src/client/watch_decoder.ts) with fast-check: the outcome
// of a stream (events, then an optional WatchDecodeError) must not depend on how its bytes
// are cut into chunks, garbage must only ever produce a WatchDecodeError, and the stream
// always ends.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { WatchDecodeError } from '../../src/client/errors.js';
import type { Status, WatchEvent } from '../../src/client/types.js';
import { decodeWatchStream } from '../../src/client/watch_decoder.js';

const RUNS = 300;

interface Obj {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

/** What a stream decodes to: its events, then the decode error that ended it, if any. */
interface Outcome {
  events: WatchEvent<Obj>[];
  error: { line: number; byteOffset: number; name: string } | undefined;
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
async function decode(chunks: readonly Buffer[]): Promise<Outcome & { closed: boolean }> {
  let closed = false;
  const body = bodyOf(chunks);
  const it = decodeWatchStream<Obj>(
    body,
    () => {
      closed = true;
      body.destroy();
    },
    'GET /api/v1/pods?watch=true',
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
      return { events, error: { line: err.line, byteOffset: err.byteOffset, name: err.name } };
    }
  })();
  try {
    const out = await Promise.race([run, hang]);
    return { ...out, closed };
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
 * is dropped); empty lines are skipped; a line that is not a JSON object with a known
 * `type` and an object `object` fails with its 1-based number and byte offset. The last,
 * unterminated line is trimmed first (so trailing whitespace is not an error).
 */
function reference(bytes: Buffer): Outcome {
  const events: WatchEvent<Obj>[] = [];
  let start = 0;
  let line = 0;
  const types = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
  while (start <= bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    const last = nl === -1;
    let end = last ? bytes.length : nl;
    line++;
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

describe('watch decoder fuzzing', () => {
  test('any chunking of a valid stream decodes to exactly the events of the whole stream', async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, cutsArb, async ({ events, bytes }, cuts) => {
        const whole = await decode([bytes]);
        const chunked = await decode(cut(bytes, cuts));
        assert.equal(whole.error, undefined);
        assert.deepEqual(whole.events, events);
        assert.equal(chunked.error, undefined);
        assert.deepEqual(chunked.events, events);
        assert.ok(chunked.closed, 'the connection is closed when the stream ends');
      }),
      { numRuns: RUNS },
    );
  });

  test('a stream cut into single bytes (every multi-byte character split) decodes the same', async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, async ({ events, bytes }) => {
        const bytewise = [...bytes].map((b) => Buffer.from([b]));
        assert.deepEqual((await decode(bytewise)).events, events);
      }),
      { numRuns: 60 },
    );
  });

  test('an ERROR event surfaces as a typed ERROR event carrying its Status, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { maxLength: 5 }),
        statusArb,
        cutsArb,
        async (before, status, cuts) => {
          const lines = [...before, { type: 'ERROR', object: status }].map((e) =>
            JSON.stringify(e),
          );
          const out = await decode(cut(Buffer.from(lines.join('\n') + '\n'), cuts));
          assert.equal(out.error, undefined);
          const last = out.events[out.events.length - 1];
          assert.equal(last?.type, 'ERROR');
          assert.deepEqual(last.object, plain(status));
          assert.equal(out.events.length, before.length + 1);
        },
      ),
      { numRuns: RUNS },
    );
  });

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

  test('garbage never throws anything but WatchDecodeError, at the reference line and byte offset, and always ends', async () => {
    await fc.assert(
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
      { numRuns: RUNS },
    );
  });

  test('pure random bytes in random chunks end with events or a WatchDecodeError, never a hang', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), cutsArb, async (raw, cuts) => {
        const bytes = Buffer.from(raw);
        const out = await decode(cut(bytes, cuts));
        const expected = reference(bytes);
        assert.deepEqual({ events: out.events, error: out.error }, expected);
      }),
      { numRuns: RUNS },
    );
  });

  test('a long stream (past the backpressure high-water mark) decodes the same in any chunking', async () => {
    await fc.assert(
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
      { numRuns: 15 },
    );
  });
});
