// SIGTERM to an operator process: the manager (started without a signal) shuts down in
// order — runnables, caches, servers, then the lease release — and exits 0; the other replica takes
// the lease over at once instead of waiting out the lease duration.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UnstructuredObject } from '../../src/client/types.js';
import { Manager } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';

type LeaseObj = UnstructuredObject & { spec?: { holderIdentity?: string } };

describe('Manager and SIGTERM', () => {
  let server: TestApiServer;
  let dir: string;
  before(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kck-manager-'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('SIGTERM stops the runnables, the caches and the servers, then releases the lease, in that order, exits 0, and the other replica takes over at once', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    // The in-process KubeConfig (it allows plain http to the loopback server), as a file.
    await writeFile(kubeconfig, server.kubeConfig().exportConfig());
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/manager/fixtures/sigterm_child.ts', kubeconfig, 'sigterm', 'child'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (stdout.includes('ELECTED')) resolve();
      };
      child.stdout.on('data', check);
      void exited.then((code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
    });
    const holder = (): string | undefined =>
      server.get<LeaseObj>(
        { group: 'coordination.k8s.io', resource: 'leases' },
        'sigterm',
        'default',
      )?.spec?.holderIdentity;
    assert.equal(holder(), 'child');

    const other = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
      leaderElection: {
        id: 'sigterm',
        namespace: 'default',
        identity: 'other',
        retryPeriodMs: 100,
        renewDeadlineMs: 1000,
      },
    });
    const stopOther = new AbortController();
    const runOther = other.start(stopOther.signal);

    const sentAt = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    clearTimeout(killer);
    assert.equal(code, 0, `exit code 0 after a graceful shutdown; stderr:\n${stderr}`);
    const steps = [
      'shutdown requested (received SIGTERM)',
      'worker: finishing its last item',
      'worker: done',
      'manager: worker stopped',
      'manager: stopping caches',
      'manager: caches stopped',
      'manager: stopping servers',
      'manager: servers stopped',
      'manager: leader lease default/sigterm released',
      'manager: stopped',
    ];
    const at = steps.map((s) => stderr.indexOf(s));
    assert.ok(
      at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]!)),
      `steps logged in order ${JSON.stringify(at)}:\n${stderr}`,
    );
    assert.match(
      stderr,
      /serving health probes at http:\/\/127\.0\.0\.1:\d+/,
      'logs where it serves',
    );
    assert.match(
      stderr,
      /manager: starting \(API server http:\/\/127\.0\.0\.1:\d+, leader election on lease default\/sigterm as child\)/,
    );

    await other.elected();
    const takeover = Date.now() - sentAt;
    assert.ok(
      takeover < 5_000,
      `the other replica led ${takeover} ms after SIGTERM, not after the 15 s lease duration`,
    );
    assert.equal(holder(), 'other');
    stopOther.abort();
    await runOther;
  });
});
