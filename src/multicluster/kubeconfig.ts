/**
 * Reading a kubeconfig that came from outside the process — a file in a watched directory,
 * the `value` of a Secret — as hostile input: bounded, parsed inside one guard, and screened
 * before client-node sees it.
 *
 * Rules:
 *
 * - **Size**: more than `maxBytes` (default 1 MiB, a Secret's own limit) is refused unread.
 * - **Text**: UTF-8 (a BOM is dropped), one YAML (or JSON) document, parsed by the `yaml`
 *   package with at most 100 aliases (no alias bombs) and unique keys.
 * - **Shape**: a mapping with lists `clusters`, `users` and `contexts` (at most 100 entries
 *   each); the context used (`current-context`, or the one asked for) exists and names a
 *   cluster entry whose `server` is an `https:` or `http:` URL.
 * - **Credentials**: what a kubeconfig can make this process do besides talking to its
 *   server is refused unless allowed: an `exec` credential plugin or an `auth-provider`
 *   (runs a command; `allowExec`), and a file reference — `token-file`, `client-certificate`,
 *   `client-key`, `certificate-authority` (client-node reads it as it loads the kubeconfig,
 *   so a hostile one could send this Pod's own service-account token to a server of its
 *   choosing; `allowFileReferences`, absolute paths only). Every entry is screened, not
 *   only the current context's: client-node reads every user's `token-file` on load.
 *
 * Any failure is one {@link InvalidKubeconfigError} naming the source and the reason.
 *
 * @module
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import type * as YamlTypes from 'yaml';
import { errorMessage } from '../util/errors.js';
import { InvalidKubeconfigError } from './errors.js';

/** A Secret's own size limit, and the default limit of a kubeconfig read here: 1 MiB. */
export const DEFAULT_MAX_KUBECONFIG_BYTES = 1024 * 1024;

/** Most entries of each of `clusters`, `users` and `contexts` in one kubeconfig. */
export const MAX_KUBECONFIG_ENTRIES = 100;

/** What a kubeconfig from outside may do beyond talking to its server. */
export interface KubeconfigPolicy {
  /** Largest kubeconfig accepted, in bytes (default {@link DEFAULT_MAX_KUBECONFIG_BYTES}). */
  maxBytes?: number;
  /** Accept `exec` credential plugins and `auth-provider`s (they run commands; default false). */
  allowExec?: boolean;
  /**
   * Accept references to files (`token-file`, `client-certificate`, `client-key`,
   * `certificate-authority`), absolute paths only (default false: only the inline `-data`
   * forms and `token`).
   */
  allowFileReferences?: boolean;
}

/** Options of {@link parseKubeconfig}. */
export interface ParseKubeconfigOptions extends KubeconfigPolicy {
  /** Where the bytes came from, for errors: a file path, or `Secret <namespace>/<name>`. */
  source: string;
  /** The context to use (default the kubeconfig's `current-context`). */
  context?: string;
}

type YamlModule = typeof YamlTypes;
let yamlModule: Promise<YamlModule> | undefined;

/** The optional peer dependency `yaml`, imported once. */
function loadYamlModule(source: string): Promise<YamlModule> {
  yamlModule ??= import('yaml');
  return yamlModule.catch((err: unknown) => {
    yamlModule = undefined;
    throw new InvalidKubeconfigError(
      source,
      `reading a kubeconfig needs the "yaml" package: npm install yaml (${errorMessage(err)})`,
      { cause: err },
    );
  });
}

const EXEC_FIELDS = ['exec', 'auth-provider'] as const;
const USER_FILE_FIELDS = ['token-file', 'client-certificate', 'client-key'] as const;
const CLUSTER_FILE_FIELDS = ['certificate-authority'] as const;

type Entry = Record<string, unknown>;

