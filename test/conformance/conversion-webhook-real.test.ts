// The conversion-webhook scenario (conversion-webhook-scenarios.ts) on a real
// apiextensions-apiserver on etcd (scripts/real-apiserver.sh), which calls the kit's
// WebhookServer for every read and write at the version that is not stored.
import { realTarget } from './real-target.js';
import { describeConversionWebhookConformance } from './conversion-webhook-scenarios.js';

describeConversionWebhookConformance(
  'real apiextensions-apiserver',
  realTarget('real-server conversion webhook scenario'),
);
