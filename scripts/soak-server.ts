/**
 * The server side of `npm run soak` (scripts/soak.ts), run in a child process so that the
 * soak's heap samples measure the client (informers, work queue, controller) alone.
 *
 * It starts the in-memory API server on 127.0.0.1, seeds a bounded working set of
 * ConfigMaps and Pods, and on the parent's request (IPC messages, see {@link SoakCommand})
 * runs a paced writer, injects relist and watch-drop faults, and reports what it wrote.
 *
 * Working set: `objects` slots; slot `i` is a ConfigMap (`cm-<i>`) when `i` is even and a
 * Pod (`pod-<i>`, owned by `cm-<i-1>`) when odd, in namespace `ns-<i % 10>`. Each event
 * picks a random slot: an empty slot is created; a live one is deleted with probability
 * 1/11, else updated. In steady state about 10/11 of the slots are live, and the events
 * are ~83% updates, ~8.5% creates and ~8.5% deletes.
 *
 * @module
 */
import { startTestApiServer } from '../packages/testing/src/index.js';
import type { TestApiServer } from '../packages/testing/src/index.js';
import type { UnstructuredObject } from '../src/client/types.js';

/** Namespaces the working set is spread over. */
export const SOAK_NAMESPACES = 10;

/** A request from the soak driver to this process. */
export type SoakCommand =
  | { id: number; type: 'seed'; objects: number }
  | { id: number; type: 'start-writer'; rate: number }
  | { id: number; type: 'stop-writer' }
  | { id: number; type: 'relist'; mode: 'compact' | 'gone' }
  | { id: number; type: 'drop-watches' }
  | { id: number; type: 'stats' }
  | { id: number; type: 'snapshot' }
  | { id: number; type: 'close' };

/** What the writer has done so far. */
export interface WriterStats {
  /** Events written (creates + updates + deletes). */
  written: number;
  /** Creates. */
  creates: number;
  /** Updates. */
  updates: number;
  /** Deletes. */
  deletes: number;
  /** Live objects on the server. */
  live: number;
  /** Largest shortfall behind the target pace seen at a tick (events). */
  maxBehind: number;
  /**
   * Events given up because the writer fell more than a second behind (a starved
   * process): the pace is not made up in bursts, so `written` is what was achieved.
   */
  skipped: number;
  /** The server's resourceVersion. */
  resourceVersion: number;
}

/** `namespace/name` → resourceVersion of every live object, per resource. */
export interface SoakSnapshot {
  /** ConfigMaps. */
  configmaps: Record<string, string>;
  /** Pods. */
  pods: Record<string, string>;
}

/** A message from this process to the driver. */
export type SoakReply =
  | { type: 'ready'; url: string }
  | { id: number; type: 'ok'; stats: WriterStats }
  | { id: number; type: 'snapshot'; snapshot: SoakSnapshot }
  | { id: number; type: 'error'; message: string };

const DELETE_PROBABILITY = 1 / 11;
const TICK_MS = 10;

function slotResource(i: number): 'configmaps' | 'pods' {
  return i % 2 === 0 ? 'configmaps' : 'pods';
}

function slotName(i: number): string {
  return i % 2 === 0 ? `cm-${i}` : `pod-${i}`;
}

/** The object in slot `i` at its `generation`-th write (~1 KB of JSON). */
function slotObject(i: number, generation: number): UnstructuredObject {
  const namespace = `ns-${i % SOAK_NAMESPACES}`;
  const app = `app-${i % 37}`;
  const labels = { app, tier: i % 3 === 0 ? 'web' : 'backend', 'soak/slot': String(i) };
  const annotations = {
    'soak/generation': String(generation),
    'soak/note': `object ${i} written ${generation} times; padding ${'x'.repeat(200)}`,
  };
  if (i % 2 === 0) {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: slotName(i), namespace, labels, annotations },
      data: {
        generation: String(generation),
        'config.yaml': `replicas: ${generation % 5}\nimage: registry.example/app:${generation}\n`,
      },
    };
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: slotName(i),
      namespace,
      labels: { ...labels, owner: slotName(i - 1) },
      annotations,
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: slotName(i - 1), uid: `uid-${i - 1}` },
      ],
    },
    spec: {
      nodeName: `node-${i % 17}`,
      // Deleted at once (a scheduled pod's default is a 30 s graceful deletion).
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'main',
          image: `registry.example/app:${generation}`,
          resources: { requests: { cpu: '100m', memory: '64Mi' } },
        },
      ],
    },
    status: {
      phase: generation % 4 === 0 ? 'Pending' : 'Running',
      podIP: `10.0.${i % 250}.${generation % 250}`,
    },
  };
}

/** The paced writer over the working set. */
class Writer {
  readonly #server: TestApiServer;
  #live = new Uint8Array(0);
  #generation = new Uint32Array(0);
  #timer: NodeJS.Timeout | undefined;
  readonly stats: Omit<WriterStats, 'resourceVersion'> = {
    written: 0,
    creates: 0,
    updates: 0,
    deletes: 0,
    live: 0,
    maxBehind: 0,
    skipped: 0,
  };

