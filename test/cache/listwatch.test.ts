import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import type { ListWatchClient } from '../../src/cache/listwatch.js';
import type { ListOptions, WatchEvent } from '../../src/client/types.js';

function recordingClient() {
  const calls: { verb: string; options: ListOptions; signal: AbortSignal | undefined }[] = [];
  const client: ListWatchClient<unknown> = {
    list: async (options, request) => {
      calls.push({ verb: 'list', options, signal: request.signal });
      return { metadata: { resourceVersion: '1' }, items: [] };
    },
    watch: async (options, request) => {
      calls.push({ verb: 'watch', options, signal: request.signal });
      return (async function* (): AsyncGenerator<WatchEvent<unknown>> {})();
    },
  };
  return { client, calls };
}

describe('listWatchFromClient', () => {
  test('label and field selectors apply to both list and watch, and the signal is passed through', async () => {
    const { client, calls } = recordingClient();
    const lw = listWatchFromClient(client, {
      labelSelector: 'app=web',
      fieldSelector: 'spec.nodeName=n1',
    });
    const ac = new AbortController();
    await lw.list({ resourceVersion: '0', limit: 500 }, ac.signal);
    await lw.watch({ resourceVersion: '5', allowWatchBookmarks: true }, ac.signal);
    assert.deepEqual(calls[0]!.options, {
      resourceVersion: '0',
      limit: 500,
      labelSelector: 'app=web',
      fieldSelector: 'spec.nodeName=n1',
    });
    assert.deepEqual(calls[1]!.options, {
      resourceVersion: '5',
      allowWatchBookmarks: true,
      labelSelector: 'app=web',
      fieldSelector: 'spec.nodeName=n1',
    });
    assert.equal(calls[0]!.signal, ac.signal);
    assert.equal(calls[1]!.signal, ac.signal);
  });

  test("tweakListOptions has the last word and works on a copy of the reflector's options", async () => {
    const { client, calls } = recordingClient();
    const lw = listWatchFromClient(client, {
      labelSelector: 'a=b',
      tweakListOptions: (o) => {
        o.labelSelector = `${o.labelSelector},tier=db`;
      },
    });
    const original: ListOptions = { resourceVersion: '3' };
    await lw.list(original, new AbortController().signal);
    assert.equal(calls[0]!.options.labelSelector, 'a=b,tier=db');
    assert.deepEqual(original, { resourceVersion: '3' });
    const replacing = listWatchFromClient(client, { tweakListOptions: () => ({ limit: 7 }) });
    await replacing.watch({ resourceVersion: '3' }, new AbortController().signal);
    assert.deepEqual(calls[1]!.options, { limit: 7 });
  });

  test('empty selectors are not sent', async () => {
    const { client, calls } = recordingClient();
    await listWatchFromClient(client, { labelSelector: '', fieldSelector: '' }).list(
      {},
      new AbortController().signal,
    );
    assert.deepEqual(calls[0]!.options, {});
  });
});
