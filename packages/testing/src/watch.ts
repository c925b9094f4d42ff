/**
 * One open watch stream of the test API server.
 *
 * A watch writes JSON lines (`{"type":…,"object":…}\n`) on a chunked HTTP response. Each
 * change event is serialized once per variant (event type, version, metadata-only) and the
 * same string is written to every watcher that wants it; lines are batched per turn of the
 * event loop so that one socket write carries many events.
 *
 * Selectors follow kube-apiserver's transitions: an object that stops matching arrives as
 * DELETED, one that starts matching as ADDED. Bookmarks follow its watch cache too: at the
 * bookmark interval or 2 s before the watch's timeout, and only once the resource has
 * changed since the watch went live (after its replayed or initial events).
 *
 * @module
 */
import { matchesShardRanges } from 'kube-controller-kit';
import type {
  Clock,
  FieldSelector,
  LabelSelector,
  ShardRange,
  Status,
  Timer,
  UnstructuredObject,
} from 'kube-controller-kit';
import type { ServerResponse } from 'node:http';
import type { ResourceType } from './registry/resource_registry.js';
import type { ChangeEvent, ChangeType, StoredObject } from './storage.js';

/**
 * Flushes the pending lines of every watch once per turn of the event loop. Watches whose
 * pending lines are the very same strings in the same order (the usual case: many
 * watchers of one resource) share one encoded Buffer, so an event is encoded once however
 * many watchers receive it.
 */
class FlushScheduler {
  #dirty = new Set<WatchConnection>();
  #scheduled = false;

  add(w: WatchConnection): void {
    this.#dirty.add(w);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#run());
  }

  #run(): void {
    this.#scheduled = false;
    const dirty = this.#dirty;
    this.#dirty = new Set();
    const groups = new Map<string, { lines: string[]; chunk: Buffer }[]>();
    for (const w of dirty) {
      const lines = w.takePending();
      if (lines === undefined || lines.length === 0) continue;
      if (w.frameEncoder) {
        w.writeChunk(encodeLines(lines, w.frameEncoder));
        continue;
      }
      const first = lines[0] ?? '';
      let bucket = groups.get(first);
      if (!bucket) {
        bucket = [];
        groups.set(first, bucket);
      }
      let chunk: Buffer | undefined;
      for (const g of bucket) {
        if (g.lines.length === lines.length && g.lines.every((l, i) => l === lines[i])) {
          chunk = g.chunk;
          break;
        }
      }
      if (!chunk) {
        chunk = Buffer.from(lines.length === 1 ? first : lines.join(''), 'utf8');
        bucket.push({ lines, chunk });
      }
      w.writeChunk(chunk);
    }
  }
}

const flusher = new FlushScheduler();

/** The bytes of pending lines through a frame encoder (one frame per line). */
function encodeLines(lines: string[], encode: (line: string) => Buffer): Buffer {
  return lines.length === 1 ? encode(lines[0] ?? '') : Buffer.concat(lines.map(encode));
}

/** How long before a watch's timeout kube-apiserver sends its last BOOKMARK. */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;

/** An object as the metadata-only view renders it (`meta.k8s.io/v1` PartialObjectMetadata). */
function partialObjectMetadata(obj: UnstructuredObject): string {
  return JSON.stringify({
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: obj.metadata,
  });
}

/** Renders a stored object for a client: at a version, optionally metadata-only. */
export function renderObject(
  stored: StoredObject,
  type: ResourceType,
  version: string,
  metaOnly: boolean,
): string {
  if (type.readTransform) stored = type.readTransform(stored);
  if (metaOnly) return partialObjectMetadata(stored.obj);
  if (type.convert !== undefined && version !== type.versions[0]) {
    return JSON.stringify(type.convert(stored.obj, version));
  }
  if (version === type.versions[0] || type.group === '') return stored.json;
  return JSON.stringify({ ...stored.obj, apiVersion: `${type.group}/${version}` });
}

/** The fields a field selector can see of an object. */
export function selectableFields(
  obj: UnstructuredObject,
  type: ResourceType,
): Record<string, string> {
  const f: Record<string, string> = {
    'metadata.name': obj.metadata?.name ?? '',
  };
  if (type.namespaced) f['metadata.namespace'] = obj.metadata?.namespace ?? '';
  for (const [path, get] of type.fieldSelectors) f[path] = get(obj) ?? '';
  return f;
}

