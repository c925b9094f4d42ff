// The schema conformance scenarios (schema-scenarios.ts) on a real apiextensions-apiserver
// on etcd (scripts/real-apiserver.sh): the same assertions as schema-in-memory.test.ts
// makes on the in-memory server.
import { realTarget } from './real-target.js';
import { describeSchemaConformance } from './schema-scenarios.js';

describeSchemaConformance(
  'real apiextensions-apiserver',
  realTarget('real-server schema conformance suite'),
);
