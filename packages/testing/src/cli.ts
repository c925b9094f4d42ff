/**
 * `kube-controller-kit apiserver`: runs the test API server in the foreground, writes a
 * kubeconfig for kubectl and the examples, and stops cleanly on Ctrl-C (SIGINT/SIGTERM).
 *
 * @module
 */
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from 'kube-controller-kit';
import { startTestApiServer } from './apiserver.js';
import type { TestApiServer, TestApiServerOptions, TestUser } from './apiserver.js';
import { parseFeatureGates } from './feature_gates.js';

const USAGE = `Usage: kube-controller-kit apiserver [options]

Runs an in-memory Kubernetes API server on 127.0.0.1 until Ctrl-C.

Options:
  --kubeconfig <path>   where to write the kubeconfig (default ./kubeconfig.test.yaml)
  --port <n>            port to listen on (default: a free port)
  --https               serve HTTPS with throwaway certificates
  --token <token>       require this bearer token (written into the kubeconfig; implies --https)
  --client-cert         require a client certificate (implies --https)
  --authorization-mode <mode>  AlwaysAllow (default) or RBAC; with RBAC the kubeconfig
                        written is a superuser's (system:masters, a bearer token; implies --https)
  --kubeconfig-for <subject>[=<path>]  also write a kubeconfig for another user (repeatable;
                        implies --https). <subject> is system:serviceaccount:<ns>:<name>
                        (the ServiceAccount and its namespace are created if missing; its
                        token is issued as TokenRequest issues it, valid 24 h) or
                        <user>[,<group>...] (a static token). <path> defaults to
                        kubeconfig.<ns>.<name>.yaml or kubeconfig.<user>.yaml beside --kubeconfig
  --bookmark-interval <ms>  BOOKMARK interval on watches (default 60000)
  --feature-gates <k=v,...>  alpha features, as kube-apiserver's flag
                        (known: ShardedListAndWatch; all off by default)
  -h, --help            show this help

The server speaks HTTPS whenever a kubeconfig carries credentials: kubectl (client-go)
sends a token or a certificate only over HTTPS, so over plain HTTP it would be anonymous.
`;

/**
 * Where the CLI writes, and how a test stops it.
 *
 * @internal
 */
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
 *
 * @internal
 */
export async function runTestApiServerCli(argv: string[], io: CliIo = {}): Promise<number> {
  const out = io.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  let values: Record<string, string | boolean | string[] | undefined>;
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
        'kubeconfig-for': { type: 'string', multiple: true },
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
  if (typeof values.token === 'string') options.auth = { token: values.token };
  if (values['client-cert']) options.auth = { ...options.auth, clientCertificate: true };
  const kubeconfigPath = resolve(
    typeof values.kubeconfig === 'string' ? values.kubeconfig : 'kubeconfig.test.yaml',
  );
  let others: OtherKubeconfig[];
  try {
    others = (Array.isArray(values['kubeconfig-for']) ? values['kubeconfig-for'] : []).map((v) =>
      parseKubeconfigFor(v, dirname(kubeconfigPath)),
    );
  } catch (e) {
    err(`--kubeconfig-for: ${errorMessage(e)}`);
    return 2;
  }
  // kubectl sends credentials only over HTTPS (client-go's clientcmd drops the user's token
  // and certificate for an http:// server), so every option that puts credentials into a
  // kubeconfig serves HTTPS; over plain HTTP kubectl would be anonymous.
  const credentials =
    options.auth !== undefined || options.authorization === 'RBAC' || others.length > 0;
  if (values.https === true || credentials) options.https = true;
  let server: TestApiServer | undefined;
  try {
    server = await startTestApiServer(options);
    await server.writeKubeconfig(kubeconfigPath);
    for (const other of others) {
      if ('serviceAccount' in other.user) {
        const { namespace } = other.user.serviceAccount;
        if (server.get('namespaces', namespace) === undefined) {
          server.create('namespaces', { metadata: { name: namespace } });
        }
      }
      await server.addUser(other.user).writeKubeconfig(other.path);
    }
  } catch (e) {
    await server?.close();
    err(`could not start the test API server: ${errorMessage(e)}`);
    return 1;
  }
  out(`kube-controller-kit test API server listening on ${server.url}`);
  if (credentials && values.https !== true) {
    out('  (HTTPS: kubectl sends credentials only over HTTPS)');
  }
  out(`kubeconfig written to ${kubeconfigPath}`);
  for (const other of others) out(`kubeconfig for ${other.subject} written to ${other.path}`);
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

/** A kubeconfig `--kubeconfig-for` asks for: whom it is for and where it goes. */
interface OtherKubeconfig {
  /** The subject as given. */
  subject: string;
  /** The user for {@link TestApiServer.addUser}. */
  user: TestUser;
  /** Where the file goes. */
  path: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * `system:serviceaccount:<ns>:<name>[=<path>]` or `<user>[,<group>...][=<path>]`, the
 * path relative to the working directory and by default beside the main kubeconfig.
 */
function parseKubeconfigFor(value: string, dir: string): OtherKubeconfig {
  const eq = value.lastIndexOf('=');
  const subject = eq < 0 ? value : value.slice(0, eq);
  const path = eq < 0 ? undefined : value.slice(eq + 1);
  if (path === '') throw new Error(`"${value}" has an empty path after "="`);
  const sa = /^system:serviceaccount:([^:]*):([^:]*)$/.exec(subject);
  if (sa !== null) {
    const [, namespace = '', name = ''] = sa;
    if (!DNS_LABEL.test(namespace) || namespace.length > 63) {
      throw new Error(`"${namespace}" in ${subject} is not a valid namespace name (a DNS label)`);
    }
    if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
      throw new Error(
        `"${name}" in ${subject} is not a valid ServiceAccount name (a DNS subdomain)`,
      );
    }
    return {
      subject,
      user: { serviceAccount: { namespace, name } },
      path: resolve(path ?? join(dir, `kubeconfig.${namespace}.${name}.yaml`)),
    };
  }
  if (subject.startsWith('system:serviceaccount:')) {
    throw new Error(`"${subject}" is not system:serviceaccount:<namespace>:<name>`);
  }
  const [username = '', ...groups] = subject.split(',');
  if (username.trim() === '' || groups.some((g) => g.trim() === '')) {
    throw new Error(
      `"${value}" names no user; give system:serviceaccount:<ns>:<name> or <user>[,<group>...][=<path>]`,
    );
  }
  const file = `kubeconfig.${username.replace(/[^A-Za-z0-9._-]+/g, '_')}.yaml`;
  return {
    subject,
    user: { username, groups },
    path: resolve(path ?? join(dir, basename(file))),
  };
}
