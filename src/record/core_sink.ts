/**
 * The core/v1 event sink (client-go `tools/record`): Events with `involvedObject`, `source`,
 * `firstTimestamp`/`lastTimestamp`/`count`, through the {@link EventCorrelator}: similar
 * events aggregated, a repeat patched onto the stored Event (strategic merge of `count`,
 * `lastTimestamp`, `message`; created again when it is gone), a per-object spam filter.
 * `kubectl describe` lists core/v1 Events, so these show there on every server.
 *
 * @module
 */
import { ResourceClient } from '../client/resource_client.js';
import type { Transport } from '../client/transport.js';
import { EventCorrelator } from './events_cache.js';
import type { CorrelatorOptions } from './events_cache.js';
import type { EventSink, EventSinkContext, RecordedEvent } from './sink.js';
import { formatTime } from './time.js';
import { coreEventsResource } from './types.js';
import type { CoreEvent } from './types.js';

/** Writes core/v1 Events through client-go's correlator. */
export class CoreEventSink implements EventSink {
  /** `core/v1`. */
  readonly api = 'core/v1';
  readonly #client: ResourceClient<CoreEvent>;
  readonly #correlator: EventCorrelator;
  readonly #ctx: EventSinkContext;

  /**
   * @param transport - where Events are written.
   * @param correlator - client-go's correlator limits (its defaults otherwise).
   * @param ctx - the broadcaster's clock, logger, namer and retrying `send`.
   */
  constructor(transport: Transport, correlator: CorrelatorOptions, ctx: EventSinkContext) {
    this.#client = new ResourceClient(transport, coreEventsResource);
    this.#ctx = ctx;
    this.#correlator = new EventCorrelator(correlator, ctx.clock, (n) => ctx.namer.name(n));
  }

  async record(recorded: RecordedEvent): Promise<void> {
    const result = this.#correlator.correlate(coreEvent(recorded));
    if (result.skip) return;
    const event: CoreEvent = { ...result.event, metadata: { ...result.event.metadata } };
    delete event.metadata?.resourceVersion;
    await this.#ctx.send({
      client: this.#client.namespace(event.metadata?.namespace ?? 'default'),
      event,
      ...(result.patch !== undefined
        ? { patch: { body: result.patch, type: 'strategic' as const } }
        : {}),
      written: (stored) => this.#correlator.updateState(stored, result.key),
    });
  }

  /** Nothing is held back. */
  async flush(): Promise<void> {}

  /** No timers. */
  close(): void {}
}

/** The core/v1 Event of a recorded event (`tools/record`'s `makeEvent`). */
function coreEvent(r: RecordedEvent): CoreEvent {
  const t = formatTime(r.time);
  const event: CoreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: r.name,
      namespace: r.namespace,
      ...(r.annotations !== undefined ? { annotations: { ...r.annotations } } : {}),
    },
    involvedObject: r.regarding,
    reason: r.reason,
    message: r.message,
    source:
      r.host === undefined ? { component: r.component } : { component: r.component, host: r.host },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: r.type,
    reportingComponent: r.component,
  };
  if (r.host !== undefined) event.reportingInstance = r.host;
  return event;
}
