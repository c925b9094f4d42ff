/**
 * A directory of kubeconfig files, one file one cluster, followed as files are added,
 * changed and removed (multicluster-runtime's `providers/file`, watching one directory).
 *
 * Rules:
 *
 * - **Names.** `member-a.kubeconfig`, `member-a.yaml`, `member-a.yml`, `member-a.json` and
 *   plain `member-a` are the cluster `member-a` (one of those extensions, and `.kubeconfig`
 *   before it, is dropped). Hidden files (`.x`, including a mounted Secret's `..data`), editor
 *   backups and swap files (`x~`, `#x#`, `.swp`, `.tmp`, `.bak`) are not clusters. A name
 *   that is not a valid cluster name, or a second file for a name already taken (in sorted
 *   order), is logged once and skipped.
 * - **Watching.** The directory is watched (`fs.watch`); any event schedules a rescan of the
 *   whole directory after `debounceMs` (default 500 ms) of quiet, at most `maxDebounceMs`
 *   (default 5 s) after the first event, so that an editor's partial writes are read once,
 *   whole. A rescan also runs every `resyncIntervalMs` (default 60 s) in case an event was
 *   missed (network file systems). Symbolic links are followed, so a Secret mounted as a
 *   volume works (its files are links that change at once, through `..data`).
 * - **Reading.** A file is read only if it is a regular file (never a device or a FIFO) of
 *   at most `maxBytes` (default 1 MiB), and parsed under the {@link parseKubeconfig} rules.
 *   A bad file is logged once (again only after its content changed) and skipped; a file
 *   that was good and turns bad keeps its last good cluster engaged.
 * - **Changes.** A new file is engaged; a changed file (another SHA-256) re-engages its
 *   cluster (the old one stops first); a removed file disengages its cluster. At most
 *   `maxClusters` (default 1000) files are engaged.
 * - **Failures** never end the provider: a directory that cannot be read is logged once and
 *   read again at the next event or resync. Only a directory that does not exist when the
 *   provider starts is an error.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { FSWatcher } from 'node:fs';
import { constants, watch } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import type { ClusterHandle, KubeconfigClusterOptions } from './cluster.js';
import { KubeconfigCluster } from './cluster.js';
import { Clusters } from './clusters.js';
import { InvalidKubeconfigError, InvalidMultiClusterOptionsError } from './errors.js';
import type { KubeconfigPolicy } from './kubeconfig.js';
import { DEFAULT_MAX_KUBECONFIG_BYTES, parseKubeconfig } from './kubeconfig.js';
import type { ClusterAware, ClusterProvider } from './provider.js';
import { isValidClusterName } from './request.js';

/** Options of a {@link KubeconfigDirectoryProvider}. */
export interface KubeconfigDirectoryProviderOptions extends KubeconfigPolicy {
  /** The directory of kubeconfig files. */
  directory: string;
  /** Quiet time after a change before the directory is read again, in ms (default 500). */
  debounceMs?: number;
  /** Longest a rescan is put off by a stream of changes, in ms (default 10 × `debounceMs`). */
  maxDebounceMs?: number;
  /** Rescan this often even without an event, in ms (default 60 000; 0 turns it off). */
  resyncIntervalMs?: number;
  /** Most files engaged at once (default 1000); further files are logged once and skipped. */
  maxClusters?: number;
  /** Options of every cluster made (cache defaults, transport options, the clusters' clock). */
  clusterOptions?: Omit<KubeconfigClusterOptions, 'logger'>;
  /** Source of time of the debounce and the resync (default the real clock). */
  clock?: Clock;
  /** Where engaging, removing and bad files are logged (default: warnings and errors to stderr). */
  logger?: Logger;
}

const EXTENSIONS = ['.yaml', '.yml', '.json', '.conf'];
const IGNORED_SUFFIXES = ['~', '.swp', '.swo', '.swx', '.tmp', '.bak', '.orig', '.part'];

/**
 * The cluster a file in the directory stands for, or undefined when the file is not a
 * cluster (hidden, an editor's backup or swap file). The result may still be an invalid
 * cluster name (see {@link isValidClusterName}).
 */
export function clusterNameOfFile(fileName: string): string | undefined {
  if (fileName === '' || fileName.startsWith('.') || fileName.startsWith('#')) return undefined;
  if (IGNORED_SUFFIXES.some((s) => fileName.endsWith(s))) return undefined;
  let name = fileName;
  const ext = EXTENSIONS.find((e) => name.endsWith(e));
  if (ext !== undefined) name = name.slice(0, -ext.length);
  if (name.endsWith('.kubeconfig')) name = name.slice(0, -'.kubeconfig'.length);
  return name === '' ? undefined : name;
}

type Read =
  { ok: true; bytes: Buffer } | { ok: false; gone: boolean; reason: string; signature: string };

/**
 * Engages one cluster per kubeconfig file of a directory and follows the directory's
 * changes; see the module documentation.
 *
 * @example
 * ```ts
 * const provider = new KubeconfigDirectoryProvider({ directory: '/etc/fleet/members' });
 * ```
 */
