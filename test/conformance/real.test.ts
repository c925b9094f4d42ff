// The conformance scenarios (scenarios.ts) on a real apiextensions-apiserver on etcd
// (scripts/real-apiserver.sh): the same assertions as in-memory.test.ts makes on the
// in-memory server. The slow scenario (expiring watch history, ~80 s) runs in
// real-watch-expiry.test.ts so that each file fits the runner's per-file timeout.
import { realTarget } from './real-target.js';
import { describeConformance } from './scenarios.js';

describeConformance('real apiextensions-apiserver', realTarget('real-server conformance suite'), {
  scenarioMs: 110_000,
  slow: 'skip',
});
