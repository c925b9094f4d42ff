// The conformance scenarios (scenarios.ts) on the in-memory API server (packages/testing/src): the
// same assertions as real.test.ts makes on a real apiextensions-apiserver.
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { CHURN_EVENTS, describeConformance } from './scenarios.js';

const namespace = 'conformance';
let server: TestApiServer | undefined;

describeConformance('in-memory API server', {
  acquire: async () => {
    const s = await startTestApiServer({ namespaces: ['default', namespace] });
    server = s;
    return {
      skipReason: '',
      target: {
        name: 'in-memory',
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
