/**
 * The watch handler of the test API server: checks a watch request's parameters as
 * kube-apiserver does (`sendInitialEvents`, `resourceVersionMatch`, `allowWatchBookmarks`,
 * `resourceVersion`, `timeoutSeconds`), opens a {@link WatchConnection}, replays history or
 * sends initial events, and registers the watch for live events.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import { parseFieldSelector } from '../apimachinery/fields.js';
import { parseSelectors } from './query.js';
import { groupResourceKey } from './registry.js';
import type { ResourceRequest, ServerContext } from './server_context.js';
import { badRequest, statusError, tooOld } from './status.js';
import { renderTableWatchLine } from './table.js';
import { WatchConnection } from './watch.js';

/** How a watch renders its objects. */
export interface WatchFormat {
  /** `as=PartialObjectMetadata`: metadata only. */
  metaOnly: boolean;
  /** `as=Table`: one table row per event. */
  table: boolean;
}

/** Serves a watch request on `res` (the response stays open until the watch ends). */
export function serveWatch(
  ctx: ServerContext,
  res: ServerResponse,
  r: ResourceRequest,
  format: WatchFormat,
): void {
  const { type, query: q } = r;
  const { label, field } = parseSelectors(q, type, ctx.store);
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
    'Content-Type': 'application/json',
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
  if (format.table) {
    conn.lineRenderer = (t, stored) => renderTableWatchLine(t, stored, type, ctx.clock.now());
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
