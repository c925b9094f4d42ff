/**
 * A serving certificate read from a directory (controller-runtime's certwatcher, as
 * kubebuilder's `--metrics-cert-path` uses it): `tls.crt` and `tls.key` by default, read
 * when the server starts and again whenever the directory changes (a mounted Secret is
 * updated by replacing a symlink), so a renewed certificate is served without a restart.
 * A pair caught half-written keeps the last good one until the next change.
 *
 * @module
 */
import { readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, KubeControllerKitError } from '../util/errors.js';
import { generateCertificateAuthority } from '../webhook/index.js';
import type { TlsSource } from './servers.js';

/**
 * Where the certificate and key are. Without `certPath`, the server makes a self-signed
 * certificate for `localhost`, `127.0.0.1` and `::1` in memory when it starts, as
 * controller-runtime's secure metrics server does without a cert dir (a scraper then has to
 * skip verification or trust that certificate; mount a real one for production).
 */
export interface CertDirOptions {
  /** The directory (omit it for a self-signed certificate made in memory). */
  readonly certPath?: string;
  /** The certificate's file name (default `tls.crt`). */
  readonly certName?: string;
  /** The key's file name (default `tls.key`). */
  readonly keyName?: string;
}

/** The certificate or key could not be read when the server started. */
export class ServingCertificateError extends KubeControllerKitError {}

/** A {@link TlsSource} over a certificate directory, reloaded on change. */
export function certDirSource(options: CertDirOptions & { readonly certPath: string }): TlsSource {
  const certFile = join(options.certPath, options.certName ?? 'tls.crt');
  const keyFile = join(options.certPath, options.keyName ?? 'tls.key');
  let last: { cert: Buffer; key: Buffer } | undefined;
  return {
    current() {
      try {
        last = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
      } catch (err) {
        if (last === undefined) {
          throw new ServingCertificateError(
            `cannot read the serving certificate ${certFile} and key ${keyFile}: ${errorMessage(err)}`,
            { cause: err },
          );
        }
      }
      return last;
    },
    watch(changed) {
      const watcher = watch(options.certPath, { persistent: false }, () => {
        try {
          changed();
        } catch {
          // a half-written pair: the last good one stays until the next change
        }
      });
      watcher.on('error', () => watcher.close());
      return () => watcher.close();
    },
  };
}

/**
 * A {@link TlsSource} for `options`: the directory, reloaded on change, or (without
 * `certPath`) a self-signed certificate for `localhost`, `127.0.0.1` and `::1`, made once.
 */
export function servingCertificateSource(options: CertDirOptions): TlsSource {
  const { certPath } = options;
  if (certPath !== undefined) return certDirSource({ ...options, certPath });
  let pair: { cert: string; key: string } | undefined;
  return {
    current() {
      pair ??= generateCertificateAuthority({ commonName: 'kube-controller-kit-metrics-ca' }).issue(
        { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] },
      );
      return pair;
    },
  };
}
