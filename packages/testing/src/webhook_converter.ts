/**
 * CRD conversion webhooks in the test API server, as apiextensions-apiserver's
 * `webhook_converter.go` calls them: for a CustomResourceDefinition with
 * `spec.conversion.strategy: Webhook`, objects are stored at the `storage: true` version
 * and converted by the webhook on read to the version asked and on write from the version
 * sent. A `apiextensions.k8s.io/v1` ConversionReview carries only the objects not already
 * at the desired version; the answer is checked (uid, `result.status`, count, apiVersion
 * and kind of each object, metadata unchanged but for labels and annotations) and a
 * failure reads `conversion webhook for <group/version, Kind=K> failed: …`. The converter's
 * errors are plain Go errors, not API statuses, so kube-apiserver's `ErrorToAPIStatus`
 * answers them 500 with **no reason** and the error's text as the message (kubectl:
 * `Error from server: conversion webhook for … failed: …`, not `(InternalError)`).
 * `strategy: None` keeps relabelling the apiVersion.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from 'kube-controller-kit';
import type { UnstructuredObject } from 'kube-controller-kit';
import type { WebhookClientConfig, WebhookEndpoints } from './admission/webhook_client.js';
import { WebhookCallError } from './admission/webhook_client.js';
import type { ResourceType } from './registry/resource_registry.js';

/** kube-apiserver's timeout of a conversion call. */
const CONVERSION_TIMEOUT_SECONDS = 30;

const KNOWN_VERSIONS = ['v1', 'v1beta1'];

/** The Go type `encoding/json` decodes a JSON value to, as `%T` prints it. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return v === null ? '<nil>' : 'map[string]interface {}';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

interface ConversionWebhook {
  clientConfig: WebhookClientConfig;
  reviewVersion: string | undefined;
}

/**
 * A converter error as kube-apiserver answers an error that is not an API status
 * (`apierrors.ErrorToAPIStatus`' default case): 500, reason unknown (absent), the text.
 */
function unknownError(message: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    code: 500,
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
   * already there are not sent. `list` says they are a list's items: kube-apiserver then
   * converts the list object (named by the list's group/version and list kind) and words
   * a bad answer per index; a single object's bad answer is worded without one.
   */
  async convert(
    type: ResourceType,
    objects: UnstructuredObject[],
    version: string,
    list = false,
  ): Promise<UnstructuredObject[]> {
    const webhook = this.#webhook(type);
    const desired = type.group === '' ? version : `${type.group}/${version}`;
    const pending = objects.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desired);
    if (webhook === undefined || pending.length === 0) {
      return objects.map((o) => ({ ...o, apiVersion: desired }));
    }
    // The converted object's GroupVersionKind as Go prints it: a list is built at the
    // request's version, a single object is at its own.
    const from = list
      ? `${desired}, Kind=${type.listKind}`
      : `${pending[0]?.o.apiVersion ?? ''}, Kind=${type.kind}`;
    const failed = (why: string): ApiError =>
      unknownError(`conversion webhook for ${from} failed: ${why}`);
    if (webhook.reviewVersion === undefined) {
      throw unknownError('no supported conversion review versions');
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
      throw unknownError(
        `conversion webhook for ${from} returned ${converted.length} objects, expected ${pending.length}`,
      );
    }
    // kube-apiserver's words for a bad converted object. A list's index is counted after
    // the object is taken, so its checks name the next index (`at index 1` for the first);
    // only an object that does not decode names its own.
    const prefix = `conversion webhook for ${from}`;
    const bad = (index: number, why: string): ApiError =>
      unknownError(
        list
          ? `${prefix} returned invalid converted object at index ${index + 1}: ${why}`
          : `${prefix} returned invalid object at index 0: ${why}`,
      );
    const mismatch = (index: number, why: string): ApiError =>
      unknownError(
        list
          ? `${prefix} returned invalid converted object at index ${index + 1}: ${why}`
          : `${prefix} returned invalid object: ${why}`,
      );
    const badMetadata = (index: number, why: string): ApiError =>
      unknownError(
        list
          ? `${prefix} returned invalid metadata in object at index ${index + 1}: ${why}`
          : `${prefix} returned invalid metadata: ${why}`,
      );
    const out = [...objects];
    pending.forEach(({ o: original, i }, index) => {
      const c = converted[index];
      if (!isObject(c)) {
        throw unknownError(
          list
            ? `${prefix} returned invalid converted object at index ${index}: Object 'Kind' is missing`
            : `Object 'Kind' is missing`,
        );
      }
      const gotVersion = typeof c.apiVersion === 'string' ? c.apiVersion : '';
      if (gotVersion !== desired) {
        throw bad(index, `invalid groupVersion (expected ${desired}, received ${gotVersion})`);
      }
      const gotKind = typeof c.kind === 'string' ? c.kind : '';
      if (gotKind !== original.kind) {
        throw bad(index, `invalid kind (expected ${original.kind ?? ''}, received ${gotKind})`);
      }
      // validateConvertedObject: kind, name, namespace and UID are the original's.
      const meta = isObject(c.metadata) ? c.metadata : {};
      const str = (v: unknown): string => (typeof v === 'string' ? v : '');
      for (const [k, label] of [
        ['name', 'name'],
        ['namespace', 'namespace'],
        ['uid', 'UID'],
      ] as const) {
        const want = str(original.metadata?.[k]);
        const got = str(meta[k]);
        if (want !== got) throw mismatch(index, `must have the same ${label}: ${want} != ${got}`);
      }
      // restoreObjectMeta: only labels and annotations (maps of strings) may change; the
      // rest of metadata is the original's.
      if (!('metadata' in c)) throw badMetadata(index, 'missing metadata in converted object');
      if (!isObject(c.metadata)) {
        throw badMetadata(
          index,
          `invalid metadata of type ${goType(c.metadata)} in converted object`,
        );
      }
      const metadata = { ...original.metadata };
      for (const field of ['labels', 'annotations'] as const) {
        const given = meta[field];
        if (given === undefined || given === null) {
          delete metadata[field];
          continue;
        }
        if (!isObject(given)) {
          throw badMetadata(
            index,
            `invalid metadata.${field} of type ${goType(given)} in converted object`,
          );
        }
        for (const [k, v] of Object.entries(given)) {
          if (typeof v !== 'string') {
            throw badMetadata(
              index,
              `metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`,
            );
          }
        }
        metadata[field] = given as Record<string, string>;
      }
      out[i] = { ...(c as UnstructuredObject), metadata };
    });
    return out;
  }
}
