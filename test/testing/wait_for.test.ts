// waitFor from @kube-controller-kit/testing: polls a check until it passes (returns something
// other than false/undefined/null without throwing), resolves with that value, and fails
// with what was awaited and the last reason once the timeout passes. The server's in-process
// helpers take generated types (interfaces without an index signature).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClock,
  WaitForTimeoutError,
  startTestApiServer,
  waitFor,
} from '../../packages/testing/src/index.js';
import type { ObjectMeta } from '../../src/index.js';

/** As `kube-controller-kit gen types` writes it: no index signature. */
interface Backup {
  apiVersion?: 'example.com/v1' | undefined;
  kind?: 'Backup' | undefined;
  metadata?: ObjectMeta | undefined;
  spec: { schedule: string };
  status?: { phase?: string | undefined } | undefined;
}

describe('waitFor', () => {
  test('resolves with the first passing value; a check that throws or returns false/undefined/null is retried', async () => {
    let n = 0;
    const got = await waitFor(
      () => {
        n++;
        if (n === 1) throw new Error('not yet');
        if (n === 2) return false;
        if (n === 3) return undefined;
        if (n === 4) return null;
        return { n };
      },
      { intervalMs: 1 },
    );
    assert.deepEqual(got, { n: 5 });
    // A check that only asserts (returns void → undefined) would never pass: use a value.
    assert.equal(await waitFor(async () => n === 5 && 'done'), 'done');
  });

  test('a timeout is a WaitForTimeoutError naming what was awaited and the last failure', async () => {
    const err = await waitFor(() => assert.equal(1 + 1, 3), {
      timeoutMs: 30,
      intervalMs: 5,
      description: 'arithmetic to change',
    }).catch((e: unknown) => e);
    assert.ok(err instanceof WaitForTimeoutError);
    assert.match(
      err.message,
      /^timed out after 30 ms waiting for arithmetic to change; last failure: /,
    );
    assert.ok(err.cause instanceof assert.AssertionError);
    const named = await waitFor(() => false, { timeoutMs: 5, intervalMs: 1 }).catch(
      (e: unknown) => e,
    );
    assert.match(String(named), /waiting for false; it last returned false/);
  });

  test('an abort stops the wait at once with the signal reason, leaving no timer', async () => {
    const ac = new AbortController();
    const waiting = waitFor(() => false, { signal: ac.signal, intervalMs: 60_000 });
    setImmediate(() => ac.abort(new Error('stopped')));
    await assert.rejects(waiting, /stopped/);
  });

  test('the server helpers take generated types: create/get/list/update<Backup> compile and round-trip', async () => {
    const server = await startTestApiServer();
    try {
      server.create(
        { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'backups.example.com' },
          spec: {
            group: 'example.com',
            scope: 'Namespaced',
            names: { plural: 'backups', singular: 'backup', kind: 'Backup' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: {
                  openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            ],
          },
        },
      );
      const backups = { group: 'example.com', resource: 'backups' };
      const made = server.create<Backup>(backups, {
        apiVersion: 'example.com/v1',
        kind: 'Backup',
        metadata: { name: 'nightly', namespace: 'default' },
        spec: { schedule: '0 3 * * *' },
      });
      assert.equal(made.spec.schedule, '0 3 * * *');
      const got: Backup | undefined = server.get<Backup>(backups, 'nightly', 'default');
      assert.ok(got);
      assert.equal(got.metadata?.name, 'nightly');
      server.update<Backup>(backups, { ...got, status: { phase: 'Done' } });
      const listed: Backup[] = server.list<Backup>(backups, 'default');
      assert.equal(listed[0]?.status?.phase, 'Done');
      const phase = await waitFor(() => server.get<Backup>(backups, 'nightly')?.status?.phase);
      assert.equal(phase, 'Done');
    } finally {
      await server.close();
    }
  });

  test('FakeClock is exported from @kube-controller-kit/testing, as the README says', () => {
    const clock = new FakeClock(0);
    clock.advanceSync(5);
    assert.equal(clock.now(), 5);
  });
});
