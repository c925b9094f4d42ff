/**
 * The CRD conversion webhook (`/convert`), hub and spoke as controller-runtime's
 * `conversion` package: one version of a kind is the hub, every other version (a spoke)
 * converts to the hub and back. Converting spoke A to spoke B goes A → hub → B, so N
 * versions need 2(N−1) functions, not N².
 *
 * Rules, as kube-apiserver checks the answer:
 * - the response echoes the request's `uid` and lists the converted objects in order;
 * - every object gets `apiVersion: <desiredAPIVersion>` and keeps its kind;
 * - `metadata` comes back as it came, except `labels` and `annotations`, which a converter
 *   may change (kube-apiserver refuses any other metadata change);
 * - an object already at the desired version comes back unchanged;
 * - a kind or version that was not registered fails the whole review with a message naming
 *   it (`result.status: Failure`), as does a converter that throws; a programming error in
 *   a converter (`TypeError`, …) is counted in
 *   `controller_runtime_conversion_webhook_panics_total` and reported as `internal error
 *   occurred during conversion`.
 *
 * @module
 */
import type { KubeObject, UnstructuredObject } from '../client/types.js';
import type { Logger } from '../util/logger.js';
import type { CounterMetric } from '../util/metrics.js';
import { defaultLogger } from '../util/logger.js';
import { errorMessage } from '../util/errors.js';
import { WebhookError } from './errors.js';
import type { HttpWebhook, WebhookHttpRequest, WebhookHttpResponse } from './http.js';
import { isJsonContentType, isProgrammingError } from './http.js';
import type { WebhookMetricsProvider } from './metrics.js';
import { getDefaultWebhookMetricsProvider } from './metrics.js';
import type { ConversionRequest, ConversionResponse } from './types.js';

/**
 * How one spoke version converts to the hub version and back. `Hub` and `Spoke` are any
 * object types with the standard envelope: the interfaces `gen types` writes for two
 * versions of a kind (`SpokeConverter<v1.Widget, v2.Widget>`), or `UnstructuredObject`.
 */
export interface SpokeConverter<
  Hub extends KubeObject = UnstructuredObject,
  Spoke extends KubeObject = UnstructuredObject,
> {
  /** Spoke → hub (controller-runtime's `ConvertTo`). Gets a copy; return the hub object. */
  toHub(spoke: Spoke): Hub | Promise<Hub>;
  /** Hub → spoke (controller-runtime's `ConvertFrom`). Gets a copy; return the spoke object. */
  fromHub(hub: Hub): Spoke | Promise<Spoke>;
}

/**
 * The spoke type of a {@link ConvertibleKind} when none is named: `UnstructuredObject` beside
 * an unstructured hub (so untyped converters see the object's fields), and any object with
 * the standard envelope beside a typed hub (so each spoke may have its own generated type).
 */
export type DefaultSpoke<Hub extends KubeObject> = Hub extends UnstructuredObject
  ? UnstructuredObject
  : KubeObject;

/**
 * One kind's versions for a {@link ConversionWebhook}. `Hub` is the hub version's object
 * type (a generated interface, or `UnstructuredObject`); `Spoke` the spokes' (a union when
 * they differ, or left to {@link DefaultSpoke}).
 */
export interface ConvertibleKind<
  Hub extends KubeObject = UnstructuredObject,
  Spoke extends KubeObject = DefaultSpoke<Hub>,
> {
  /** API group, e.g. `apps.example.com`. */
  group: string;
  /** Kind, e.g. `Application`. */
  kind: string;
  /** The hub version (usually the storage version), e.g. `v1`. */
  hub: string;
  /** Every other version, with its converter. */
  spokes: Record<string, SpokeConverter<Hub, Spoke>>;
}

/** Options of a {@link ConversionWebhook}. */
export interface ConversionWebhookOptions {
  /** Where failures are logged (default: the library's default logger). */
  logger?: Logger;
  /** Where panics are counted (default: the provider set with `setDefaultWebhookMetricsProvider`). */
  metricsProvider?: WebhookMetricsProvider;
}

/** The failure of one conversion review. */
export class ConversionError extends WebhookError {}

/** A programming error inside a converter (what a Go panic is to controller-runtime). */
class ConversionPanic extends Error {}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Serves ConversionReviews for the kinds registered with it, hub and spoke. */
export class ConversionWebhook implements HttpWebhook {
  readonly #kinds = new Map<string, ConvertibleKind>();
  readonly #logger: Logger;
  readonly #panics: CounterMetric | undefined;

