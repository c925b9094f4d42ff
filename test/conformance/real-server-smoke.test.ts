// Smoke test of scripts/real-apiserver.sh: a real apiextensions-apiserver on etcd answers
// the way the conformance suite will rely on (client-certificate auth, CRDs, custom
// resources, paging, watch, 410 after compaction).
// Which server: see servers.ts (REAL_APISERVER_KUBECONFIG; or, with REAL_APISERVER=1, a
// private instance when built; else a skip; REAL_APISERVER_REQUIRED=1 makes a skip fail).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { acquireRealServer } from './servers.js';
import type { RealServer, RealServerHandle } from './servers.js';

type Server = RealServer;

interface Response {
  status: number;
  body: string;
}

function call(
  server: Server,
  method: string,
  path: string,
  body?: unknown,
  withClientCert = true,
  patch: 'merge' | 'json' = 'merge',
): Promise<Response> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      new URL(path, server.url),
      {
        method,
        ca: server.ca,
        ...(withClientCert ? { cert: server.cert, key: server.key } : {}),
        agent: false,
        headers: {
          accept: 'application/json',
          'content-type':
            method === 'PATCH' ? `application/${patch}-patch+json` : 'application/json',
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: data }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Reads a watch stream until `until` holds for the events seen so far, then closes it. */
function watchUntil(
  server: Server,
  path: string,
  until: (events: { type: string; object: Record<string, unknown> }[]) => boolean,
): Promise<{ type: string; object: Record<string, unknown> }[]> {
  return new Promise((resolvePromise, reject) => {
    const events: { type: string; object: Record<string, unknown> }[] = [];
    const req = request(
      new URL(path, server.url),
      { ca: server.ca, cert: server.cert, key: server.key, agent: false },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim() === '') continue;
            events.push(JSON.parse(line) as { type: string; object: Record<string, unknown> });
            if (until(events)) {
              req.destroy();
              resolvePromise(events);
              return;
            }
          }
        });
        res.on('end', () => resolvePromise(events));
        res.on('error', () => undefined);
      },
    );
    req.on('error', (err) => (until(events) ? resolvePromise(events) : reject(err)));
    req.end();
  });
}

// A group of its own per run, so a shared server keeps no state between runs.
const group = `smoke-${process.pid}-${Date.now()}.kube-controller-kit.dev`;
const crdName = `widgets.${group}`;
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
        subresources: { status: {} },
      },
    ],
  },
};
const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
const widget = (name: string, size: number) => ({
  apiVersion: `${group}/v1`,
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec: { size },
});

let handle: RealServerHandle | undefined;
let server: Server | undefined;
let skipReason: string | undefined;

before(async () => {
  handle = await acquireRealServer('real-server smoke test');
  server = handle.server;
  skipReason = handle.skipReason;
});

after(async () => {
  // On a server we did not start, leave nothing behind; a private one is simply stopped.
  if (server && process.env['REAL_APISERVER_KUBECONFIG']) {
    await call(
      server,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
    );
  }
  await handle?.release();
});

function need(t: { skip: (msg: string) => void }): Server | undefined {
  if (!server) t.skip(skipReason ?? 'real apiserver unavailable');
  return server;
}

