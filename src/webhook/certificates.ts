/**
 * Certificates for development and tests: a certificate authority and serving (or client)
 * certificates it signs, made with Node's `crypto` alone (the DER is written by hand).
 *
 * Every certificate carries its names in `subjectAltName` (DNS names and IP addresses):
 * Go clients, kube-apiserver among them, refuse a certificate that names its host only in
 * the common name (`x509: certificate relies on legacy Common Name field, use SANs
 * instead`). Keys are ECDSA P-256 and signatures ECDSA with SHA-256. These are for
 * development and tests (envtest makes the same kind); production certificates come from
 * cert-manager or your platform.
 *
 * @module
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { join } from 'node:path';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  integer,
  integerFromBytes,
  namedBits,
  octetString,
  oid,
  pem,
  sequence,
  set,
  time,
  utf8String,
} from './der.js';
import { WebhookError } from './errors.js';

/** A PEM certificate and its PEM (PKCS #8) private key. */
export interface CertificateKeyPair {
  /** The certificate, PEM. */
  cert: string;
  /** The private key, PEM (PKCS #8). */
  key: string;
}

/** Options of {@link generateCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** The CA's common name (default `kube-controller-kit-webhook-ca`). */
  commonName?: string;
  /** Validity in days from now (default 365). */
  validityDays?: number;
  /** "Now" in ms since the epoch (default `Date.now()`); certificates start an hour earlier. */
  now?: number;
}

/** Options of {@link CertificateAuthority.issue}. */
export interface IssueCertificateOptions {
  /** DNS names for `subjectAltName` (e.g. `webhook-service.system.svc`, `localhost`). */
  dnsNames?: readonly string[];
  /** IP addresses for `subjectAltName` (IPv4 or IPv6, e.g. `127.0.0.1`, `::1`). */
  ipAddresses?: readonly string[];
  /** Common name (default: the first DNS name, else the first IP address). */
  commonName?: string;
  /** Validity in days from now (default 365). */
  validityDays?: number;
  /** "Now" in ms since the epoch (default `Date.now()`). */
  now?: number;
  /** What the certificate is for (default `['server']`; `client` for mTLS clients). */
  usages?: readonly ('server' | 'client')[];
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function name(commonName: string): Buffer {
  return sequence(set(sequence(oid(OID.commonName), utf8String(commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

function ipBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map((p) => Number(p)));
  if (!isIPv6(address)) throw new WebhookError(`certificate: "${address}" is not an IP address`);
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map((p) => Number(p));
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
}

interface SignInput {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  authorityKeyId: Buffer;
  extensions: Buffer[];
  now: number;
  validityDays: number;
}

function signCertificate(input: SignInput): string {
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, integer(2)),
    integerFromBytes(serial),
    algorithm,
    name(input.issuer),
    sequence(time(input.now - HOUR_MS), time(input.now + input.validityDays * DAY_MS)),
    name(input.subject),
    input.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        ...input.extensions,
        extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(input.publicKey))),
        extension(
          OID.authorityKeyIdentifier,
          false,
          sequence(implicitPrimitive(0, input.authorityKeyId)),
        ),
      ),
    ),
  );
  const signature = sign('sha256', tbs, input.signingKey);
  return pem('CERTIFICATE', sequence(tbs, algorithm, bitString(signature)));
}

function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function keyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * A certificate authority that signs serving and client certificates. Its certificate
 * ({@link CertificateAuthority.cert}) is what goes into a webhook configuration's
 * `caBundle` (base64 of the PEM).
 */
export class CertificateAuthority implements CertificateKeyPair {
  /** The CA certificate, PEM. */
  readonly cert: string;
  /** The CA's private key, PEM (PKCS #8). */
  readonly key: string;
  readonly #commonName: string;
  readonly #privateKey: KeyObject;
  readonly #keyId: Buffer;

