// Rule (issue 15): a key or index function that throws on one object never empties the
// cache. The failing object is skipped and logged with its key and the cause; every other
// object is cached and delivered; cached keys missing from a relist still get tombstones.
// Checked for the initial list, a relist after 410, a streaming list and a watch event.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { SharedIndexInformerOptions } from '../../src/cache/shared_informer.js';
import type { ResourceEventHandler } from '../../src/cache/processor.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import type { WatchEvent } from '../../src/client/types.js';
import { FakeClock } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { pod, podList, ScriptedLW, Stream, until } from './shared_informer_support.js';
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';
import type { Pod } from './shared_informer_support.js';

const label = (o: DeepReadonly<Pod> | DeletedFinalStateUnknown<DeepReadonly<Pod>>): string =>
  o instanceof DeletedFinalStateUnknown ? `tombstone(${o.key})` : o.metadata.name;

function recorder() {
  const log: string[] = [];
  const handler: ResourceEventHandler<Pod> = {
    onAdd: (o) => void log.push(`add ${label(o)}`),
    onUpdate: (_a, b) => void log.push(`update ${label(b)}`),
    onDelete: (o) => void log.push(`delete ${label(o)}`),
  };
  return { log, handler };
}

function recordingLogger() {
  const errors: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    // The message and the error field (said once, in the field).
    error: (m, fields) =>
      void errors.push(
        `${m} ${fields?.error instanceof Error ? fields.error.message : String(fields?.error)}`,
      ),
  };
  return { errors, logger };
}

/** An index function that throws for pods labelled `bad`. */
const throwingIndexers = {
  byNode: (o: Pod): string[] => {
    if (o.metadata.labels?.['bad'] === 'true') throw new Error('node label missing');
    return [o.spec?.node ?? ''];
  },
};
const bad = (name: string, rv: string): Pod => badPod(name, rv);
function badPod(name: string, rv: string): Pod {
  const p = pod(name, rv);
  p.metadata.labels = { bad: 'true' };
  return p;
}

function setup(options: SharedIndexInformerOptions<Pod> = {}) {
  const clock = new FakeClock(0);
  const lw = new ScriptedLW();
  const log = recordingLogger();
  const informer = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    clock,
    logger: log.logger,
    idleTimeoutMs: 0,
    random: () => 0,
    watchList: false,
    indexers: throwingIndexers,
    ...options,
  });
  const r = recorder();
  informer.addEventHandler(r.handler);
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  const start = (): void => void (running = informer.run(ac.signal));
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  return { clock, lw, informer, start, stop, log: r.log, errors: log.errors };
}

const keys = (i: SharedIndexInformer<Pod>): string[] => i.getIndexer().listKeys().sort();

function assertLoggedSkip(errors: string[], key: string): void {
  assert.ok(
    errors.some((e) => e.includes(key) && e.includes('node label missing') && /skipped/.test(e)),
    `expected an error naming ${key} and the cause, got ${JSON.stringify(errors)}`,
  );
}

