// Fuzzing the in-memory API server's request handling (packages/testing/src/apiserver.ts) over real
// HTTP: random methods, paths (with `..`, `%00`, broken percent-escapes, non-ASCII),
// queries, content types and bodies (random JSON, invalid JSON, huge strings, odd
// Unicode). The server must answer every request, every failure must be a Kubernetes
// Status whose `code` is the HTTP code, nothing may fail inside the server unexpectedly,
// and the server must still serve normal requests afterwards. One server for the file.
// Grammar-built label and field selectors, query parameters of every list, watch and write
// option, content types with parameters, and patch bodies of the four patch types
// (JSON Patch operations, merge patches, strategic merge directives, apply YAML, alias
// bombs) are sent too. Each property runs for a fixed time with a printed seed; FUZZ_SEED
// replays, FUZZ_RUNS runs longer (test/support/fuzz_budget.ts).
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { LogFields, Logger } from '../../src/util/logger.js';
import { fuzz } from '../support/fuzz_budget.js';

const MAX_BODY = 64 * 1024;

interface Answer {
  code: number;
  headers: http.IncomingHttpHeaders;
  /** The body, or undefined when the answer was a stream (a watch) that the test closed. */
  body: string | undefined;
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** A logger that keeps the server's error lines (an unexpected exception logs one). */
function errorRecorder(): Logger & { errors: string[] } {
  const errors: string[] = [];
  const ignore = (): void => {};
  return {
    errors,
    debug: ignore,
    info: ignore,
    warn: ignore,
    error: (message: string, fields?: LogFields) => {
      errors.push(`${message} ${JSON.stringify(fields ?? {})}`);
    },
  };
}

describe('in-memory API server request fuzzing', () => {
  let server: TestApiServer;
  const logger = errorRecorder();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const port = (): number => Number(new URL(server.url).port);

  before(async () => {
    server = await startTestApiServer({
      logger,
      maxBodyBytes: MAX_BODY,
      tooLargeResourceVersionWaitMs: 5,
    });
    server.create('configmaps', { metadata: { name: 'seed', namespace: 'default' } });
  });
  after(async () => {
    agent.destroy();
    await server.close();
  });

  /** Sends one request; resolves with the answer, rejects if the connection fails. */
  function send(s: Sent): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...s.headers };
      if (s.body !== undefined) headers['Content-Length'] = String(s.body.length);
      const req = http.request({
        host: '127.0.0.1',
        port: port(),
        method: s.method,
        path: s.path,
        headers,
        agent,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const code = res.statusCode ?? 0;
        const length = res.headers['content-length'];
        if (code >= 200 && code < 300 && length === undefined) {
          // A stream (a watch): the answer is the headers; close it.
          res.destroy();
          req.destroy();
          resolve({ code, headers: res.headers, body: undefined });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ code, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.end(s.body);
    });
  }

  function assertAnswer(s: Sent, a: Answer): void {
    const what = `${s.method} ${s.path} → ${a.code}`;
    assert.ok(a.code >= 200 && a.code < 600, what);
    if (s.method === 'HEAD' || a.body === undefined) return;
    if (a.code >= 200 && a.code < 300) {
      if (String(a.headers['content-type']).startsWith('application/json')) {
        assert.doesNotThrow(() => JSON.parse(a.body as string), `${what}: 2xx body is not JSON`);
      }
      return;
    }
    let status: unknown;
    assert.doesNotThrow(
      () => {
        status = JSON.parse(a.body as string);
      },
      `${what}: the error body is not JSON: ${a.body.slice(0, 200)}`,
    );
    assert.ok(typeof status === 'object' && status !== null, what);
    const st = status as Record<string, unknown>;
    assert.equal(st.kind, 'Status', what);
    assert.equal(st.apiVersion, 'v1', what);
    assert.equal(st.status, 'Failure', what);
    assert.equal(st.code, a.code, `${what}: Status.code differs from the HTTP code`);
    assert.equal(typeof st.message, 'string', what);
    assert.equal(typeof st.reason, 'string', what);
  }

  // ---- generators ----------------------------------------------------------------------

  // Characters Node.js lets a client put in a request path as they are (0x21–0xFF).
  const rawPathChar = fc
    .integer({ min: 0x21, max: 0xff })
    .filter((c) => c !== 0x3f /* ? */ && c !== 0x23 /* # */ && c !== 0x2f /* / */)
    .map((c) => String.fromCharCode(c));

  const segmentArb = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'api',
        'apis',
        'v1',
        'v2',
        'apps',
        'coordination.k8s.io',
        'apiextensions.k8s.io',
        'namespaces',
        'default',
        'kube-system',
        'nope',
        'pods',
        'configmaps',
        'secrets',
        'deployments',
        'leases',
        'customresourcedefinitions',
        'status',
        'scale',
        'watch',
        'seed',
        'openapi',
        'v3',
        'version',
        'healthz',
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '',
        '%00',
        '%2F',
        '%2e%2e',
        '%',
        '%E0%A4%A',
        '%ZZ',
        '%C3%A9',
        '%F0%9F%99%82',
        '%FF%FE',
        '%ED%A0%80',
        'a%00b',
        '~',
        'x'.repeat(300),
      ),
    },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.string({ unit: rawPathChar, minLength: 1, maxLength: 4 }) },
  );

  const queryValueArb = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '1',
      '-1',
      'true',
      'false',
      '99999999999999999999',
      'NaN',
      '1e3',
      'All',
      'Exact',
      'NotOlderThan',
      'Foreground',
      'app=web',
      'app in (a,b',
      'metadata.name=seed',
      'metadata.name=\\x',
      'spec.nope=1',
      '!!',
      'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0',
      'not-base64!',
    ),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );

  const queryArb = fc
    .array(
      fc.tuple(
        fc.constantFrom(
          'watch',
          'resourceVersion',
          'resourceVersionMatch',
          'limit',
          'continue',
          'labelSelector',
          'fieldSelector',
          'timeoutSeconds',
          'allowWatchBookmarks',
          'sendInitialEvents',
          'dryRun',
          'fieldManager',
          'force',
          'propagationPolicy',
          'gracePeriodSeconds',
          'pretty',
          'x',
        ),
        queryValueArb,
      ),
      { maxLength: 5 },
    )
    .map((pairs) =>
      pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
    );

  const weirdString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom('\u0000', '\ud800', '\u202e', '🙂'.repeat(50), 'ǅ', '\uffff', '../..'),
    fc.nat({ max: 50_000 }).map((n) => 'x'.repeat(n)),
  );

  // Bodies shaped like objects, so that some reach validation and storage.
  const objectBodyArb = fc
    .record(
      {
        apiVersion: fc.constantFrom('v1', 'apps/v1', 'x/v9', ''),
        kind: fc.constantFrom('ConfigMap', 'Pod', 'Namespace', 'Status', 'Nope'),
        metadata: fc.record(
          {
            name: fc.oneof(fc.constantFrom('seed', 'fuzz', 'a.b', 'A', ''), weirdString),
            namespace: fc.oneof(fc.constantFrom('default', 'other'), weirdString),
            resourceVersion: fc.oneof(fc.constantFrom('1', '0', 'abc'), fc.nat().map(String)),
            labels: fc.dictionary(weirdString, fc.oneof(weirdString, fc.integer())),
            finalizers: fc.array(fc.oneof(weirdString, fc.integer())),
            generateName: fc.constantFrom('gen-', ''),
          },
          { requiredKeys: [] },
        ),
        data: fc.oneof(fc.dictionary(weirdString, weirdString), fc.jsonValue()),
        spec: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o));

  // Bodies that are valid objects, with odd data, so that writes succeed too.
  const validBodyArb = fc
    .record({
      name: fc.constantFrom('seed', 'fuzz', 'a.b', 'default', 'fuzz-2'),
      data: fc.dictionary(fc.constantFrom('a', 'b.c', '_x'), weirdString, { maxKeys: 3 }),
      labels: fc.dictionary(fc.constantFrom('app', 'tier'), fc.constantFrom('web', 'db', '')),
    })
    .map(({ name, data, labels }) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data }),
    );

  const bodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
    fc.constant(undefined),
    validBodyArb.map((s) => Buffer.from(s)),
    validBodyArb.map((s) => Buffer.from(s)),
    objectBodyArb.map((s) => Buffer.from(s)),
    fc.json().map((s) => Buffer.from(s)),
    fc.string({ unit: 'binary', maxLength: 60 }).map((s) => Buffer.from(s)),
    fc
      .constantFrom('{', '{"metadata":', '[]', 'null', '', '\u0000', '{"a":1}{"b":2}')
      .map((s) => Buffer.from(s)),
    fc.uint8Array({ maxLength: 100 }).map((a) => Buffer.from(a)),
    fc
      .constantFrom(MAX_BODY - 1, MAX_BODY + 1, 4 * MAX_BODY)
      .map((n) => Buffer.from(`{"metadata":{"name":"big"},"data":{"x":"${'y'.repeat(n)}"}}`)),
    // A JSON Patch and a merge patch, valid and not.
    fc
      .constantFrom(
        '[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]',
        '[{"op":"remove","path":"/nope"}]',
        '[{"op":"move","from":"/a","path":"/a/b"}]',
        '[{"op":"test","path":"/metadata/name","value":"seed"}]',
        '[{"op":"replace","path":"/metadata/name","value":"other"}]',
        '[{"op":"add","path":"/__proto__/x","value":1}]',
        '{"metadata":{"labels":{"a":null}}}',
        '{"metadata":null}',
        '{"__proto__":{"polluted":true}}',
      )
      .map((s) => Buffer.from(s)),
  );

  /** Mostly the names a real path would use, sometimes a hostile segment. */
  const nameOr = (...names: string[]): fc.Arbitrary<string> =>
    fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...names) }, segmentArb);

  // Resources the server serves, with their group/version prefix and scope.
  const resources: readonly { prefix: string[]; resource: string; namespaced: boolean }[] = [
    { prefix: ['api', 'v1'], resource: 'configmaps', namespaced: true },
    { prefix: ['api', 'v1'], resource: 'pods', namespaced: true },
    { prefix: ['api', 'v1'], resource: 'secrets', namespaced: true },
    { prefix: ['api', 'v1'], resource: 'namespaces', namespaced: false },
    { prefix: ['apis', 'apps', 'v1'], resource: 'deployments', namespaced: true },
    { prefix: ['apis', 'coordination.k8s.io', 'v1'], resource: 'leases', namespaced: true },
    {
      prefix: ['apis', 'apiextensions.k8s.io', 'v1'],
      resource: 'customresourcedefinitions',
      namespaced: false,
    },
  ];

  // Paths shaped like the API's (group/version, namespace, resource, name, subresource)
  // with a hostile segment now and then, and paths of random segments.
  const segmentsArb: fc.Arbitrary<string[]> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .record({
          r: fc.constantFrom(...resources),
          watch: fc.boolean(),
          allNamespaces: fc.boolean(),
          namespace: nameOr('default', 'default', 'kube-system', 'nope'),
          resource: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, segmentArb),
          name: fc.option(nameOr('seed', 'fuzz', 'default', 'a.b'), { nil: undefined }),
          sub: fc.oneof(
            { weight: 3, arbitrary: fc.constant(undefined) },
            nameOr('status', 'scale'),
          ),
        })
        .map(({ r, watch, allNamespaces, namespace, resource, name, sub }) => [
          ...r.prefix,
          ...(watch && name === undefined ? ['watch'] : []),
          ...(r.namespaced && !allNamespaces ? ['namespaces', namespace] : []),
          resource ?? r.resource,
          ...(name === undefined ? [] : [name]),
          ...(name === undefined || sub === undefined ? [] : [sub]),
        ]),
    },
    { weight: 1, arbitrary: fc.array(segmentArb, { maxLength: 7 }) },
  );

  // Writes that should mostly succeed: ConfigMaps in `default` with valid or near-valid
  // bodies, so that the fuzzing also runs through storage, patching and watches.
  const configMapSentArb: fc.Arbitrary<Sent> = fc
    .record({
      method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET'),
      name: fc.constantFrom('seed', 'fuzz', 'a.b', 'fuzz-2'),
      body: validBodyArb,
      patchType: fc.constantFrom(
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/apply-patch+yaml',
      ),
      query: queryArb,
    })
    .map(({ method, name, body, patchType, query }) => {
      const base = '/api/v1/namespaces/default/configmaps';
      const path = (method === 'POST' ? base : `${base}/${name}`) + (query ? `?${query}` : '');
      const fixed = body.replace(/"name":"[^"]*"/, `"name":${JSON.stringify(name)}`);
      const headers: Record<string, string> = {
        'Content-Type': method === 'PATCH' ? patchType : 'application/json',
      };
      if (patchType.endsWith('yaml')) headers['Content-Type'] = patchType;
      return {
        method,
        path:
          patchType.endsWith('yaml') && method === 'PATCH'
            ? `${path}${query ? '&' : '?'}fieldManager=fuzz`
            : path,
        headers,
        body: method === 'GET' || method === 'DELETE' ? undefined : Buffer.from(fixed),
      };
    });

  const randomSentArb: fc.Arbitrary<Sent> = fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
      segments: segmentsArb,
      trailingSlash: fc.boolean(),
      query: queryArb,
      contentType: fc.option(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'application/merge-patch+json',
          'application/json-patch+json',
          'application/strategic-merge-patch+json',
          'application/apply-patch+yaml',
          'text/plain',
          'application/x-www-form-urlencoded',
        ),
        { nil: undefined },
      ),
      accept: fc.option(
        fc.constantFrom(
          'application/json',
          'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
          'application/json;as=Table;g=meta.k8s.io;v=v1',
          'application/yaml',
          '*/*',
        ),
        { nil: undefined },
      ),
      body: bodyArb,
    })
    .map(({ method, segments, trailingSlash, query, contentType, accept, body }) => {
      let path = '/' + segments.join('/') + (trailingSlash ? '/' : '');
      if (query !== '') path += `?${query}`;
      const headers: Record<string, string> = {};
      if (contentType !== undefined) headers['Content-Type'] = contentType;
      if (accept !== undefined) headers.Accept = accept;
      return { method, path, headers, body: method === 'HEAD' ? undefined : body };
    });

  const sentArb: fc.Arbitrary<Sent> = fc.oneof(
    { weight: 4, arbitrary: randomSentArb },
    { weight: 1, arbitrary: configMapSentArb },
  );

  // ---- properties ------------------------------------------------------------------------

  test('every random request gets an answer; every failure is a Status whose code is the HTTP code', async (t) => {
    const codes = new Map<number, number>();
    await fuzz(
      t,
      fc.asyncProperty(sentArb, async (s) => {
        const a = await send(s);
        codes.set(a.code, (codes.get(a.code) ?? 0) + 1);
        assertAnswer(s, a);
      }),
      { timeMs: 5000 },
    );
    // The generator reaches both success and several kinds of failure.
    assert.ok(
      [...codes.keys()].some((c) => c < 300),
      JSON.stringify([...codes]),
    );
    assert.ok([...codes.keys()].filter((c) => c >= 400).length >= 4, JSON.stringify([...codes]));
  });

  // ---- selectors, query parameters, content types and patch bodies ----------------------

  const labelKeyArb = fc.oneof(
    fc.constantFrom('app', 'tier', 'example.com/team', 'a.b/c', 'x'),
    fc.constantFrom('', '-a', 'a-', 'a/b/c', '/a', 'example.com/', 'A'.repeat(64), 'a b', 'é'),
  );
  const labelValueArb = fc.oneof(
    fc.constantFrom('web', 'db', '', 'a.b_c-d', 'v1'),
    fc.constantFrom('-x', 'x-', 'v'.repeat(64), 'a b', 'a,b', '(', ')', '!', 'é'),
  );
  const labelTermArb = fc.oneof(
    fc
      .tuple(labelKeyArb, fc.constantFrom('=', '==', '!='), labelValueArb)
      .map(([k, o, v]) => `${k}${o}${v}`),
    fc
      .tuple(
        labelKeyArb,
        fc.constantFrom(' in ', ' notin ', ' in', 'in '),
        fc.array(labelValueArb, { maxLength: 3 }),
      )
      .map(([k, o, vs]) => `${k}${o}(${vs.join(',')})`),
    labelKeyArb,
    labelKeyArb.map((k) => `!${k}`),
    fc.constantFrom(
      'app in (a',
      'app in a,b)',
      '=x',
      '!=',
      'app==',
      'app=a=b',
      '!!app',
      ',,',
      ' ',
      'app notin ()',
    ),
  );
  const labelSelectorArb = fc
    .array(labelTermArb, { minLength: 1, maxLength: 4 })
    .map((ts) => ts.join(','));

  const fieldValueArb = fc.oneof(
    fc.constantFrom('seed', 'default', '', 'fuzz', 'a\\,b', 'a\\=b', 'a\\\\b'),
    fc.constantFrom('\\', '\\x', 'a\\', ',', '=', 'é'),
  );
  const fieldSelectorArb = fc
    .array(
      fc
        .tuple(
          fc.constantFrom(
            'metadata.name',
            'metadata.namespace',
            'spec.nodeName',
            'status.phase',
            'data.a',
            'nope',
            '',
            'metadata.name.x',
          ),
          fc.constantFrom('=', '==', '!=', ' = ', '=='),
          fieldValueArb,
        )
        .map(([k, o, v]) => `${k}${o}${v}`),
      { minLength: 1, maxLength: 3 },
    )
    .map((ts) => ts.join(','));

  const optionQueryArb = fc
    .array(
      fc.oneof(
        labelSelectorArb.map((v) => ['labelSelector', v] as const),
        fieldSelectorArb.map((v) => ['fieldSelector', v] as const),
        fc.tuple(
          fc.constant('limit'),
          fc.constantFrom('0', '1', '2', '-1', '500', '9007199254740993', 'x', ''),
        ),
        fc.tuple(
          fc.constant('resourceVersion'),
          fc.constantFrom('', '0', '1', '999999999', 'abc', '-1', '1.5'),
        ),
        fc.tuple(
          fc.constant('resourceVersionMatch'),
          fc.constantFrom('Exact', 'NotOlderThan', 'exact', '', 'x'),
        ),
        fc.tuple(
          fc.constant('continue'),
          fc.constantFrom(
            '',
            'x',
            'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0',
            'eyJ2IjoiYSJ9',
            '%%%',
          ),
        ),
        fc.tuple(fc.constant('timeoutSeconds'), fc.constantFrom('0', '1', '-5', '1e9', 'x')),
        fc.tuple(fc.constant('watch'), fc.constantFrom('true', 'false', '1', '0', 'yes', '')),
        fc.tuple(fc.constant('allowWatchBookmarks'), fc.constantFrom('true', 'x')),
        fc.tuple(fc.constant('sendInitialEvents'), fc.constantFrom('true', 'false', 'x')),
        fc.tuple(
          fc.constant('fieldValidation'),
          fc.constantFrom('Strict', 'Warn', 'Ignore', 'strict', 'x'),
        ),
        fc.tuple(fc.constant('fieldManager'), fc.constantFrom('fuzz', '', 'x'.repeat(200), 'é')),
        fc.tuple(fc.constant('force'), fc.constantFrom('true', 'false', 'x')),
        fc.tuple(fc.constant('dryRun'), fc.constantFrom('All', 'all', '', 'x')),
        fc.tuple(
          fc.constant('propagationPolicy'),
          fc.constantFrom('Orphan', 'Background', 'Foreground', 'x'),
        ),
        fc.tuple(fc.constant('gracePeriodSeconds'), fc.constantFrom('0', '-1', 'x')),
        fc.tuple(fc.constant('orphanDependents'), fc.constantFrom('true', 'x')),
        fc.tuple(
          fc.constant('shardSelector'),
          fc.constantFrom("shardRange(object.metadata.uid, '0x0', '0x8')", 'shardRange(', 'x'),
        ),
        fc.tuple(
          fc.constantFrom('x', 'labelselector', '', '%ZZ'),
          fc.string({ unit: 'binary', maxLength: 8 }),
        ),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
    );

  const jsonPointerArb = fc.constantFrom(
    '/metadata/labels',
    '/metadata/labels/a',
    '/metadata/annotations/a~1b',
    '/metadata/name',
    '/metadata/finalizers/-',
    '/metadata/finalizers/0',
    '/data',
    '/data/x',
    '/data/~2',
    '/spec/replicas',
    '/spec/template/spec/containers/0/image',
    '',
    '/',
    'data',
    '/a/b/c/d',
    '/data/__proto__',
    '/metadata/labels/99999999999',
  );
  const patchValueArb = fc.oneof(
    fc.constantFrom<unknown>('b', 1, null, true, { a: 'b' }, ['x'], {}, [], 'x'.repeat(2000)),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const jsonPatchArb = fc
    .array(
      fc.record(
        {
          op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'),
          path: jsonPointerArb,
          from: jsonPointerArb,
          value: patchValueArb,
        },
        { requiredKeys: ['op'] },
      ),
      { maxLength: 5 },
    )
    .map((ops) => JSON.stringify(ops));
  const mergePatchArb = fc
    .record(
      {
        metadata: fc.record(
          {
            labels: fc.dictionary(
              fc.constantFrom('a', 'b', 'app', ''),
              fc.oneof(fc.constant(null), labelValueArb),
            ),
            name: fc.constantFrom('seed', 'other', null),
            resourceVersion: fc.constantFrom('1', 'x', null),
            finalizers: fc.constantFrom(null, ['a/b'], ['x y']),
          },
          { requiredKeys: [] },
        ),
        data: fc.oneof(
          fc.constant(null),
          fc.dictionary(
            fc.constantFrom('a', 'b.c', '__proto__'),
            fc.oneof(fc.constant(null), fc.string({ maxLength: 5 })),
          ),
        ),
        spec: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o));
  const strategicPatchArb = fc
    .record(
      {
        $patch: fc.constantFrom('replace', 'delete', 'merge', 'bogus'),
        $retainKeys: fc.constantFrom(['data'], 'x', [1]),
        metadata: fc.record(
          {
            labels: fc.dictionary(
              fc.constantFrom('a', '$patch'),
              fc.constantFrom('b', null, 'delete'),
            ),
            finalizers: fc.constantFrom(['a/b'], null),
            '$setElementOrder/finalizers': fc.constantFrom(['a/b'], 'x', [{}]),
            '$deleteFromPrimitiveList/finalizers': fc.constantFrom(['a/b'], 'x'),
          },
          { requiredKeys: [] },
        ),
        spec: fc.record(
          {
            template: fc.constant({
              spec: { containers: [{ name: 'app', image: 'x', $patch: 'delete' }] },
            }),
            replicas: fc.constantFrom(1, -1, 'x', null),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o));
  const applyYamlArb = fc.constantFrom(
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seed\n  namespace: default\ndata:\n  a: b\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata: {x: "1"}\n',
    'apiVersion: v1\nkind: Pod\nmetadata:\n  name: seed\n',
    'kind: ConfigMap\nmetadata: {name: seed}\n',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"seed"},"data":{"j":"son"}}',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seed\n  labels: [a, b]\n',
    ': : :\n\t- x',
    '---\napiVersion: v1\n---\nkind: ConfigMap\n',
    '!!binary aGVsbG8=',
    '&a [*a]',
    // An alias bomb ("billion laughs"): must be refused, not expanded.
    [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: seed}',
      'data: {x: *g}',
    ].join('\n'),
  );

  const patchTypes = {
    json: 'application/json-patch+json',
    merge: 'application/merge-patch+json',
    strategic: 'application/strategic-merge-patch+json',
    apply: 'application/apply-patch+yaml',
  } as const;

  const patchSentArb: fc.Arbitrary<Sent> = fc
    .record({
      kind: fc.constantFrom<keyof typeof patchTypes>('json', 'merge', 'strategic', 'apply'),
      // The body of one patch type under the content type of another, now and then.
      mismatched: fc.nat({ max: 4 }).map((n) => n === 0),
      target: fc.constantFrom(
        '/api/v1/namespaces/default/configmaps/seed',
        '/api/v1/namespaces/default/configmaps/nope',
        '/apis/apps/v1/namespaces/default/deployments/seed',
        '/api/v1/namespaces/default/configmaps/seed/status',
        '/api/v1/namespaces/default',
      ),
      query: optionQueryArb,
      json: jsonPatchArb,
      merge: mergePatchArb,
      strategic: strategicPatchArb,
      apply: applyYamlArb,
      charset: fc.constantFrom('', '; charset=utf-8', '; charset=latin1', ';;'),
    })
    .map(({ kind, mismatched, target, query, json, merge, strategic, apply, charset }) => {
      const bodies = { json, merge, strategic, apply };
      const contentKind: keyof typeof patchTypes = mismatched
        ? kind === 'json'
          ? 'merge'
          : 'json'
        : kind;
      const q = kind === 'apply' ? `fieldManager=fuzz${query ? `&${query}` : ''}` : query;
      return {
        method: 'PATCH',
        path: `${target}${q ? `?${q}` : ''}`,
        headers: { 'Content-Type': patchTypes[contentKind] + charset },
        body: Buffer.from(bodies[kind]),
      };
    });

  const listSentArb: fc.Arbitrary<Sent> = fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'DELETE'),
      target: fc.constantFrom(
        '/api/v1/namespaces/default/configmaps',
        '/api/v1/configmaps',
        '/api/v1/pods',
        '/api/v1/namespaces',
        '/apis/apps/v1/namespaces/default/deployments',
        '/api/v1/watch/namespaces/default/configmaps',
      ),
      query: optionQueryArb,
      accept: fc.constantFrom(
        'application/json',
        'application/json;as=Table;v=v1;g=meta.k8s.io',
        'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
        'application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io',
        'application/json;as=Nope;v=v1;g=meta.k8s.io',
        'application/json;stream=watch',
        'application/vnd.kubernetes.protobuf;stream=watch',
        'text/plain',
      ),
    })
    .map(({ method, target, query, accept }) => ({
      method,
      path: `${target}${query ? `?${query}` : ''}`,
      headers: { Accept: accept },
      body: undefined,
    }));

  const createSentArb: fc.Arbitrary<Sent> = fc
    .record({
      contentType: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'Application/Json',
        'application/json;charset=UTF-8;x=y',
        'application/yaml',
        'application/vnd.kubernetes.protobuf',
        'application/json-patch+json',
        'text/json',
        'application/json;',
      ),
      query: optionQueryArb,
      body: fc.oneof(validBodyArb, objectBodyArb, applyYamlArb),
    })
    .map(({ contentType, query, body }) => ({
      method: 'POST',
      path: `/api/v1/namespaces/default/configmaps${query ? `?${query}` : ''}`,
      headers: { 'Content-Type': contentType },
      body: Buffer.from(body),
    }));

  test('selectors, query parameters, content types and patch bodies of every patch type: every request answered, every failure a Status', async (t) => {
    const codes = new Map<number, number>();
    await fuzz(
      t,
      fc.asyncProperty(fc.oneof(patchSentArb, listSentArb, createSentArb), async (s) => {
        const a = await send(s);
        codes.set(a.code, (codes.get(a.code) ?? 0) + 1);
        assertAnswer(s, a);
        // A malformed selector or patch is the client's fault: never a 5xx. The one 5xx
        // kube-apiserver gives here is its answer to a resourceVersion ahead of the
        // store: 504 Timeout (ResourceVersionTooLarge) once it has waited for it.
        const tooLargeRV = a.code === 504 && (a.body ?? '').includes('Too large resource version');
        assert.ok(
          a.code < 500 || tooLargeRV,
          `${s.method} ${s.path} → ${a.code}: ${a.body?.slice(0, 300)}`,
        );
      }),
      { timeMs: 5000 },
    );
    t.diagnostic(`answers by code: ${JSON.stringify([...codes].sort((a, b) => a[0] - b[0]))}`);
    assert.ok(
      [...codes.keys()].some((c) => c < 300),
      JSON.stringify([...codes]),
    );
  });

  test('nothing failed inside the server: no request reached the unexpected-exception path', () => {
    assert.deepEqual(logger.errors, []);
  });

  test('regression: broken percent-escapes, %00, `//`, raw non-ASCII bytes and targets that are not URLs are answered with a Status, not an internal error or a hang-up', async () => {
    const malformed = [
      '/api/v1/namespaces/%E0%A4%A/configmaps',
      '/api/v1/namespaces/default/configmaps/%',
      '/apis/%ZZ',
      '//%/x',
      '/api/\u00e9\u0090',
      'http://[x/api/v1/pods', // an absolute-form target that is not a URL
    ];
    const odd = [
      '/api/v1/namespaces/a%00b/configmaps',
      '/api/v1/namespaces/default/configmaps/..',
      '/api/v1/namespaces/%2e%2e/configmaps',
      '//api/v1/namespaces/default/configmaps',
    ];
    for (const path of [...malformed, ...odd]) {
      for (const method of ['GET', 'DELETE', 'PUT', 'HEAD']) {
        const s: Sent = { method, path, headers: {}, body: undefined };
        const a = await send(s);
        assertAnswer(s, a);
        assert.ok(a.code < 500, `${method} ${path} → ${a.code}`);
        if (malformed.includes(path)) assert.equal(a.code, 400, `${method} ${path}`);
      }
    }
    assert.deepEqual(logger.errors, []);
  });

  test('after the fuzzing the server still lists, creates and reads objects normally', async () => {
    const list = await send({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      headers: {},
      body: undefined,
    });
    assert.equal(list.code, 200);
    const parsed = JSON.parse(list.body ?? '') as { kind: string; items: unknown[] };
    assert.equal(parsed.kind, 'ConfigMapList');
    assert.ok(Array.isArray(parsed.items));
    const json = { 'Content-Type': 'application/json' };
    const ns = await send({
      method: 'POST',
      path: '/api/v1/namespaces',
      headers: json,
      body: Buffer.from('{"metadata":{"name":"after-fuzz"}}'),
    });
    assert.equal(ns.code, 201, ns.body);
    const created = await send({
      method: 'POST',
      path: '/api/v1/namespaces/after-fuzz/configmaps',
      headers: json,
      body: Buffer.from('{"metadata":{"name":"ok"},"data":{"a":"b"}}'),
    });
    assert.equal(created.code, 201, created.body);
    const read = await send({
      method: 'GET',
      path: '/api/v1/namespaces/after-fuzz/configmaps/ok',
      headers: {},
      body: undefined,
    });
    assert.equal(read.code, 200);
    assert.deepEqual((JSON.parse(read.body ?? '') as { data: unknown }).data, { a: 'b' });
    // Object.prototype was not polluted by any `__proto__` body.
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});
