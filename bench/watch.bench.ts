// Warm watch cost per event, under an independent harness's conditions: ~3.9 KB pods, one
// counting handler, and a plain HTTP server (not the in-memory API server) that writes
// pre-serialized MODIFIED events to the open watch as fast as the socket allows.
//
// Processes:
// - one server process: a plain node:http server holding 50k pods (bench/lib/pods.ts,
//   managedFields included, status.conditions left out: 3.9 KB of JSON each). A GET of the
//   list answers the whole list at once (limit is ignored, as a watch-cache list at
//   resourceVersion 0 does); a watch is held open, and on command (stdin) the server writes
//   one MODIFIED event per pod to it, each line pre-serialized before the burst starts, with
//   `res.write` per event (BENCH_WRITE=batch: 64 KB writes), waiting for 'drain' only when
//   the socket asks for it. BENCH_GZIP=1 gzips the watch when the client accepts it.
// - one fresh child process per measurement: it syncs the 50k pods (list, then watch),
//   then measures process.cpuUsage over each burst, from before the server starts writing
//   until its handler counted the 50k updates, and the wall time of the same span (the
//   delivery rate, events/s), the event-loop utilisation of the span (perf_hooks: near 1
//   means the client's main thread was busy, not waiting for bytes) and the share of it
//   spent in GC pauses (perf_hooks 'gc' entries). The first burst warms the JIT and is not
//   counted; the figure of a run is the median of the others.
// - BENCH_TLS=1: the server speaks TLS and offers h2 and HTTP/1.1 (one handler, Node's
//   compatibility API), as kube-apiserver does; the kit's informer then speaks h2 (ours-h1
//   keeps it on HTTP/1.1 with DISABLE_HTTP2), client-node HTTP/1.1, and lower-h2 is the raw
//   loop on an h2 stream (with the kit's window sizes). Every rate and CPU ratio is to the
//   raw loop on the same connection type.
//
// Implementations, interleaved per run:
// - lower bound: raw HTTP watch, split lines, JSON.parse, Map.set (and a counter);
// - lower-gzip (default with BENCH_GZIP=1): the same, asking for gzip and inflating with
//   Node's zlib stream: the bound for a client that accepts gzip;
// - SharedIndexInformer (watchList: false, so the sync is a plain list), one onUpdate
//   handler counting;
// - ours-stream: the same informer synced by a streaming list (watchList: true; the server
//   streams the pods as ADDED events and the initial-events-end bookmark on the watch,
//   which then carries the bursts, as kube-apiserver's does);
// - client-node 1.4 makeInformer, one 'update' handler counting.
//
// - BENCH_PAIRED=1: each child holds the raw loop on the same connection type beside the
//   implementation (two watches on the server) and their bursts alternate, so both see the
//   same machine load within seconds; the table gives the per-burst ratios (the rates of
//   consecutive children, above, move with the load of a shared machine).
// - BENCH_AB=1 (or a list of A:B pairs): the concurrent A/B method (abMain): per round two
//   fresh children, bundled to plain JavaScript, take the same bursts at the same time and
//   each measures its own CPU; who connects first alternates between rounds. Default pairs:
//   the library's default informer (ours-default) against the raw loop (lower) and against
//   the raw loop synced by a streaming list (lower-stream, the like-for-like floor). An
//   implementation written NAME@base comes from BENCH_BASE_SRC (a bundle of that tree).
//
// Usage: node --expose-gc --import tsx bench/watch.bench.ts   (or: npm run bench -- watch)
//        BENCH_TLS=1 node --expose-gc --import tsx bench/watch.bench.ts   (h2 against HTTP/1.1)
// BENCH_IMPLS may add ours-base: the informer of another source tree (BENCH_BASE_SRC, e.g. a
// `git archive` of the base revision's src/), for a before/after in the same run;
// BENCH_OURS_SRC points impl ours at another src/ too (a snapshot, so edits during a run
// do not leak into it).
// Environment: BENCH_RUNS (default 5), BENCH_N (50000), BENCH_BURSTS (3, first not counted),
// BENCH_IMPLS (lower,ours,ours-stream,client-node; with BENCH_TLS=1
// lower,lower-h2,ours,ours-stream,ours-h1,client-node), BENCH_TLS (1), BENCH_PAIRED (1:
// BENCH_BURSTS is then the number of burst pairs), BENCH_NODE (node binary for the children, e.g. a
// Node 22), BENCH_WRITE (line|batch), BENCH_GZIP (1), BENCH_PROFILE (a directory: each
// child writes a .cpuprofile of its counted bursts there).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import * as http2 from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { constants as zlibConstants, createGunzip, createGzip } from 'node:zlib';
import type { Session } from 'node:inspector';
import * as SharedInformerModule from '../src/cache/shared_informer.js';
import * as ListWatchModule from '../src/cache/listwatch.js';
import * as ResourceClientModule from '../src/client/resource_client.js';
import * as BuiltinsModule from '../src/client/builtins.js';
import * as LoggerModule from '../src/util/logger.js';
import { bundleForNode } from './lib/bundle.js';
import { fmt, machine, printTable, setMeasuredNode, summarize } from './lib/report.js';
import type { Summary } from './lib/report.js';
import { makeBenchPod } from './lib/pods.js';
import { rawWatchLines } from './lib/raw_watch.js';
import { kubeConfigFor } from './lib/kubeconfig.js';

const self = fileURLToPath(import.meta.url);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const N = Number(process.env.BENCH_N ?? 50000);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 3);
const CHILD_NODE = process.env.BENCH_NODE ?? process.execPath;
const WRITE = process.env.BENCH_WRITE === 'batch' ? 'batch' : 'line';
const GZIP = process.env.BENCH_GZIP === '1';
/** BENCH_TLS=1: the server speaks TLS and offers h2 (and HTTP/1.1), as kube-apiserver does. */
const TLS = process.env.BENCH_TLS === '1';
/**
 * BENCH_PAIRED=1: each child holds the raw loop on the same connection type beside the
 * implementation, and their bursts alternate (raw first, then the implementation, then the
 * other way round): both see the same machine load within seconds, so the per-burst ratios
 * hold up on a loaded machine where the rates of consecutive children do not.
 */
