// The schema conformance scenarios (schema-scenarios.ts) on the in-memory API server: the
// same assertions as schema-real.test.ts makes on a real apiextensions-apiserver.
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { describeSchemaConformance } from './schema-scenarios.js';

const namespace = 'conformance';
let server: TestApiServer | undefined;

describeSchemaConformance('in-memory API server', {
  acquire: async () => {
    const s = await startTestApiServer({ namespaces: ['default', namespace] });
    server = s;
    return {
      skipReason: '',
      target: {
        name: 'in-memory',
        namespace,
        kubeConfig: () => s.kubeConfig(),
        compact: () => Promise.resolve(),
        expireWatchHistory: () => Promise.resolve(),
        patienceMs: 10_000,
      },
    };
  },
  release: async () => {
    await server?.close();
  },
});