  constructor(server: TestApiServer) {
    this.#server = server;
  }

  /** Creates every slot once (before the informers start). */
  seed(objects: number): void {
    this.#live = new Uint8Array(objects);
    this.#generation = new Uint32Array(objects);
    for (let i = 0; i < objects; i++) {
      this.#server.create(slotResource(i), slotObject(i, 0));
      this.#live[i] = 1;
    }
    this.stats.live = objects;
  }

  /** One random event. */
  step(): void {
    const n = this.#live.length;
    if (n === 0) return;
    const i = Math.floor(Math.random() * n);
    const resource = slotResource(i);
    const generation = (this.#generation[i] ?? 0) + 1;
    this.#generation[i] = generation;
    if (this.#live[i] === 0) {
      this.#server.create(resource, slotObject(i, generation));
      this.#live[i] = 1;
      this.stats.creates++;
      this.stats.live++;
    } else if (Math.random() < DELETE_PROBABILITY) {
      this.#server.delete(resource, slotName(i), `ns-${i % SOAK_NAMESPACES}`);
      this.#live[i] = 0;
      this.stats.deletes++;
      this.stats.live--;
    } else {
      this.#server.update(resource, slotObject(i, generation));
      this.stats.updates++;
    }
    this.stats.written++;
  }

  /**
   * Writes `rate` events per second until {@link stop}. When it falls more than a second
   * behind, the excess is skipped (counted in `skipped`) rather than written in a burst.
   */
  start(rate: number): void {
    this.stop();
    const started = performance.now();
    const base = this.stats.written + this.stats.skipped;
    this.#timer = setInterval(() => {
      const target = base + Math.floor(((performance.now() - started) * rate) / 1000);
      let behind = target - this.stats.written - this.stats.skipped;
      if (behind > this.stats.maxBehind) this.stats.maxBehind = behind;
      if (behind > rate) {
        this.stats.skipped += behind - rate;
        behind = rate;
      }
      for (let k = 0; k < behind; k++) this.step();
    }, TICK_MS);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function snapshotOf(
  server: TestApiServer,
  resource: 'configmaps' | 'pods',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of server.list(resource)) {
    const m = o.metadata ?? {};
    out[`${m.namespace ?? ''}/${m.name ?? ''}`] = m.resourceVersion ?? '';
  }
  return out;
}

async function main(): Promise<void> {
  const send = (msg: SoakReply): void => {
    process.send?.(msg);
  };
  const namespaces = Array.from({ length: SOAK_NAMESPACES }, (_, i) => `ns-${i}`);
  const server = await startTestApiServer({ namespaces: ['default', ...namespaces] });
  const writer = new Writer(server);
  const marker = (generation: number): UnstructuredObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'soak-marker', namespace: 'default' },
    stringData: { generation: String(generation) },
  });
  let markerGeneration = 0;
  server.create('secrets', marker(markerGeneration));
  const stats = (): WriterStats => ({ ...writer.stats, resourceVersion: server.resourceVersion });
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    writer.stop();
    await server.close();
    process.disconnect?.();
  };
  // The driver going away (crash, Ctrl-C of the whole group) ends this process too.
  process.on('disconnect', () => void close());
  process.on('SIGINT', () => {
    // The driver handles Ctrl-C and sends `close`; ignore the group's SIGINT here.
  });
  process.on('message', (raw: SoakCommand) => {
    const cmd = raw;
    try {
      switch (cmd.type) {
        case 'seed':
          writer.seed(cmd.objects);
          break;
        case 'start-writer':
          writer.start(cmd.rate);
          break;
        case 'stop-writer':
          writer.stop();
          break;
        case 'relist':
          // Either way every informer must relist: after a compaction the watch resumes
          // at a compacted version (410 Expired); with `gone` the resumed watch itself
          // answers 410.
          if (cmd.mode === 'compact') {
            // A write the informers do not watch first: the compacted version is then
            // newer than both informers' last versions, so neither can resume.
            server.update('secrets', marker(++markerGeneration));
            server.faults.compact();
          } else {
            server.faults.failNext(1, { verb: 'watch', resource: 'configmaps', code: 410 });
            server.faults.failNext(1, { verb: 'watch', resource: 'pods', code: 410 });
          }
          server.faults.closeWatches();
          break;
        case 'drop-watches':
          // Abrupt socket loss: the informers resume their watches from their last version.
          server.faults.destroyWatches();
          break;
        case 'stats':
          break;
        case 'snapshot':
          send({
            id: cmd.id,
            type: 'snapshot',
            snapshot: {
              configmaps: snapshotOf(server, 'configmaps'),
              pods: snapshotOf(server, 'pods'),
            },
          });
          return;
        case 'close':
          send({ id: cmd.id, type: 'ok', stats: stats() });
          void close();
          return;
      }
      server.clearRequests();
      send({ id: cmd.id, type: 'ok', stats: stats() });
    } catch (err) {
      send({
        id: cmd.id,
        type: 'error',
        message: err instanceof Error ? err.message : String(err),
      });
    }
  });
  send({ type: 'ready', url: server.url });
}

void main();
