/**
 * The watch handler of the test API server: checks a watch request's parameters as
 * kube-apiserver does (`sendInitialEvents`, `resourceVersionMatch`, `allowWatchBookmarks`,
 * `resourceVersion`, `timeoutSeconds`), opens a {@link WatchConnection}, replays history or
 * sends initial events, and registers the watch for live events.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import { parseFieldSelector } from 'kube-controller-kit';
import type { Rendering } from './negotiation.js';
import { encodeWatchFrame, PROTOBUF_MEDIA_TYPE } from './protobuf/codec.js';
import { parseShardQuery } from './feature_gates.js';
import { parseSelectors } from './query.js';
import { groupResourceKey } from './registry/resource_registry.js';
import type { ResourceRequest, ServerContext } from './server_context.js';
import { badRequest, statusError, tooOld } from './status.js';
import { renderTableWatchLine } from './table.js';
import { WatchConnection } from './watch.js';

/** Serves a watch request on `res` (the response stays open until the watch ends). */
export function serveWatch(
  ctx: ServerContext,
  res: ServerResponse,
  r: ResourceRequest,
  format: Rendering,
): void {
  const { type, query: q } = r;
  const { label, field } = parseSelectors(q, type, ctx.store);
  const shard = parseShardQuery(q, ctx.settings.featureGates);
  const rvText = q.get('resourceVersion') ?? '';
  const rvm = q.get('resourceVersionMatch') ?? '';
  const sie = q.get('sendInitialEvents');
  const bookmarks = q.get('allowWatchBookmarks') === 'true';
  if (sie === 'true' && rvm !== 'NotOlderThan') {
    throw statusError(
      422,
      'Invalid',
      `resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`,
    );
  }
  if (sie === 'true' && !bookmarks) {
    throw statusError(
      422,
      'Invalid',
      `allowWatchBookmarks: Forbidden: sendInitialEvents requires allowWatchBookmarks=true`,
    );
  }
  if (sie === null && rvm !== '') {
    throw statusError(
      422,
      'Invalid',
      `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`,
    );
  }
  if (rvText !== '' && !/^\d+$/.test(rvText)) {
    throw badRequest(
      `resourceVersion: Invalid value: "${rvText}": must be a valid resource version`,
    );
  }
  const timeoutText = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutText ? Number(timeoutText) : undefined;
  const namespace = r.namespace === '' ? undefined : r.namespace;
  const nameField = r.name !== '' ? parseFieldSelector(`metadata.name=${r.name}`) : undefined;
  res.writeHead(200, {
    'Content-Type': format.protobuf ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  const storage = ctx.storage;
  const current = storage.resourceVersion;
  const initial = sie === 'true' || (sie !== 'false' && (rvText === '' || rvText === '0'));
  const startRv = initial ? current : Number(rvText);
  const grKey = groupResourceKey(type.group, type.resource);
  const conn = new WatchConnection({
    res,
    type,
    version: r.version,
    namespace,
    label,
    field: field ?? nameField,
    shard: shard?.ranges,
    metaOnly: format.metaOnly,
    clock: ctx.clock,
    bookmarkIntervalMs: bookmarks ? ctx.settings.bookmarkIntervalMs : undefined,
    timeoutMs:
      timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
    startRv,
    onClose: (w) => {
      ctx.watches.remove(grKey, w);
    },
  });
  if (format.protobuf) conn.frameEncoder = protobufFrame;
  if (ctx.converter.converts(type, r.version)) {
    // A CRD converting through a webhook: each event's object (stored at the storage
    // version, read defaults applied) is converted to the version watched.
    const converter = ctx.converter;
    conn.converter = async (stored) => {
      const read = type.readTransform ? type.readTransform(stored) : stored;
      const [out] = await converter.convert(type, [read.obj], r.version);
      return out ?? read.obj;
    };
  }
  if (format.table) {
    const tableContext = ctx.tableContext(type, r.version);
    conn.lineRenderer = (t, stored) =>
      renderTableWatchLine(t, stored, { ...tableContext, now: ctx.clock.now() });
  }
  if (!initial && startRv < storage.compactedResourceVersion) {
    conn.sendErrorAndEnd(tooOld(rvText, storage.compactedResourceVersion + 1).status);
    return;
  }
  if (initial) {
    for (const o of storage.list(grKey, type.namespaced ? namespace : undefined)) {
      if (conn.matches(o)) conn.sendSynthetic(o);
    }
    if (sie === 'true') {
      conn.sendBookmark(current, { 'k8s.io/initial-events-end': 'true' });
    }
  } else {
    for (const e of storage.eventsAfter(grKey, startRv) ?? []) conn.send(e);
  }
  if (conn.closed) return;
  conn.startLive();
  ctx.watches.add(grKey, conn);
}

/**
 * A JSON watch line as a protobuf watch frame. Lines that are not events (raw text written
 * by fault injection) pass through as their bytes.
 */
function protobufFrame(line: string): Buffer {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return Buffer.from(line, 'utf8');
  }
  const e = event as { type?: unknown; object?: unknown };
  if (typeof e.type !== 'string' || e.object === null || typeof e.object !== 'object') {
    return Buffer.from(line, 'utf8');
  }
  return encodeWatchFrame(e.type, e.object as Record<string, unknown>);
}
