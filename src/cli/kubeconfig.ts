/**
 * `kube-controller-kit kubeconfig`: a kubeconfig that authenticates as a ServiceAccount.
 * It asks the API server for a token through the TokenRequest subresource, as
 * `kubectl create token` does (same flags: `-n`, `--duration`, `--audience`,
 * `--bound-object-kind`, `--bound-object-name`), and writes the cluster of the kubeconfig
 * it asked with (its current context, or `--context`) with that token: what a user would
 * otherwise do by hand with `kubectl create token` and `kubectl config set-credentials`.
 * It works against any API server: the in-memory one and a real cluster alike.
 *
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createToken } from '../client/token_request.js';
import type { TokenRequestOptions } from '../client/token_request.js';
import { Transport } from '../client/transport.js';
import { loadKubeConfig } from '../program/cluster.js';
import { errorMessage } from '../util/errors.js';

/** Where {@link runKubeconfigCli} writes. */
export interface KubeconfigCliIo {
  /** Receives the kubeconfig (without `-o`). Default: process.stdout. */
  stdout?: (text: string) => void;
  /** Receives errors, warnings and usage. Default: process.stderr. */
  stderr?: (text: string) => void;
  /** Cancels the request to the server. */
  signal?: AbortSignal;
}

/** The usage text of the `kubeconfig` command. */
export const KUBECONFIG_USAGE = `Usage: kube-controller-kit kubeconfig <serviceaccount> [options]

Writes a kubeconfig that authenticates as a ServiceAccount: asks the API server for a token
(TokenRequest, as kubectl create token does) and writes the cluster of the kubeconfig it
asked with, that token, and a context in the ServiceAccount's namespace.

<serviceaccount> is NAME (in the namespace of -n) or system:serviceaccount:NAMESPACE:NAME.

Options:
  -n, --namespace <ns>          the ServiceAccount's namespace (default: the context's, else default)
  --kubeconfig <path>           the kubeconfig to ask with (default: $KUBECONFIG, else ~/.kube/config)
  --context <name>              a context of that kubeconfig other than the current one
  --duration <d>                the token's lifetime, e.g. 10m, 1h, 24h (default: the server's, 1h)
  --audience <aud>              an audience of the token (repeatable; default: the API server's)
  --bound-object-kind <kind>    Pod or Secret: the token stops working when that object is deleted
  --bound-object-name <name>    the name of that object (in the ServiceAccount's namespace)
  -o, --output <path>           write the file there (mode 0600) instead of to standard output
  -h, --help                    show this help

Example, against the in-memory server (kube-controller-kit apiserver --authorization-mode=RBAC):
  kube-controller-kit kubeconfig bot -n ops --kubeconfig kubeconfig.test.yaml -o bot.yaml
  kubectl --kubeconfig bot.yaml auth whoami
`;

class UsageError extends Error {}

interface ParsedArgs {
  namespace: string | undefined;
  name: string;
  kubeconfig: string;
  context: string | undefined;
  token: Omit<TokenRequestOptions, 'signal'>;
  output: string | undefined;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A Go duration of hours, minutes and seconds (`1h30m`, `600s`) in whole seconds. */
export function parseDurationSeconds(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (m === null || text === '') {
    throw new UsageError(`--duration "${text}" is not a duration such as 10m, 1h or 1h30m`);
  }
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  if (seconds === 0) throw new UsageError('--duration must be longer than 0');
  return seconds;
}

function parseArgs(argv: readonly string[]): ParsedArgs | 'help' {
  const args = [...argv];
  if (args[0] === 'kubeconfig') args.shift();
  const positionals: string[] = [];
  let namespace: string | undefined;
  let kubeconfig = '';
  let context: string | undefined;
  let output: string | undefined;
  let boundKind: string | undefined;
  let boundName: string | undefined;
  const token: Omit<TokenRequestOptions, 'signal'> = {};
  const value = (flag: string): string => {
    const v = args.shift();
    if (v === undefined || v.startsWith('-')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  while (args.length > 0) {
    const arg = args.shift() ?? '';
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      args.unshift(arg.slice(0, eq), arg.slice(eq + 1));
      continue;
    }
    switch (arg) {
      case '-h':
      case '--help':
        return 'help';
      case '-n':
      case '--namespace':
        namespace = value(arg);
        break;
      case '--kubeconfig':
        kubeconfig = value(arg);
        break;
      case '--context':
        context = value(arg);
        break;
      case '--duration':
        token.expirationSeconds = parseDurationSeconds(value(arg));
        break;
      case '--audience':
        (token.audiences ??= []).push(value(arg));
        break;
      case '--bound-object-kind':
        boundKind = value(arg);
        break;
      case '--bound-object-name':
        boundName = value(arg);
        break;
      case '-o':
      case '--output':
        output = value(arg);
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        positionals.push(arg);
    }
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? 'name the ServiceAccount: NAME with -n NAMESPACE, or system:serviceaccount:NAMESPACE:NAME'
        : `one ServiceAccount at a time, got ${positionals.join(' ')}`,
    );
  }
  let name = positionals[0] ?? '';
  const full = /^system:serviceaccount:([^:]*):([^:]*)$/.exec(name);
  if (full !== null) {
    const [, ns = '', saName = ''] = full;
    if (namespace !== undefined && namespace !== ns) {
      throw new UsageError(`-n ${namespace} contradicts the namespace ${ns} of ${name}`);
    }
    namespace = ns;
    name = saName;
  } else if (name.includes(':')) {
    throw new UsageError(
      `"${name}" is neither a ServiceAccount name nor system:serviceaccount:NAMESPACE:NAME`,
    );
  }
  if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
    throw new UsageError(`"${name}" is not a valid ServiceAccount name (a DNS subdomain)`);
  }
  if (namespace !== undefined && (!DNS_LABEL.test(namespace) || namespace.length > 63)) {
    throw new UsageError(`"${namespace}" is not a valid namespace name (a DNS label)`);
  }
  if ((boundKind === undefined) !== (boundName === undefined)) {
    throw new UsageError('--bound-object-kind and --bound-object-name go together');
  }
  if (boundKind !== undefined && boundName !== undefined) {
    if (boundKind !== 'Pod' && boundKind !== 'Secret') {
      throw new UsageError(`--bound-object-kind must be Pod or Secret, got "${boundKind}"`);
    }
    token.boundObjectRef = { kind: boundKind, name: boundName };
  }
  return { namespace, name, kubeconfig, context, token, output };
}