describe('a throwing key or index function skips only the failing object', () => {
  test('initial list: the other four of five objects are cached and delivered, the failing one is logged with its key and cause', async () => {
    const s = setup();
    s.lw
      .queueList(
        podList('10', [pod('a', '1'), pod('b', '2'), bad('c', '3'), pod('d', '4'), pod('e', '5')]),
      )
      .queueWatch(new Stream());
    s.start();
    await until('synced', () => s.informer.hasSynced());
    await until('delivered', () => s.log.length === 4);
    assert.deepEqual(keys(s.informer), ['ns/a', 'ns/b', 'ns/d', 'ns/e']);
    assert.deepEqual(s.log.sort(), ['add a', 'add b', 'add d', 'add e']);
    assertLoggedSkip(s.errors, 'ns/c');
    await s.stop();
  });

  test('a key function that throws skips that object the same way', async () => {
    const s = setup({ indexers: {} });
    const nameless = { metadata: { namespace: 'ns' } } as unknown as Pod;
    s.lw.queueList(podList('10', [pod('a', '1'), nameless])).queueWatch(new Stream());
    s.start();
    await until('synced', () => s.informer.hasSynced());
    await until('delivered', () => s.log.length === 1);
    assert.deepEqual(keys(s.informer), ['ns/a']);
    assert.ok(s.errors.some((e) => /could not be cached and was skipped/.test(e)));
    await s.stop();
  });

  test('relist after 410: tombstones for keys missing from the list are still computed, the failing object leaves the cache with a tombstone, the rest is cached', async () => {
    const s = setup();
    const stream = new Stream();
    s.lw.queueList(podList('10', [pod('keep', '1'), pod('gone', '2'), pod('turns-bad', '3')]));
    s.lw.queueWatch(stream);
    s.start();
    await until('synced', () => s.log.length === 3);
    s.lw
      .queueList(podList('20', [pod('keep', '15'), bad('turns-bad', '16'), pod('new', '17')]))
      .queueWatch(new Stream());
    stream.push({
      type: 'ERROR',
      object: { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'old' },
    } as unknown as WatchEvent<Pod>);
    await s.clock.waitForTimers(1);
    await s.clock.advance(60_000);
    await until('relist applied', () => s.log.length === 7, 5000);
    assert.deepEqual(s.log.slice(3).sort(), [
      'add new',
      'delete tombstone(ns/gone)',
      'delete tombstone(ns/turns-bad)',
      'update keep',
    ]);
    assert.deepEqual(keys(s.informer), ['ns/keep', 'ns/new']);
    assertLoggedSkip(s.errors, 'ns/turns-bad');
    await s.stop();
  });

  test('streaming list: the failing object is skipped, the others are cached when the end bookmark arrives', async () => {
    const s = setup({ watchList: true });
    const stream = new Stream();
    s.lw.queueWatch(stream);
    s.start();
    stream.push(
      { type: 'ADDED', object: pod('a', '1') },
      { type: 'ADDED', object: bad('b', '2') },
      { type: 'ADDED', object: pod('c', '3') },
      {
        type: 'BOOKMARK',
        object: {
          metadata: { resourceVersion: '5', annotations: { 'k8s.io/initial-events-end': 'true' } },
        } as unknown as Pod,
      },
    );
    await until('synced', () => s.informer.hasSynced());
    await until('delivered', () => s.log.length === 2);
    assert.deepEqual(keys(s.informer), ['ns/a', 'ns/c']);
    assertLoggedSkip(s.errors, 'ns/b');
    await s.stop();
  });

  test('watch event: the failing object is skipped and logged with its key and cause; the next event is applied', async () => {
    const s = setup();
    const stream = new Stream();
    s.lw.queueList(podList('10', [pod('a', '1')])).queueWatch(stream);
    s.start();
    await until('synced', () => s.log.length === 1);
    stream.push(
      { type: 'ADDED', object: bad('b', '11') },
      { type: 'ADDED', object: pod('c', '12') },
    );
    await until('c added', () => s.log.includes('add c'));
    assert.deepEqual(keys(s.informer), ['ns/a', 'ns/c']);
    assertLoggedSkip(s.errors, 'ns/b');
    await s.stop();
  });
  test('watch events: an object the key function cannot name, in the middle of a read, is skipped and logged; the events around it are applied', async () => {
    const s = setup({ indexers: {} });
    const stream = new Stream();
    s.lw.queueList(podList('10', [pod('a', '1')])).queueWatch(stream);
    s.start();
    await until('synced', () => s.log.length === 1);
    const nameless = { metadata: { namespace: 'ns', resourceVersion: '12' } } as unknown as Pod;
    stream.push(
      { type: 'ADDED', object: pod('b', '11') },
      { type: 'ADDED', object: nameless },
      { type: 'ADDED', object: pod('c', '13') },
    );
    await until('c added', () => s.log.includes('add c'));
    assert.deepEqual(s.log, ['add a', 'add b', 'add c']);
    assert.deepEqual(keys(s.informer), ['ns/a', 'ns/b', 'ns/c']);
    assert.ok(s.errors.some((e) => /could not be cached and was skipped/.test(e)));
    await s.stop();
  });

  test('watch events: a cached object whose new state cannot be cached leaves the cache with a tombstone; deleting a skipped object delivers nothing', async () => {
    const s = setup();
    const stream = new Stream();
    s.lw.queueList(podList('10', [pod('a', '1'), pod('d', '2')])).queueWatch(stream);
    s.start();
    await until('synced', () => s.log.length === 2);
    stream.push(
      { type: 'MODIFIED', object: bad('a', '11') },
      { type: 'ADDED', object: bad('b', '12') },
      { type: 'DELETED', object: bad('b', '13') },
      { type: 'ADDED', object: pod('c', '14') },
    );
    await until('c added', () => s.log.includes('add c'));
    assert.deepEqual(s.log, ['add a', 'add d', 'delete tombstone(ns/a)', 'add c']);
    assert.deepEqual(keys(s.informer), ['ns/c', 'ns/d']);
    assertLoggedSkip(s.errors, 'ns/a');
    await s.stop();
  });
});
