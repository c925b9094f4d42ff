// The event sinks (client-go tools/record's EventSink): each Event API is one sink that turns
// a recorded event into writes; the broadcaster performs every write the same way, patch
// else create (patchElseCreate). Pinned here without a server: a sink's decisions as the
// writes it sends, and the single write path.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/client/errors.js';
import type { ResourceClient } from '../../src/client/resource_client.js';
import { CoreEventSink } from '../../src/record/core_sink.js';
import { EventsV1Sink } from '../../src/record/events_v1_sink.js';
import { patchElseCreate } from '../../src/record/sink.js';
import type {
  AnyEvent,
  EventSinkContext,
  EventWrite,
  RecordedEvent,
} from '../../src/record/sink.js';
import { EventNamer } from '../../src/record/time.js';
import type { CoreEvent, EventsV1Event } from '../../src/record/types.js';
import { KubeConfig } from '@kubernetes/client-node';
import { toTransport } from '../../src/client/transport.js';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';

interface Sent {
  patch: EventWrite<AnyEvent>['patch'];
  event: AnyEvent;
}

function context(clock: FakeClock): EventSinkContext & { sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    clock,
    logger: noopLogger,
    namer: new EventNamer(() => clock.now()),
    send: async (write) => {
      sent.push({ patch: write.patch, event: structuredClone(write.event) });
      const stored = {
        ...write.event,
        metadata: { ...write.event.metadata, resourceVersion: '1' },
      };
      write.written?.(stored);
    },
  };
}

function recorded(clock: FakeClock, extra: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'cm', uid: 'u1' },
    related: undefined,
    type: 'Normal',
    reason: 'Synced',
    action: undefined,
    message: 'synced it',
    annotations: undefined,
    component: 'test-controller',
    host: undefined,
    time: clock.now(),
    name: `cm.${clock.now()}`,
    namespace: 'default',
    ...extra,
  };
}

// The sinks build their clients from a transport but never use them here (send is faked).
const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'c', server: 'http://127.0.0.1:1' }],
  users: [{ name: 'u' }],
  contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
  currentContext: 'x',
});
const transport = toTransport(kc);
after(() => transport.close());

describe('event sinks', () => {
  test('core/v1 sink: the first event is created, an identical repeat is a strategic-merge patch of count and lastTimestamp (client-go correlator)', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const ctx = context(clock);
    const sink = new CoreEventSink(transport, {}, ctx);
    assert.equal(sink.api, 'core/v1');
    await sink.record(recorded(clock));
    await clock.advance(1000);
    await sink.record(recorded(clock));
    assert.equal(ctx.sent.length, 2);
    assert.equal(ctx.sent[0]!.patch, undefined, 'first: a create');
    const first = ctx.sent[0]!.event as CoreEvent;
    assert.deepEqual(
      [first.involvedObject.name, first.count, first.source],
      ['cm', 1, { component: 'test-controller' }],
    );
    assert.equal(first.metadata?.resourceVersion, undefined, 'created without resourceVersion');
    assert.equal(ctx.sent[1]!.patch?.type, 'strategic');
    assert.equal(ctx.sent[1]!.patch?.body['count'], 2);
    assert.equal(
      ctx.sent[1]!.event.metadata?.name,
      first.metadata?.name,
      'the repeat patches the stored Event',
    );
  });

  test('events.k8s.io/v1 sink: a repeat becomes a series (count 2, merge patch), later repeats are counted in memory and written on flush', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const ctx = context(clock);
    const sink = new EventsV1Sink(transport, ctx);
    await sink.record(recorded(clock, { host: 'pod-1' }));
    await clock.advance(1000);
    await sink.record(recorded(clock, { host: 'pod-1' }));
    await clock.advance(1000);
    await sink.record(recorded(clock, { host: 'pod-1' }));
    assert.equal(ctx.sent.length, 2, 'the third occurrence is only counted');
    assert.equal(ctx.sent[0]!.patch, undefined);
    assert.equal((ctx.sent[0]!.event as EventsV1Event).reportingInstance, 'pod-1');
    assert.equal(ctx.sent[1]!.patch?.type, 'merge');
    assert.deepEqual(ctx.sent[1]!.patch?.body['series'], {
      count: 2,
      lastObservedTime: '2026-01-01T00:00:01.000000Z',
    });
    await sink.flush();
    assert.equal(ctx.sent.length, 3);
    assert.equal((ctx.sent[2]!.patch?.body['series'] as { count: number }).count, 3);
    await sink.flush();
    assert.equal(ctx.sent.length, 3, 'a series written once is not written again until it moves');
    sink.close();
  });

  test('patchElseCreate: a write with a patch patches; a patch that finds no Event creates it; any other error is the caller’s to retry', async () => {
    const calls: string[] = [];
    const notFound = new ApiError({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'gone',
    });
    const serverError = new ApiError({
      kind: 'Status',
      code: 500,
      reason: 'InternalError',
      message: 'x',
    });
    let patchError: ApiError | undefined;
    const client = {
      patch: async (name: string) => {
        calls.push(`patch ${name}`);
        if (patchError !== undefined) throw patchError;
        return { involvedObject: {}, metadata: { name } };
      },
      create: async (obj: CoreEvent) => {
        calls.push(`create ${obj.metadata?.name ?? ''}`);
        return obj;
      },
    } as unknown as ResourceClient<CoreEvent>;
    const event: CoreEvent = { involvedObject: {}, metadata: { name: 'e1', namespace: 'default' } };
    const signal = new AbortController().signal;
    await patchElseCreate({ client, event }, signal);
    await patchElseCreate(
      { client, event, patch: { body: { count: 2 }, type: 'strategic' } },
      signal,
    );
    patchError = notFound;
    await patchElseCreate(
      { client, event, patch: { body: { count: 3 }, type: 'strategic' } },
      signal,
    );
    assert.deepEqual(calls, ['create e1', 'patch e1', 'patch e1', 'create e1']);
    patchError = serverError;
    await assert.rejects(
      patchElseCreate({ client, event, patch: { body: {}, type: 'strategic' } }, signal),
      (e: unknown) => e === serverError,
    );
  });
});