export class KubeconfigDirectoryProvider implements ClusterProvider {
  /** The directory followed. */
  readonly directory: string;
  readonly #options: KubeconfigDirectoryProviderOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #clusters: Clusters<KubeconfigCluster>;
  /** file → what was last reported about it (logged once until it changes). */
  readonly #reported = new Map<string, string>();
  #debounce: Timer | undefined;
  #firstEventAt: number | undefined;
  #resync: Timer | undefined;
  #dirty = false;
  #wake: (() => void) | undefined;
  #started = false;
  #scans = 0;

  /** @throws {@link InvalidMultiClusterOptionsError} for a missing directory or a bad number. */
  constructor(options: KubeconfigDirectoryProviderOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '') {
      throw new InvalidMultiClusterOptionsError(
        'KubeconfigDirectoryProvider needs options.directory (the directory of kubeconfig files)',
      );
    }
    for (const key of ['debounceMs', 'maxDebounceMs', 'resyncIntervalMs', 'maxClusters'] as const) {
      const v = options[key];
      if (v !== undefined && !(typeof v === 'number' && v >= 0 && Number.isFinite(v))) {
        throw new InvalidMultiClusterOptionsError(
          `KubeconfigDirectoryProvider: ${key} must be a finite number ≥ 0, got ${String(v)}`,
        );
      }
    }
    this.directory = options.directory;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#clusters = new Clusters({
      logger: this.#logger,
      description: `kubeconfig directory ${options.directory}`,
    });
  }

  /** {@inheritDoc ClusterProvider.get} */
  get(name: string): ClusterHandle {
    return this.#clusters.get(name);
  }

  /** {@inheritDoc ClusterProvider.clusterNames} */
  clusterNames(): string[] {
    return this.#clusters.names();
  }

  /** How many times the directory has been read and its clusters brought in line (for tests and logs). */
  get scans(): number {
    return this.#scans;
  }

  /**
   * {@inheritDoc ClusterProvider.start}
   *
   * @throws {@link InvalidMultiClusterOptionsError} (as a rejection) when the directory does
   *   not exist or is not a directory.
   */
  async start(signal: AbortSignal, aware: ClusterAware): Promise<void> {
    if (this.#started) {
      throw new InvalidMultiClusterOptionsError(
        'KubeconfigDirectoryProvider.start() was already called',
      );
    }
    this.#started = true;
    try {
      const st = await stat(this.directory);
      if (!st.isDirectory()) throw new Error('not a directory');
    } catch (err) {
      throw new InvalidMultiClusterOptionsError(
        `kubeconfig directory ${this.directory} cannot be followed: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    let watcher: FSWatcher | undefined;
    const onAbort = (): void => this.#wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      try {
        watcher = watch(this.directory, { persistent: true }, () => this.#changed());
        watcher.on('error', (err) => {
          this.#reportOnce(
            this.directory,
            'watch-error',
            `kubeconfig directory ${this.directory}: watching failed (${errorMessage(err)}); it is read again every ${this.#resyncMs()} ms`,
          );
        });
      } catch (err) {
        this.#logger.warn(
          `kubeconfig directory ${this.directory}: cannot be watched (${errorMessage(err)}); it is read again every ${this.#resyncMs()} ms`,
        );
      }
      while (!signal.aborted) {
        this.#dirty = false;
        await this.#scan(aware, signal);
        this.#armResync();
        if (signal.aborted) break;
        if (!this.#dirty) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      watcher?.close();
      this.#debounce?.cancel();
      this.#debounce = undefined;
      this.#resync?.cancel();
      this.#resync = undefined;
      await this.#clusters.removeAll();
    }
  }

  #resyncMs(): number {
    return this.#options.resyncIntervalMs ?? 60_000;
  }

  /** An event from the watcher: rescan after the debounce. */
  #changed(): void {
    const debounceMs = this.#options.debounceMs ?? 500;
    const maxMs = this.#options.maxDebounceMs ?? debounceMs * 10;
    const now = this.#clock.now();
    this.#firstEventAt ??= now;
    const due = Math.min(now + debounceMs, this.#firstEventAt + Math.max(maxMs, debounceMs));
    this.#debounce?.cancel();
    this.#debounce = this.#clock.setTimeout(() => {
      this.#debounce = undefined;
      this.#firstEventAt = undefined;
      this.#rescanNow();
    }, due - now);
  }

  #rescanNow(): void {
    this.#dirty = true;
    this.#wake?.();
  }

  #armResync(): void {
    this.#resync?.cancel();
    this.#resync = undefined;
    const ms = this.#resyncMs();
    if (ms > 0) {
      this.#resync = this.#clock.setTimeout(() => {
        this.#resync = undefined;
        this.#rescanNow();
      }, ms);
    }
  }

  #reportOnce(
    file: string,
    signature: string,
    message: string,
    fields?: Record<string, unknown>,
  ): void {
    if (this.#reported.get(file) === signature) return;
    this.#reported.set(file, signature);
    this.#logger.error(message, { directory: this.directory, ...fields });
  }

  /** Read the directory and bring the clusters in line with its files. */
  async #scan(aware: ClusterAware, signal: AbortSignal): Promise<void> {
    try {
      await this.#bringInLine(aware, signal);
    } finally {
      this.#scans++;
    }
  }

  async #bringInLine(aware: ClusterAware, signal: AbortSignal): Promise<void> {
    let entries: string[];
    try {
      entries = (await readdir(this.directory)).sort();
    } catch (err) {
      this.#reportOnce(
        this.directory,
        `readdir:${errorMessage(err)}`,
        `kubeconfig directory ${this.directory} cannot be read (${errorMessage(err)}); its clusters stay as they are`,
      );
      return;
    }
    if (this.#reported.get(this.directory)?.startsWith('readdir:') === true) {
      this.#reported.delete(this.directory);
    }
    const maxClusters = this.#options.maxClusters ?? 1000;
    const wanted = new Map<string, string>();
    const present = new Set<string>();
    for (const file of entries) {
      const cluster = clusterNameOfFile(file);
      if (cluster === undefined) continue;
      present.add(file);
      const path = join(this.directory, file);
      if (!isValidClusterName(cluster)) {
        this.#reportOnce(
          path,
          'name',
          `kubeconfig directory: ${path} is skipped: ${JSON.stringify(cluster)} is not a valid cluster name (letters, digits, '.', '_', '-')`,
        );
        continue;
      }
      const taken = wanted.get(cluster);
      if (taken !== undefined) {
        this.#reportOnce(
          path,
          `duplicate:${taken}`,
          `kubeconfig directory: ${path} is skipped: cluster ${cluster} is already ${taken}`,
        );
        continue;
      }
      if (wanted.size >= maxClusters) {
        this.#reportOnce(
          path,
          'too-many',
          `kubeconfig directory: ${path} is skipped: at most ${maxClusters} clusters (maxClusters)`,
        );
        continue;
      }
      wanted.set(cluster, file);
    }
    for (const file of [...this.#reported.keys()]) {
      const base = file.slice(this.directory.length + 1);
      if (file !== this.directory && !present.has(base)) this.#reported.delete(file);
    }
    const work: Promise<unknown>[] = [];
    for (const [cluster, file] of wanted) {
      if (signal.aborted) break;
      work.push(this.#load(cluster, file, aware));
    }
    for (const cluster of this.#clusters.names()) {
      if (!wanted.has(cluster)) work.push(this.#clusters.remove(cluster));
    }
    await Promise.all(work);
  }

  /** Read `file` with its limits; never throws. */
  async #read(path: string): Promise<Read> {
    const maxBytes = this.#options.maxBytes ?? DEFAULT_MAX_KUBECONFIG_BYTES;
    let handle;
    try {
      // Non-blocking: opening a FIFO for reading would wait for a writer for ever.
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
      const st = await handle.stat();
      if (!st.isFile()) {
        return { ok: false, gone: false, reason: 'is not a regular file', signature: 'not-file' };
      }
      if (st.size > maxBytes) {
        return {
          ok: false,
          gone: false,
          reason: `is ${st.size} bytes, more than the limit of ${maxBytes}`,
          signature: `size:${st.size}`,
        };
      }
      const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(st.size + 1, 4096)));
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > maxBytes) {
        return {
          ok: false,
          gone: false,
          reason: `is more than the limit of ${maxBytes} bytes`,
          signature: 'size:grown',
        };
      }
      return { ok: true, bytes: buffer.subarray(0, length) };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return {
        ok: false,
        gone: code === 'ENOENT',
        reason: `cannot be read: ${errorMessage(err)}`,
        signature: `read:${String(code)}`,
      };
    } finally {
      await handle?.close();
    }
  }

  async #load(cluster: string, file: string, aware: ClusterAware): Promise<void> {
    const path = join(this.directory, file);
    const read = await this.#read(path);
    if (!read.ok) {
      // Gone between the listing and the read: the next event rescans.
      if (!read.gone) {
        this.#reportOnce(path, read.signature, `kubeconfig ${path} is skipped: it ${read.reason}`);
      }
      return;
    }
    const fingerprint = createHash('sha256').update(read.bytes).digest('hex');
    if (this.#clusters.fingerprint(cluster) === fingerprint) return;
    if (this.#reported.get(path) === fingerprint) return;
    let kubeConfig;
    try {
      kubeConfig = await parseKubeconfig(read.bytes, { ...this.#options, source: path });
    } catch (err) {
      const message =
        err instanceof InvalidKubeconfigError
          ? err.message
          : `kubeconfig ${path}: ${errorMessage(err)}`;
      const kept = this.#clusters.has(cluster)
        ? `; cluster ${cluster} keeps its last good one`
        : '';
      this.#reportOnce(path, fingerprint, `${message} (skipped${kept})`, { error: err });
      return;
    }
    this.#reported.delete(path);
    const engaged = await this.#clusters.addOrReplace(
      cluster,
      new KubeconfigCluster(cluster, kubeConfig, {
        ...this.#options.clusterOptions,
        logger: this.#logger,
      }),
      aware,
      fingerprint,
    );
    // Engaging failed (logged by Clusters): not tried again until the file changes.
    if (!engaged && !this.#clusters.has(cluster)) this.#reported.set(path, fingerprint);
  }
}
