/**
 * `kube-controller-kit apiserver`: runs the test API server in the foreground, writes a
 * kubeconfig for kubectl and the examples, and stops cleanly on Ctrl-C (SIGINT/SIGTERM).
 *
 * @module
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from 'kube-controller-kit';
import { startTestApiServer } from './apiserver.js';
import type { TestApiServerOptions } from './apiserver.js';
import { parseFeatureGates } from './feature_gates.js';

const USAGE = `Usage: kube-controller-kit apiserver [options]

Runs an in-memory Kubernetes API server on 127.0.0.1 until Ctrl-C.

Options:
  --kubeconfig <path>   where to write the kubeconfig (default ./kubeconfig.test.yaml)
  --port <n>            port to listen on (default: a free port)
  --https               serve HTTPS with throwaway certificates
  --token <token>       require this bearer token (written into the kubeconfig)
  --client-cert         require a client certificate (implies --https)
  --authorization-mode <mode>  AlwaysAllow (default) or RBAC; with RBAC the kubeconfig
                        written is a superuser's (system:masters)
  --bookmark-interval <ms>  BOOKMARK interval on watches (default 60000)
  --feature-gates <k=v,...>  alpha features, as kube-apiserver's flag
                        (known: ShardedListAndWatch; all off by default)
  -h, --help            show this help
`;

/** Where the CLI writes, and how a test stops it. */
export interface CliIo {
  /** Standard output lines (default: process.stdout). */
  out?: (line: string) => void;
  /** Error lines (default: process.stderr). */
  err?: (line: string) => void;
  /** Stops the server as SIGINT would. */
  signal?: AbortSignal;
}

/**
 * Runs the CLI with the given arguments (without the program name). Resolves with the exit
 * code once the server has stopped (after SIGINT or SIGTERM), or at once for `--help` and
 * bad arguments. `signal` stops the server as a signal would (for tests).
 */
export async function runTestApiServerCli(argv: string[], io: CliIo = {}): Promise<number> {
  const out = io.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string' },
        port: { type: 'string' },
        https: { type: 'boolean' },
        token: { type: 'string' },
        'client-cert': { type: 'boolean' },
        'authorization-mode': { type: 'string' },
        'bookmark-interval': { type: 'string' },
        'feature-gates': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    err(`${errorMessage(e)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const options: TestApiServerOptions = {};
  if (typeof values.port === 'string') {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      err(`--port must be an integer between 0 and 65535, got "${values.port}"`);
      return 2;
    }
    options.port = port;
  }
  if (typeof values['bookmark-interval'] === 'string') {
    const ms = Number(values['bookmark-interval']);
    if (!Number.isFinite(ms) || ms <= 0) {
      err(`--bookmark-interval must be a positive number of milliseconds`);
      return 2;
    }
    options.bookmarkIntervalMs = ms;
  }
  const mode = values['authorization-mode'];
  if (typeof mode === 'string') {
    if (mode !== 'AlwaysAllow' && mode !== 'RBAC') {
      err(`--authorization-mode must be AlwaysAllow or RBAC, got "${mode}"`);
      return 2;
    }
    options.authorization = mode;
  }
  if (typeof values['feature-gates'] === 'string') {
    try {
      options.featureGates = parseFeatureGates(values['feature-gates']);
    } catch (e) {
      err(`--feature-gates: ${errorMessage(e)}`);
      return 2;
    }
  }
  if (values.https) options.https = true;
  if (typeof values.token === 'string') options.auth = { token: values.token };
  if (values['client-cert']) options.auth = { ...options.auth, clientCertificate: true };
  const kubeconfigPath = resolve(
    typeof values.kubeconfig === 'string' ? values.kubeconfig : 'kubeconfig.test.yaml',
  );
  let server;
  try {
    server = await startTestApiServer(options);
    await server.writeKubeconfig(kubeconfigPath);
  } catch (e) {
    await server?.close();
    err(`could not start the test API server: ${errorMessage(e)}`);
    return 1;
  }
  out(`kube-controller-kit test API server listening on ${server.url}`);
  out(`kubeconfig written to ${kubeconfigPath}`);
  out(`  kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
  out(`  export KUBECONFIG=${kubeconfigPath}`);
  out('Press Ctrl-C to stop.');
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop, { once: true });
  });
  await server.close();
  out('test API server stopped');
  return 0;
}
