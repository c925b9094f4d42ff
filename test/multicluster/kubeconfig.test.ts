// Kubeconfigs from files and Secrets are hostile input: size limits, one parse inside one
// guard, a typed error naming the source, and no credential that makes this process read a
// local file or run a command unless the provider allows it (client-go's exec plugins and
// token files are what a hostile kubeconfig would use to leak the Pod's own token).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { InvalidKubeconfigError, parseKubeconfig } from '../../src/multicluster/index.js';

function kubeconfig(user: string, cluster = '    server: https://10.0.0.1:6443'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    cluster,
    'users:',
    '- name: u',
    '  user:',
    user,
    'contexts:',
    '- name: ctx',
    '  context:',
    '    cluster: c',
    '    user: u',
    'current-context: ctx',
  ].join('\n');
}

const source = 'Secret fleet/member-a-kubeconfig';

async function refused(text: string | Uint8Array, pattern: RegExp, options = {}): Promise<void> {
  await assert.rejects(parseKubeconfig(text, { source, ...options }), (err: unknown) => {
    assert.ok(err instanceof InvalidKubeconfigError, String(err));
    assert.equal(err.source, source);
    assert.match(err.message, new RegExp(`^kubeconfig ${source}: `));
    assert.match(err.message, pattern);
    return true;
  });
}

describe('parseKubeconfig: a kubeconfig from outside is hostile until parsed', () => {
  test('an inline token and CA make a KubeConfig set to the current context', async () => {
    const kc = await parseKubeconfig(
      kubeconfig(
        '    token: abc',
        '    server: https://10.0.0.1:6443\n    certificate-authority-data: Zm9v',
      ),
      { source },
    );
    assert.equal(kc.getCurrentCluster()?.server, 'https://10.0.0.1:6443');
    assert.equal(kc.getCurrentUser()?.token, 'abc');
    assert.equal(kc.getCurrentCluster()?.caData, 'Zm9v');
  });

  test('JSON is YAML too', async () => {
    const kc = await parseKubeconfig(
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
      { source },
    );
    assert.equal(kc.getCurrentCluster()?.server, 'http://127.0.0.1:1');
  });

  test('more than maxBytes is refused before it is parsed', async () => {
    await refused('x'.repeat(2049), /is 2049 bytes, more than the limit of 2048/, {
      maxBytes: 2048,
    });
  });

  test('not UTF-8, not YAML, not a mapping, empty: each a typed error naming the source', async () => {
    await refused(new Uint8Array([0xff, 0xfe, 0x00]), /is not UTF-8 text/);
    await refused('clusters: [\n', /is not a YAML document/);
    await refused('- a\n- b\n', /is not a mapping/);
    await refused('', /is empty/);
  });

  test('an alias bomb is refused (at most 100 aliases)', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i++) {
      const prev = i === 0 ? 'a' : `a${i - 1}`;
      lines.push(
        `a${i}: &a${i} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    await refused(lines.join('\n'), /is not a YAML document/);
  });

  test('no current context, a missing context, cluster or user, a server that is not http(s): refused', async () => {
    await refused(
      kubeconfig('    token: t').replace('current-context: ctx', ''),
      /has no current-context/,
    );
    await refused(
      kubeconfig('    token: t').replace('current-context: ctx', 'current-context: nope'),
      /names current-context nope, which it lacks/,
    );
    await refused(
      kubeconfig('    token: t', '    server: file:///etc/passwd'),
      /has no https:\/\/ or http:\/\/ server URL/,
    );
    await refused(
      kubeconfig('    token: t').replace('    user: u', '    user: ghost'),
      /names user "ghost", which it lacks/,
    );
  });

  test('an exec credential plugin or an auth-provider (they run commands) is refused unless allowed', async () => {
    const exec = kubeconfig(
      '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh',
    );
    await refused(exec, /user u has an exec credential plugin, which runs a command; not allowed/);
    await refused(
      kubeconfig('    auth-provider:\n      name: oidc'),
      /user u has an auth-provider/,
    );
    const kc = await parseKubeconfig(exec, { source, allowExec: true });
    assert.equal((kc.getCurrentUser()?.exec as { command?: string }).command, '/bin/sh');
  });

  test("a file reference (token-file, client-certificate, client-key, certificate-authority) is refused unless allowed: client-node would read it on load, e.g. the Pod's own token", async () => {
    await refused(
      kubeconfig('    token-file: /var/run/secrets/kubernetes.io/serviceaccount/token'),
      /user u reads the file named by token-file, and file references are not allowed for this provider \(inline the token/,
    );
    await refused(kubeconfig('    client-certificate: /etc/cert.pem'), /client-certificate/);
    await refused(kubeconfig('    client-key: /etc/key.pem'), /client-key/);
    await refused(
      kubeconfig('    token: t', '    server: https://x\n    certificate-authority: /etc/ca.pem'),
      /cluster c reads the file named by certificate-authority/,
    );
  });

  test('every user is screened, not only the current one (client-node reads every token-file on load)', async () => {
    const two = kubeconfig('    token: t').replace(
      'users:\n',
      'users:\n- name: other\n  user:\n    token-file: /var/run/secrets/kubernetes.io/serviceaccount/token\n',
    );
    await refused(two, /user other reads the file named by token-file/);
  });

  test('a merge key cannot smuggle a screened field past the screen (the document read is the one screened)', async () => {
    const smuggled = kubeconfig(
      '    token: t\n    <<:\n      token-file: /var/run/secrets/kubernetes.io/serviceaccount/token',
    );
    const kc = await parseKubeconfig(smuggled, { source });
    assert.equal(kc.getCurrentUser()?.token, 't', 'the merge key is not read as token-file');
  });

  test('with file references allowed, an absolute token-file is read (bounded) and a relative one refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kck-kubeconfig-'));
    try {
      const path = join(dir, 'token');
      writeFileSync(path, 'from-file\n');
      const kc = await parseKubeconfig(kubeconfig(`    token-file: ${path}`), {
        source,
        allowFileReferences: true,
      });
      assert.equal(kc.getCurrentUser()?.token, 'from-file');
      await refused(kubeconfig('    token-file: token'), /token-file must be an absolute path/, {
        allowFileReferences: true,
      });
      await refused(kubeconfig('    token-file: /dev/zero'), /is not a regular file/, {
        allowFileReferences: true,
      });
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      await refused(kubeconfig(`    token-file: ${fifo}`), /is not a regular file/, {
        allowFileReferences: true,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('more than 100 entries in a list is refused', async () => {
    const users = Array.from({ length: 101 }, (_, i) => `- name: u${i}\n  user: {}`).join('\n');
    await refused(
      kubeconfig('    token: t').replace('users:\n', `users:\n${users}\n`),
      /users has 10[12] entries, more than 100/,
    );
  });

  test('random bytes never throw anything but InvalidKubeconfigError (fuzz)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.string({ maxLength: 300 }),
          fc
            .constantFrom(kubeconfig('    token: t'))
            .chain((base) =>
              fc.integer({ min: 0, max: base.length }).map((cut) => base.slice(0, cut)),
            ),
        ),
        async (input) => {
          try {
            await parseKubeconfig(input, { source });
          } catch (err) {
            assert.ok(err instanceof InvalidKubeconfigError, `${String(err)}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
