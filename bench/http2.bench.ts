// 200 concurrent watches over HTTP/2 against HTTP/1.1: connections, memory per watch, CPU
// per event and delivery rate (events/s of wall-clock time), in one run.
//
// Processes:
// - one server process: `http2.createSecureServer({ allowHTTP1: true })` with throwaway
//   certificates (so ALPN decides the protocol, as with kube-apiserver). A GET with
//   `watch=true` is held open; on command (stdin `burst`) the server writes BENCH_N MODIFIED
//   events of the bench pod (bench/lib/pods.ts, ~4 KB of JSON), pre-serialized, spread
//   round-robin over every open watch, each watch waiting for 'drain' only when its stream
//   or socket asks. It counts the TLS connections open (`conns`).
// - one fresh child per measurement: opens BENCH_WATCHES watches (one per namespace) over
//   the implementation's connection(s), then measures process.cpuUsage and wall time of the
//   burst, from before the server writes until the child counted every event.
//
// Implementations, interleaved per run:
// - lower-h1: raw `https.request` per watch (keep-alive agent), split lines, JSON.parse;
// - lower-h2: one raw `http2.connect` session, a stream per watch, split lines, JSON.parse;
// - ours-h1: the kit's Transport with `http2: false` + ResourceClient.watch (the watch
//   decoder), one counting loop per watch;
// - ours-h2: the same over HTTP/2 (the default over TLS);
// - client-node: 1.4 `Watch` (HTTP/1.1 only), one callback counting.
//
// Measures per child: connections (server side), heap and RSS added by the open watches
// (after forced GC) per watch, CPU per event, events/s.
//
// Usage: node --expose-gc --import tsx bench/http2.bench.ts   (or: npm run bench -- http2)
// Environment: BENCH_RUNS (3), BENCH_N (20000 events per burst), BENCH_WATCHES (200),
// BENCH_BURSTS (2: the first warms the JIT and is not counted), BENCH_IMPLS.
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { configMapsResource } from '../src/client/builtins.js';
import { ResourceClient } from '../src/client/resource_client.js';
import { Transport } from '../src/client/transport.js';
import { generateTestCertificates } from '../packages/testing/src/certs.js';
import { fmt, heapUsedAfterGc, machineLoad, printTable, summarize } from './lib/report.js';
import { loadavg } from 'node:os';
import { makeBenchPod } from './lib/pods.js';

const self = fileURLToPath(import.meta.url);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const N = Number(process.env.BENCH_N ?? 20_000);
const WATCHES = Number(process.env.BENCH_WATCHES ?? 200);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 2);
type Impl = 'lower-h1' | 'lower-h2' | 'ours-h1' | 'ours-h2' | 'client-node';
const IMPLS = (process.env.BENCH_IMPLS ?? 'lower-h1,lower-h2,ours-h1,ours-h2,client-node').split(
  ',',
) as Impl[];
const LABEL: Record<Impl, string> = {
  'lower-h1': 'lower bound, HTTP/1.1 (raw https, split, JSON.parse)',
  'lower-h2': 'lower bound, HTTP/2 (raw http2 session, split, JSON.parse)',
  'ours-h1': 'kube-controller-kit Transport, http2: false',
  'ours-h2': 'kube-controller-kit Transport, HTTP/2 (default over TLS)',
  'client-node': '@kubernetes/client-node 1.4 Watch (HTTP/1.1)',
};

interface ChildResult {
  heapPerWatch: number;
  /** RSS of the child with every watch open, before the bursts (MB). */
  rss: number;
  cpuPerEvent: number[];
  eventsPerSecond: number[];
}

// ------------------------------------------------------------------- server process

async function runServer(): Promise<void> {
  const certs = await generateTestCertificates();
  const watches = new Set<http2.Http2ServerResponse>();
  const sockets = new Set<Socket>();
  const server = http2.createSecureServer(
    { key: certs.serverKey, cert: certs.serverCert, allowHTTP1: true },
    (req, res) => {
      if (!String(req.url).includes('watch=true')) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      (res as unknown as { flushHeaders(): void }).flushHeaders();
      watches.add(res);
      res.on('close', () => watches.delete(res));
    },
  );
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('session', (s) => s.on('error', () => undefined));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  let burst = 0;
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, ca: certs.caCert }));
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'conns') {
      console.log(JSON.stringify({ conns: sockets.size, watches: watches.size }));
    } else if (line === 'burst') {
      burst++;
      const targets = [...watches];
      const per: Buffer[][] = targets.map(() => []);
      for (let i = 0; i < N; i++) {
        const pod = makeBenchPod(i, String(100_000 * burst + i));
        per[i % targets.length]!.push(
          Buffer.from(`{"type":"MODIFIED","object":${JSON.stringify(pod)}}\n`),
        );
      }
      await Promise.all(
        targets.map(async (res, k) => {
          for (const b of per[k]!) {
            if (!res.write(b)) await new Promise((r) => res.once('drain', r));
          }
        }),
      );
      console.log(JSON.stringify({ written: N }));
    } else if (line === 'exit') {
      for (const w of watches) w.destroy();
      for (const s of sockets) s.destroy();
      server.close();
      process.exit(0);
    }
  }
}