  /** Use {@link generateCertificateAuthority}. */
  constructor(commonName: string, privateKey: KeyObject, publicKey: KeyObject, cert: string) {
    this.#commonName = commonName;
    this.#privateKey = privateKey;
    this.#keyId = keyIdentifier(publicKey);
    this.cert = cert;
    this.key = keyPem(privateKey);
  }

  /** The CA certificate as a webhook configuration's `caBundle` wants it: base64 of the PEM. */
  get caBundle(): string {
    return Buffer.from(this.cert).toString('base64');
  }

  /**
   * Issue a certificate signed by this CA for the given names.
   *
   * @throws {@link WebhookError} when no name is given or an IP address is invalid.
   */
  issue(options: IssueCertificateOptions): CertificateKeyPair {
    const dnsNames = options.dnsNames ?? [];
    const ipAddresses = options.ipAddresses ?? [];
    if (dnsNames.length === 0 && ipAddresses.length === 0) {
      throw new WebhookError(
        'certificate: give at least one DNS name or IP address (clients check subjectAltName, not the common name)',
      );
    }
    const altNames = [
      ...dnsNames.map((dns) => implicitPrimitive(2, Buffer.from(dns, 'ascii'))),
      ...ipAddresses.map((ip) => implicitPrimitive(7, ipBytes(ip))),
    ];
    const usages = options.usages ?? ['server'];
    const { publicKey, privateKey } = newKeyPair();
    const cert = signCertificate({
      subject: options.commonName ?? dnsNames[0] ?? ipAddresses[0] ?? '',
      issuer: this.#commonName,
      publicKey,
      signingKey: this.#privateKey,
      authorityKeyId: this.#keyId,
      now: options.now ?? Date.now(),
      validityDays: options.validityDays ?? 365,
      extensions: [
        extension(OID.basicConstraints, true, sequence()),
        extension(
          OID.keyUsage,
          true,
          namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment]),
        ),
        extension(
          OID.extKeyUsage,
          false,
          sequence(...usages.map((u) => oid(u === 'server' ? OID.serverAuth : OID.clientAuth))),
        ),
        extension(OID.subjectAltName, false, sequence(...altNames)),
      ],
    });
    return { cert, key: keyPem(privateKey) };
  }
}

/** Make a new self-signed certificate authority (ECDSA P-256, SHA-256). */
export function generateCertificateAuthority(
  options: CertificateAuthorityOptions = {},
): CertificateAuthority {
  const commonName = options.commonName ?? 'kube-controller-kit-webhook-ca';
  const { publicKey, privateKey } = newKeyPair();
  const cert = signCertificate({
    subject: commonName,
    issuer: commonName,
    publicKey,
    signingKey: privateKey,
    authorityKeyId: keyIdentifier(publicKey),
    now: options.now ?? Date.now(),
    validityDays: options.validityDays ?? 365,
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      extension(
        OID.keyUsage,
        true,
        namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign]),
      ),
    ],
  });
  return new CertificateAuthority(commonName, privateKey, publicKey, cert);
}

/** Options of {@link writeCertificateFiles}. */
export interface WriteCertificateFilesOptions {
  /** File name of the certificate (default `tls.crt`). */
  certName?: string;
  /** File name of the key (default `tls.key`). */
  keyName?: string;
}

/**
 * Write a certificate and key into a cert dir as the webhook server reads them
 * (`tls.crt`, `tls.key`), creating the directory. Each file is written to a temporary name
 * and renamed into place, so a running server never reads half a file.
 */
export async function writeCertificateFiles(
  dir: string,
  pair: CertificateKeyPair,
  options: WriteCertificateFilesOptions = {},
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const write = async (fileName: string, content: string, mode: number): Promise<void> => {
    const target = join(dir, fileName);
    const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, content, { mode });
    await rename(temp, target);
  };
  await write(options.keyName ?? 'tls.key', pair.key, 0o600);
  await write(options.certName ?? 'tls.crt', pair.cert, 0o644);
}
