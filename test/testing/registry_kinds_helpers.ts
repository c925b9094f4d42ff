// Helpers of the per-group registry tests (registry_<group>.test.ts): a server with a
// fake clock, JSON writes, the discovery entry of a resource, the Table `kubectl get` asks
// for, and kubectl itself against the server.
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { FakeClock } from '@kube-controller-kit/testing';
import { raw } from './helpers.js';
import type { RawResponse } from './helpers.js';

/** Accept header of `kubectl get`: a Table, JSON otherwise. */
export const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
/** The fake clock's start. */
export const T0 = Date.parse('2026-01-01T00:00:00Z');

/** A server under test and what the tests do with it. */
export interface KindsHarness {
  server: TestApiServer;
  clock: FakeClock;
  send(method: string, path: string, body?: unknown, contentType?: string): Promise<RawResponse>;
  /** The discovery entry (APIResource) of `resource` at a group version (`v1`, `apps/v1`). */
  resource(groupVersion: string, resource: string): Promise<Record<string, any> | undefined>;
  /** Columns (`Name`, wide ones as `Name*`) and cells of the Table at `path`. */
  table(path: string): Promise<{ columns: string[]; rows: unknown[][] }>;
  /** kubectl with a kubeconfig for the server; resolves with stdout. */
  kubectl(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 port 0 with a fake clock and a kubeconfig for kubectl. */
export async function startHarness(): Promise<KindsHarness> {
  const clock = new FakeClock(T0);
  const server = await startTestApiServer({ clock });
  const dir = await mkdtemp(join(tmpdir(), 'kck-kinds-'));
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
  const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  const send = (method: string, path: string, body?: unknown, contentType = 'application/json') =>
    raw(server.url, method, path, body === undefined ? undefined : JSON.stringify(body), {
      'Content-Type': contentType,
    });
  return {
    server,
    clock,
    send,
    async resource(groupVersion, resource) {
      const path = groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
      const res = await send('GET', path);
      assert.equal(res.code, 200, `${path}: ${res.body}`);
      return (res.json.resources as Record<string, any>[]).find((r) => r.name === resource);
    },
    async table(path) {
      const res = await raw(server.url, 'GET', path, undefined, { Accept: TABLE });
      assert.equal(res.code, 200, `${path}: ${res.body}`);
      const t = res.json as any;
      return {
        columns: (t.columnDefinitions as { name: string; priority: number }[]).map((c) =>
          c.priority > 0 ? `${c.name}*` : c.name,
        ),
        rows: (t.rows as { cells: unknown[] }[]).map((r) => r.cells),
      };
    },
    kubectl: (...args) =>
      new Promise((resolve, reject) => {
        execFile(
          'kubectl',
          [...args, '--cache-dir', join(dir, 'cache')],
          { env },
          (err, stdout, stderr) => {
            if (err) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr}`));
            else resolve(stdout);
          },
        );
      }),
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The `field: message` lines of a 422's causes. */
export function causes(res: RawResponse): string[] {
  const details = res.json.details as
    { causes?: { field?: string; message?: string }[] } | undefined;
  return (details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
}
