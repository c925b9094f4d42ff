// The request-target parser every server of the kit routes on (src/util/request_target.ts),
// pinned to Go's url.ParseRequestURI as net/http's server applies it: origin-form targets
// are paths even when they start with `//`, absolute-form targets have a checked authority,
// and anything else (asterisk-form, relative references, control bytes, bad escapes) does
// not parse, which the server answers 400 before any handler runs. It never throws.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  isRequestTargetError,
  parseRequestTarget,
  quoteTarget,
} from '../../src/util/request_target.js';

function parsed(target: string): { path: string; rawQuery: string } {
  const out = parseRequestTarget(target);
  assert.ok(
    !isRequestTargetError(out),
    `${JSON.stringify(target)} should parse: ${JSON.stringify(out)}`,
  );
  return { path: out.path, rawQuery: out.rawQuery };
}

function refused(target: string | undefined): string {
  const out = parseRequestTarget(target);
  assert.ok(isRequestTargetError(out), `${JSON.stringify(target)} should not parse`);
  return out.error;
}

describe('parseRequestTarget (Go url.ParseRequestURI)', () => {
  test("the issue's targets are paths, as Go reads a request's target (no host, no port)", () => {
    // Go: a request-target without a scheme is never split into an authority, so
    // `//x:99999/validate` is the path `//x:99999/validate` (the WHATWG URL parser reads
    // host `x` and port 99999 and throws: the crash of issue #34).
    assert.deepEqual(parsed('//'), { path: '//', rawQuery: '' });
    assert.deepEqual(parsed('//x:99999/validate'), { path: '//x:99999/validate', rawQuery: '' });
    assert.deepEqual(parsed('//@'), { path: '//@', rawQuery: '' });
    assert.deepEqual(parsed('///'), { path: '///', rawQuery: '' });
  });

  test('origin-form: the path before the first ?, decoded; the query kept raw and offered parsed', () => {
    assert.deepEqual(parsed('/validate'), { path: '/validate', rawQuery: '' });
    assert.deepEqual(parsed('/healthz?verbose&exclude=a&exclude=b'), {
      path: '/healthz',
      rawQuery: 'verbose&exclude=a&exclude=b',
    });
    assert.deepEqual(parsed('/a%2Fb%20c?x=%zz'), { path: '/a/b c', rawQuery: 'x=%zz' });
    assert.deepEqual(parsed('/readyz/%E2%9C%93'), { path: '/readyz/✓', rawQuery: '' });
    // Invalid UTF-8 after decoding is replaced, never thrown (decodeURIComponent throws).
    assert.deepEqual(parsed('/%FF'), { path: '/\ufffd', rawQuery: '' });
    const q = parseRequestTarget('/healthz?exclude=a&exclude=b&verbose');
    assert.ok(!isRequestTargetError(q));
    assert.deepEqual(q.query.getAll('exclude'), ['a', 'b']);
    assert.ok(q.query.has('verbose'));
  });

  test('absolute-form: the authority is checked and dropped; an empty path is /', () => {
    assert.deepEqual(parsed('https://webhook.svc:9443/validate?x=1'), {
      path: '/validate',
      rawQuery: 'x=1',
    });
    assert.deepEqual(parsed('http://[::1]:8080/metrics'), { path: '/metrics', rawQuery: '' });
    assert.deepEqual(parsed('http://user:pw@host'), { path: '/', rawQuery: '' });
    // Go's validOptionalPort checks digits, not the range: 99999 parses.
    assert.deepEqual(parsed('https://x:99999/validate'), { path: '/validate', rawQuery: '' });
    assert.match(refused('https://x:9a/validate'), /invalid port/);
    assert.match(refused('http://[::1/metrics'), /missing "\]"/);
    assert.match(refused('http://[::1]x/metrics'), /invalid port/);
    assert.match(refused('http://a b@host/'), /invalid userinfo/);
    assert.match(refused('http://h%zz/'), /escape in host/);
  });

  test('what Go refuses does not parse: empty, *, relative, opaque, no scheme before :, control bytes, bad escapes', () => {
    assert.match(refused(undefined), /empty/);
    assert.match(refused(''), /empty/);
    assert.match(refused('*'), /asterisk/);
    assert.match(refused('validate'), /invalid URI for request/);
    assert.match(refused('../etc/passwd'), /invalid URI for request/);
    assert.match(refused('mailto:x'), /opaque/);
    assert.match(refused(':/x'), /missing protocol scheme/);
    assert.match(refused('/a\u0000b'), /control character at offset 2/);
    assert.match(refused('/a\u007fb'), /control character/);
    assert.match(refused('/a\tb'), /control character/);
    assert.match(refused('/%'), /invalid URL escape at offset 1/);
    assert.match(refused('/a%z1'), /invalid URL escape at offset 2/);
    assert.match(refused('/a%1'), /invalid URL escape/);
  });

  test('never throws, whatever the string (every code unit below 0x300, lone surrogates)', () => {
    const chars: string[] = [];
    for (let c = 0; c < 0x300; c++) chars.push(String.fromCharCode(c));
    chars.push('\ud800', '\udfff', '🙂');
    for (const a of chars) {
      for (const prefix of ['/', '//', 'http://', '/%', '']) {
        const out = parseRequestTarget(`${prefix}${a}x`);
        assert.ok(typeof out === 'object' && out !== null);
      }
    }
  });

  test('quoteTarget cuts long targets for a log line', () => {
    assert.equal(quoteTarget('/x'), '"/x"');
    assert.equal(quoteTarget('/'.repeat(100)).length, 2 + 64 + 1);
  });
});