const PAIRED = process.env.BENCH_PAIRED === '1';
/**
 * BENCH_AB: the concurrent A/B method (see abMain): `1` for the default pairs
 * (ours-default:lower,ours-default:lower-stream), or a comma-separated list of A:B pairs; an
 * implementation may end in `@base` (from BENCH_BASE_SRC).
 */
const AB = process.env.BENCH_AB;
const PROFILE = process.env.BENCH_PROFILE;
/** A src/ directory of another revision (e.g. a `git archive` of the base): impl `ours-base`. */
const BASE_SRC = process.env.BENCH_BASE_SRC;
/** The src/ directory of impl `ours` (default this checkout's). */
const OURS_SRC = process.env.BENCH_OURS_SRC;

type Impl =
  | 'lower'
  | 'lower-h2'
  | 'lower-gzip'
  | 'lower-stream'
  | 'ours'
  | 'ours-stream'
  | 'ours-default'
  | 'ours-h1'
  | 'ours-base'
  | 'client-node';
const IMPLS = (
  process.env.BENCH_IMPLS ??
  (GZIP
    ? 'lower,lower-gzip,ours,client-node'
    : TLS
      ? 'lower,lower-h2,ours,ours-stream,ours-h1,client-node'
      : 'lower,ours,ours-stream,client-node')
).split(',') as Impl[];

/**
 * The raw loop on the same connection type as `impl`: over TLS the kit's informer speaks h2
 * (unless ours-h1), client-node and the plain `lower` HTTP/1.1.
 */
function rawOf(impl: Impl): Impl {
  if (GZIP) return 'lower-gzip';
  if (
    TLS &&
    (impl === 'ours' || impl === 'ours-stream' || impl === 'ours-base' || impl === 'lower-h2')
  )
    return 'lower-h2';
  return 'lower';
}

/** The CA of the TLS server (BENCH_TLS=1), handed to the children. */
let serverCa: string | undefined;

/** An HTTP/1.1 request to the bench server (over TLS with BENCH_TLS=1), on its own connection. */
function request(
  url: string,
  options: RequestOptions | ((res: IncomingMessage) => void),
  callback?: (res: IncomingMessage) => void,
): ReturnType<typeof httpRequest> {
  // A connection of its own (no agent): Node's global agent (keep-alive since Node 19)
  // closes a socket idle for 5 s, a held watch between bursts included, and reuses the
  // list's socket for the watch, which the server may close after its own 5 s keep-alive
  // while the client is still parsing a large list ('socket hang up').
  const opts = { ...(typeof options === 'function' ? {} : options), agent: false };
  const cb = typeof options === 'function' ? options : callback;
  return url.startsWith('https:')
    ? httpsRequest(url, { ...opts, ca: serverCa }, cb)
    : httpRequest(url, opts, cb);
}

/** The pod of the harness: the bench pod without status.conditions (3.9 KB of JSON). */
function harnessPod(i: number, rv: string, burst?: string): object {
  const p = makeBenchPod(i, rv);
  const { conditions: _dropped, ...status } = p.status;
  return {
    ...p,
    metadata: {
      ...p.metadata,
      annotations: { ...p.metadata.annotations, 'bench/burst': burst ?? 'b0' },
    },
    status,
  };
}

// ── server process ────────────────────────────────────────────────────────────────────

async function serverMain(n: number): Promise<void> {
  let rv = 1000 + n;
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push(JSON.stringify(harnessPod(i, String(1000 + i))));
  const list = Buffer.from(
    `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"},"items":[${items.join(',')}]}`,
  );
  // A streaming list (sendInitialEvents=true): the same pods as ADDED events in 64 KB
  // writes, then the initial-events-end bookmark; the watch then carries the bursts.
  const initialEvents: Buffer[] = [];
  {
    let batch = '';
    for (const item of items) {
      batch += `{"type":"ADDED","object":${item}}\n`;
      if (batch.length >= 65536) {
        initialEvents.push(Buffer.from(batch));
        batch = '';
      }
    }
    batch +=
      `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"${rv}",` +
      `"annotations":{"k8s.io/initial-events-end":"true"}}}}\n`;
    initialEvents.push(Buffer.from(batch));
  }
  items.length = 0;
  const watches = new Set<{ write(b: Buffer): boolean; wait(): Promise<void>; flush(): void }>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v1/pods') {
      res.writeHead(404).end();
      return;
    }
    const watch = url.searchParams.get('watch');
    if (watch !== '1' && watch !== 'true') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': list.length });
      res.end(list);
      return;
    }
    const gzip = GZIP && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.flushHeaders();
    const out: ServerResponse | ReturnType<typeof createGzip> = gzip ? createGzip() : res;
    if (gzip) (out as ReturnType<typeof createGzip>).pipe(res);
    const w = {
      write: (b: Buffer): boolean => out.write(b),
      wait: (): Promise<void> => new Promise<void>((r) => out.once('drain', () => r())),
      // gzip holds back what it has not compressed yet: the end of a burst is flushed.
      flush: (): void => {
        if (gzip) (out as ReturnType<typeof createGzip>).flush();
      },
    };
    if (url.searchParams.get('sendInitialEvents') === 'true') {
      void (async () => {
        for (const b of initialEvents) if (!w.write(b)) await w.wait();
        w.flush();
        watches.add(w);
      })();
    } else watches.add(w);
    const opened = Date.now();
    const drop = (): void => {
      // A watch that closes while the bench runs spoils the run: say which and when.
      if (watches.delete(w))
        process.stderr.write(
          `server: the watch ${url.search} closed after ${((Date.now() - opened) / 1000).toFixed(0)} s\n`,
        );
    };
    res.on('close', drop);
    req.on('close', drop);
    res.on('error', (err) => process.stderr.write(`server: a watch failed: ${err.message}\n`));
  };
  let ca: string | undefined;
  let server: ReturnType<typeof createServer> | http2.Http2SecureServer;
  if (TLS) {
    const { generateTestCertificates } = await import('../packages/testing/src/certs.js');
    const certs = await generateTestCertificates();
    ca = certs.caCert;
    // The compatibility API: the same handler answers h2 streams and HTTP/1.1 requests.
    server = http2.createSecureServer(
      { key: certs.serverKey, cert: certs.serverCert, allowHTTP1: true },
      handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
  } else server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  process.stdout.write(
    JSON.stringify({ url: `${TLS ? 'https' : 'http'}://127.0.0.1:${port}`, ca }) + '\n',
  );
  let prepared: Buffer[] = [];
  const prepare = (tag: string): void => {
    const lines: Buffer[] = [];
    let batch: string[] = [];
    let size = 0;
    for (let i = 0; i < n; i++) {
      rv++;
      const line =
        `{"type":"MODIFIED","object":${JSON.stringify(harnessPod(i, String(rv), tag))}}` + '\n';
      if (WRITE === 'line') {
        lines.push(Buffer.from(line));
        continue;
      }
      batch.push(line);
      size += line.length;
      if (size >= 65536) {
        lines.push(Buffer.from(batch.join('')));
        batch = [];
        size = 0;
      }
    }
    if (batch.length > 0) lines.push(Buffer.from(batch.join('')));
    prepared = lines;
  };
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'prepare') {
      prepare(arg ?? 'b1');
      process.stdout.write('prepared\n');
    } else if (cmd === 'burst') {
      // `burst i` (BENCH_PAIRED): only the i-th watch opened; otherwise every watch, each
      // written by its own loop as fast as its socket takes it (BENCH_AB: two clients take
      // the same burst at once), the loops started in the order the watches were opened.
      const targets = arg === undefined ? [...watches] : [[...watches][Number(arg)]!];
      await Promise.all(
        targets.map(async (w) => {
          for (const b of prepared) if (!w.write(b)) await w.wait();
          w.flush();
        }),
      );
      prepared = [];
      process.stdout.write(`done ${watches.size}\n`);
    } else if (cmd === 'exit') {
      break;
    }
  }
  if ('closeAllConnections' in server) server.closeAllConnections();
  server.close();
  process.exit(0);
}

