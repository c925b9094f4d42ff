// The in-memory test API server must never be a benchmark's bottleneck:
//   1. LIST of 50k pods over HTTP (server time to the last byte) vs the raw lower bound (a
//      plain node:http server answering the same bytes, pre-serialized) and vs
//      @kubernetes/client-node's listNamespacedPod against our server (client-side cost).
//   2. Watch fan-out: one stream of N events to 50 watchers (raw sockets counting lines),
//      events/s as the server commits and delivers them, vs the raw lower bound (a plain
//      server writing the same pre-serialized lines to 50 sockets).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { fmt, machineLoad, printTable, repeat } from './lib/report.js';

const PODS = 50_000;
const WATCHERS = 50;
const EVENTS = 20_000;
const RUNS = 5;

function pod(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: 'bench',
      labels: { app: `app-${i % 100}`, tier: 'web' },
    },
    spec: {
      nodeName: `node-${i % 500}`,
      containers: [
        { name: 'c', image: 'registry.example/app:1.0', resources: { requests: { cpu: '100m' } } },
      ],
    },
    status: { phase: 'Running', podIP: `10.0.${(i >> 8) & 255}.${i & 255}` },
  };
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const server = await startTestApiServer({ namespaces: ['default', 'bench'] });
const t0 = performance.now();
server.seed(
  'pods',
  Array.from({ length: PODS }, (_, i) => pod(i)),
);
const seedMs = performance.now() - t0;

// ---- 1. list
const listUrl = `${server.url}/api/v1/namespaces/bench/pods`;
const bytes = await get(listUrl);
const body = await new Promise<string>((resolve) => {
  http.get(listUrl, (res) => {
    let s = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (s += c));
    res.on('end', () => resolve(s));
  });
});
const rawServer = http.createServer((_req, res) => {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
});
await new Promise<void>((r) => rawServer.listen(0, '127.0.0.1', r));
const rawUrl = `http://127.0.0.1:${(rawServer.address() as AddressInfo).port}/`;

const timeIt = async (fn: () => Promise<unknown>): Promise<number> => {
  const s = performance.now();
  await fn();
  return performance.now() - s;
};
const ours = await repeat(RUNS, () => timeIt(() => get(listUrl)));
const rawList = await repeat(RUNS, () => timeIt(() => get(rawUrl)));
const core = server.kubeConfig().makeApiClient(CoreV1Api);
const clientNode = await repeat(3, () =>
  timeIt(() => core.listNamespacedPod({ namespace: 'bench' })),
);
printTable(
  `LIST ${PODS} pods over HTTP (${(bytes / 1e6).toFixed(1)} MB; ${machineLoad()}; seeding in-process took ${seedMs.toFixed(0)} ms)`,
  ['path', 'ms (median, min–max)', 'ratio to raw'],
  [
    ['raw node:http, pre-serialized bytes (lower bound)', fmt(rawList, 1), '1.00'],
    ['test API server, raw http client', fmt(ours, 1), (ours.median / rawList.median).toFixed(2)],
    [
      'test API server, client-node listNamespacedPod',
      fmt(clientNode, 1),
      (clientNode.median / rawList.median).toFixed(2),
    ],
  ],
);
await new Promise<void>((r) => rawServer.close(() => r()));

// ---- 2. watch fan-out
function openWatchers(
  url: string,
  n: number,
): Promise<{ counts: number[]; reqs: http.ClientRequest[]; onLine: (cb: () => void) => void }> {
  const counts = new Array<number>(n).fill(0);
  const reqs: http.ClientRequest[] = [];
  let listener: () => void = () => undefined;
  const agent = new http.Agent({ keepAlive: false, maxSockets: n + 5 });
  return new Promise((resolve) => {
    let open = 0;
    for (let i = 0; i < n; i++) {
      const req = http.get(url, { agent }, (res) => {
        res.on('data', (c: Buffer) => {
          let k = 0;
          for (let j = c.indexOf(10); j >= 0; j = c.indexOf(10, j + 1)) k++;
          counts[i]! += k;
          listener();
        });
        res.on('error', () => undefined);
        if (++open === n) resolve({ counts, reqs, onLine: (cb) => (listener = cb) });
      });
      req.on('error', () => undefined);
      reqs.push(req);
    }
  });
}

async function fanOut(url: string, emit: (i: number) => void): Promise<number> {
  const w = await openWatchers(url, WATCHERS);
  const done = new Promise<void>((resolve) =>
    w.onLine(() => {
      if (w.counts.every((c) => c >= EVENTS)) resolve();
    }),
  );
  const start = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    emit(i);
    if (i % 1000 === 999) await new Promise<void>((r) => setImmediate(r));
  }
  await done;
  const ms = performance.now() - start;
  for (const r of w.reqs) r.destroy();
  return (EVENTS / ms) * 1000;
}

let seq = 0;
const watchUrl = (): string =>
  `${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${server.resourceVersion}`;
const oursWatch = await repeat(RUNS, async () => {
  const round = seq++;
  const r = await fanOut(watchUrl(), (i) => {
    server.create('configmaps', {
      metadata: { name: `cm-${round}-${i}`, namespace: 'default', labels: { a: 'b' } },
      data: { k: `v${i}` },
    });
  });
  return r;
});

// Raw lower bound: a plain server writes pre-serialized lines to the same number of sockets.
const sample =
  JSON.stringify({ type: 'ADDED', object: server.list('configmaps', 'default')[0] }) + '\n';
const sockets: http.ServerResponse[] = [];
const rawWatchServer = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  sockets.push(res);
});
await new Promise<void>((r) => rawWatchServer.listen(0, '127.0.0.1', r));
const rawWatchUrl = `http://127.0.0.1:${(rawWatchServer.address() as AddressInfo).port}/`;
const rawWatch = await repeat(RUNS, async () => {
  sockets.length = 0;
  let pending: string[] = [];
  let scheduled = false;
  return fanOut(rawWatchUrl, () => {
    pending.push(sample);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        const chunk = pending.join('');
        pending = [];
        for (const s of sockets) s.write(chunk);
      });
    }
  });
});
printTable(
  `Watch fan-out: ${EVENTS} events to ${WATCHERS} watchers (events/s committed and delivered to all)`,
  ['path', 'events/s (median, min–max)', 'ratio to raw'],
  [
    [
      'raw node:http, pre-serialized lines, batched per tick (lower bound)',
      fmt(rawWatch, 0),
      '1.00',
    ],
    [
      'test API server (create + serialize once + fan out)',
      fmt(oursWatch, 0),
      (oursWatch.median / rawWatch.median).toFixed(2),
    ],
  ],
);
rawWatchServer.closeAllConnections();
await new Promise<void>((r) => rawWatchServer.close(() => r()));
await server.close();
