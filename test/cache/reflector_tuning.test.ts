// Rules (issue 15, "reflector tuning as one nested options object"): an informer's
// reflector tuning is one object, `reflector: { watchList, pageSize, … }`, handed to the
// reflector as is, so each default (streaming lists on) lives in the reflector only; the
// former flat informer options (and the reflector's `watchListEnabled`) still work,
// deprecated, and give the same lists and watches; a nested field wins over its flat alias.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RealFIFO } from '../../src/cache/real_fifo.js';
import { Reflector, defaultWatchListEnabled } from '../../src/cache/reflector.js';
import type { ReflectorOptions } from '../../src/cache/reflector.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { SharedIndexInformerOptions } from '../../src/cache/shared_informer.js';
import type { ListOptions } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import { pod, podList, ScriptedLW, until } from './shared_informer_support.js';
import type { Pod } from './shared_informer_support.js';

type Call = { verb: 'list' | 'watch'; options: ListOptions };

/** The first `n` list/watch calls an informer with `options` makes (one list reply queued). */
async function informerCalls(options: SharedIndexInformerOptions<Pod>, n = 2): Promise<Call[]> {
  const lw = new ScriptedLW();
  lw.queueList(podList('5', [pod('a', '1')]));
  const informer = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    logger: noopLogger,
    random: () => 0,
    ...options,
  });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await until(`${n} calls`, () => lw.calls.length >= n);
  ac.abort();
  await running;
  return lw.calls.slice(0, n);
}

/** The first call a bare reflector with `options` makes. */
async function reflectorFirstCall(options: ReflectorOptions<Pod>): Promise<Call> {
  const lw = new ScriptedLW();
  const reflector = new Reflector<Pod>(lw, new RealFIFO<Pod>(), {
    logger: noopLogger,
    random: () => 0,
    ...options,
  });
  const ac = new AbortController();
  const running = reflector.run(ac.signal);
  await until('a call', () => lw.calls.length >= 1);
  ac.abort();
  await running;
  return lw.calls[0]!;
}

const isStreamingList = (c: Call): boolean =>
  c.verb === 'watch' && c.options.sendInitialEvents === true;

describe('reflector tuning: one nested object, defaults in the reflector', () => {
  test('streaming lists are the default of a bare reflector and of an informer given no tuning (one default, defaultWatchListEnabled)', async () => {
    assert.equal(defaultWatchListEnabled, true);
    assert.ok(isStreamingList(await reflectorFirstCall({})), 'reflector');
    const [first] = await informerCalls({}, 1);
    assert.ok(isStreamingList(first!), 'informer');
  });

  test('`reflector: { … }` and the deprecated flat informer options give the same list and watch', async () => {
    const nested = await informerCalls({
      reflector: { watchList: false, pageSize: 2, minWatchTimeoutSeconds: 7 },
    });
    const flat = await informerCalls({ watchList: false, pageSize: 2, minWatchTimeoutSeconds: 7 });
    assert.deepEqual(nested, flat);
    assert.equal(nested[0]!.verb, 'list');
    assert.equal(nested[0]!.options.limit, 2, 'pageSize reached the reflector');
    assert.equal(nested[1]!.verb, 'watch');
    assert.equal(nested[1]!.options.timeoutSeconds, 7, 'minWatchTimeoutSeconds reached it');
    const defaults = await informerCalls({ reflector: { watchList: false } });
    assert.notDeepEqual(nested, defaults, 'the tuning changes the calls');
  });

  test('a nested field wins over its flat alias', async () => {
    const [first] = await informerCalls({ watchList: true, reflector: { watchList: false } }, 1);
    assert.equal(first!.verb, 'list');
    const [second] = await informerCalls({ pageSize: 9, reflector: { watchList: false } }, 1);
    assert.equal(second!.options.limit, 9, 'flat fields the nested object leaves out still apply');
  });

  test("the reflector's deprecated `watchListEnabled` means `watchList`; `watchList` wins", async () => {
    assert.equal((await reflectorFirstCall({ watchListEnabled: false })).verb, 'list');
    assert.equal((await reflectorFirstCall({ watchList: false })).verb, 'list');
    const both = await reflectorFirstCall({ watchListEnabled: true, watchList: false });
    assert.equal(both.verb, 'list');
  });
});