// ── child process: one implementation ─────────────────────────────────────────────────

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

interface Harness {
  sync(): Promise<void>;
  updates(n: number): Promise<void>;
  size(): number;
  stop(): Promise<void>;
}

function counter(): { count: number; wait(target: number): Promise<void>; bump(): void } {
  let waiter: { target: number; resolve: () => void } | undefined;
  const c = {
    count: 0,
    wait(target: number): Promise<void> {
      if (c.count >= target) return Promise.resolve();
      return new Promise<void>((resolve) => (waiter = { target, resolve }));
    },
    bump(): void {
      c.count++;
      if (waiter !== undefined && c.count >= waiter.target) {
        const w = waiter;
        waiter = undefined;
        w.resolve();
      }
    },
  };
  return c;
}

function httpGetBody(url: string): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    request(url, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts)));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Reports on stderr a raw watch that ends or fails before the child stops it: the run it
 * belongs to is spoiled, and this says how.
 */
function reportEarlyEnd(res: IncomingMessage, what: string, stopped: () => boolean): void {
  const opened = Date.now();
  const say = (how: string) => (err?: Error) => {
    if (stopped()) return;
    process.stderr.write(
      `child ${process.pid}: ${what} watch ${how} after ${((Date.now() - opened) / 1000).toFixed(0)} s` +
        `${err === undefined ? '' : `: ${err.message}`}\n`,
    );
  };
  res.on('aborted', say('aborted'));
  res.on('error', say('failed'));
  res.on('end', say('ended'));
  res.socket?.on('close', say('socket closed'));
}

