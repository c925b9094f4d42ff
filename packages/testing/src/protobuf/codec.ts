/**
 * Kubernetes' protobuf wire format for the built-in kinds the test API server serves,
 * converted faithfully to and from the JSON form the store keeps.
 *
 * - An object or list on the wire is the magic `k8s\0` followed by a `runtime.Unknown`
 *   envelope: `typeMeta` (apiVersion, kind), `raw` (the message's bytes),
 *   `contentEncoding` and `contentType` (both empty).
 * - A watch stream is a sequence of frames, each a 4-byte big-endian length and the bytes
 *   of a `meta.v1.WatchEvent` whose `object.raw` holds the object encoded as above.
 * - Special types follow their JSON forms: `Time` (RFC 3339, seconds) and `MicroTime`
 *   (RFC 3339 with microseconds) are `{seconds, nanos}`; `Quantity` is its string;
 *   `IntOrString` is `{type, intVal | strVal}`; `RawExtension` and `FieldsV1` carry JSON
 *   bytes; `bytes` fields (Secret data) are base64 in JSON.
 * - Decoding keeps only what Go's JSON would print: empty strings, lists, maps and
 *   messages (Go marshals its non-pointer fields even when empty) are left out; numbers and
 *   booleans are kept as sent.
 *
 * The message schema is generated from Kubernetes' own `generated.proto` files by
 * `scripts/gen-k8s-protobuf.mjs`.
 *
 * @module
 */
import protobuf from 'protobufjs';
import { KubeControllerKitError } from 'kube-controller-kit';
import { K8S_KEEP_ZERO_FIELDS, K8S_PROTO_DESCRIPTOR } from './k8s_descriptor.js';
import { BUILTIN_API_PACKAGES } from '../builtin_packages.js';

/** The protobuf media type of Kubernetes. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The magic prefix of every protobuf-encoded Kubernetes object. */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A protobuf body that cannot be decoded (400 at the HTTP layer). */
export class ProtobufDecodeError extends KubeControllerKitError {}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const SPECIAL = {
  time: `.${META}.Time`,
  microTime: `.${META}.MicroTime`,
  fieldsV1: `.${META}.FieldsV1`,
  quantity: '.k8s.io.apimachinery.pkg.api.resource.Quantity',
  intOrString: '.k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: '.k8s.io.apimachinery.pkg.runtime.RawExtension',
} as const;

/**
 * Fields of Go structs embedded inline in JSON (`json:",inline"`): a nested message in
 * protobuf, the same level in JSON.
 */
const INLINE = new Set([
  '.k8s.io.api.core.v1.Probe.handler',
  '.k8s.io.api.core.v1.Volume.volumeSource',
  '.k8s.io.api.core.v1.PersistentVolumeSpec.persistentVolumeSource',
  '.k8s.io.api.resource.v1.DeviceClaimConfiguration.deviceConfiguration',
  '.k8s.io.api.resource.v1.DeviceAllocationConfiguration.deviceConfiguration',
  '.k8s.io.api.resource.v1.DeviceClassConfiguration.deviceConfiguration',
  '.k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon',
]);

/**
 * Go named string slices (`type ExtraValue []string`): a message with one `items` field
 * in protobuf, a plain array in JSON.
 */
const STRING_LISTS = new Set([
  '.k8s.io.api.authorization.v1.ExtraValue',
  '.k8s.io.api.authentication.v1.ExtraValue',
]);

function isInline(type: protobuf.Type, field: protobuf.Field): boolean {
  return INLINE.has(`${type.fullName}.${field.name}`);
}

let root: protobuf.Root | undefined;
function schema(): protobuf.Root {
  root ??= protobuf.Root.fromJSON(JSON.parse(K8S_PROTO_DESCRIPTOR) as protobuf.INamespace);
  return root;
}

function lookup(fullName: string): protobuf.Type | undefined {
  const found = schema().lookup(fullName);
  return found instanceof protobuf.Type ? found : undefined;
}

