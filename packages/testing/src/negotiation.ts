/**
 * Content negotiation of the test API server, as kube-apiserver does it: the response
 * media type from the `Accept` header (JSON, or Kubernetes protobuf for the built-in kinds
 * that have it; `as=Table` and `as=PartialObjectMetadata` are JSON here), and request
 * bodies decoded by their `Content-Type` (JSON, YAML, protobuf for built-ins).
 *
 * @module
 */
import { errorMessage } from 'kube-controller-kit';
import type { ApiError } from 'kube-controller-kit';
import {
  decodeObject,
  hasProtobuf,
  PROTOBUF_MEDIA_TYPE,
  ProtobufDecodeError,
} from './protobuf/codec.js';
import { badRequest, statusError } from './status.js';
import type { ResourceType } from './registry/resource_registry.js';

/** How a response renders objects. */
export interface Rendering {
  /** `as=PartialObjectMetadata(List)`: metadata only (JSON). */
  metaOnly: boolean;
  /** `as=Table`: server-side printing (JSON). */
  table: boolean;
  /** Kubernetes protobuf instead of JSON. */
  protobuf: boolean;
}

interface MediaRange {
  type: string;
  params: Map<string, string>;
}

function parseAccept(accept: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [head, ...rest] = part.split(';');
    const type = (head ?? '').trim().toLowerCase();
    if (type === '') continue;
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
    }
    out.push({ type, params });
  }
  return out;
}

/** The apiVersion objects of a resource travel at. */
function apiVersionOf(type: ResourceType, version: string): string {
  return type.group === '' ? version : `${type.group}/${version}`;
}

/**
 * Chooses the rendering of a response from the `Accept` header: the first media range the
 * server can produce wins (kubectl sends `application/vnd.kubernetes.protobuf,
 * application/json`). Protobuf is produced for built-in kinds only; a custom resource
 * asked for in protobuf alone is 406 Not Acceptable, as from kube-apiserver.
 */
export function negotiate(accept: string, type: ResourceType, version: string): Rendering {
  const ranges = parseAccept(accept);
  const plain: Rendering = { metaOnly: false, table: false, protobuf: false };
  if (ranges.length === 0) return plain;
  let onlyProtobuf = true;
  for (const r of ranges) {
    const as = r.params.get('as');
    if (r.type === PROTOBUF_MEDIA_TYPE) {
      if (as === undefined && hasProtobuf(apiVersionOf(type, version), type.kind)) {
        return { ...plain, protobuf: true };
      }
      continue;
    }
    onlyProtobuf = false;
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') {
      if (as === 'Table') return { ...plain, table: true };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
        return { ...plain, metaOnly: true };
      }
      if (as === undefined) return plain;
    }
  }
  if (onlyProtobuf) {
    throw statusError(
      406,
      'NotAcceptable',
      `the server was unable to respond with a content type that the client supports (${accept})`,
    );
  }
  return plain;
}

/** Whether a request body is Kubernetes protobuf. */
export function isProtobufBody(contentType: string): boolean {
  return contentType === PROTOBUF_MEDIA_TYPE;
}

function unsupported(type: ResourceType, version: string): ApiError {
  const types = ['application/json', 'application/yaml'];
  if (hasProtobuf(apiVersionOf(type, version), type.kind)) types.push(PROTOBUF_MEDIA_TYPE);
  return statusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${types.join(', ')}`,
  );
}

type YamlParse = (text: string) => unknown;
let yamlParse: YamlParse | undefined;

async function loadYaml(): Promise<YamlParse | undefined> {
  if (yamlParse) return yamlParse;
  try {
    const mod = (await import('yaml')) as { parse: YamlParse };
    yamlParse = mod.parse;
  } catch {
    return undefined;
  }
  return yamlParse;
}

/**
 * Decodes the body of a create or update by its content type: JSON, YAML (with the
 * optional `yaml` package installed), or protobuf for built-in kinds. 415 for any other
 * type, and for protobuf bodies of custom resources; 400 when the body does not parse.
 */
export async function decodeObjectBody(
  contentType: string,
  bytes: Buffer,
  type: ResourceType,
  version: string,
): Promise<unknown> {
  if (isProtobufBody(contentType)) {
    if (!hasProtobuf(apiVersionOf(type, version), type.kind)) throw unsupported(type, version);
    try {
      return decodeObject(bytes);
    } catch (err) {
      if (err instanceof ProtobufDecodeError) {
        throw badRequest(
          `the object provided is unrecognized (must be of type ${type.kind}): ${err.message}`,
        );
      }
      throw err;
    }
  }
  const text = bytes.toString('utf8');
  if (contentType === 'application/yaml') {
    const parse = await loadYaml();
    if (!parse) throw unsupported(type, version);
    try {
      return parse(text);
    } catch (err) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${type.kind}): yaml: ${errorMessage(err)}`,
      );
    }
  }
  if (contentType !== 'application/json' && contentType !== '') throw unsupported(type, version);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: ${errorMessage(err)}`,
    );
  }
}
