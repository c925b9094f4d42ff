// The client's two hot paths against @kubernetes/client-node and the raw lower bound, on
// identical bytes from one loopback server:
//   1. decoding a watch stream of N pod events (ours vs client-node's Watch vs raw
//      http + split + JSON.parse);
//   2. sequential GETs of one small object (our Transport vs client-node's CoreV1Api vs
//      raw http.request with a keep-alive agent).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { ResourceClient } from '../src/client/resource_client.js';
import { podsResource } from '../src/client/builtins.js';
import { Transport } from '../src/client/transport.js';
import { fmt, printTable, repeat } from './lib/report.js';

const EVENTS = 20_000;
const GETS = 2_000;
const RUNS = 5;

function podEvent(i: number): string {
  return JSON.stringify({
    type: 'MODIFIED',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `pod-${i}`,
        namespace: 'default',
        uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
        resourceVersion: String(1000 + i),
        creationTimestamp: '2026-01-01T00:00:00Z',
        labels: { app: 'web', tier: 'frontend', idx: String(i % 50) },
      },
      spec: {
        nodeName: `node-${i % 20}`,
        containers: [
          {
            name: 'c',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
          },
        ],
      },
      status: {
        phase: 'Running',
        podIP: `10.0.${i % 250}.${i % 200}`,
        startTime: '2026-01-01T00:00:01Z',
      },
    },
  });
}

const stream = Buffer.from(Array.from({ length: EVENTS }, (_, i) => podEvent(i) + '\n').join(''));
const configMap = Buffer.from(
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', resourceVersion: '5' },
    data: { a: 'b' },
  }),
);

const server = http.createServer((req, res) => {
  if (req.url?.includes('watch=true')) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const CHUNK = 64 * 1024;
    let off = 0;
    const pump = (): void => {
      while (off < stream.length) {
        const ok = res.write(stream.subarray(off, off + CHUNK));
        off += CHUNK;
        if (!ok) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  } else {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': configMap.length });
    res.end(configMap);
  }
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
  users: [{ name: 'u', token: 'bench-token' }],
  contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
  currentContext: 'x',
});
const transport = new Transport(kc);
const pods = new ResourceClient(transport, podsResource).namespace('default');
const rawAgent = new http.Agent({ keepAlive: true });

async function rawWatch(): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  await new Promise<void>((resolve, reject) => {
    http.get(`${url}/api/v1/namespaces/default/pods?watch=true`, { agent: rawAgent }, (res) => {
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop()!;
        for (const l of lines)
          if (l !== '') {
            JSON.parse(l);
            n++;
          }
      });
      res.on('end', resolve);
      res.on('error', reject);
    });
  });
  if (n !== EVENTS) throw new Error(`raw saw ${n}`);
  return performance.now() - t0;
}

async function ourWatch(): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for await (const _ of await pods.watch({})) n++;
  if (n !== EVENTS) throw new Error(`ours saw ${n}`);
  return performance.now() - t0;
}

async function clientNodeWatch(): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  await new Promise<void>((resolve, reject) => {
    void new Watch(kc)
      .watch(
        '/api/v1/namespaces/default/pods',
        {},
        () => n++,
        (err: unknown) => (err ? reject(err as Error) : resolve()),
      )
      .catch(reject);
  });
  if (n !== EVENTS) throw new Error(`client-node saw ${n}`);
  return performance.now() - t0;
}

async function rawGets(): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < GETS; i++) {
    await new Promise<void>((resolve, reject) => {
      http.get(`${url}/api/v1/namespaces/default/configmaps/c`, { agent: rawAgent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve();
        });
        res.on('error', reject);
      });
    });
  }
  return performance.now() - t0;
}

async function ourGets(): Promise<number> {
  const cms = new ResourceClient(transport, {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
  }).namespace('default');
  const t0 = performance.now();
  for (let i = 0; i < GETS; i++) await cms.get('c');
  return performance.now() - t0;
}

const core = kc.makeApiClient(CoreV1Api);
async function clientNodeGets(): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < GETS; i++)
    await core.readNamespacedConfigMap({ name: 'c', namespace: 'default' });
  return performance.now() - t0;
}

const w = {
  raw: await repeat(RUNS, rawWatch),
  ours: await repeat(RUNS, ourWatch),
  cn: await repeat(RUNS, clientNodeWatch),
};
const mb = stream.length / 1e6;
printTable(
  `Watch stream decoding: ${EVENTS} pod events, ${mb.toFixed(1)} MB, loopback (ms, median of ${RUNS} (min–max))`,
  ['reader', 'time', 'events/s', 'vs raw'],
  [
    [
      'raw http + split + JSON.parse',
      fmt(w.raw),
      (EVENTS / (w.raw.median / 1000)).toFixed(0),
      '1.00×',
    ],
    [
      'kube-controller-kit watch()',
      fmt(w.ours),
      (EVENTS / (w.ours.median / 1000)).toFixed(0),
      `${(w.ours.median / w.raw.median).toFixed(2)}×`,
    ],
    [
      'client-node Watch',
      fmt(w.cn),
      (EVENTS / (w.cn.median / 1000)).toFixed(0),
      `${(w.cn.median / w.raw.median).toFixed(2)}×`,
    ],
  ],
);
const g = {
  raw: await repeat(RUNS, rawGets),
  ours: await repeat(RUNS, ourGets),
  cn: await repeat(RUNS, clientNodeGets),
};
printTable(
  `Sequential GETs of one ConfigMap: ${GETS} requests, loopback (ms, median of ${RUNS} (min–max))`,
  ['client', 'time', 'µs/request', 'vs raw'],
  [
    ['raw http.get, keep-alive', fmt(g.raw), ((g.raw.median * 1000) / GETS).toFixed(0), '1.00×'],
    [
      'kube-controller-kit get()',
      fmt(g.ours),
      ((g.ours.median * 1000) / GETS).toFixed(0),
      `${(g.ours.median / g.raw.median).toFixed(2)}×`,
    ],
    [
      'client-node CoreV1Api',
      fmt(g.cn),
      ((g.cn.median * 1000) / GETS).toFixed(0),
      `${(g.cn.median / g.raw.median).toFixed(2)}×`,
    ],
  ],
);
console.log(
  `client-node vs ours: watch ${(w.cn.median / w.ours.median).toFixed(2)}× slower, GET ${(g.cn.median / g.ours.median).toFixed(2)}× slower`,
);

transport.close();
rawAgent.destroy();
server.closeAllConnections();
await new Promise<void>((r) => server.close(() => r()));
