// The `kube-controller-kit apiserver` CLI: starts, writes a kubeconfig (and one per
// --kubeconfig-for subject) that kubectl authenticates with, stops cleanly.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { execFile } from 'node:child_process';
import { runTestApiServerCli } from '../../packages/testing/src/index.js';
import { kubectlSkip, raw } from './helpers.js';

function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 30_000 },
      (err, stdout, stderr) =>
        err === null ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)),
    );
  });
}

/** Runs the CLI in-process until `stop` aborts; `url` resolves once it listens. */
function startCli(args: string[]) {
  const stop = new AbortController();
  const lines: string[] = [];
  let listening!: (url: string) => void;
  const url = new Promise<string>((r) => (listening = r));
  const exit = runTestApiServerCli(args, {
    out: (l) => {
      lines.push(l);
      const m = /listening on (\S+)/.exec(l);
      if (m?.[1]) listening(m[1]);
    },
    err: (l) => lines.push(l),
    signal: stop.signal,
  });
  return { exit, stop, url, lines };
}

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

  it(
    '--authorization-mode=RBAC serves HTTPS and writes a superuser kubeconfig kubectl uses (client-go sends credentials only over HTTPS)',
    {
      skip: kubectlSkip(),
    },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'kck-cli-rbac-'));
      const kc = join(dir, 'kc.yaml');
      const { exit, stop, url, lines } = startCli([
        '--kubeconfig',
        kc,
        '--authorization-mode=RBAC',
      ]);
      try {
        assert.match(await url, /^https:\/\/127\.0\.0\.1:\d+$/);
        assert.ok(
          lines.includes('  (HTTPS: kubectl sends credentials only over HTTPS)'),
          lines.join('\n'),
        );
        assert.match(await readFile(kc, 'utf8'), /token: "[^"]+"/);
        // Was: over plain HTTP kubectl dropped the token, discovery failed (`couldn't get
        // current server API group list: unknown`) and nothing could be created.
        assert.deepEqual(
          JSON.parse(await kubectl(kc, 'auth', 'whoami', '-o', 'json')).status.userInfo,
          {
            username: 'test-user',
            groups: ['system:masters', 'system:authenticated'],
          },
        );
        assert.match(await kubectl(kc, 'create', 'namespace', 'made-by-kubectl'), /created/);
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
    },
  );

  it(
    '--kubeconfig-for writes kubeconfigs for a ServiceAccount (TokenRequest token) and a user with groups, which kubectl authenticates as them',
    {
      skip: kubectlSkip(),
    },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'kck-cli-for-'));
      const kc = join(dir, 'kc.yaml');
      const { exit, stop, url, lines } = startCli([
        '--kubeconfig',
        kc,
        '--authorization-mode=RBAC',
        '--kubeconfig-for',
        'system:serviceaccount:ops:bot',
        `--kubeconfig-for=alice,devs,qa=${join(dir, 'alice.yaml')}`,
      ]);
      try {
        await url;
        const bot = join(dir, 'kubeconfig.ops.bot.yaml');
        assert.ok(
          lines.includes(`kubeconfig for system:serviceaccount:ops:bot written to ${bot}`),
          lines.join('\n'),
        );
        const whoami = async (file: string) =>
          JSON.parse(await kubectl(file, 'auth', 'whoami', '-o', 'json')).status.userInfo;
        const sa = await whoami(bot);
        assert.equal(sa.username, 'system:serviceaccount:ops:bot');
        assert.deepEqual(sa.groups, [
          'system:serviceaccounts',
          'system:serviceaccounts:ops',
          'system:authenticated',
        ]);
        const alice = await whoami(join(dir, 'alice.yaml'));
        assert.equal(alice.username, 'alice');
        assert.deepEqual(alice.groups, ['devs', 'qa', 'system:authenticated']);
        // RBAC applies to them: nothing is granted yet, then a binding grants view in ops.
        await assert.rejects(
          kubectl(bot, 'get', 'configmaps', '-n', 'ops'),
          /cannot list resource "configmaps"/,
        );
        await kubectl(
          kc,
          'create',
          'rolebinding',
          'bot-view',
          '-n',
          'ops',
          '--clusterrole=view',
          '--serviceaccount=ops:bot',
        );
        await kubectl(bot, 'get', 'configmaps', '-n', 'ops'); // allowed now (rejects otherwise)
        await assert.rejects(
          kubectl(join(dir, 'alice.yaml'), 'get', 'configmaps', '-n', 'ops'),
          /User "alice" cannot list/,
        );
      } finally {
        stop.abort();
        assert.equal(await exit, 0);
        await rm(dir, { recursive: true, force: true });
      }
      for (const [bad, why] of [
        [
          'system:serviceaccount:Ops:bot',
          /"Ops" in system:serviceaccount:Ops:bot is not a valid namespace name/,
        ],
        ['system:serviceaccount:ops', /is not system:serviceaccount:<namespace>:<name>/],
        [',devs', /names no user/],
        ['alice=', /empty path/],
      ] as const) {
        const err: string[] = [];
        assert.equal(
          await runTestApiServerCli(['--kubeconfig-for', bad], { err: (l) => err.push(l) }),
          2,
          bad,
        );
        assert.match(err.join('\n'), why);
      }
    },
  );
});