/** Kinds of meta/v1 that travel under `apiVersion: v1` (as kube-apiserver sends them). */
const META_KINDS = new Set(['Status', 'WatchEvent', 'DeleteOptions']);

/**
 * The message of a kind at an `apiVersion`, or undefined when the kind has no protobuf
 * form here (custom resources, kinds the server does not serve).
 */
export function protobufType(apiVersion: string, kind: string): protobuf.Type | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (META_KINDS.has(kind) && (group === '' || group === 'meta.k8s.io')) {
    return lookup(`${META}.${kind}`);
  }
  const pkg = BUILTIN_API_PACKAGES[group];
  return pkg === undefined ? undefined : lookup(`k8s.io.api.${pkg}.${version}.${kind}`);
}

/** Whether a kind at an apiVersion is spoken in protobuf. */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return protobufType(apiVersion, kind) !== undefined;
}

// ---------------------------------------------------------------- JSON → protobuf

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `{seconds, nanos}` of an RFC 3339 timestamp; undefined when it is not one. */
function parseTime(v: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return undefined;
  const seconds = Math.floor(ms / 1000);
  const frac = /\.(\d+)/.exec(v)?.[1] ?? '';
  const nanos = frac === '' ? 0 : Number(frac.slice(0, 9).padEnd(9, '0'));
  return { seconds, nanos };
}

function toMessageValue(type: protobuf.Type, v: unknown): unknown {
  switch (type.fullName) {
    case SPECIAL.time:
    case SPECIAL.microTime:
      return parseTime(v);
    case SPECIAL.quantity:
      return typeof v === 'string' || typeof v === 'number' ? { string: String(v) } : undefined;
    case SPECIAL.intOrString:
      if (typeof v === 'number') return { type: 0, intVal: v };
      if (typeof v === 'string') return { type: 1, strVal: v };
      return undefined;
    case SPECIAL.rawExtension:
      return v === undefined || v === null ? undefined : { raw: Buffer.from(JSON.stringify(v)) };
    case SPECIAL.fieldsV1:
      return v === undefined || v === null ? undefined : { Raw: Buffer.from(JSON.stringify(v)) };
    default:
      break;
  }
  if (STRING_LISTS.has(type.fullName)) {
    return Array.isArray(v) ? { items: v.filter((x) => typeof x === 'string') } : undefined;
  }
  if (!isRecord(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = isInline(type, field) ? v : v[field.name];
    if (value === undefined || value === null) continue;
    const converted = toFieldValue(field, value);
    if (converted !== undefined) out[field.name] = converted;
  }
  return out;
}

function toScalar(field: protobuf.Field, v: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) return toMessageValue(field.resolvedType, v);
  if (field.type === 'bytes') return typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
  return v;
}

function toFieldValue(field: protobuf.Field, v: unknown): unknown {
  if (field instanceof protobuf.MapField) {
    if (!isRecord(v)) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const c = toScalar(field, x);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(v)) return undefined;
    return v.map((x) => toScalar(field, x)).filter((x) => x !== undefined);
  }
  return toScalar(field, v);
}

/** Encodes a JSON object as the bytes of a message (no envelope). */
export function encodeMessage(type: protobuf.Type, json: unknown): Uint8Array {
  const shaped = toMessageValue(type, json) ?? {};
  return type.encode(type.fromObject(shaped)).finish();
}

/**
 * Encodes a JSON object as Kubernetes' protobuf: `k8s\0` and a `runtime.Unknown` envelope
 * naming its apiVersion and kind. Undefined when the kind has no protobuf form.
 */
