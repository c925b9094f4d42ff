/**
 * The generic strategy: what every kind does unless its file says otherwise, from the facts
 * its {@link ResourceType} states (a status subresource, generation tracking). A kind that
 * adds to a step calls the generic one first (`generic.prepareForCreate(obj, ctx)`).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { ResourceStrategy, StrategyContext } from './types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A canonical text of a JSON value (keys sorted, undefined members left out). */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Everything but metadata, apiVersion and kind (and status, unless `withStatus`). */
function specPart(obj: UnstructuredObject, withStatus: boolean): string {
  const rest: Record<string, unknown> = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (!withStatus) delete rest.status;
  return stableJson(rest);
}

/** The object without `status`. */
function withoutStatus(obj: UnstructuredObject): UnstructuredObject {
  if (obj.status === undefined) return obj;
  const out = { ...obj };
  delete out.status;
  return out;
}

/** The object with `status` taken from `from` (absent when `from` has none). */
function withStatusOf(obj: UnstructuredObject, from: UnstructuredObject): UnstructuredObject {
  const out = { ...obj };
  if (from.status === undefined) delete out.status;
  else out.status = from.status;
  return out;
}

const identity = (obj: UnstructuredObject): UnstructuredObject => obj;
const none = (): never[] => [];

/** The strategy every kind starts from. */
export const generic: ResourceStrategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  decode: identity,
  beginCreate: identity,
  beginUpdate: identity,
  /**
   * metadata.generation starts at 1 where it is tracked (and is absent elsewhere); the status
   * a client sends is dropped when status is a subresource (kept for in-process seeding).
   */
  prepareForCreate(obj: UnstructuredObject, ctx: StrategyContext): UnstructuredObject {
    const out = ctx.type.statusSubresource && !ctx.seed ? withoutStatus(obj) : obj;
    const meta = out.metadata ?? {};
    if (ctx.type.tracksGeneration) {
      return meta.generation === 1 ? out : { ...out, metadata: { ...meta, generation: 1 } };
    }
    if (meta.generation === undefined) return out;
    const m = { ...meta };
    delete m.generation;
    return { ...out, metadata: m };
  },
  /**
   * A status write keeps everything but the status (metadata included); a main-resource
   * write keeps the old status when status is a subresource. metadata.generation moves by
   * one when the spec changed — everything but metadata, and the status too when it is not
   * a subresource of its own.
   */
  prepareForUpdate(
    obj: UnstructuredObject,
    old: UnstructuredObject,
    ctx: StrategyContext,
  ): UnstructuredObject {
    const oldMeta = old.metadata ?? {};
    if (ctx.subresource === 'status') {
      return withStatusOf({ ...old, metadata: { ...oldMeta } }, obj);
    }
    const next = ctx.type.statusSubresource && !ctx.seed ? withStatusOf(obj, old) : obj;
    const meta = { ...next.metadata };
    if (ctx.type.tracksGeneration) {
      const withStatus = !ctx.type.statusSubresource;
      const generation = oldMeta.generation ?? 1;
      meta.generation =
        specPart(next, withStatus) === specPart(old, withStatus) ? generation : generation + 1;
    } else {
      delete meta.generation;
    }
    return { ...next, metadata: meta };
  },
  validate: none,
  validateUpdate: none,
  warningsOnCreate: none,
  warningsOnUpdate: none,
  canonicalize: identity,
  gracePeriodSeconds: () => 0,
  shouldDeleteDuringUpdate(obj: UnstructuredObject): boolean {
    const meta = obj.metadata ?? {};
    return meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).length === 0;
  },
};