  /** @param options - logger and metrics. */
  constructor(options: ConversionWebhookOptions = {}) {
    this.#logger = options.logger ?? defaultLogger;
    this.#panics = (
      options.metricsProvider ?? getDefaultWebhookMetricsProvider()
    )?.newConversionPanicsMetric();
  }

  /**
   * Register a kind's hub and spokes.
   *
   * @throws {@link WebhookError} when the kind is registered already, or the hub is also
   * listed as a spoke.
   */
  register<Hub extends KubeObject, Spoke extends KubeObject = DefaultSpoke<Hub>>(
    kind: ConvertibleKind<Hub, Spoke>,
  ): this {
    const key = `${kind.kind}.${kind.group}`;
    if (this.#kinds.has(key)) {
      throw new WebhookError(`conversion: ${key} is registered already`);
    }
    if (Object.hasOwn(kind.spokes, kind.hub)) {
      throw new WebhookError(
        `conversion: ${key}: version ${kind.hub} is the hub and cannot also be a spoke`,
      );
    }
    // Stored untyped: the review hands converters the objects as they came off the wire.
    this.#kinds.set(key, kind as unknown as ConvertibleKind);
    return this;
  }

  /** The registered kinds, in registration order. */
  kinds(): readonly ConvertibleKind[] {
    return [...this.#kinds.values()];
  }

  /** {@inheritDoc HttpWebhook.serveHTTP} */
  async serveHTTP(request: WebhookHttpRequest): Promise<WebhookHttpResponse> {
    if (request.bodyTooLarge || request.body.length === 0) return { statusCode: 400 };
    if (!isJsonContentType(request.contentType)) return { statusCode: 400 };
    let review: unknown;
    try {
      review = JSON.parse(request.body.toString('utf8'));
    } catch (err) {
      this.#logger.warn(`conversion webhook: failed to read the request: ${errorMessage(err)}`);
      return { statusCode: 400 };
    }
    if (!isRecord(review) || !isRecord(review.request)) {
      this.#logger.warn('conversion webhook: the ConversionReview has no request');
      return { statusCode: 400 };
    }
    const response = await this.review(review.request as unknown as ConversionRequest);
    return {
      statusCode: 200,
      body: {
        apiVersion:
          typeof review.apiVersion === 'string' ? review.apiVersion : 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response,
      },
    };
  }

  /** Answer one ConversionRequest (never rejects: a failure is a `Failure` result). */
  async review(request: ConversionRequest): Promise<ConversionResponse> {
    try {
      const convertedObjects: UnstructuredObject[] = [];
      for (const obj of request.objects ?? []) {
        convertedObjects.push(await this.convert(obj, request.desiredAPIVersion));
      }
      return { uid: request.uid, convertedObjects, result: { status: 'Success' } };
    } catch (err) {
      let message = errorMessage(err);
      if (err instanceof ConversionPanic) {
        this.#panics?.inc();
        message = 'internal error occurred during conversion';
      }
      this.#logger.error('conversion webhook: failed to convert', {
        uid: request.uid,
        error: errorMessage(err),
      });
      return {
        uid: request.uid,
        convertedObjects: [],
        result: { status: 'Failure', message },
      };
    }
  }

  /**
   * Convert one object to `desiredAPIVersion`.
   *
   * @throws {@link ConversionError} for an unknown kind or version, a kind change, or a
   * converter that failed.
   */
  async convert(obj: UnstructuredObject, desiredAPIVersion: string): Promise<UnstructuredObject> {
    const from = splitApiVersion(obj.apiVersion ?? '');
    const to = splitApiVersion(desiredAPIVersion);
    const kindName = obj.kind ?? '';
    if (from.group !== to.group) {
      throw new ConversionError(
        `cannot convert ${kindName} from ${obj.apiVersion ?? '""'} to ${desiredAPIVersion}: not the same API group`,
      );
    }
    const key = `${kindName}.${from.group}`;
    const kind = this.#kinds.get(key);
    if (kind === undefined) {
      throw new ConversionError(`no conversion registered for kind ${key}`);
    }
    const versionsText = [`${kind.hub} (hub)`, ...Object.keys(kind.spokes)].join(', ');
    const knows = (version: string): boolean =>
      version === kind.hub || Object.hasOwn(kind.spokes, version);
    for (const version of [from.version, to.version]) {
      if (!knows(version)) {
        throw new ConversionError(
          `unknown version "${version}" of ${key}: this webhook converts ${versionsText}`,
        );
      }
    }
    if (from.version === to.version) return obj;
    let out: UnstructuredObject = structuredClone(obj);
    try {
      if (from.version !== kind.hub) {
        out = await (kind.spokes[from.version] as SpokeConverter).toHub(out);
      }
      if (to.version !== kind.hub) {
        out = await (kind.spokes[to.version] as SpokeConverter).fromHub(out);
      }
    } catch (err) {
      if (isProgrammingError(err)) throw new ConversionPanic(errorMessage(err), { cause: err });
      throw new ConversionError(
        `${key}: converting ${from.version} to ${to.version}: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    return withMetadataOf(obj, out, desiredAPIVersion, kindName);
  }
}

/** The converted object with the original's metadata, except labels and annotations. */
function withMetadataOf(
  original: UnstructuredObject,
  converted: UnstructuredObject,
  apiVersion: string,
  kind: string,
): UnstructuredObject {
  const metadata = structuredClone(original.metadata ?? {});
  delete metadata.labels;
  delete metadata.annotations;
  if (converted.metadata?.labels !== undefined) metadata.labels = converted.metadata.labels;
  if (converted.metadata?.annotations !== undefined) {
    metadata.annotations = converted.metadata.annotations;
  }
  return { ...converted, apiVersion, kind, metadata };
}
