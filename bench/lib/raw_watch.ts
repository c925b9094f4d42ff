// The lower bound's watch loop body, shared by the benches that measure against it: split
// the body into lines, JSON.parse each, keep the object by namespace/name in a Map.

/** A watch event as the raw loop reads it. */
interface RawEvent {
  type: string;
  object: { metadata: { namespace: string; name: string } };
}

/**
 * A `data` listener for a watch body: every event's object goes into `map` under
 * `namespace/name`, and `onModified` is called for each MODIFIED event.
 */
export function rawWatchLines(
  map: Map<string, unknown>,
  onModified: () => void,
): (chunk: Buffer) => void {
  let pending = '';
  return (chunk: Buffer) => {
    const text = pending + chunk.toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const ev = JSON.parse(text.slice(from, nl)) as RawEvent;
      map.set(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`, ev.object);
      if (ev.type === 'MODIFIED') onModified();
      from = nl + 1;
    }
    pending = text.slice(from);
  };
}
