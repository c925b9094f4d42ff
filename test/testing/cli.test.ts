// The `kube-controller-kit apiserver` CLI: starts, writes a kubeconfig, stops cleanly.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runTestApiServerCli } from '../../packages/testing/src/index.js';
import { raw } from './helpers.js';

describe('runTestApiServerCli', () => {
  it('serves until stopped, writing a kubeconfig that points at the server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kck-cli-'));
    const stop = new AbortController();
    const lines: string[] = [];
    let listening!: (url: string) => void;
    const url = new Promise<string>((r) => (listening = r));
    const exit = runTestApiServerCli(['--kubeconfig', join(dir, 'kc.yaml')], {
      out: (l) => {
        lines.push(l);
        const m = /listening on (\S+)/.exec(l);
        if (m?.[1]) listening(m[1]);
      },
      signal: stop.signal,
    });
    try {
      const base = await url;
      const kc = await readFile(join(dir, 'kc.yaml'), 'utf8');
      assert.ok(kc.includes(`server: "${base}"`));
      assert.ok(kc.includes('current-context: test-apiserver'));
      assert.equal((await raw(base, 'GET', '/api/v1/namespaces/default')).code, 200);
      assert.ok(lines.some((l) => l.includes('kubectl --kubeconfig')));
    } finally {
      stop.abort();
      assert.equal(await exit, 0);
      await rm(dir, { recursive: true, force: true });
    }
    assert.ok(lines.includes('test API server stopped'));
  });

  it('--help prints usage and exits 0; a bad option exits 2', async () => {
    const out: string[] = [];
    assert.equal(await runTestApiServerCli(['--help'], { out: (l) => out.push(l) }), 0);
    assert.match(out.join('\n'), /Usage: kube-controller-kit apiserver/);
    const err: string[] = [];
    assert.equal(await runTestApiServerCli(['--bogus'], { err: (l) => err.push(l) }), 2);
    assert.equal(await runTestApiServerCli(['--port', 'x'], { err: (l) => err.push(l) }), 2);
  });

  it('--authorization-mode=RBAC authorizes with RBAC; the kubeconfig written is a superuser', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kck-cli-rbac-'));
    const stop = new AbortController();
    let listening!: (url: string) => void;
    const url = new Promise<string>((r) => (listening = r));
    const exit = runTestApiServerCli(
      ['--kubeconfig', join(dir, 'kc.yaml'), '--authorization-mode=RBAC'],
      {
        out: (l) => {
          const m = /listening on (\S+)/.exec(l);
          if (m?.[1]) listening(m[1]);
        },
        signal: stop.signal,
      },
    );
    try {
      const base = await url;
      const token = /token: "([^"]+)"/.exec(await readFile(join(dir, 'kc.yaml'), 'utf8'))?.[1];
      assert.ok(token, 'the kubeconfig carries the admin token');
      const anonymous = await raw(base, 'GET', '/api/v1/namespaces/default');
      assert.equal(anonymous.code, 403);
      const admin = await raw(base, 'GET', '/api/v1/namespaces/default', undefined, {
        Authorization: `Bearer ${token}`,
      });
      assert.equal(admin.code, 200);
    } finally {
      stop.abort();
      assert.equal(await exit, 0);
      await rm(dir, { recursive: true, force: true });
    }
    const err: string[] = [];
    assert.equal(
      await runTestApiServerCli(['--authorization-mode', 'ABAC'], { err: (l) => err.push(l) }),
      2,
    );
    assert.match(err.join('\n'), /--authorization-mode must be AlwaysAllow or RBAC, got "ABAC"/);
  });
});