function isRecord(x: unknown): x is Entry {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The named entries of one list (`clusters`, `users`, `contexts`): `{ name, <kind>: {…} }`. */
function entries(
  doc: Entry,
  list: 'clusters' | 'users' | 'contexts',
  field: 'cluster' | 'user' | 'context',
  fail: (reason: string) => never,
): Map<string, Entry> {
  const raw = doc[list];
  if (raw === undefined || raw === null) return new Map();
  if (!Array.isArray(raw)) fail(`${list} is not a list`);
  const items = raw as unknown[];
  if (items.length > MAX_KUBECONFIG_ENTRIES) {
    fail(`${list} has ${items.length} entries, more than ${MAX_KUBECONFIG_ENTRIES}`);
  }
  const out = new Map<string, Entry>();
  for (const [i, item] of items.entries()) {
    if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') {
      fail(`${list}[${i}] has no name`);
    }
    const body = item[field] ?? {};
    if (!isRecord(body)) fail(`${list}[${i}] (${item.name}): ${field} is not a mapping`);
    if (out.has(item.name)) fail(`${list} names ${item.name} twice`);
    out.set(item.name, body);
  }
  return out;
}

function screenFiles(
  what: string,
  body: Entry,
  fields: readonly string[],
  allowed: boolean,
  fail: (reason: string) => never,
): void {
  for (const field of fields) {
    const value = body[field];
    if (value === undefined || value === null || value === '') continue;
    if (!allowed) {
      fail(
        `${what} reads the file named by ${field}, and file references are not allowed for this provider (inline the ${field === 'token-file' ? 'token' : `${field}-data`}, or allow file references)`,
      );
    }
    if (typeof value !== 'string' || !value.startsWith('/')) {
      fail(`${what}: ${field} must be an absolute path`);
    }
  }
}

