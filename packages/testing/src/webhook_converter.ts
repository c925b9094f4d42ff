/**
 * CRD conversion webhooks in the test API server, as apiextensions-apiserver's
 * `webhook_converter.go` calls them: for a CustomResourceDefinition with
 * `spec.conversion.strategy: Webhook`, objects are stored at the `storage: true` version
 * and converted by the webhook on read to the version asked and on write from the version
 * sent. A `apiextensions.k8s.io/v1` ConversionReview carries only the objects not already
 * at the desired version; the answer is checked (uid, `result.status`, count, apiVersion
 * and kind of each object, metadata unchanged but for labels and annotations) and a
 * failure reads `conversion webhook for <group/version, Kind=K> failed: …`, answered 500
 * `Internal error occurred: …`. `strategy: None` keeps relabelling the apiVersion.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { ApiError, UnstructuredObject } from 'kube-controller-kit';
import type { WebhookClientConfig, WebhookEndpoints } from './admission/webhook_client.js';
import { WebhookCallError } from './admission/webhook_client.js';
import type { ResourceType } from './registry/resource_registry.js';
import { statusError } from './status.js';

/** kube-apiserver's timeout of a conversion call. */
const CONVERSION_TIMEOUT_SECONDS = 30;

const KNOWN_VERSIONS = ['v1', 'v1beta1'];

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

interface ConversionWebhook {
  clientConfig: WebhookClientConfig;
  reviewVersion: string | undefined;
}

function internal(message: string): ApiError {
  return statusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/** Converts custom resources of CRDs whose conversion is a webhook. */
export class WebhookConverter {
  readonly #endpoints: WebhookEndpoints;
  readonly #crdOf: (type: ResourceType) => UnstructuredObject | undefined;

  /**
   * @param endpoints - how webhooks are reached (registered Services, HTTPS).
   * @param crdOf - the stored CRD of a custom resource type.
   */
  constructor(
    endpoints: WebhookEndpoints,
    crdOf: (type: ResourceType) => UnstructuredObject | undefined,
  ) {
    this.#endpoints = endpoints;
    this.#crdOf = crdOf;
  }

  #webhook(type: ResourceType): ConversionWebhook | undefined {
    if (type.crdName === undefined) return undefined;
    const crd = this.#crdOf(type);
    const spec = crd !== undefined && isObject(crd.spec) ? crd.spec : undefined;
    const conversion =
      spec !== undefined && isObject(spec.conversion) ? spec.conversion : undefined;
    if (conversion?.strategy !== 'Webhook') return undefined;
    const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
    const versions = Array.isArray(webhook.conversionReviewVersions)
      ? (webhook.conversionReviewVersions as unknown[])
      : [];
    return {
      clientConfig: isObject(webhook.clientConfig) ? webhook.clientConfig : {},
      reviewVersion: versions.find(
        (v): v is string => typeof v === 'string' && KNOWN_VERSIONS.includes(v),
      ),
    };
  }

  /** The version objects of a type are stored at. */
  storageVersion(type: ResourceType): string {
    return type.versions[0] ?? '';
  }

  /** Whether objects of a type must go through the webhook to be seen at `version`. */
  converts(type: ResourceType, version: string): boolean {
    return version !== this.storageVersion(type) && this.#webhook(type) !== undefined;
  }

  /**
   * The objects at `version` (each in its own apiVersion on entry), in order; those
   * already there are not sent.
   */
  async convert(
    type: ResourceType,
    objects: UnstructuredObject[],
    version: string,
  ): Promise<UnstructuredObject[]> {
    const webhook = this.#webhook(type);
    const desired = type.group === '' ? version : `${type.group}/${version}`;
    const pending = objects.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desired);
    if (webhook === undefined || pending.length === 0) {
      return objects.map((o) => ({ ...o, apiVersion: desired }));
    }
    const first = pending[0]?.o;
    const from = `${first?.apiVersion ?? ''}, Kind=${type.kind}`;
    const failed = (why: string): ApiError =>
      internal(`conversion webhook for ${from} failed: ${why}`);
    const invalidAt = (i: number, why: string): ApiError =>
      internal(
        `conversion webhook for ${from} returned invalid converted object at index ${i}: ${why}`,
      );
    if (webhook.reviewVersion === undefined) {
      throw failed('webhook does not accept known ConversionReview versions (v1, v1beta1)');
    }
    const uid = randomUUID();
    const reviewApiVersion = `apiextensions.k8s.io/${webhook.reviewVersion}`;
    const review = {
      apiVersion: reviewApiVersion,
      kind: 'ConversionReview',
      request: { uid, desiredAPIVersion: desired, objects: pending.map(({ o }) => o) },
    };
    let answer: unknown;
    try {
      answer = await this.#endpoints.post(webhook.clientConfig, review, CONVERSION_TIMEOUT_SECONDS);
    } catch (err) {
      if (err instanceof WebhookCallError) {
        throw failed(err.message.replace(/^failed to call webhook: /, ''));
      }
      throw err;
    }
    const r = isObject(answer) ? answer : {};
    if (r.apiVersion !== reviewApiVersion || r.kind !== 'ConversionReview') {
      const got = `${typeof r.apiVersion === 'string' ? r.apiVersion : ''}, Kind=${typeof r.kind === 'string' ? r.kind : ''}`;
      throw failed(
        `expected webhook response of ${reviewApiVersion}, Kind=ConversionReview, got ${got}`,
      );
    }
    if (!isObject(r.response)) throw failed('no response provided');
    const res = r.response;
    const gotUid = typeof res.uid === 'string' ? res.uid : '';
    if (gotUid !== uid) {
      throw failed(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(gotUid)}`);
    }
    const result = isObject(res.result) ? res.result : {};
    if (result.status !== 'Success') {
      if (typeof result.message === 'string' && result.message !== '') throw failed(result.message);
      throw failed(
        `response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`,
      );
    }
    const converted = Array.isArray(res.convertedObjects)
      ? (res.convertedObjects as unknown[])
      : [];
    if (converted.length !== pending.length) {
      throw internal(
        `conversion webhook for ${from} returned ${converted.length} objects, expected ${pending.length}`,
      );
    }
    const out = [...objects];
    pending.forEach(({ o: original, i }, index) => {
      const c = converted[index];
      if (!isObject(c)) throw invalidAt(index, 'not an object');
      if (c.apiVersion !== desired) {
        throw invalidAt(
          index,
          `invalid groupVersion (expected ${desired}, received ${typeof c.apiVersion === 'string' ? c.apiVersion : ''})`,
        );
      }
      if (c.kind !== original.kind) {
        throw invalidAt(
          index,
          `invalid kind (expected ${original.kind ?? ''}, received ${typeof c.kind === 'string' ? c.kind : ''})`,
        );
      }
      const meta = isObject(c.metadata) ? c.metadata : {};
      for (const k of ['name', 'namespace', 'uid'] as const) {
        const want = original.metadata?.[k];
        if (want !== undefined && meta[k] !== want) {
          throw invalidAt(
            index,
            `expected metadata.${k}=${JSON.stringify(want)}, got ${JSON.stringify(meta[k] ?? '')}`,
          );
        }
      }
      // Only labels and annotations may change; the rest of metadata is the original's.
      const metadata = { ...original.metadata };
      if (isObject(meta.labels)) metadata.labels = meta.labels as Record<string, string>;
      else delete metadata.labels;
      if (isObject(meta.annotations)) {
        metadata.annotations = meta.annotations as Record<string, string>;
      } else delete metadata.annotations;
      out[i] = { ...(c as UnstructuredObject), metadata };
    });
    return out;
  }
}
