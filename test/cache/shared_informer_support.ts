// Test support for the shared informer tests: a scripted ListerWatcher and waiting helpers.
import assert from 'node:assert/strict';
import type { ListerWatcher } from '../../src/cache/listwatch.js';
import { ScriptedWatchStream } from '../support/scripted_watch.js';
import type { KubeObject, ListOptions, ObjectList, WatchEvent } from '../../src/client/types.js';

export interface Pod extends KubeObject {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: unknown[];
  };
  spec?: { node?: string };
}

export const pod = (name: string, rv: string, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
  ...extra,
});

export const podList = (rv: string, items: Pod[]): ObjectList<Pod> => ({
  metadata: { resourceVersion: rv },
  items,
});

const abortError = (): Error => Object.assign(new Error('aborted'), { name: 'AbortError' });

/** A watch stream of pods the test drives (see ScriptedWatchStream). */
export class Stream extends ScriptedWatchStream<Pod> {}

/** A ListerWatcher answering from queued replies; a call with nothing queued waits until aborted or a reply is queued. */
export class ScriptedLW implements ListerWatcher<Pod> {
  readonly calls: { verb: 'list' | 'watch'; options: ListOptions }[] = [];
  readonly lists: (ObjectList<Pod> | Error)[] = [];
  readonly watches: (Stream | Error)[] = [];
  #wake: (() => void) | undefined;

  queueList(l: ObjectList<Pod> | Error): this {
    this.lists.push(l);
    this.#wake?.();
    return this;
  }
  queueWatch(s: Stream | Error): this {
    this.watches.push(s);
    this.#wake?.();
    return this;
  }
  list(options: ListOptions, signal: AbortSignal): Promise<ObjectList<Pod>> {
    return this.#answer('list', this.lists, options, signal);
  }
  async watch(options: ListOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<Pod>>> {
    const s = await this.#answer('watch', this.watches, options, signal);
    return s.bind(signal);
  }
  async #answer<R>(
    verb: 'list' | 'watch',
    queue: (R | Error)[],
    options: ListOptions,
    signal: AbortSignal,
  ): Promise<R> {
    this.calls.push({ verb, options });
    while (queue.length === 0) {
      if (signal.aborted) throw abortError();
      await new Promise<void>((r) => {
        this.#wake = r;
        signal.addEventListener('abort', () => r(), { once: true });
      });
    }
    const reply = queue.shift()!;
    if (reply instanceof Error) throw reply;
    return reply;
  }
}

/** Let the code under test run (event-loop turns) until `cond` holds; fail with `what` otherwise. */
export async function until(what: string, cond: () => boolean, maxTurns = 2000): Promise<void> {
  for (let i = 0; i < maxTurns; i++) {
    if (cond()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  assert.fail(`never happened: ${what}`);
}

/** A promise with its resolver. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
