/**
 * `/openapi/v2` of the test API server: a Swagger 2.0 document in JSON, or in the
 * protobuf form kubectl asks for (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`,
 * gnostic's `openapi_v2.Document`). kubectl reads it to validate the items of a
 * `kind: List` file; the document carries no definitions (this server publishes its
 * schemas at `/openapi/v3`), so kubectl skips the client-side check of those items, finds
 * no error, and the server's own validation (`fieldValidation`) judges each object.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { versionInfo } from './discovery.js';

/**
 * The media type of the protobuf form, as kube-openapi answers it (kubectl asks with the
 * older `…spec.v2@v1.0+protobuf`, which Go's mime parser refuses in a Content-Type).
 */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** The JSON form: a Swagger 2.0 document without paths or definitions. */
export function openApiV2Document(): Record<string, unknown> {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: versionInfo().gitVersion ?? '' },
    paths: {},
    definitions: {},
  };
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** A length-delimited protobuf field. */
function field(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(bytes.length)]), bytes]);
}

/** The protobuf form (`openapi_v2.Document`: swagger = 1, info = 2 {title = 1, version = 2}, paths = 8). */
export function openApiV2Protobuf(): Buffer {
  const info = Buffer.concat([
    field(1, Buffer.from('Kubernetes')),
    field(2, Buffer.from(versionInfo().gitVersion ?? '')),
  ]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info), field(8, Buffer.alloc(0))]);
}

/** Answers GET `/openapi/v2` in the form the Accept header asks for. */
export function serveOpenApiV2(req: IncomingMessage, res: ServerResponse): void {
  const accept = req.headers.accept ?? '';
  req.resume();
  if (accept.includes('protobuf')) {
    const body = openApiV2Protobuf();
    res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF, 'Content-Length': body.length });
    res.end(body);
    return;
  }
  const body = JSON.stringify(openApiV2Document());
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
