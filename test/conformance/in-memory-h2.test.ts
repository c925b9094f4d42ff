// The conformance scenarios (scenarios.ts) on the in-memory API server over TLS, where every
// client of the scenarios (transports, informers, the CRD manager, the operator) speaks
// HTTP/2 (ALPN h2, the transport's default) and multiplexes its requests and watches.
import assert from 'node:assert/strict';
import { Transport } from '../../src/client/transport.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { CHURN_EVENTS, describeConformance } from './scenarios.js';

const namespace = 'conformance';
let server: TestApiServer | undefined;

describeConformance('in-memory API server over HTTP/2', {
  acquire: async () => {
    const s = await startTestApiServer({ https: true, namespaces: ['default', namespace] });
    server = s;
    const probe = new Transport(s.kubeConfig());
    try {
      await probe.request({ method: 'GET', path: '/version' });
      assert.equal(probe.protocol, 'h2', 'the scenarios must run over HTTP/2');
    } finally {
      probe.close();
    }
    return {
      skipReason: '',
      target: {
        name: 'in-memory-h2',
        namespace,
        kubeConfig: () => s.kubeConfig(),
        compact: () => {
          s.faults.compact();
          return Promise.resolve();
        },
        expireWatchHistory: async (churn) => {
          for (let i = 0; i < CHURN_EVENTS; i++) await churn();
          s.faults.compact();
        },
        patienceMs: 10_000,
      },
    };
  },
  release: async () => {
    await server?.close();
  },
});