// ------------------------------------------------------------------- client process

async function runClient(impl: Impl, port: number, ca: string): Promise<void> {
  const url = `https://127.0.0.1:${port}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, caData: Buffer.from(ca).toString('base64') }],
    users: [{ name: 'u', token: 'bench' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  let count = 0;
  let target = Infinity;
  let onTarget: (() => void) | undefined;
  const seen = (): void => {
    if (++count === target) onTarget?.();
  };
  const path = (i: number): string => `/api/v1/namespaces/ns-${i}/configmaps?watch=true`;
  const ac = new AbortController();
  setMaxListeners(0, ac.signal); // one listener per watch
  const closers: (() => void)[] = [];
  /** Raw line splitting and JSON.parse: the lower bound's loop. */
  const rawLines = (body: NodeJS.ReadableStream): void => {
    let rest = '';
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => {
      const text = rest + chunk;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        JSON.parse(text.slice(start, nl));
        seen();
        start = nl + 1;
      }
      rest = text.slice(start);
    });
    body.on('error', () => undefined);
  };

  const before = heapUsedAfterGc();
  if (impl === 'lower-h1') {
    const agent = new https.Agent({ keepAlive: true, ca });
    closers.push(() => agent.destroy());
    await Promise.all(
      Array.from(
        { length: WATCHES },
        (_, i) =>
          new Promise<void>((resolve, reject) => {
            const req = https.get({ host: '127.0.0.1', port, path: path(i), agent }, (res) => {
              rawLines(res);
              resolve();
            });
            req.on('error', reject);
          }),
      ),
    );
  } else if (impl === 'lower-h2') {
    const session = http2.connect(url, { ca });
    session.on('error', () => undefined);
    closers.push(() => session.destroy());
    await Promise.all(
      Array.from(
        { length: WATCHES },
        (_, i) =>
          new Promise<void>((resolve) => {
            const s = session.request({ ':path': path(i) });
            s.on('response', () => resolve());
            rawLines(s);
          }),
      ),
    );
  } else if (impl === 'ours-h1' || impl === 'ours-h2') {
    const transport = new Transport(kc, { http2: impl === 'ours-h2' });
    closers.push(() => transport.close());
    const iterators = await Promise.all(
      Array.from({ length: WATCHES }, (_, i) =>
        new ResourceClient(transport, configMapsResource, { namespace: `ns-${i}` }).watch(
          {},
          { signal: ac.signal },
        ),
      ),
    );
    for (const it of iterators) {
      void (async () => {
        try {
          for await (const _ of it) seen();
        } catch {
          // aborted at the end
        }
      })();
    }
  } else {
    const watch = new Watch(kc);
    await Promise.all(
      Array.from({ length: WATCHES }, async (_, i) => {
        const ctl = await watch.watch(
          `/api/v1/namespaces/ns-${i}/configmaps`,
          {},
          () => seen(),
          () => undefined,
        );
        closers.push(() => ctl.abort());
      }),
    );
  }
  const heapPerWatch = (heapUsedAfterGc() - before) / WATCHES;
  const rss = process.memoryUsage().rss / 2 ** 20;
  const result: ChildResult = { heapPerWatch, rss, cpuPerEvent: [], eventsPerSecond: [] };
  console.log(JSON.stringify({ ready: true }));
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  for (let b = 0; b < BURSTS; b++) {
    await lines.next(); // 'go'
    count = 0;
    target = N;
    const done = new Promise<void>((r) => (onTarget = r));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    console.log(JSON.stringify({ armed: true }));
    await done;
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (b > 0) {
      result.cpuPerEvent.push((cpu.user + cpu.system) / N);
      result.eventsPerSecond.push(N / (wall / 1000));
    }
    console.log(JSON.stringify({ burst: b }));
  }
  console.log(JSON.stringify({ result }));
  ac.abort();
  for (const c of closers) c();
  process.exit(0);
}

// ------------------------------------------------------------------- parent

class Lines {
  readonly #it: AsyncIterator<string>;
  constructor(child: ChildProcess) {
    this.#it = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }
  async next<T>(): Promise<T> {
    for (;;) {
      const { value, done } = await this.#it.next();
      if (done === true) throw new Error('child ended');
      const line = String(value);
      if (line.startsWith('{')) return JSON.parse(line) as T;
    }
  }
}

function child(args: string[]): { proc: ChildProcess; lines: Lines } {
  const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return { proc, lines: new Lines(proc) };
}

async function parent(): Promise<void> {
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadStart = `node ${process.version}, ${machineLoad()}`;
  const server = child(['server']);
  const { port, ca } = await server.lines.next<{ port: number; ca: string }>();
  const results = new Map<Impl, { conns: number[]; r: ChildResult[] }>();
  for (let run = 0; run < RUNS; run++) {
    for (const impl of IMPLS) {
      const c = child(['client', impl, String(port), Buffer.from(ca).toString('base64')]);
      await c.lines.next(); // ready
      server.proc.stdin!.write('conns\n');
      const { conns } = await server.lines.next<{ conns: number }>();
      for (let b = 0; b < BURSTS; b++) {
        c.proc.stdin!.write('go\n');
        await c.lines.next(); // armed
        server.proc.stdin!.write('burst\n');
        await server.lines.next(); // written
        await c.lines.next(); // burst counted
      }
      const { result } = await c.lines.next<{ result: ChildResult }>();
      await new Promise((r) => c.proc.once('exit', r));
      // Wait until the server saw the child's connections go.
      for (;;) {
        server.proc.stdin!.write('conns\n');
        const s = await server.lines.next<{ conns: number }>();
        if (s.conns === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const entry = results.get(impl) ?? { conns: [], r: [] };
      entry.conns.push(conns);
      entry.r.push(result);
      results.set(impl, entry);
    }
  }
  server.proc.stdin!.write('exit\n');
  const lowerCpu = (impl: Impl): number =>
    summarize(results.get(impl)!.r.flatMap((x) => x.cpuPerEvent)).median;
  const lowerRate = (impl: Impl): number =>
    summarize(results.get(impl)!.r.flatMap((x) => x.eventsPerSecond)).median;
  const bound = (impl: Impl): Impl =>
    impl === 'ours-h2' || impl === 'lower-h2' ? 'lower-h2' : 'lower-h1';
  const rows = IMPLS.filter((i) => results.has(i)).map((impl) => {
    const e = results.get(impl)!;
    const cpu = summarize(e.r.flatMap((x) => x.cpuPerEvent));
    const rate = summarize(e.r.flatMap((x) => x.eventsPerSecond));
    const lb = bound(impl);
    const has = results.has(lb);
    return [
      LABEL[impl],
      String(summarize(e.conns).median),
      fmt(summarize(e.r.map((x) => x.heapPerWatch / 1024)), 1, ' KB'),
      fmt(summarize(e.r.map((x) => x.rss)), 0, ' MB'),
      fmt(cpu, 1, ' µs'),
      has ? `${(cpu.median / lowerCpu(lb)).toFixed(2)}×` : '',
      fmt(rate, 0),
      has ? `${(rate.median / lowerRate(lb)).toFixed(2)}×` : '',
    ];
  });
  console.log(
    `\n${loadStart} at start; load average at end ${load()}.\n` +
      `${WATCHES} watches, ${N} MODIFIED events per burst (~4 KB pods), ${RUNS} runs × ` +
      `${BURSTS - 1} counted burst(s), implementations interleaved; ×LB against the lower ` +
      'bound of the same protocol (client-node and ours-h1 against HTTP/1.1).',
  );
  printTable(
    `${WATCHES} concurrent watches: HTTP/2 against HTTP/1.1 — median (min–max)`,
    [
      'implementation',
      'TCP connections',
      'heap / watch',
      'RSS, watches open',
      'CPU / event',
      '×LB',
      'events/s (wall)',
      '×LB',
    ],
    rows,
  );
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'server') await runServer();
else if (mode === 'client') {
  await runClient(rest[0] as Impl, Number(rest[1]), Buffer.from(rest[2]!, 'base64').toString());
} else await parent();
