// What bench/watch_pipeline.bench.ts feeds and measures, shared by its in-process rounds and
// by the children it runs under cachegrind (lib/watch_pipeline_child.ts): the events of a
// round as bytes (one Buffer per event, grouped to simulated socket reads), the lower bound
// (split lines, JSON.parse, Map.set), the informer's pipeline from a given source revision
// (watch decoder → reflector → RealFIFO → indexer → processor → one counting handler), and
// a sink that takes the bytes and does nothing (the harness's own cost, for subtraction).
import { Readable } from 'node:stream';
import type * as SharedInformerModule from '../../src/cache/shared_informer.js';
import type * as DecoderModule from '../../src/client/watch_decoder.js';
import type { ListerWatcher } from '../../src/cache/listwatch.js';
import type { ObjectList, WatchEvent } from '../../src/client/types.js';
import type { Logger } from '../../src/util/logger.js';
import { makeBenchPod } from './pods.js';

/** What the informer needs from a source revision. */
export interface PipelineModules {
  SharedIndexInformer: typeof SharedInformerModule.SharedIndexInformer;
  decodeWatchStream: typeof DecoderModule.decodeWatchStream;
  noopLogger: Logger;
}

export interface Pod {
  metadata: { name: string; namespace: string; resourceVersion: string };
}

/**
 * `bench`: the harness pod (bench/lib/pods.ts without status.conditions, 3.9 KB of JSON).
 * `tiny`: 0.2 KB, only name, namespace, uid, resourceVersion, one label, a node and a
 * phase, so that JSON.parse and the collector weigh little and the pipeline's own
 * per-event cost shows.
 */
export type PodShape = 'bench' | 'tiny';

export function harnessPod(shape: PodShape, i: number, rv: string, tag: string): object {
  if (shape === 'tiny') {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `pod-${i}`,
        namespace: `ns-${i % 20}`,
        uid: `uid-${i}`,
        resourceVersion: rv,
        labels: { app: `app-${i % 97}` },
        annotations: { 'bench/burst': tag },
      },
      spec: { nodeName: `node-${i % 500}` },
      status: { phase: 'Running' },
    };
  }
  const p = makeBenchPod(i, rv);
  const { conditions: _dropped, ...status } = p.status;
  return {
    ...p,
    metadata: { ...p.metadata, annotations: { ...p.metadata.annotations, 'bench/burst': tag } },
    status,
  };
}

/** The N pods the caches start with (resourceVersion 1000 + i). */
export function initialPods(shape: PodShape, n: number): Pod[] {
  return Array.from(
    { length: n },
    (_, i) => JSON.parse(JSON.stringify(harnessPod(shape, i, String(1000 + i), 'b0'))) as Pod,
  );
}

/**
 * Makes rounds of N MODIFIED events, each pod at a new resourceVersion and with a new
 * burst tag: one Buffer per event, `perRead` events to a simulated socket read. Each pod's
 * JSON is serialized once and the round's values spliced in, so that making a round costs
 * little and the same whatever is measured.
 */
export function roundMaker(
  shape: PodShape,
  n: number,
  perRead: number,
): (tag: string) => Buffer[][] {
  const RV = '@@rv@@';
  const TAG = '@@tag@@';
  const parts = Array.from({ length: n }, (_, i) => {
    const text = `{"type":"MODIFIED","object":${JSON.stringify(harnessPod(shape, i, RV, TAG))}}\n`;
    const [head, rest] = text.split(RV) as [string, string];
    const [middle, tail] = rest.split(TAG) as [string, string];
    return { head, middle, tail };
  });
  let rv = 1000 + n;
  return (tag) => {
    const reads: Buffer[][] = [];
    let read: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const p = parts[i]!;
      read.push(Buffer.from(p.head + String(++rv) + p.middle + tag + p.tail));
      if (read.length === perRead) {
        reads.push(read);
        read = [];
      }
    }
    if (read.length > 0) reads.push(read);
    return reads;
  };
}

