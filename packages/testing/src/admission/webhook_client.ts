/**
 * How the test API server reaches a webhook: over HTTPS to `clientConfig.url`, or to a
 * `clientConfig.service` that a test registered with a local address (or an in-process
 * handler), as kube-apiserver's webhook client manager does: the caBundle is the only
 * trust anchor, the TLS server name of a Service is `<name>.<namespace>.svc`, the
 * request URL gets `?timeout=<N>s`, and failures are worded as Go's HTTP client words
 * them (`dial tcp …: connect: connection refused`, `context deadline exceeded`, `x509: …`).
 *
 * @module
 */
import { request as httpsRequest } from 'node:https';
import { KubeControllerKitError } from 'kube-controller-kit';

/** A Service a webhook configuration names (`clientConfig.service`). */
export interface WebhookServiceReference {
  /** The Service's namespace. */
  namespace: string;
  /** The Service's name. */
  name: string;
  /** The Service port (443 when absent). */
  port?: number;
}

/**
 * A webhook answered in-process: it receives the request body (an `AdmissionReview` or
 * a `ConversionReview`, as parsed JSON) and the request path, and answers the review. The
 * body crosses as JSON both ways, so the semantics are those of an HTTPS call, without
 * TLS or sockets.
 */
export type InProcessWebhook = (
  review: Record<string, unknown>,
  path: string,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A webhook call failed before a review came back (kube-apiserver's `ErrCallingWebhook`). */
export class WebhookCallError extends KubeControllerKitError {}

/** A webhook's `clientConfig` (admissionregistration and apiextensions share its shape). */
export interface WebhookClientConfig {
  /** `https://host:port/path`. */
  url?: string;
  /** A Service and a path on it. */
  service?: WebhookServiceReference & { path?: string };
  /** PEM CA bundle, base64 (the one trust anchor of the call). */
  caBundle?: string;
}

function serviceKey(ref: WebhookServiceReference): string {
  return `${ref.namespace}/${ref.name}:${ref.port ?? 443}`;
}

/** Where a call goes. */
interface Resolved {
  /** The URL as kube-apiserver would name it in messages. */
  shown: string;
  /** An HTTPS destination, or an in-process handler. */
  target:
    | { kind: 'https'; url: URL; servername: string | undefined }
    | { kind: 'inprocess'; handler: InProcessWebhook; path: string };
}

/**
 * The Services tests registered (Service → local HTTPS address or in-process handler),
 * and the calls made through them.
 */
export class WebhookEndpoints {
  readonly #services = new Map<string, string | InProcessWebhook>();

  /**
   * Makes a Service reachable: calls to `https://<name>.<namespace>.svc:<port>/<path>` go to
   * `target` (`https://127.0.0.1:PORT`, checked against the caBundle with the TLS server
   * name `<name>.<namespace>.svc`) or to an in-process handler.
   */
  registerService(ref: WebhookServiceReference, target: string | InProcessWebhook): void {
    if (typeof target === 'string') {
      const u = new URL(target);
      if (u.protocol !== 'https:') {
        throw new KubeControllerKitError(
          `service ${ref.namespace}/${ref.name}: the local address must be https (got ${target})`,
        );
      }
    }
    this.#services.set(serviceKey(ref), target);
  }

  /** Forgets a registered Service. */
  unregisterService(ref: WebhookServiceReference): void {
    this.#services.delete(serviceKey(ref));
  }

  #resolve(cc: WebhookClientConfig, timeoutSeconds: number): Resolved {
    const query = `timeout=${timeoutSeconds}s`;
    if (cc.url !== undefined) {
      const url = new URL(cc.url);
      url.search = url.search === '' ? `?${query}` : `${url.search}&${query}`;
      return { shown: url.toString(), target: { kind: 'https', url, servername: undefined } };
    }
    const svc = cc.service;
    if (svc === undefined) {
      throw new WebhookCallError('webhook clientConfig has neither url nor service');
    }
    const port = svc.port ?? 443;
    const path = svc.path ?? '';
    const host = `${svc.name}.${svc.namespace}.svc`;
    const shown = `https://${host}:${port}${path}?${query}`;
    const target = this.#services.get(serviceKey(svc));
    if (target === undefined) {
      throw new WebhookCallError(
        `failed to call webhook: Post "${shown}": service "${svc.name}" not found`,
      );
    }
    if (typeof target !== 'string') {
      return { shown, target: { kind: 'inprocess', handler: target, path } };
    }
    const base = new URL(target);
    const url = new URL(`${base.origin}${base.pathname.replace(/\/$/, '')}${path}?${query}`);
    return { shown, target: { kind: 'https', url, servername: host } };
  }

  /**
   * POSTs a review to a webhook and answers the parsed JSON response. Throws a
   * {@link WebhookCallError} worded as kube-apiserver's (`failed to call webhook: Post
   * "<url>": <cause>`) when no answer came back in time.
   */
  async post(cc: WebhookClientConfig, body: unknown, timeoutSeconds: number): Promise<unknown> {
    const { shown, target } = this.#resolve(cc, timeoutSeconds);
    const fail = (cause: string): WebhookCallError =>
      new WebhookCallError(`failed to call webhook: Post "${shown}": ${cause}`);
    const text = JSON.stringify(body);
    if (target.kind === 'inprocess') {
      return withTimeout(
        Promise.resolve().then(() =>
          target.handler(JSON.parse(text) as Record<string, unknown>, target.path),
        ),
        timeoutSeconds,
        () => fail('context deadline exceeded'),
      ).then((answer) => JSON.parse(JSON.stringify(answer)) as unknown);
    }
    let ca: string | undefined;
    if (cc.caBundle !== undefined && cc.caBundle !== '') {
      ca = Buffer.from(cc.caBundle, 'base64').toString('utf8');
    }
    const { status, text: answer } = await httpsPost(
      target.url,
      target.servername,
      ca,
      text,
      timeoutSeconds,
      fail,
    );
    if (status < 200 || status > 299) {
      throw fail(
        status === 404
          ? 'the server could not find the requested resource'
          : `an error on the server (${JSON.stringify(answer.trim())}) has prevented the request from succeeding`,
      );
    }
    try {
      return JSON.parse(answer) as unknown;
    } catch (err) {
      throw new WebhookCallError(
        `failed to call webhook: the webhook answered something that is not JSON: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}

function withTimeout<T>(p: Promise<T>, seconds: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), seconds * 1000);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** Go's wording of a Node socket or TLS error. */
function goWording(err: NodeJS.ErrnoException, url: URL): string {
  const addr = `${url.hostname}:${url.port === '' ? '443' : url.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${err.message}`;
    default:
      return err.message;
  }
}

function httpsPost(
  url: URL,
  servername: string | undefined,
  ca: string | undefined,
  body: string,
  timeoutSeconds: number,
  fail: (cause: string) => WebhookCallError,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (err: WebhookCallError | undefined, value?: { status: number; text: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== undefined) {
        req.destroy();
        reject(err);
      } else if (value !== undefined) resolve(value);
    };
    const req = httpsRequest(
      {
        protocol: 'https:',
        hostname: url.hostname,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        ...(ca === undefined ? {} : { ca }),
        ...(servername === undefined ? {} : { servername }),
        minVersion: 'TLSv1.2',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done(undefined, {
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (err) => done(fail(goWording(err, url))));
      },
    );
    const timer = setTimeout(() => done(fail('context deadline exceeded')), timeoutSeconds * 1000);
    req.on('error', (err: NodeJS.ErrnoException) => done(fail(goWording(err, url))));
    req.end(body);
  });
}
