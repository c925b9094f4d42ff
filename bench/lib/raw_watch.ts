// The lower bound's watch loop body, shared by the benches that measure against it: split
// the body into lines, JSON.parse each, keep the object by namespace/name in a Map.

/** A watch event as the raw loop reads it. */
interface RawEvent {
  type: string;
  object: { metadata: { namespace: string; name: string; annotations?: Record<string, string> } };
}

/**
 * A `data` listener for a watch body: every event's object goes into `map` under
 * `namespace/name`, and `onModified` is called for each MODIFIED event. A BOOKMARK (which
 * names no object) goes to `onBookmark` instead, when given: a streaming list's end is one.
 */
export function rawWatchLines(
  map: Map<string, unknown>,
  onModified: () => void,
  onBookmark?: (object: RawEvent['object']) => void,
): (chunk: Buffer) => void {
  let pending = '';
  return (chunk: Buffer) => {
    const text = pending + chunk.toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const ev = JSON.parse(text.slice(from, nl)) as RawEvent;
      from = nl + 1;
      if (ev.type === 'BOOKMARK') {
        onBookmark?.(ev.object);
        continue;
      }
      map.set(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`, ev.object);
      if (ev.type === 'MODIFIED') onModified();
    }
    pending = text.slice(from);
  };
}