/** What a watch selects. */
export interface WatchFilter {
  /** The resource watched. */
  type: ResourceType;
  /** Version the client asked at. */
  version: string;
  /** Namespace, or undefined for all. */
  namespace: string | undefined;
  /** Label selector (undefined = everything). */
  label: LabelSelector | undefined;
  /** Field selector (undefined = everything). */
  field: FieldSelector | undefined;
  /** Shard ranges (feature gate ShardedListAndWatch; undefined = everything). */
  shard?: readonly ShardRange[] | undefined;
  /** PartialObjectMetadata instead of full objects. */
  metaOnly: boolean;
}

/** Options of one watch. */
export interface WatchConnectionOptions extends WatchFilter {
  /** The HTTP response the events go on. */
  res: ServerResponse;
  /** Clock for bookmarks and timeouts. */
  clock: Clock;
  /**
   * Send BOOKMARK events this often (0 or undefined = never), and 2 s before `timeoutMs`
   * when that comes first.
   */
  bookmarkIntervalMs: number | undefined;
  /** End the watch after this long (undefined = never). */
  timeoutMs: number | undefined;
  /** The resourceVersion the watch starts after. */
  startRv: number;
  /** Called once when the stream has ended. */
  onClose: (w: WatchConnection) => void;
}

/** One open watch. */
export class WatchConnection {
  /** What it selects. */
  readonly filter: WatchFilter;
  readonly #res: ServerResponse;
  readonly #clock: Clock;
  #pending: string[] = [];
  #flushScheduled = false;
  #paused = false;
  #closed = false;
  /** The newest version this watch knows of (its own events and the ones it filtered out). */
  #lastRv: number;
  /**
   * The version the watch went live at (after its replayed or initial events): periodic
   * bookmarks wait until the resource has moved past it.
   */
  #liveFromRv: number;
  #closeAfter: number | undefined;
  #bookmarkTimer: Timer | undefined;
  #timeoutTimer: Timer | undefined;
  #deadline: number | undefined;
  readonly #bookmarkIntervalMs: number | undefined;
  readonly #onClose: (w: WatchConnection) => void;
  /**
   * Turns each JSON event line into the bytes written (protobuf watch framing); default:
   * the line itself in UTF-8.
   */
  frameEncoder: ((line: string) => Buffer) | undefined;
  /** Renders event lines differently (server-side printing); default: the object itself. */
  lineRenderer: ((eventType: ChangeType, stored: StoredObject) => string) | undefined;
  /**
   * Expresses a stored object at the watch's version through a CRD's conversion webhook,
   * one call per event as kube-apiserver's watch encoder converts each event's object.
   * Events keep their order; a failed conversion ends the stream, as the real server
   * closes a watch whose event it cannot encode.
   */
  converter: ((stored: StoredObject) => Promise<UnstructuredObject>) | undefined;
  /** Events (and what follows them) waiting for their conversion, in order. */
  #staged: { line: string | undefined; failed: boolean }[] = [];
  #endWhenDrained = false;