export const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

export interface Impl {
  name: string;
  /** Feeds a round and resolves once its N updates were seen. */
  feed(reads: Buffer[][]): Promise<void>;
}

/** The lower bound: split lines (as strings, or on bytes), JSON.parse, Map.set. */
export function lowerBound(n: number, splitOnBytes: boolean): Impl {
  const map = new Map<string, unknown>();
  let pending = '';
  let seen = 0;
  const onDataBuffer = (chunk: Buffer): void => {
    // Every chunk here is one whole line or more, so the byte splitter needs no carry-over.
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      const ev = JSON.parse(chunk.toString('utf8', from, nl)) as WatchEvent<Pod>;
      const o = ev.object as Pod;
      map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      if (ev.type === 'MODIFIED') seen++;
      from = nl + 1;
    }
  };
  const onDataString = (chunk: Buffer): void => {
    const text = pending + chunk.toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const ev = JSON.parse(text.slice(from, nl)) as WatchEvent<Pod>;
      const o = ev.object as Pod;
      map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      if (ev.type === 'MODIFIED') seen++;
      from = nl + 1;
    }
    pending = text.slice(from);
  };
  const onData = splitOnBytes ? onDataBuffer : onDataString;
  return {
    name: `lower bound (split lines${splitOnBytes ? ' on bytes' : ''}, JSON.parse, Map.set)`,
    async feed(reads) {
      const target = seen + n;
      for (const read of reads) {
        for (const c of read) onData(c);
        await turn();
      }
      if (seen !== target) throw new Error(`lower bound saw ${seen - (target - n)} of ${n}`);
    },
  };
}

/** Takes the bytes as the others do and does nothing with them: the harness's own cost. */
export function sink(): Impl {
  let bytes = 0;
  return {
    name: 'harness alone (bytes taken, nothing done)',
    async feed(reads) {
      const before = bytes;
      for (const read of reads) {
        for (const c of read) bytes += c.length;
        await turn();
      }
      if (bytes === before) throw new Error('the sink was fed no bytes');
    },
  };
}

/** The informer's pipeline from `m`, synced with `items`, one counting handler. */
export async function informer(
  name: string,
  m: PipelineModules,
  items: Pod[],
  listRV: string,
): Promise<Impl> {
  const n = items.length;
  let body: Readable | undefined;
  let opened: () => void = () => {};
  const open = new Promise<void>((r) => (opened = r));
  const lw: ListerWatcher<Pod> = {
    list: async (): Promise<ObjectList<Pod>> => ({
      metadata: { resourceVersion: listRV },
      items: items.map((o) => structuredClone(o)),
    }),
    watch: async (_options, signal): Promise<AsyncIterable<WatchEvent<Pod>>> => {
      const b = new Readable({ read() {} });
      body = b;
      signal.addEventListener('abort', () => b.destroy(), { once: true });
      opened();
      return m.decodeWatchStream<Pod>(b, () => b.destroy(), 'GET /api/v1/pods?watch=1', signal);
    },
  };
  const inf = new m.SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    logger: m.noopLogger,
    watchList: false,
  });
  let adds = 0;
  let updates = 0;
  let waiter: { target: number; resolve: () => void } | undefined;
  inf.addEventHandler({
    onAdd: () => void adds++,
    onUpdate: () => {
      updates++;
      if (waiter !== undefined && updates >= waiter.target) {
        const w = waiter;
        waiter = undefined;
        w.resolve();
      }
    },
  });
  const ac = new AbortController();
  void inf.run(ac.signal);
  await open;
  while (adds < n) await turn();
  process.once('exit', () => ac.abort());
  return {
    name,
    async feed(reads) {
      const done = new Promise<void>((resolve) => (waiter = { target: updates + n, resolve }));
      for (const read of reads) {
        for (const c of read) body!.push(c);
        await turn();
      }
      await done;
    },
  };
}