describe('real apiextensions-apiserver (scripts/real-apiserver.sh)', () => {
  test('serves apiextensions.k8s.io/v1 to a client certificate in group system:masters', async (t) => {
    const s = need(t);
    if (!s) return;
    const res = await call(s, 'GET', '/apis/apiextensions.k8s.io/v1');
    assert.equal(res.status, 200, res.body);
    const list = JSON.parse(res.body) as { resources: { name: string }[] };
    assert.ok(list.resources.some((r) => r.name === 'customresourcedefinitions'));
  });

  test('refuses a request without a client certificate (not 2xx)', async (t) => {
    const s = need(t);
    if (!s) return;
    // system:anonymous goes to the delegated authorizer, which asks this same server for a
    // SubjectAccessReview it does not serve: 500 here, where kube-apiserver would say 403.
    const res = await call(s, 'GET', '/apis/apiextensions.k8s.io/v1', undefined, false);
    assert.ok(res.status >= 400, `status ${res.status}: ${res.body}`);
  });

  test('a created CRD becomes Established, serves custom resources, pages and watches', async (t) => {
    const s = need(t);
    if (!s) return;
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const created = await call(s, 'POST', crds, crd);
    assert.equal(created.status, 201, created.body);
    const rv = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata
      .resourceVersion;
    // Established arrives as a watch event on the CRD itself.
    await watchUntil(
      s,
      `${crds}?watch=1&fieldSelector=metadata.name%3D${crdName}&resourceVersion=${rv}`,
      (evs) =>
        evs.some((e) =>
          (
            (e.object['status'] as { conditions?: { type: string; status: string }[] } | undefined)
              ?.conditions ?? []
          ).some((c) => c.type === 'Established' && c.status === 'True'),
        ),
    );
    // The custom resource endpoint may lag Established by a moment: retry on 404 only.
    let first: Response;
    for (let i = 0; ; i++) {
      first = await call(s, 'POST', widgets, widget('w0', 0));
      if (first.status !== 404 || i > 50) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(first.status, 201, first.body);
    for (let i = 1; i < 5; i++) {
      const res = await call(s, 'POST', widgets, widget(`w${i}`, i));
      assert.equal(res.status, 201, res.body);
    }

    const page = await call(s, 'GET', `${widgets}?limit=2`);
    assert.equal(page.status, 200, page.body);
    const p1 = JSON.parse(page.body) as {
      items: unknown[];
      metadata: { continue?: string; remainingItemCount?: number; resourceVersion: string };
    };
    assert.equal(p1.items.length, 2);
    assert.equal(p1.metadata.remainingItemCount, 3);
    assert.ok(p1.metadata.continue);

    // A watch from the list's resourceVersion sees a change made after it, in order.
    const watched = watchUntil(
      s,
      `${widgets}?watch=1&resourceVersion=${p1.metadata.resourceVersion}`,
      (evs) => evs.some((e) => e.type === 'MODIFIED'),
    );
    const patched = await call(s, 'PATCH', `${widgets}/w1`, { spec: { size: 10 } }, true, 'merge');
    assert.equal(patched.status, 200, patched.body);
    const events = await watched;
    assert.deepEqual(
      events.map((e) => `${e.type} ${(e.object['metadata'] as { name: string }).name}`),
      ['MODIFIED w1'],
    );
  });

  test('after compact, a continue token from before the compaction fails with 410 Gone', async (t) => {
    const s = need(t);
    if (!s) return;
    const page = await call(s, 'GET', `${widgets}?limit=2`);
    assert.equal(page.status, 200, page.body);
    const token = (JSON.parse(page.body) as { metadata: { continue?: string } }).metadata.continue;
    assert.ok(token, 'expected a continue token (the CRD test creates 5 widgets)');
    // Move etcd past the list's revision, then compact to the current revision.
    const res = await call(s, 'POST', widgets, widget('after-page', 1));
    assert.equal(res.status, 201, res.body);
    await s.compact();
    // The watch cache keeps list snapshots until its compactor polls compact_rev_key (every
    // 15 s in the apiserver); nothing to await, so poll the server until it answers 410.
    const url = `${widgets}?limit=2&continue=${encodeURIComponent(token)}`;
    let next = await call(s, 'GET', url);
    for (let i = 0; next.status === 200 && i < 90; i++) {
      await new Promise((r) => setTimeout(r, 500));
      next = await call(s, 'GET', url);
    }
    assert.equal(next.status, 410, next.body);
    const status = JSON.parse(next.body) as { reason: string; code: number };
    assert.equal(status.reason, 'Expired');
    assert.equal(status.code, 410);
  });
});
