// Finding or starting the real API server (scripts/real-apiserver.sh) for the conformance
// tests, shared by real-server-smoke.test.ts and real.test.ts.
//
// Which server:
// - REAL_APISERVER_KUBECONFIG set: use that running server (started by the caller, e.g. CI
//   via scripts/test-real-apiserver.sh); compaction uses REAL_APISERVER_RUN_DIR.
// - otherwise, with REAL_APISERVER=1 or REAL_APISERVER_REQUIRED=1, if the script reports a
//   built server, start a private instance in a temporary run directory and stop it on
//   release (a few seconds).
// - otherwise skip (plain `npm test` does: the real leg is scripts/test-real-apiserver.sh);
//   REAL_APISERVER_REQUIRED=1 turns the skip into a failure.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';

const run = promisify(execFile);

/** The script that obtains, builds, starts, stops and compacts the real server. */
export const realApiserverScript = resolve('scripts/real-apiserver.sh');

/** A running real apiextensions-apiserver, as its kubeconfig describes it. */
export interface RealServer {
  /** The server's URL (https on 127.0.0.1). */
  url: URL;
  /** PEM of the CA that signed the server certificate. */
  ca: string;
  /** PEM of the admin client certificate (O=system:masters). */
  cert: string;
  /** PEM of the admin client key. */
  key: string;
  /** The instance's run directory ('' when unknown: compaction is then unavailable). */
  runDir: string;
  /** The kubeconfig file. */
  kubeconfigPath: string;
  /** A client-node KubeConfig for it (a fresh one on every call). */
  kubeConfig(): KubeConfig;
  /**
   * `scripts/real-apiserver.sh compact`: etcd compaction to its current revision (after
   * bumping the revision past every resourceVersion handed out so far). Resolves with the
   * revision. The watch cache notices on its next poll (each resource's cache polls every
   * 15 s on its own timer).
   */
  compact(): Promise<number>;
}

/** What {@link acquireRealServer} found: a server, or why there is none. */
export interface RealServerHandle {
  /** The server, when one runs. */
  server: RealServer | undefined;
  /** Why there is none (the test skips with it). */
  skipReason: string | undefined;
  /** Stops the server if this handle started it (idempotent). */
  release(): Promise<void>;
}

interface KubeconfigFile {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

async function scriptOutput(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(realApiserverScript, args, { env, timeout: 180_000 });
  return stdout.trim();
}

/** Reads a kubeconfig written by the script into a {@link RealServer}. */
export async function loadRealServer(kubeconfigPath: string, runDir: string): Promise<RealServer> {
  const text = await readFile(kubeconfigPath, 'utf8');
  const kc = parse(text) as KubeconfigFile;
  const cluster = kc.clusters[0]?.cluster;
  const user = kc.users[0]?.user;
  if (!cluster || !user) throw new Error(`kubeconfig ${kubeconfigPath} has no cluster or user`);
  const env = { ...process.env, REAL_APISERVER_RUN_DIR: runDir };
  return {
    url: new URL(cluster.server),
    ca: b64(cluster['certificate-authority-data']),
    cert: b64(user['client-certificate-data']),
    key: b64(user['client-key-data']),
    runDir,
    kubeconfigPath,
    kubeConfig: () => {
      const config = new KubeConfig();
      config.loadFromString(text);
      return config;
    },
    compact: async () => {
      if (runDir === '') {
        throw new Error(
          'REAL_APISERVER_RUN_DIR is not set: compaction needs the run directory of the server',
        );
      }
      // A write outside the apiserver's keys moves etcd past every resourceVersion handed
      // out so far, so that compaction makes each of them too old.
      const etcdUrl = (await readFile(join(runDir, 'etcd.url'), 'utf8')).trim();
      const envText = await scriptOutput(['env'], env);
      const etcdctl = /REAL_APISERVER_ETCDCTL=(\S+)/.exec(envText)?.[1]?.replace(/^'|'$/g, '');
      if (etcdctl === undefined)
        throw new Error(`no etcdctl in \`real-apiserver.sh env\`: ${envText}`);
      await run(etcdctl, [
        '--endpoints',
        etcdUrl,
        'put',
        '/kube-controller-kit/tick',
        String(Date.now()),
      ]);
      return Number(await scriptOutput(['compact'], env));
    },
  };
}

/**
 * Finds or starts the real server for the test file `what` (see the module comment).
 * Throws when REAL_APISERVER_REQUIRED=1 and there is none.
 */
export async function acquireRealServer(what: string): Promise<RealServerHandle> {
  const given = process.env['REAL_APISERVER_KUBECONFIG'];
  if (given) {
    const server = await loadRealServer(given, process.env['REAL_APISERVER_RUN_DIR'] ?? '');
    return { server, skipReason: undefined, release: () => Promise.resolve() };
  }
  const required = process.env['REAL_APISERVER_REQUIRED'] === '1';
  if (!required && process.env['REAL_APISERVER'] !== '1') {
    const skipReason =
      'the real API server leg is opt-in: bash scripts/test-real-apiserver.sh, or ' +
      'REAL_APISERVER=1 to start a private instance when one is built';
    return { server: undefined, skipReason, release: () => Promise.resolve() };
  }
  const status = await run(realApiserverScript, ['status'], { env: process.env }).then(
    (r) => r.stdout,
    (e: { stdout?: string }) => e.stdout ?? '',
  );
  if (!status.includes('built:')) {
    const skipReason = `real apiserver not built (${status.trim()}); run scripts/real-apiserver.sh build`;
    if (required) throw new Error(skipReason);
    console.error(`\n*** SKIPPING ${what}: ${skipReason} ***\n`);
    return { server: undefined, skipReason, release: () => Promise.resolve() };
  }
  const runDir = await mkdtemp(join(tmpdir(), 'kck-real-apiserver-run-'));
  const env = { ...process.env, REAL_APISERVER_RUN_DIR: runDir };
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await run(realApiserverScript, ['stop'], { env }).catch(() => undefined);
    await rm(runDir, { recursive: true, force: true });
  };
  try {
    const kubeconfig = await scriptOutput(['start'], env);
    return { server: await loadRealServer(kubeconfig, runDir), skipReason: undefined, release };
  } catch (err) {
    await release();
    throw err;
  }
}