  /** @param options - the response, filter and timers. */
  constructor(options: WatchConnectionOptions) {
    this.filter = {
      type: options.type,
      version: options.version,
      namespace: options.namespace,
      label: options.label,
      field: options.field,
      shard: options.shard,
      metaOnly: options.metaOnly,
    };
    this.#res = options.res;
    this.#clock = options.clock;
    this.#lastRv = options.startRv;
    this.#liveFromRv = options.startRv;
    this.#onClose = options.onClose;
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs;
    this.#res.on('close', () => this.#finish());
    if (options.timeoutMs !== undefined) {
      this.#deadline = this.#clock.now() + options.timeoutMs;
      this.#timeoutTimer = this.#clock.setTimeout(() => this.end(), options.timeoutMs);
    }
    this.#armBookmark();
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Schedules the next BOOKMARK as kube-apiserver's watch cache does: after the bookmark
   * interval, or 2 s before the watch's timeout when that comes first (so a client learns
   * the latest version just before the server ends the watch); none once that moment has
   * passed.
   */
  #armBookmark(): void {
    if (!this.#bookmarkIntervalMs || this.#closed) return;
    let delay = this.#bookmarkIntervalMs;
    let last = false;
    if (this.#deadline !== undefined) {
      const untilPreTimeout = this.#deadline - PRE_TIMEOUT_BOOKMARK_MS - this.#clock.now();
      if (untilPreTimeout < 0) return;
      if (untilPreTimeout <= delay) {
        delay = untilPreTimeout;
        last = true;
      }
    }
    this.#bookmarkTimer = this.#clock.setTimeout(() => {
      // Like kube-apiserver's watch cache: a bookmark only once the resource has changed
      // since the watch went live (its version is then the newest this watch knows of).
      if (this.#lastRv > this.#liveFromRv) this.sendBookmark(this.#lastRv);
      if (!last) this.#armBookmark();
    }, delay);
  }

  /**
   * Marks the end of the replayed history or initial events: the watch is live from here.
   * Periodic bookmarks are sent only after the resource changes past this point.
   */
  startLive(): void {
    this.#liveFromRv = this.#lastRv;
  }

  /** Whether an object is selected by this watch. */
  matches(stored: StoredObject): boolean {
    const f = this.filter;
    if (f.namespace !== undefined && stored.namespace !== f.namespace) return false;
    if (f.label && !f.label.matches(stored.obj.metadata?.labels)) return false;
    if (f.field && !f.field.matches(selectableFields(stored.obj, f.type))) return false;
    if (f.shard && !matchesShardRanges(stored.obj, f.shard)) return false;
    return true;
  }

  /** Sends a committed change if this watch selects it (with selector transitions). */
  send(e: ChangeEvent): void {
    if (this.#closed) return;
    if (e.rv <= this.#lastRv) return;
    const f = this.filter;
    const plain = f.label === undefined && f.field === undefined && f.shard === undefined;
    if (f.namespace !== undefined && e.object.namespace !== f.namespace) {
      this.#lastRv = e.rv;
      return;
    }
    let type: ChangeType = e.type;
    if (plain) {
      if (this.#convertAndQueue(type, e.object, e.rv)) return;
      this.#queue(this.#line(e, type), e.rv);
      return;
    }
    const cur = this.matches(e.object);
    const prev = e.type === 'MODIFIED' && e.prev !== undefined ? this.matches(e.prev) : cur;
    if (!cur && !prev) {
      this.#lastRv = e.rv;
      return;
    }
    if (e.type === 'MODIFIED') {
      if (cur && !prev) type = 'ADDED';
      else if (!cur && prev && e.prev) {
        // Stops matching: DELETED carrying the previous state at this event's version.
        const old = e.prev.obj;
        const obj = { ...old, metadata: { ...old.metadata, resourceVersion: String(e.rv) } };
        const stored: StoredObject = { ...e.prev, obj, json: JSON.stringify(obj), rv: e.rv };
        if (this.#convertAndQueue('DELETED', stored, e.rv)) return;
        this.#queue(this.#render('DELETED', stored), e.rv);
        return;
      }
    }
    if (this.#convertAndQueue(type, e.object, e.rv)) return;
    this.#queue(this.#line(e, type), e.rv);
  }

  /** Sends an object as a synthetic event (initial state). */
  sendSynthetic(stored: StoredObject, type: ChangeType = 'ADDED'): void {
    if (this.#convertAndQueue(type, stored, undefined)) return;
    this.#queue(this.#render(type, stored), undefined);
  }

  /** Queues an event through {@link WatchConnection.converter}; false when none is set. */
  #convertAndQueue(type: ChangeType, stored: StoredObject, rv: number | undefined): boolean {
    const convert = this.converter;
    if (convert === undefined || this.lineRenderer !== undefined) return false;
    if (this.#closed) return true;
    if (rv !== undefined) this.#lastRv = rv;
    const slot: { line: string | undefined; failed: boolean } = { line: undefined, failed: false };
    this.#staged.push(slot);
    const f = this.filter;
    convert(stored).then(
      (obj) => {
        const body = f.metaOnly ? partialObjectMetadata(obj) : JSON.stringify(obj);
        slot.line = `{"type":"${type}","object":${body}}\n`;
        this.#drain();
      },
      () => {
        slot.failed = true;
        slot.line = '';
        this.#drain();
      },
    );
    return true;
  }

  /** Moves converted events, in order, to the stream. */
  #drain(): void {
    while (this.#staged.length > 0 && this.#staged[0]?.line !== undefined) {
      const slot = this.#staged.shift() as { line: string; failed: boolean };
      if (slot.failed) {
        this.#staged = [];
        this.end();
        return;
      }
      this.#queue(slot.line, undefined);
      if (this.#closed) return;
    }
    if (this.#staged.length === 0 && this.#endWhenDrained) this.end();
  }

  /** Pushes a line behind the events still converting (bookmarks, errors, raw text). */
  #pushLine(line: string): void {
    if (this.#staged.length > 0) this.#staged.push({ line, failed: false });
    else {
      this.#pending.push(line);
      this.#scheduleFlush();
    }
  }

  #render(type: ChangeType, stored: StoredObject): string {
    if (this.lineRenderer) return this.lineRenderer(type, stored);
    const f = this.filter;
    return `{"type":"${type}","object":${renderObject(stored, f.type, f.version, f.metaOnly)}}\n`;
  }

  #line(e: ChangeEvent, type: ChangeType): string {
    if (this.lineRenderer) return this.lineRenderer(type, e.object);
    const f = this.filter;
    const variant = `${type}|${f.version}|${f.metaOnly ? 'm' : 'f'}`;
    let line = e.lines.get(variant);
    if (line === undefined) {
      line = `{"type":"${type}","object":${renderObject(e.object, f.type, f.version, f.metaOnly)}}\n`;
      e.lines.set(variant, line);
    }
    return line;
  }

  /** Sends a BOOKMARK at a version, optionally with annotations. */
  sendBookmark(rv: number, annotations?: Record<string, string>): void {
    if (this.#closed) return;
    const f = this.filter;
    const apiVersion = f.metaOnly
      ? 'meta.k8s.io/v1'
      : f.type.group === ''
        ? f.version
        : `${f.type.group}/${f.version}`;
    const kind = f.metaOnly ? 'PartialObjectMetadata' : f.type.kind;
    const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
    if (annotations) metadata.annotations = annotations;
    this.#pushLine(
      `${JSON.stringify({ type: 'BOOKMARK', object: { kind, apiVersion, metadata } })}\n`,
    );
  }

  /** Sends an ERROR event with a Status, then ends the stream. */
  sendErrorAndEnd(status: Status): void {
    if (this.#closed) return;
    if (this.#staged.length > 0) {
      this.#staged.push({
        line: `${JSON.stringify({ type: 'ERROR', object: status })}\n`,
        failed: false,
      });
      this.#endWhenDrained = true;
      return;
    }
    this.#pending.push(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    this.end();
  }

  /** Writes raw text into the stream (fault injection: truncated or malformed lines). */
  writeRaw(text: string): void {
    if (this.#closed) return;
    this.#pushLine(text);
  }

  /** Ends the stream after this many more events. */
  closeAfter(events: number): void {
    this.#closeAfter = events;
    if (events <= 0) this.end();
  }

  /** Holds events (still accepted and kept) without writing them. */
  pause(): void {
    this.#paused = true;
  }

  /** Writes the held events and resumes streaming. */
  resume(): void {
    this.#paused = false;
    this.#scheduleFlush();
  }

  #queue(line: string, rv: number | undefined): void {
    if (rv !== undefined) this.#lastRv = rv;
    this.#pending.push(line);
    if (this.#closeAfter !== undefined) {
      this.#closeAfter--;
      if (this.#closeAfter <= 0) {
        this.end();
        return;
      }
    }
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#paused) return;
    this.#flushScheduled = true;
    flusher.add(this);
  }

  /** Hands the pending lines to the flush scheduler (undefined while paused or closed). */
  takePending(): string[] | undefined {
    this.#flushScheduled = false;
    if (this.#paused || this.#closed) return undefined;
    const lines = this.#pending;
    this.#pending = [];
    return lines;
  }

  /** Writes an encoded chunk of lines. */
  writeChunk(chunk: Buffer): void {
    if (!this.#closed) this.#res.write(chunk);
  }

  #flush(): void {
    if (this.#paused || this.#closed || this.#pending.length === 0) return;
    const lines = this.#pending;
    this.#pending = [];
    if (this.frameEncoder) {
      this.#res.write(encodeLines(lines, this.frameEncoder));
      return;
    }
    this.#res.write(lines.length === 1 ? (lines[0] ?? '') : lines.join(''));
  }

  /** Ends the stream cleanly (pending events are written first, even when paused). */
  end(): void {
    if (this.#closed) return;
    if (this.#staged.length > 0) {
      // Events still converting go out first (a timeout or closeAfter ends after them).
      this.#endWhenDrained = true;
      return;
    }
    this.#paused = false;
    this.#flush();
    this.#res.end();
    this.#finish();
  }

  /** Destroys the socket abruptly (no clean end of the chunked response). */
  destroy(): void {
    if (this.#closed) return;
    // Over HTTP/2 the socket carries other streams (Node refuses to let a stream touch it):
    // resetting this stream is the abrupt end.
    if (this.#res.req.httpVersionMajor !== 2) this.#res.socket?.destroy();
    this.#res.destroy();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#bookmarkTimer?.cancel();
    this.#timeoutTimer?.cancel();
    this.#onClose(this);
  }
}
