/**
 * Keeps a serving certificate current as its files change, as controller-runtime's
 * `certwatcher`: a file-system watch on the directories of the certificate and key (a
 * Kubernetes Secret volume swaps a `..data` symlink, so the directory is watched, not the
 * files) plus a poll every 10 seconds through the kit's {@link Clock} (for file systems
 * whose events are lost). Each read counts `certwatcher_read_certificate_total`; a failed
 * read (missing file, not PEM, key not matching the certificate) counts
 * `certwatcher_read_certificate_errors_total`, is logged, and keeps the last good
 * certificate. Listeners hear of a certificate only when it changed.
 *
 * @module
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { CounterMetric } from '../util/metrics.js';
import { defaultLogger } from '../util/logger.js';
import type { CertificateKeyPair } from './certificates.js';
import { WebhookError } from './errors.js';
import type { CertWatcherMetricsProvider } from './metrics.js';
import { getDefaultWebhookMetricsProvider } from './metrics.js';

/** controller-runtime's poll interval: 10 seconds. */
export const DEFAULT_CERT_WATCH_INTERVAL_MS = 10_000;

/** Options of a {@link CertWatcher}. */
export interface CertWatcherOptions {
  /** Path of the PEM certificate (chain). */
  certPath: string;
  /** Path of the PEM private key. */
  keyPath: string;
  /** Time source of the poll (default: the real clock). */
  clock?: Clock;
  /** Poll interval in ms (default 10 000). */
  intervalMs?: number;
  /** Where reads are counted (default: the provider set with `setDefaultWebhookMetricsProvider`). */
  metricsProvider?: CertWatcherMetricsProvider;
  /** Where reloads and failures are logged (default: the library's default logger). */
  logger?: Logger;
}

/** Reads a certificate and key from files and reloads them when they change. */
export class CertWatcher {
  readonly #certPath: string;
  readonly #keyPath: string;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #reads: CounterMetric | undefined;
  readonly #readErrors: CounterMetric | undefined;
  readonly #logger: Logger;
  readonly #listeners = new Set<(pair: CertificateKeyPair) => void>();
  #current: CertificateKeyPair | undefined;
  #reading: Promise<boolean> = Promise.resolve(false);

  /** @param options - the files, the clock and the poll interval. */
  constructor(options: CertWatcherOptions) {
    this.#certPath = options.certPath;
    this.#keyPath = options.keyPath;
    this.#clock = options.clock ?? realClock;
    this.#intervalMs = options.intervalMs ?? DEFAULT_CERT_WATCH_INTERVAL_MS;
    const metrics = options.metricsProvider ?? getDefaultWebhookMetricsProvider();
    this.#reads = metrics?.newReadCertificateTotalMetric();
    this.#readErrors = metrics?.newReadCertificateErrorsMetric();
    this.#logger = options.logger ?? defaultLogger;
  }

  /** The certificate and key last read successfully, if any. */
  get current(): CertificateKeyPair | undefined {
    return this.#current;
  }

  /**
   * Call `listener` with each new certificate (not on reads that found the same files).
   * Returns a function that removes it.
   */
  onChange(listener: (pair: CertificateKeyPair) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Read both files now. Reads run one at a time, in order. Resolves true when the
   * certificate changed.
   *
   * @throws {@link WebhookError} when a file cannot be read, is not PEM, or the key does not
   * match the certificate (the last good certificate stays).
   */
  readCertificate(): Promise<boolean> {
    const next = this.#reading.then(
      () => this.#read(),
      () => this.#read(),
    );
    this.#reading = next;
    return next;
  }

  async #read(): Promise<boolean> {
    this.#reads?.inc();
    let pair: CertificateKeyPair;
    try {
      const [cert, key] = await Promise.all([
        readFile(this.#certPath, 'utf8'),
        readFile(this.#keyPath, 'utf8'),
      ]);
      if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) {
        throw new Error('the private key does not match the certificate');
      }
      pair = { cert, key };
    } catch (err) {
      this.#readErrors?.inc();
      throw new WebhookError(
        `certwatcher: reading ${this.#certPath} and ${this.#keyPath}: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    if (this.#current?.cert === pair.cert && this.#current.key === pair.key) return false;
    this.#current = pair;
    this.#logger.info('certwatcher: updated the current TLS certificate', {
      cert: this.#certPath,
    });
    for (const listener of this.#listeners) listener(pair);
    return true;
  }

  #reload(why: string): void {
    this.readCertificate().catch((err: unknown) => {
      this.#logger.error(`certwatcher: ${why}: ${errorMessage(err)}`);
    });
  }

  /**
   * Watch and poll until `signal` aborts; resolves once the watches are closed and the poll
   * timer is cancelled. Does not read first: call {@link CertWatcher.readCertificate} for
   * that (the webhook server does, and fails to start without a certificate).
   */
  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const files = new Set([basename(this.#certPath), basename(this.#keyPath)]);
    const watchers: FSWatcher[] = [];
    for (const dir of new Set([dirname(this.#certPath), dirname(this.#keyPath)])) {
      try {
        const watcher = watch(dir, { persistent: true }, (_event, fileName) => {
          // A Secret volume swaps `..data`; an editor or `mv` replaces the file itself.
          const name = fileName?.toString();
          if (name === undefined || files.has(name) || name.startsWith('..')) {
            this.#reload('re-reading after a file event');
          }
        });
        watcher.on('error', (err) => {
          this.#logger.warn(
            `certwatcher: watch of ${dir} failed (polling goes on): ${errorMessage(err)}`,
          );
        });
        watchers.push(watcher);
      } catch (err) {
        this.#logger.warn(`certwatcher: cannot watch ${dir} (polling only): ${errorMessage(err)}`);
      }
    }
    let timer: Timer | undefined;
    const poll = (): void => {
      timer = this.#clock.setTimeout(() => {
        this.#reload('periodic re-read failed');
        poll();
      }, this.#intervalMs);
    };
    poll();
    await new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    timer?.cancel();
    for (const watcher of watchers) watcher.close();
    await this.#reading.catch(() => undefined);
  }
}
