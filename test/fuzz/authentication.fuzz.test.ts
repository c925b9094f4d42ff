// Fuzzing the test API server's credential and header parsing: any Authorization header,
// any JWT-shaped or arbitrary token, any impersonation headers and any request path is
// either accepted as the user it names or refused (401/403, never an exception), and a
// token the server issued survives only unaltered.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Authenticator, bearerToken } from '../../packages/testing/src/authentication.js';
import {
  alwaysAllow,
  requestAttributes,
  withPrivilegedGroup,
} from '../../packages/testing/src/authorization.js';
import { impersonate, impersonationHeaders } from '../../packages/testing/src/impersonation.js';
import {
  ServiceAccountTokens,
  decodeJwt,
} from '../../packages/testing/src/service_account_tokens.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { FakeClock } from '../../src/util/clock.js';

const RUNS = 500;

const clock = new FakeClock();
const serviceAccount: UnstructuredObject = {
  metadata: { name: 'bot', namespace: 'ops', uid: 'u-1' },
};
const tokens = new ServiceAccountTokens(clock, (resource, ns, name) =>
  resource === 'serviceaccounts' && ns === 'ops' && name === 'bot' ? serviceAccount : undefined,
);
const issued = tokens.issue('ops', 'bot').token;

function request(headers: Record<string, string>): IncomingMessage {
  return { headers, socket: {} } as unknown as IncomingMessage;
}

const b64url = fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/);
const jwtLike = fc.tuple(b64url, b64url, b64url).map((p) => p.join('.'));
const tokenArb = fc.oneof(jwtLike, fc.string({ unit: 'binary', maxLength: 60 }), fc.constant(''));

describe('fuzz: credentials and headers of the test API server', () => {
  test('bearerToken never throws; it yields a token without spaces or nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (header) => {
        const t = bearerToken(header);
        assert.ok(t === undefined || (t !== '' && !t.includes(' ')));
      }),
      { numRuns: RUNS },
    );
  });

  test('an arbitrary or JWT-shaped token is never a user, and never throws', () => {
    const auth = new Authenticator(undefined);
    auth.useServiceAccountTokens((t, aud) => tokens.authenticate(t, aud));
    fc.assert(
      fc.property(tokenArb, (token) => {
        assert.equal(auth.token(token), undefined);
        // A Bearer header with an empty token counts as no token (anonymous), as in
        // kube-apiserver; any other token the server did not issue is refused.
        const header = `Bearer ${token}`;
        const expected = bearerToken(header) === undefined ? 'system:anonymous' : 'refused';
        assert.equal(
          auth.authenticate(request({ authorization: header }))?.username ?? 'refused',
          expected,
        );
      }),
      { numRuns: RUNS },
    );
  });

  test('a server-issued token is accepted whole, and refused with any one character changed', () => {
    assert.equal(tokens.authenticate(issued)?.username, 'system:serviceaccount:ops:bot');
    fc.assert(
      fc.property(fc.nat({ max: issued.length - 1 }), fc.constantFrom(...'AQgw_-.x'), (at, c) => {
        fc.pre(issued[at] !== c);
        const changed = `${issued.slice(0, at)}${c}${issued.slice(at + 1)}`;
        // A changed base64url character may decode to the same bytes (unused trailing
        // bits of the last character): then the token is the same token.
        const same =
          decodeJwt(changed)?.signed === decodeJwt(issued)?.signed &&
          decodeJwt(changed)?.signature.equals(decodeJwt(issued)!.signature) === true;
        assert.equal(tokens.authenticate(changed) !== undefined, same);
      }),
      { numRuns: RUNS },
    );
  });

  test('impersonation headers of any shape are parsed and decided without throwing', () => {
    const authorizer = withPrivilegedGroup(alwaysAllow);
    const header = fc.string({ unit: 'binary', maxLength: 30 });
    fc.assert(
      fc.property(
        fc.option(header),
        fc.array(header, { maxLength: 3 }),
        fc.option(header),
        fc.dictionary(fc.stringMatching(/^[a-z0-9%-]{1,12}$/), header, { maxKeys: 2 }),
        (user, groups, uid, extra) => {
          const headers: Record<string, string | string[]> = {};
          if (user !== null) headers['impersonate-user'] = user;
          if (groups.length > 0) headers['impersonate-group'] = groups;
          if (uid !== null) headers['impersonate-uid'] = uid;
          for (const [k, v] of Object.entries(extra)) headers[`impersonate-extra-${k}`] = v;
          const asked = impersonationHeaders(headers);
          if (asked === undefined) return;
          const out = impersonate(
            { username: 'admin', groups: ['system:masters'] },
            asked,
            authorizer,
            '/',
          );
          if ('user' in out) {
            assert.equal(out.user.username, asked.user);
            assert.ok(
              out.user.groups.includes('system:authenticated') ||
                out.user.groups.includes('system:unauthenticated'),
            );
          } else {
            assert.ok(out.status.code === 500 || out.status.code === 403);
          }
          // Every extra key asked for is an own key of the request, whatever its name
          // (keys with a %-escape are decoded first).
          for (const k of Object.keys(extra).filter((x) => !x.includes('%'))) {
            assert.ok(Object.hasOwn(asked.extra, k), k);
          }
        },
      ),
      {
        numRuns: RUNS,
        // Found by this property: an extra key named like an Object.prototype member threw.
        examples: [
          [null, [], null, { constructor: '' }],
          ['u', [], null, JSON.parse('{"__proto__":"x","tostring":"y"}') as Record<string, string>],
        ],
      },
    );
  });

  test('request attributes of any path and method are well formed', () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'api',
        'apis',
        'v1',
        'namespaces',
        'ns',
        'pods',
        'watch',
        'proxy',
        'status',
        'apps',
      ),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 8 }),
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
        fc.string({ maxLength: 30 }),
        (segments, method, query) => {
          const path = `/${segments.join('/')}`;
          const a = requestAttributes(
            { username: 'u', groups: [] },
            method,
            path,
            new URLSearchParams(query),
          );
          if (a.resourceRequest) {
            assert.ok(['api', 'apis'].includes(path.split('/').filter((s) => s !== '')[0] ?? ''));
          } else {
            assert.equal(a.verb, method.toLowerCase());
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