/** A YAML scalar: JSON's quoted string is valid YAML and needs no escaping rules of its own. */
const quote = (text: string): string => JSON.stringify(text);

/** The cluster entry's fields, with a CA file read in so the kubeconfig stands alone. */
async function clusterFields(cluster: {
  server: string;
  caData?: string | undefined;
  caFile?: string | undefined;
  skipTLSVerify: boolean;
  tlsServerName?: string | undefined;
}): Promise<string[]> {
  const lines = [`    server: ${quote(cluster.server)}`];
  let caData = cluster.caData;
  if (caData === undefined && cluster.caFile !== undefined) {
    caData = (await readFile(cluster.caFile)).toString('base64');
  }
  if (caData !== undefined) lines.push(`    certificate-authority-data: ${quote(caData)}`);
  if (cluster.skipTLSVerify) lines.push('    insecure-skip-tls-verify: true');
  if (cluster.tlsServerName !== undefined) {
    lines.push(`    tls-server-name: ${quote(cluster.tlsServerName)}`);
  }
  return lines;
}

/**
 * Runs `kubeconfig` with the given arguments (everything after the program name; the
 * leading `kubeconfig` may be left out).
 *
 * @returns the exit code: 0 written, 1 when the kubeconfig cannot be loaded or the server
 *   refuses the token (its reason is printed), 2 for a usage error. It never throws for bad
 *   input and never calls `process.exit`.
 */
export async function runKubeconfigCli(
  argv: readonly string[],
  io: KubeconfigCliIo = {},
): Promise<number> {
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  let args: ParsedArgs;
  try {
    const parsed = parseArgs(argv);
    if (parsed === 'help') {
      out(KUBECONFIG_USAGE);
      return 0;
    }
    args = parsed;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`error: ${e.message}\n\n${KUBECONFIG_USAGE}`);
    return 2;
  }
  let transport: Transport | undefined;
  try {
    const { kubeConfig } = loadKubeConfig(args.kubeconfig);
    if (args.context !== undefined) {
      if (kubeConfig.getContextObject(args.context) === null) {
        err(
          `error: the kubeconfig has no context "${args.context}" (it has ${kubeConfig.contexts.map((c) => c.name).join(', ') || 'none'})\n`,
        );
        return 1;
      }
      kubeConfig.setCurrentContext(args.context);
    }
    const cluster = kubeConfig.getCurrentCluster();
    if (cluster === null) {
      err(`error: context "${kubeConfig.getCurrentContext()}" names no cluster\n`);
      return 1;
    }
    const namespace =
      args.namespace ??
      kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ??
      'default';
    transport = new Transport(kubeConfig);
    const issued = await createToken(transport, namespace, args.name, {
      ...args.token,
      ...(io.signal !== undefined ? { signal: io.signal } : {}),
    });
    const user = `system:serviceaccount:${namespace}:${args.name}`;
    const context = `${user}@${cluster.name}`;
    const text = [
      '# A kubeconfig for the ServiceAccount ' + `${namespace}/${args.name}, written by`,
      `# kube-controller-kit kubeconfig; its token expires at ${issued.expirationTimestamp}.`,
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: ${quote(cluster.name)}`,
      '  cluster:',
      ...(await clusterFields(cluster)),
      'users:',
      `- name: ${quote(user)}`,
      '  user:',
      `    token: ${quote(issued.token)}`,
      'contexts:',
      `- name: ${quote(context)}`,
      '  context:',
      `    cluster: ${quote(cluster.name)}`,
      `    user: ${quote(user)}`,
      `    namespace: ${quote(namespace)}`,
      `current-context: ${quote(context)}`,
      '',
    ].join('\n');
    if (cluster.server.startsWith('http://')) {
      err(
        `warning: ${cluster.server} is plain HTTP: kubectl sends no token over it and would be anonymous ` +
          '(start the in-memory server with --https or --authorization-mode=RBAC)\n',
      );
    }
    if (args.output === undefined) {
      out(text);
    } else {
      await writeFile(args.output, text, { mode: 0o600 });
      err(`wrote ${args.output}: ${user}, token valid until ${issued.expirationTimestamp}\n`);
    }
    return 0;
  } catch (e) {
    err(`error: ${errorMessage(e)}\n`);
    return 1;
  } finally {
    transport?.close();
  }
}