export function encodeObject(json: Record<string, unknown>): Buffer | undefined {
  const apiVersion = typeof json.apiVersion === 'string' ? json.apiVersion : '';
  const kind = typeof json.kind === 'string' ? json.kind : '';
  const type = protobufType(apiVersion, kind);
  if (!type) return undefined;
  const unknown = lookup('k8s.io.apimachinery.pkg.runtime.Unknown');
  if (!unknown) throw new ProtobufDecodeError('the protobuf schema has no runtime.Unknown');
  const envelope = unknown.encode(
    unknown.fromObject({
      typeMeta: { apiVersion, kind },
      raw: encodeMessage(type, json),
      contentEncoding: '',
      contentType: '',
    }),
  );
  return Buffer.concat([PROTOBUF_MAGIC, envelope.finish()]);
}

/**
 * One frame of a protobuf watch stream: a 4-byte big-endian length, then a
 * `meta.v1.WatchEvent` whose object is the encoded object (`k8s\0` + Unknown).
 */
export function encodeWatchFrame(eventType: string, object: Record<string, unknown>): Buffer {
  const watchEvent = lookup(`${META}.WatchEvent`);
  if (!watchEvent) throw new ProtobufDecodeError('the protobuf schema has no WatchEvent');
  const raw = encodeObject(object) ?? Buffer.from(JSON.stringify(object));
  const body = watchEvent
    .encode(watchEvent.fromObject({ type: eventType, object: { raw } }))
    .finish();
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

// ---------------------------------------------------------------- protobuf → JSON

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (isRecord(v) && typeof (v as { toNumber?: unknown }).toNumber === 'function') {
    return (v as unknown as { toNumber(): number }).toNumber();
  }
  return Number(v);
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isRecord(v)) return Object.keys(v).length === 0;
  return false;
}

let keepZero: Set<string> | undefined;
/** Whether a scalar field keeps its zero in JSON (a Go pointer, or not `omitempty`). */
function keepsZero(type: protobuf.Type, field: protobuf.Field): boolean {
  keepZero ??= new Set(K8S_KEEP_ZERO_FIELDS);
  return keepZero.has(`${type.fullName.slice(1)}.${field.name}`);
}

/**
 * A zero scalar (false, 0, ""): gogo-protobuf writes every non-pointer scalar, and
 * kube-apiserver's JSON drops it again unless the Go field keeps it.
 */
function isZeroScalar(field: protobuf.Field, v: unknown): boolean {
  if (field.repeated || field.map || field.resolvedType instanceof protobuf.Type) return false;
  return v === false || v === 0 || v === '';
}

function parseRaw(raw: Uint8Array): unknown {
  const buf = Buffer.from(raw);
  if (buf.length === 0) return undefined;
  if (buf.subarray(0, 4).equals(PROTOBUF_MAGIC)) return decodeObject(buf);
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ProtobufDecodeError('a RawExtension holds neither JSON nor protobuf');
  }
}

function fromMessage(type: protobuf.Type, msg: Record<string, unknown>): unknown {
  switch (type.fullName) {
    case SPECIAL.time:
    case SPECIAL.microTime: {
      const seconds = num(msg.seconds ?? 0);
      const nanos = num(msg.nanos ?? 0);
      if (seconds === 0 && nanos === 0) return undefined;
      return formatTime(seconds, nanos, type.fullName === SPECIAL.microTime);
    }
    case SPECIAL.quantity:
      return typeof msg.string === 'string' && msg.string !== '' ? msg.string : undefined;
    case SPECIAL.intOrString:
      return num(msg.type ?? 0) === 1 ? (msg.strVal ?? '') : num(msg.intVal ?? 0);
    case SPECIAL.rawExtension:
      return msg.raw instanceof Uint8Array ? parseRaw(msg.raw) : undefined;
    case SPECIAL.fieldsV1:
      return msg.Raw instanceof Uint8Array ? parseRaw(msg.Raw) : undefined;
    default:
      break;
  }
  if (STRING_LISTS.has(type.fullName)) return Array.isArray(msg.items) ? msg.items : [];
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    if (!Object.prototype.hasOwnProperty.call(msg, field.name)) continue;
    const v = fromField(field, msg[field.name]);
    if (isInline(type, field) && isRecord(v)) Object.assign(out, v);
    else if (isZeroScalar(field, v)) {
      if (keepsZero(type, field)) out[field.name] = v;
    } else if (!isEmpty(v)) out[field.name] = v;
  }
  return out;
}

