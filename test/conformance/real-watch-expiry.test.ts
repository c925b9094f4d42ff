// The slow conformance scenario on a real apiextensions-apiserver: a watch from a version
// the watch cache no longer holds gets 410, and the informer relists. Pushing a version out
// of the real watch cache takes 75 s (see real-target.ts), so it has a file of its own.
import { realTarget } from './real-target.js';
import { describeConformance } from './scenarios.js';

describeConformance(
  'real apiextensions-apiserver (watch expiry)',
  realTarget('real-server conformance suite (watch expiry)'),
  { expireMs: 115_000, slow: 'only' },
);