async function lowerBoundHarness(url: string, n: number, gzip = false): Promise<Harness> {
  const map = new Map<string, unknown>();
  const updates = counter();
  let req: ReturnType<typeof request> | undefined;
  let stopped = false;
  return {
    async sync() {
      const body = await httpGetBody(`${url}/api/v1/pods`);
      const list = JSON.parse(body.toString('utf8')) as {
        metadata: { resourceVersion: string };
        items: { metadata: { namespace: string; name: string } }[];
      };
      for (const o of list.items) map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      const rv = list.metadata.resourceVersion;
      if (map.size !== n) throw new Error(`lower bound listed ${map.size} of ${n}`);
      await new Promise<void>((resolve, reject) => {
        const headers = gzip ? { 'accept-encoding': 'gzip' } : {};
        req = request(`${url}/api/v1/pods?watch=1&resourceVersion=${rv}`, { headers }, (res) => {
          // lower-gzip: the same, inflating with Node's zlib stream (what any client pays).
          const body =
            res.headers['content-encoding'] === 'gzip'
              ? res.pipe(createGunzip({ finishFlush: zlibConstants.Z_SYNC_FLUSH }))
              : res;
          body.on(
            'data',
            rawWatchLines(map, () => updates.bump()),
          );
          reportEarlyEnd(res, 'lower', () => stopped);
          resolve();
        });
        req.on('error', reject);
        req.end();
      });
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => map.size,
    async stop() {
      stopped = true;
      req?.destroy();
    },
  };
}

/**
 * The raw loop synced by a streaming list, as the kit's default informer syncs: one watch
 * with `sendInitialEvents=true`, its ADDED events into the Map until the bookmark that
 * ends the initial events, and the same watch then carries the bursts. The like-for-like
 * floor for the default informer (a list-synced client reads its watch after a different
 * history of its own heap and of the server's socket).
 */
async function lowerStreamHarness(url: string, n: number): Promise<Harness> {
  const map = new Map<string, unknown>();
  const updates = counter();
  let req: ReturnType<typeof request> | undefined;
  let stopped = false;
  return {
    async sync() {
      await new Promise<void>((resolve, reject) => {
        const query =
          'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
        req = request(`${url}/api/v1/pods?${query}`, (res) => {
          res.on(
            'data',
            rawWatchLines(
              map,
              () => updates.bump(),
              (o) => {
                if (o.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') resolve();
              },
            ),
          );
          reportEarlyEnd(res, 'lower-stream', () => stopped);
        });
        req.on('error', reject);
        req.end();
      });
      if (map.size !== n) throw new Error(`lower-stream synced ${map.size} of ${n}`);
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => map.size,
    async stop() {
      stopped = true;
      req?.destroy();
    },
  };
}

/** The raw loop over h2: one session, the list and the watch as streams on it. */
async function lowerH2Harness(url: string, n: number): Promise<Harness> {
  const map = new Map<string, unknown>();
  const updates = counter();
  // The kit's window sizes (src/client/http2_pool.ts), so that flow control is the same.
  const session = http2.connect(url, {
    ca: serverCa,
    settings: { initialWindowSize: 1 << 20, enablePush: false },
  });
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  session.setLocalWindowSize(16 << 20);
  const get = (path: string): Promise<Buffer> =>
    new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      const s = session.request({ ':path': path });
      s.on('data', (c: Buffer) => parts.push(c));
      s.on('end', () => resolve(Buffer.concat(parts)));
      s.on('error', reject);
    });
  let watch: http2.ClientHttp2Stream | undefined;
  return {
    async sync() {
      const list = JSON.parse((await get('/api/v1/pods')).toString('utf8')) as {
        metadata: { resourceVersion: string };
        items: { metadata: { namespace: string; name: string } }[];
      };
      for (const o of list.items) map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      if (map.size !== n) throw new Error(`lower-h2 listed ${map.size} of ${n}`);
      const rv = list.metadata.resourceVersion;
      await new Promise<void>((resolve, reject) => {
        const s = session.request({ ':path': `/api/v1/pods?watch=1&resourceVersion=${rv}` });
        watch = s;
        s.on(
          'data',
          rawWatchLines(map, () => updates.bump()),
        );
        s.on('response', () => resolve());
        s.on('error', reject);
      });
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => map.size,
    async stop() {
      watch?.close();
      session.destroy();
    },
  };
}

/**
 * The kit's informer with one counting handler. `src`: another source tree's (loaded at
 * run time, through tsx); by default this checkout's, imported statically so that a bundle
 * of this file carries it. `watchList` undefined: the library's default.
 */
async function oursHarness(
  url: string,
  n: number,
  src: string | undefined,
  watchList: boolean | undefined,
): Promise<Harness> {
  const load = async <M>(path: string, own: M): Promise<M> =>
    src === undefined ? own : ((await import(`${src}/${path}`)) as M);
  const { SharedIndexInformer } = await load('cache/shared_informer.js', SharedInformerModule);
  const { listWatchFromClient } = await load('cache/listwatch.js', ListWatchModule);
  const { ResourceClient } = await load('client/resource_client.js', ResourceClientModule);
  const { podsResource } = await load('client/builtins.js', BuiltinsModule);
  const { consoleLogger } = await load('util/logger.js', LoggerModule);
  const kc = await kubeConfigFor(url, serverCa);
  const informer = new SharedIndexInformer(
    listWatchFromClient(new ResourceClient(kc, podsResource)),
    {
      name: 'pods',
      // Warnings only: a watch the informer restarts during a run spoils it, and says why.
      logger: consoleLogger('warn', `bench ${process.pid}`),
      ...(watchList === undefined ? {} : { watchList }),
    },
  );
  const adds = counter();
  const updates = counter();
  informer.addEventHandler({ onAdd: () => adds.bump(), onUpdate: () => updates.bump() });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  return {
    async sync() {
      running = informer.run(ac.signal);
      await adds.wait(n);
      // The watch is open once the informer has synced and the reflector went on to it.
      await new Promise((r) => setTimeout(r, 200));
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => informer.getIndexer().size,
    async stop() {
      ac.abort();
      await running;
    },
  };
}

async function clientNodeHarness(url: string, n: number): Promise<Harness> {
  const k8s = await import('@kubernetes/client-node');
  const kc = await kubeConfigFor(url, serverCa);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
  const adds = counter();
  const updates = counter();
  informer.on('add', () => adds.bump());
  informer.on('update', () => updates.bump());
  let stopping = false;
  informer.on('error', (err: unknown) => {
    if (!stopping) process.stderr.write(`client-node informer error: ${String(err)}\n`);
  });
  return {
    async sync() {
      await informer.start();
      await adds.wait(n);
      await new Promise((r) => setTimeout(r, 200));
    },
    updates: (k) => updates.wait(updates.count + k),
    size: () => informer.list().length,
    async stop() {
      stopping = true;
      await informer.stop();
    },
  };
}

/** Per burst: the main thread's GC pauses (PerformanceObserver 'gc' entries), in ms. */
const diag = { gcMs: 0 };

function installDiagnostics(): void {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) diag.gcMs += e.duration;
  }).observe({ entryTypes: ['gc'] });
}