function fromScalar(field: protobuf.Field, v: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) {
    return isRecord(v) ? fromMessage(field.resolvedType, v) : undefined;
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (field.resolvedType instanceof protobuf.Enum) return v;
  if (typeof v === 'object' && v !== null) return num(v);
  return v;
}

function fromField(field: protobuf.Field, v: unknown): unknown {
  if (field instanceof protobuf.MapField) {
    if (!isRecord(v)) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const c = fromScalar(field, x);
      // A map value is kept even when empty (`data: {key: ""}` is a real entry).
      out[k] = c ?? (field.type === 'string' || field.type === 'bytes' ? '' : c);
    }
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(v)) return undefined;
    return v.map((x) => fromScalar(field, x) ?? {});
  }
  return fromScalar(field, v);
}

/** Decodes the bytes of a message (no envelope) into its JSON form. */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  let msg: protobuf.Message;
  try {
    msg = type.decode(bytes);
  } catch (err) {
    throw new ProtobufDecodeError(
      `the ${type.name} in the protobuf body is malformed: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  return (fromMessage(type, msg as unknown as Record<string, unknown>) ?? {}) as Record<
    string,
    unknown
  >;
}

/** The apiVersion, kind and message bytes of a `k8s\0` + Unknown body. */
export function decodeEnvelope(body: Uint8Array): {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
} {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (buf.length < 4 || !buf.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    throw new ProtobufDecodeError('the protobuf body does not start with the k8s\\0 magic');
  }
  const unknown = lookup('k8s.io.apimachinery.pkg.runtime.Unknown');
  if (!unknown) throw new ProtobufDecodeError('the protobuf schema has no runtime.Unknown');
  let env: Record<string, unknown>;
  try {
    env = unknown.decode(buf.subarray(4));
  } catch (err) {
    throw new ProtobufDecodeError(
      `the protobuf envelope is malformed: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  const typeMeta = isRecord(env.typeMeta) ? env.typeMeta : {};
  return {
    apiVersion: typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '',
    kind: typeof typeMeta.kind === 'string' ? typeMeta.kind : '',
    raw: env.raw instanceof Uint8Array ? env.raw : new Uint8Array(),
  };
}

/**
 * Decodes a `k8s\0` + Unknown body into the JSON object it holds, `apiVersion` and
 * `kind` first.
 */
export function decodeObject(body: Uint8Array): Record<string, unknown> {
  const { apiVersion, kind, raw } = decodeEnvelope(body);
  const type = protobufType(apiVersion, kind);
  if (!type) {
    throw new ProtobufDecodeError(
      `no protobuf form is known for kind ${JSON.stringify(kind)} at ${JSON.stringify(apiVersion)}`,
    );
  }
  return { apiVersion, kind, ...decodeMessage(type, raw) };
}

/** Splits a protobuf watch stream's bytes into decoded events (for tests and clients). */
export function decodeWatchFrames(stream: Uint8Array): { type: string; object: unknown }[] {
  const watchEvent = lookup(`${META}.WatchEvent`);
  if (!watchEvent) throw new ProtobufDecodeError('the protobuf schema has no WatchEvent');
  const buf = Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  const out: { type: string; object: unknown }[] = [];
  let at = 0;
  while (at + 4 <= buf.length) {
    const len = buf.readUInt32BE(at);
    if (at + 4 + len > buf.length) break;
    const e = watchEvent.decode(buf.subarray(at + 4, at + 4 + len)) as unknown as {
      type?: string;
      object?: { raw?: Uint8Array };
    };
    out.push({
      type: e.type ?? '',
      object: e.object?.raw ? parseRaw(e.object.raw) : undefined,
    });
    at += 4 + len;
  }
  return out;
}