/** Most bytes of a `token-file` (when file references are allowed). */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/** The token in `path`, read with a size limit (a token file is a few KiB at most). */
async function readTokenFile(
  path: string,
  what: string,
  fail: (reason: string, cause?: unknown) => never,
): Promise<string> {
  let handle;
  try {
    // Non-blocking: opening a FIFO for reading would wait for a writer for ever.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = await handle.stat();
    if (!stat.isFile()) fail(`${what}: token-file ${path} is not a regular file`);
    const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_TOKEN_FILE_BYTES) {
      fail(`${what}: token-file ${path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
    }
    return buffer.subarray(0, bytesRead).toString('utf8').trim();
  } catch (err) {
    if (err instanceof InvalidKubeconfigError) throw err;
    return fail(`${what}: cannot read token-file ${path}: ${errorMessage(err)}`, err);
  } finally {
    await handle?.close();
  }
}

/**
 * Parse a kubeconfig that came from a file or a Secret, under the rules of the module
 * documentation, into a client-node `KubeConfig` set to the context used.
 *
 * @throws {@link InvalidKubeconfigError} naming `options.source` and what was wrong.
 */
export async function parseKubeconfig(
  bytes: string | Uint8Array,
  options: ParseKubeconfigOptions,
): Promise<KubeConfig> {
  const { source } = options;
  const fail = (reason: string, cause?: unknown): never => {
    throw new InvalidKubeconfigError(source, reason, cause === undefined ? undefined : { cause });
  };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_KUBECONFIG_BYTES;
  const size = typeof bytes === 'string' ? Buffer.byteLength(bytes, 'utf8') : bytes.byteLength;
  if (size > maxBytes) fail(`is ${size} bytes, more than the limit of ${maxBytes}`);
  if (size === 0) fail('is empty');
  let text: string;
  if (typeof bytes === 'string') {
    text = bytes;
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (err) {
      return fail('is not UTF-8 text', err);
    }
  }
  const yaml = await loadYamlModule(source);
  let doc: unknown;
  try {
    doc = yaml.parse(text, { maxAliasCount: 100, uniqueKeys: true });
  } catch (err) {
    return fail(`is not a YAML document: ${errorMessage(err).split('\n')[0]}`, err);
  }
  if (!isRecord(doc)) return fail('is not a mapping (a kubeconfig has clusters, users, contexts)');
  const clusters = entries(doc, 'clusters', 'cluster', fail);
  const users = entries(doc, 'users', 'user', fail);
  const contexts = entries(doc, 'contexts', 'context', fail);
  for (const [name, user] of users) {
    for (const field of EXEC_FIELDS) {
      if (user[field] !== undefined && user[field] !== null && options.allowExec !== true) {
        fail(
          `user ${name} has ${field === 'exec' ? 'an exec credential plugin' : 'an auth-provider'}, which runs a command; not allowed for this provider (use a token or a client certificate, or allow exec)`,
        );
      }
    }
    screenFiles(`user ${name}`, user, USER_FILE_FIELDS, options.allowFileReferences === true, fail);
  }
  for (const [name, cluster] of clusters) {
    screenFiles(
      `cluster ${name}`,
      cluster,
      CLUSTER_FILE_FIELDS,
      options.allowFileReferences === true,
      fail,
    );
  }
  const contextName = options.context ?? doc['current-context'];
  if (typeof contextName !== 'string' || contextName === '') {
    return fail('has no current-context');
  }
  const context = contexts.get(contextName);
  if (context === undefined) return fail(`names current-context ${contextName}, which it lacks`);
  const clusterName = context.cluster;
  const cluster = typeof clusterName === 'string' ? clusters.get(clusterName) : undefined;
  if (cluster === undefined) {
    return fail(
      `context ${contextName} names cluster ${JSON.stringify(clusterName)}, which it lacks`,
    );
  }
  const server = cluster.server;
  let url: URL | undefined;
  try {
    url = typeof server === 'string' ? new URL(server) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return fail(`cluster ${JSON.stringify(clusterName)} has no https:// or http:// server URL`);
  }
  const userName = context.user;
  if (userName !== undefined && (typeof userName !== 'string' || !users.has(userName))) {
    return fail(`context ${contextName} names user ${JSON.stringify(userName)}, which it lacks`);
  }
  const str = (body: Entry, field: string, what: string): string | undefined => {
    const value = body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') fail(`${what}: ${field} is not a string`);
    return value as string;
  };
  const kubeConfig = new KubeConfig();
  try {
    // Built from the screened document itself, never re-parsed: client-node's own YAML
    // reader (js-yaml) would read merge keys (`<<:`) that this parse leaves alone, and a
    // screened field could come back through one.
    const optional = <V>(key: string, value: V | undefined): Record<string, V> =>
      value === undefined ? {} : { [key]: value };
    kubeConfig.loadFromOptions({
      clusters: [...clusters].map(([name, c]) => {
        const what = `cluster ${name}`;
        return {
          name,
          server: str(c, 'server', what) ?? '',
          skipTLSVerify: c['insecure-skip-tls-verify'] === true,
          ...optional('caData', str(c, 'certificate-authority-data', what)),
          ...optional('caFile', str(c, 'certificate-authority', what)),
          ...optional('tlsServerName', str(c, 'tls-server-name', what)),
          ...optional('proxyUrl', str(c, 'proxy-url', what)),
        };
      }),
      users: await Promise.all(
        [...users].map(async ([name, u]) => {
          const what = `user ${name}`;
          const tokenFile = str(u, 'token-file', what);
          const token =
            str(u, 'token', what) ??
            (tokenFile !== undefined && tokenFile !== ''
              ? await readTokenFile(tokenFile, what, fail)
              : undefined);
          return {
            name,
            ...optional('token', token),
            ...optional('certData', str(u, 'client-certificate-data', what)),
            ...optional('keyData', str(u, 'client-key-data', what)),
            ...optional('certFile', str(u, 'client-certificate', what)),
            ...optional('keyFile', str(u, 'client-key', what)),
            ...optional('username', str(u, 'username', what)),
            ...optional('password', str(u, 'password', what)),
            ...optional('impersonateUser', str(u, 'as', what)),
            ...optional('exec', u.exec ?? undefined),
            ...optional('authProvider', u['auth-provider'] ?? undefined),
          };
        }),
      ),
      contexts: [...contexts].map(([name, c]) => {
        const what = `context ${name}`;
        return {
          name,
          cluster: str(c, 'cluster', what) ?? '',
          user: str(c, 'user', what) ?? '',
          ...optional('namespace', str(c, 'namespace', what)),
        };
      }),
      currentContext: contextName,
    });
  } catch (err) {
    if (err instanceof InvalidKubeconfigError) throw err;
    return fail(`cannot be loaded: ${errorMessage(err)}`, err);
  }
  if (kubeConfig.getCurrentCluster() === null) {
    return fail(`context ${contextName} has no usable cluster`);
  }
  return kubeConfig;
}