async function childMain(impl: Impl, url: string, n: number, bursts: number): Promise<void> {
  installDiagnostics();
  serverCa = process.env.BENCH_CA;
  // ours-h1: the kit's informer kept on HTTP/1.1 (client-go's DISABLE_HTTP2).
  if (impl === 'ours-h1') process.env.DISABLE_HTTP2 = '1';
  const oursSrc = OURS_SRC === undefined ? undefined : pathToFileURL(OURS_SRC).href;
  const harnesses: Record<Impl, (u: string, k: number) => Promise<Harness>> = {
    lower: lowerBoundHarness,
    'lower-h2': lowerH2Harness,
    'lower-gzip': (u, k) => lowerBoundHarness(u, k, true),
    'lower-stream': lowerStreamHarness,
    'client-node': clientNodeHarness,
    ours: (u, k) => oursHarness(u, k, oursSrc, false),
    'ours-h1': (u, k) => oursHarness(u, k, oursSrc, false),
    'ours-stream': (u, k) => oursHarness(u, k, oursSrc, true),
    'ours-default': (u, k) => oursHarness(u, k, oursSrc, undefined),
    'ours-base': (u, k) => oursHarness(u, k, pathToFileURL(BASE_SRC!).href, false),
  };
  const make = (impl: Impl): ((u: string, k: number) => Promise<Harness>) => harnesses[impl];
  // BENCH_PAIRED: the raw loop on the same connection type first (its watch is the server's
  // watch 0), then the implementation (watch 1), in this one process; `go k` picks which.
  const hs: Harness[] = [];
  if (PAIRED) {
    const raw = await make(rawOf(impl))(url, n);
    await raw.sync();
    hs.push(raw);
  }
  const h = await make(impl)(url, n);
  await h.sync();
  hs.push(h);
  (globalThis as { gc?: () => void }).gc?.();
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
  process.stdout.write(JSON.stringify({ phase: 'synced', heapMiB }) + '\n');
  let session: Session | undefined;
  const post = (method: string, params?: object): Promise<unknown> =>
    new Promise((resolve, reject) =>
      session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  const rl = createInterface({ input: process.stdin });
  const lines = rl[Symbol.asyncIterator]();
  for (let b = 0; b < bursts; b++) {
    const go = await lines.next(); // the server prepared the burst
    const k = Number(String(go.value ?? '').split(' ')[1] ?? hs.length - 1);
    (globalThis as { gc?: () => void }).gc?.();
    if (PROFILE !== undefined && b === 1) {
      const inspector = await import('node:inspector');
      session = new inspector.Session();
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
    }
    const cpu0 = process.cpuUsage();
    const seen = hs[k]!.updates(n);
    diag.gcMs = 0;
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    process.stdout.write(JSON.stringify({ phase: 'ready' }) + '\n');
    await seen;
    const ms = cpuMs(cpu0);
    const wallMs = performance.now() - t0;
    const elu = performance.eventLoopUtilization(elu0).utilization;
    process.stdout.write(
      JSON.stringify({
        phase: 'burst',
        cpuMs: ms,
        wallMs,
        elu,
        gcMs: diag.gcMs,
      }) + '\n',
    );
  }
  if (session !== undefined) {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    mkdirSync(PROFILE!, { recursive: true });
    writeFileSync(`${PROFILE}/${impl}-${process.pid}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
  rl.close();
  for (const x of hs) await x.stop();
  process.stdout.write(
    JSON.stringify({ phase: 'end', size: Math.min(...hs.map((x) => x.size())) }) + '\n',
  );
  process.exit(0);
}

// ── orchestrator ──────────────────────────────────────────────────────────────────────

function lineQueue(proc: ChildProcess): () => Promise<string> {
  const rl = createInterface({ input: proc.stdout! });
  const it = rl[Symbol.asyncIterator]();
  return async () => {
    const r = await it.next();
    if (r.done === true) throw new Error('process ended early');
    return r.value;
  };
}

interface ServerProc {
  url: string;
  /** The server's CA (BENCH_TLS=1). */
  ca: string | undefined;
  command(cmd: string): Promise<string>;
  close(): Promise<void>;
}

async function startServerProc(n: number): Promise<ServerProc> {
  const proc = spawn(
    CHILD_NODE,
    ['--max-old-space-size=8192', '--import', 'tsx', self, 'server', String(n)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const next = lineQueue(proc);
  const { url, ca } = JSON.parse(await next()) as { url: string; ca?: string };
  return {
    url,
    ca,
    async command(cmd) {
      proc.stdin.write(`${cmd}\n`);
      return next();
    },
    async close() {
      proc.stdin.write('exit\n');
      await new Promise<void>((r) => proc.on('exit', () => r()));
    },
  };
}

/** Per counted burst: CPU µs per event and events per second of wall-clock time. */
async function runChild(
  server: ServerProc,
  impl: Impl,
): Promise<{
  perEvent: number[];
  rate: number[];
  elu: number[];
  gcShare: number[];
}> {
  const proc = spawn(
    CHILD_NODE,
    ['--expose-gc', '--import', 'tsx', self, 'child', impl, server.url, String(N), String(BURSTS)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: server.ca === undefined ? process.env : { ...process.env, BENCH_CA: server.ca },
    },
  );
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const next = lineQueue(proc);
  const synced = JSON.parse(await next()) as { phase: string; heapMiB: number };
  if (synced.phase !== 'synced') throw new Error(`expected synced, got ${synced.phase}`);
  console.error(`${impl}: heap after sync (after GC) ${synced.heapMiB.toFixed(1)} MiB`);
  const perEvent: number[] = [];
  const rate: number[] = [];
  const elu: number[] = [];
  const gcShare: number[] = [];
  for (let b = 0; b < BURSTS; b++) {
    const p = await server.command(`prepare b${b + 1}`);
    if (p !== 'prepared') throw new Error(`server said ${p}`);
    proc.stdin.write('go\n');
    const ready = JSON.parse(await next()) as { phase: string };
    if (ready.phase !== 'ready') throw new Error(`expected ready, got ${ready.phase}`);
    const done = server.command('burst');
    const r = JSON.parse(await next()) as {
      cpuMs: number;
      wallMs: number;
      elu: number;
      gcMs: number;
    };
    const d = await done;
    if (d !== 'done 1') throw new Error(`server said ${d} (expected one watch)`);
    perEvent.push((r.cpuMs * 1000) / N);
    rate.push(N / (r.wallMs / 1000));
    elu.push(r.elu);
    gcShare.push(r.gcMs / r.wallMs);
  }
  const end = JSON.parse(await next()) as { phase: string; size: number };
  if (end.size !== N) throw new Error(`${impl} ended with ${end.size} of ${N} objects`);
  const code = await exited;
  if (code !== 0) throw new Error(`${impl} child exited ${code}`);
  const counted = BURSTS > 1 ? 1 : 0;
  return {
    perEvent: perEvent.slice(counted),
    rate: rate.slice(counted),
    elu: elu.slice(counted),
    gcShare: gcShare.slice(counted),
  };
}

/**
 * BENCH_PAIRED: one child holding the raw loop (watch 0) and `impl` (watch 1); per pair of
 * bursts (order alternating), the implementation's CPU per event and rate and the raw loop's.
 */
async function runPaired(
  server: ServerProc,
  impl: Impl,
): Promise<{
  perEvent: number[];
  rate: number[];
  rawPerEvent: number[];
  rawRate: number[];
  elu: number[];
  rawElu: number[];
}> {
  const proc = spawn(
    CHILD_NODE,
    [
      '--expose-gc',
      '--import',
      'tsx',
      self,
      'child',
      impl,
      server.url,
      String(N),
      String(2 * BURSTS),
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...(server.ca === undefined ? {} : { BENCH_CA: server.ca }) },
    },
  );
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const next = lineQueue(proc);
  const synced = JSON.parse(await next()) as { phase: string };
  if (synced.phase !== 'synced') throw new Error(`expected synced, got ${synced.phase}`);
  const out = {
    perEvent: [] as number[],
    rate: [] as number[],
    rawPerEvent: [] as number[],
    rawRate: [] as number[],
    elu: [] as number[],
    rawElu: [] as number[],
  };
  for (let b = 0; b < BURSTS; b++) {
    for (const k of b % 2 === 0 ? [0, 1] : [1, 0]) {
      const p = await server.command(`prepare b${b + 1}-${k}`);
      if (p !== 'prepared') throw new Error(`server said ${p}`);
      proc.stdin.write(`go ${k}\n`);
      const ready = JSON.parse(await next()) as { phase: string };
      if (ready.phase !== 'ready') throw new Error(`expected ready, got ${ready.phase}`);
      const done = server.command(`burst ${k}`);
      const r = JSON.parse(await next()) as { cpuMs: number; wallMs: number; elu: number };
      const d = await done;
      if (d !== 'done 2') throw new Error(`server said ${d} (expected two watches)`);
      if (b === 0 && BURSTS > 1) continue; // the first pair warms up
      (k === 0 ? out.rawPerEvent : out.perEvent).push((r.cpuMs * 1000) / N);
      (k === 0 ? out.rawRate : out.rate).push(N / (r.wallMs / 1000));
      (k === 0 ? out.rawElu : out.elu).push(r.elu);
    }
  }
  const end = JSON.parse(await next()) as { phase: string; size: number };
  if (end.size !== N) throw new Error(`${impl} ended with ${end.size} of ${N} objects`);
  const code = await exited;
  if (code !== 0) throw new Error(`${impl} child exited ${code}`);
  return out;
}

async function pairedMain(server: ServerProc): Promise<void> {
  const impls = IMPLS.filter((i) => !i.startsWith('lower'));
  const ratios = new Map(
    impls.map((i) => [
      i,
      {
        cpu: [] as number[],
        rate: [] as number[],
        perEvent: [] as number[],
        rawPerEvent: [] as number[],
        ev: [] as number[],
        rawEv: [] as number[],
      },
    ]),
  );
  for (let r = 0; r < RUNS; r++) {
    for (const impl of impls) {
      const x = await runPaired(server, impl);
      const cpu = x.perEvent.map((v, i) => v / x.rawPerEvent[i]!);
      const rate = x.rate.map((v, i) => v / x.rawRate[i]!);
      console.error(
        `run ${r + 1} ${impl} vs ${rawOf(impl)}: CPU ×raw ${cpu.map((v) => v.toFixed(2)).join(', ')}, ` +
          `events/s ×raw ${rate.map((v) => v.toFixed(2)).join(', ')} ` +
          `(${x.rate.map((v) => v.toFixed(0)).join(', ')} against ${x.rawRate.map((v) => v.toFixed(0)).join(', ')}), ` +
          `ELU ${x.elu.map((v) => v.toFixed(2)).join(', ')} against ${x.rawElu.map((v) => v.toFixed(2)).join(', ')}`,
      );
      const m = ratios.get(impl)!;
      m.cpu.push(summarize(cpu).median);
      m.rate.push(summarize(rate).median);
      m.perEvent.push(summarize(x.perEvent).median);
      m.rawPerEvent.push(summarize(x.rawPerEvent).median);
      m.ev.push(summarize(x.rate).median);
      m.rawEv.push(summarize(x.rawRate).median);
    }
  }
  const rows = impls.map((impl) => {
    const m = ratios.get(impl)!;
    return [
      labels[impl],
      labels[rawOf(impl)],
      `${fmt(summarize(m.perEvent), 1)} µs`,
      `${fmt(summarize(m.rawPerEvent), 1)} µs`,
      fmt(summarize(m.cpu), 2) + '×',
      fmt(summarize(m.ev), 0),
      fmt(summarize(m.rawEv), 0),
      fmt(summarize(m.rate), 2) + '×',
    ];
  });
  printTable(
    `paired: ${N / 1000}k MODIFIED per burst, raw and implementation alternating in one process — median (min–max) over ${RUNS} runs of the per-run median of per-burst ratios`,
    [
      'implementation',
      'raw loop beside it',
      'CPU / event',
      'raw CPU / event',
      'CPU ×raw',
      'delivery, events/s (wall)',
      'raw events/s',
      'events/s ×raw',
    ],
    rows,
  );
}

// ── BENCH_AB: the concurrent A/B method ───────────────────────────────────────────────

/** One side of an A/B pair: an implementation, from this checkout or from BENCH_BASE_SRC. */
interface AbSide {
  impl: Impl;
  base: boolean;
}

function parseAbPairs(spec: string): [AbSide, AbSide][] {
  const side = (s: string): AbSide => {
    const base = s.endsWith('@base');
    const impl = (base ? s.slice(0, -'@base'.length) : s) as Impl;
    if (!(impl in labels)) throw new Error(`BENCH_AB: unknown implementation ${s}`);
    if (base && BASE_SRC === undefined) throw new Error(`BENCH_AB: ${s} needs BENCH_BASE_SRC`);
    if (impl === 'ours-base') throw new Error('BENCH_AB: write ours@base, not ours-base');
    return { impl, base };
  };
  return (spec === '1' ? 'ours-default:lower,ours-default:lower-stream' : spec)
    .split(',')
    .map((pair) => {
      const [a, b, extra] = pair.split(':');
      if (a === undefined || b === undefined || extra !== undefined)
        throw new Error(`BENCH_AB: a pair is A:B, got ${pair}`);
      return [side(a), side(b)];
    });
}

const abName = (x: AbSide): string => `${x.impl}${x.base ? '@base' : ''}`;

interface AbChild {
  send(line: string): void;
  next(): Promise<Record<string, number | string>>;
  exited: Promise<number | null>;
}

async function startAbChild(script: string, impl: Impl, server: ServerProc): Promise<AbChild> {
  // The bundle carries its library: another source tree named in the environment is not its.
  const { BENCH_OURS_SRC: _o, BENCH_BASE_SRC: _b, ...env } = process.env;
  const proc = spawn(
    CHILD_NODE,
    ['--expose-gc', script, 'child', impl, server.url, String(N), String(BURSTS)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: server.ca === undefined ? env : { ...env, BENCH_CA: server.ca },
    },
  );
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const lines = lineQueue(proc);
  const child: AbChild = {
    send: (line) => proc.stdin.write(`${line}\n`),
    next: async () => JSON.parse(await lines()) as Record<string, number | string>,
    exited,
  };
  const synced = await child.next();
  if (synced.phase !== 'synced') throw new Error(`${impl}: expected synced, got ${synced.phase}`);
  return child;
}

/** One round of a pair: per counted burst, each side's CPU µs per event and events/s. */
async function abRound(
  server: ServerProc,
  scripts: { own: string; base: string | undefined },
  a: AbSide,
  b: AbSide,
  aFirst: boolean,
): Promise<{ a: number[]; b: number[]; aRate: number[]; bRate: number[] }> {
  const script = (x: AbSide): string => (x.base ? scripts.base! : scripts.own);
  // The one that connects first is the server's first watch: its writer loop starts first.
  const [first, second] = aFirst ? [a, b] : [b, a];
  const c1 = await startAbChild(script(first), first.impl, server);
  const c2 = await startAbChild(script(second), second.impl, server);
  const [ca, cb] = aFirst ? [c1, c2] : [c2, c1];
  const out = {
    a: [] as number[],
    b: [] as number[],
    aRate: [] as number[],
    bRate: [] as number[],
  };
  for (let k = 0; k < BURSTS; k++) {
    const p = await server.command(`prepare b${k + 1}`);
    if (p !== 'prepared') throw new Error(`server said ${p}`);
    ca.send('go');
    cb.send('go');
    for (const r of await Promise.all([ca.next(), cb.next()]))
      if (r.phase !== 'ready') throw new Error(`expected ready, got ${r.phase}`);
    const done = server.command('burst');
    const [ra, rb] = await Promise.all([ca.next(), cb.next()]);
    const d = await done;
    // After its last burst a child stops at once, maybe before the server has written the
    // other's last events: then one watch or none is left, as it should.
    if (d !== 'done 2' && k < BURSTS - 1)
      throw new Error(`server said ${d} after burst ${k + 1} (expected two watches)`);
    if (k === 0 && BURSTS > 1) continue; // the first burst warms the JIT
    out.a.push((Number(ra.cpuMs) * 1000) / N);
    out.b.push((Number(rb.cpuMs) * 1000) / N);
    out.aRate.push(N / (Number(ra.wallMs) / 1000));
    out.bRate.push(N / (Number(rb.wallMs) / 1000));
  }
  for (const [c, x] of [
    [ca, a],
    [cb, b],
  ] as const) {
    const end = await c.next();
    if (end.size !== N) throw new Error(`${abName(x)} ended with ${end.size} of ${N} objects`);
    const code = await c.exited;
    if (code !== 0) throw new Error(`${abName(x)} child exited ${code}`);
  }
  return out;
}

/**
 * BENCH_AB: per round and pair, two fresh children (A and B), each a bundle of this file
 * (plain node, as deployed), sync against the one server and hold their watches open; the
 * server then writes every burst to both at once, each watch as fast as its socket takes
 * it, so both take the same events under the same machine load. Who connects first (and so
 * is written to first) alternates from round to round. Each child measures its own CPU
 * (process.cpuUsage) and wall time over each burst; a round's ratio is the median of its
 * counted bursts' A/B ratios, and the table gives the median (min–max) over the rounds.
 */
async function abMain(server: ServerProc): Promise<void> {
  const pairs = parseAbPairs(AB!);
  const scripts = {
    own: await bundleForNode(self, 'watch_ab_child', {
      ...(OURS_SRC === undefined ? {} : { srcDir: OURS_SRC }),
    }),
    base: pairs.some(([a, b]) => a.base || b.base)
      ? await bundleForNode(self, 'watch_ab_child_base', { srcDir: BASE_SRC! })
      : undefined,
  };
  const rounds = pairs.map(() => ({
    cpu: [] as number[],
    cpuAFirst: [] as number[],
    cpuBFirst: [] as number[],
    rate: [] as number[],
    a: [] as number[],
    b: [] as number[],
    aRate: [] as number[],
    bRate: [] as number[],
  }));
  for (let r = 0; r < RUNS; r++) {
    const aFirst = r % 2 === 0;
    for (const [i, [a, b]] of pairs.entries()) {
      const x = await abRound(server, scripts, a, b, aFirst);
      const cpu = summarize(x.a.map((v, j) => v / x.b[j]!)).median;
      const rate = summarize(x.aRate.map((v, j) => v / x.bRate[j]!)).median;
      console.error(
        `round ${r + 1} ${abName(a)} vs ${abName(b)} (${aFirst ? 'A' : 'B'} connected first): ` +
          `CPU/event ${x.a.map((v) => v.toFixed(1)).join(', ')} against ${x.b.map((v) => v.toFixed(1)).join(', ')} µs ` +
          `(×${cpu.toFixed(3)}), events/s ${x.aRate.map((v) => v.toFixed(0)).join(', ')} against ` +
          `${x.bRate.map((v) => v.toFixed(0)).join(', ')} (×${rate.toFixed(3)}); ${machine()}`,
      );
      const m = rounds[i]!;
      m.cpu.push(cpu);
      (aFirst ? m.cpuAFirst : m.cpuBFirst).push(cpu);
      m.rate.push(rate);
      m.a.push(summarize(x.a).median);
      m.b.push(summarize(x.b).median);
      m.aRate.push(summarize(x.aRate).median);
      m.bRate.push(summarize(x.bRate).median);
    }
  }
  const orNone = (xs: number[], f: (s: Summary) => string): string =>
    xs.length === 0 ? '–' : f(summarize(xs));
  printTable(
    `concurrent A/B: ${N / 1000}k MODIFIED per burst to both at once, ${BURSTS - (BURSTS > 1 ? 1 : 0)} counted bursts per round, ` +
      `who connects first alternating — median (min–max) over ${RUNS} rounds`,
    [
      'A',
      'B',
      'A CPU / event',
      'B CPU / event',
      'CPU A/B',
      'CPU A/B, A first',
      'CPU A/B, B first',
      'A events/s',
      'B events/s',
      'events/s A/B',
    ],
    pairs.map(([a, b], i) => {
      const m = rounds[i]!;
      const ratio = (s: Summary): string => fmt(s, 3) + '×';
      return [
        `${labels[a.impl]}${a.base ? ' (base)' : ''}`,
        `${labels[b.impl]}${b.base ? ' (base)' : ''}`,
        `${fmt(summarize(m.a), 1)} µs`,
        `${fmt(summarize(m.b), 1)} µs`,
        ratio(summarize(m.cpu)),
        orNone(m.cpuAFirst, ratio),
        orNone(m.cpuBFirst, ratio),
        fmt(summarize(m.aRate), 0),
        fmt(summarize(m.bRate), 0),
        ratio(summarize(m.rate)),
      ];
    }),
  );
}

const labels: Record<Impl, string> = {
  lower: TLS
    ? 'raw watch, HTTP/1.1 over TLS (split lines, JSON.parse, Map.set)'
    : 'lower bound (raw watch: split lines, JSON.parse, Map.set)',
  'lower-h2': 'raw watch, h2 (the same loop on an http2 stream)',
  'lower-gzip': 'lower bound, asking for gzip (+ zlib gunzip stream)',
  'lower-stream': 'raw watch synced by a streaming list (sendInitialEvents)',
  ours: `SharedIndexInformer, one counting handler (paged-list sync)${TLS ? ', h2' : ''}`,
  'ours-stream': `SharedIndexInformer, streaming-list sync (watchList: true)${TLS ? ', h2' : ''}`,
  'ours-default': `SharedIndexInformer, the library's default options${TLS ? ', h2' : ''}`,
  'ours-h1': 'SharedIndexInformer, paged-list sync, HTTP/1.1 over TLS (DISABLE_HTTP2)',
  'ours-base': 'SharedIndexInformer before this change (BENCH_BASE_SRC)',
  'client-node': '@kubernetes/client-node 1.4 makeInformer',
};

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === 'server') return serverMain(Number(process.argv[3]));
  if (mode === 'child') {
    return childMain(
      process.argv[3] as Impl,
      process.argv[4]!,
      Number(process.argv[5]),
      Number(process.argv[6]),
    );
  }
  const nodeVersion = await new Promise<string>((resolve) => {
    const p = spawn(CHILD_NODE, ['--version']);
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', () => resolve(out.trim()));
  });
  setMeasuredNode(nodeVersion);
  const pod = JSON.stringify(harnessPod(1, '1001'));
  console.log(
    `\n## Watch benchmark\n\nchildren on ${machine()} at the start; pod JSON ${pod.length} B; ` +
      `${N} MODIFIED per burst, ${BURSTS} bursts ` +
      `(first not counted), server writes ${WRITE === 'line' ? 'one res.write per event' : '64 KB batches'}` +
      `${GZIP ? ', gzip' : ''}; ${RUNS} runs, each in a fresh process, ` +
      (AB !== undefined
        ? 'two children at once (concurrent A/B)'
        : PAIRED
          ? 'raw loop and implementation alternating in one child'
          : 'implementations interleaved'),
  );
  if (AB !== undefined && PAIRED)
    throw new Error('BENCH_AB and BENCH_PAIRED are two methods: pick one');
  const server = await startServerProc(N);
  if (AB !== undefined) {
    try {
      await abMain(server);
    } finally {
      await server.close();
    }
    return;
  }
  if (PAIRED) {
    try {
      await pairedMain(server);
    } finally {
      await server.close();
    }
    return;
  }
  const results = new Map<Impl, number[]>(IMPLS.map((i) => [i, []]));
  const rates = new Map<Impl, number[]>(IMPLS.map((i) => [i, []]));
  const elus = new Map<Impl, number[]>(IMPLS.map((i) => [i, []]));
  const gcShares = new Map<Impl, number[]>(IMPLS.map((i) => [i, []]));
  try {
    for (let r = 0; r < RUNS; r++) {
      for (const impl of IMPLS) {
        const { perEvent: bursts, rate, elu, gcShare } = await runChild(server, impl);
        console.error(
          `run ${r + 1} ${impl}: ${bursts.map((b) => b.toFixed(1)).join(', ')} µs/event, ` +
            `${rate.map((x) => x.toFixed(0)).join(', ')} events/s, ELU ` +
            `${elu.map((x) => x.toFixed(2)).join(', ')}, GC pauses ` +
            `${gcShare.map((x) => (x * 100).toFixed(0) + '%').join(', ')}`,
        );
        results.get(impl)!.push(summarize(bursts).median);
        rates.get(impl)!.push(summarize(rate).median);
        elus.get(impl)!.push(summarize(elu).median);
        gcShares.get(impl)!.push(summarize(gcShare).median);
      }
    }
  } finally {
    await server.close();
  }
  // Ratios per run (implementations are interleaved), each to the raw loop on the same
  // connection type (rawOf), then the median of those ratios.
  const perRun = (m: Map<Impl, number[]>, impl: Impl): string => {
    const raw = m.get(rawOf(impl));
    const xs = m.get(impl)!;
    if (raw === undefined) return '–';
    return fmt(summarize(xs.map((x, i) => x / raw[i]!)), 2) + '×';
  };
  const rows: string[][] = [];
  for (const impl of IMPLS) {
    const s: Summary = summarize(results.get(impl)!);
    rows.push([
      labels[impl],
      `${fmt(s, 1)} µs`,
      perRun(results, impl),
      fmt(summarize(rates.get(impl)!), 0),
      perRun(rates, impl),
      summarize(elus.get(impl)!).median.toFixed(2),
      `${(summarize(gcShares.get(impl)!).median * 100).toFixed(0)} %`,
    ]);
  }
  const header = [
    'implementation',
    'watch CPU / event',
    'CPU ×raw (same connection) per run',
    'delivery, events/s (wall)',
    'events/s ×raw (same connection) per run',
    'event-loop utilisation',
    'GC pauses / wall',
  ];
  printTable(`${N / 1000}k MODIFIED per burst — median (min–max) of ${RUNS} runs`, header, rows);
}

await main();
