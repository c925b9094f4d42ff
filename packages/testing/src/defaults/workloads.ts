/**
 * Defaults of the workload kinds, as kube-apiserver sets them on decode
 * (k8s.io/kubernetes `pkg/apis/apps/v1/defaults.go`, `pkg/apis/batch/v1/defaults.go`),
 * each with its pod template's {@link defaultPodSpec} defaults.
 *
 * apps/v1 defaults neither a selector nor labels from the template (extensions/v1beta1
 * did); batch/v1 copies a Job's template labels to a Job without labels.
 *
 * @module
 */
import type { Obj } from './fields.js';
import { child, ensure, isEmpty, items, setIfEmpty, setIfNil } from './fields.js';
import { defaultClaimSpec, defaultPodTemplate } from './pod.js';

/** The largest int32: a Job's `backoffLimit` when `backoffLimitPerIndex` is set. */
const MAX_INT32 = 2147483647;

/**
 * Deployment: `replicas: 1`, `strategy` RollingUpdate with `maxUnavailable` and
 * `maxSurge` 25%, `revisionHistoryLimit: 10`, `progressDeadlineSeconds: 600`.
 */
export function defaultDeployment(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  setIfNil(spec, 'replicas', 1);
  const strategy = ensure(spec, 'strategy');
  setIfEmpty(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = ensure(strategy, 'rollingUpdate');
    setIfNil(rolling, 'maxUnavailable', '25%');
    setIfNil(rolling, 'maxSurge', '25%');
  }
  setIfNil(spec, 'revisionHistoryLimit', 10);
  setIfNil(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(spec);
}

/** DaemonSet: `updateStrategy` RollingUpdate (`maxUnavailable: 1`, `maxSurge: 0`), `revisionHistoryLimit: 10`. */
export function defaultDaemonSet(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  const strategy = ensure(spec, 'updateStrategy');
  setIfEmpty(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = ensure(strategy, 'rollingUpdate');
    setIfNil(rolling, 'maxUnavailable', 1);
    setIfNil(rolling, 'maxSurge', 0);
  }
  setIfNil(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec);
}

/**
 * StatefulSet: `podManagementPolicy: OrderedReady`, `updateStrategy` RollingUpdate with
 * `partition: 0`, `persistentVolumeClaimRetentionPolicy` Retain/Retain, `replicas: 1`,
 * `revisionHistoryLimit: 10`; each `volumeClaimTemplates` claim gets `volumeMode:
 * Filesystem` and `status.phase: Pending`, as a PersistentVolumeClaim does.
 */
export function defaultStatefulSet(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  setIfEmpty(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensure(spec, 'updateStrategy');
  if (isEmpty(strategy.type)) {
    strategy.type = 'RollingUpdate';
    ensure(strategy, 'rollingUpdate');
  }
  const rolling = child(strategy, 'rollingUpdate');
  if (strategy.type === 'RollingUpdate' && rolling) setIfNil(rolling, 'partition', 0);
  const retention = ensure(spec, 'persistentVolumeClaimRetentionPolicy');
  setIfEmpty(retention, 'whenDeleted', 'Retain');
  setIfEmpty(retention, 'whenScaled', 'Retain');
  setIfNil(spec, 'replicas', 1);
  setIfNil(spec, 'revisionHistoryLimit', 10);
  for (const claim of items(spec, 'volumeClaimTemplates')) defaultClaim(claim);
  defaultPodTemplate(spec);
}

/** PersistentVolumeClaim: `spec.volumeMode: Filesystem`, `status.phase: Pending`. */
export function defaultClaim(obj: Obj): void {
  defaultClaimSpec(ensure(obj, 'spec'));
  setIfEmpty(ensure(obj, 'status'), 'phase', 'Pending');
}

/** ReplicaSet: `replicas: 1`. */
export function defaultReplicaSet(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  setIfNil(spec, 'replicas', 1);
  defaultPodTemplate(spec);
}

/**
 * Job: `completions` and `parallelism` 1 when both are unset (else `parallelism: 1`),
 * `backoffLimit: 6` (the largest int32 with `backoffLimitPerIndex`), the template's labels
 * on a Job without labels, `completionMode: NonIndexed`, `suspend: false`,
 * `podReplacementPolicy` `TerminatingOrFailed` (`Failed` with a `podFailurePolicy`).
 */
export function defaultJob(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  const unset = (k: string): boolean => spec[k] === undefined || spec[k] === null;
  if (unset('completions') && unset('parallelism')) spec.completions = 1;
  setIfNil(spec, 'parallelism', 1);
  setIfNil(spec, 'backoffLimit', unset('backoffLimitPerIndex') ? 6 : MAX_INT32);
  const templateMeta = child(child(spec, 'template') ?? {}, 'metadata');
  const labels = templateMeta && child(templateMeta, 'labels');
  const meta = ensure(obj, 'metadata');
  const own = child(meta, 'labels');
  if (labels && (own === undefined || Object.keys(own).length === 0)) meta.labels = { ...labels };
  setIfNil(spec, 'completionMode', 'NonIndexed');
  setIfNil(spec, 'suspend', false);
  setIfNil(
    spec,
    'podReplacementPolicy',
    unset('podFailurePolicy') ? 'TerminatingOrFailed' : 'Failed',
  );
  defaultPodTemplate(spec);
}

/**
 * CronJob: `concurrencyPolicy: Allow`, `suspend: false`, `successfulJobsHistoryLimit: 3`,
 * `failedJobsHistoryLimit: 1`; the job template's pod template gets its PodSpec defaults
 * (the job template itself gets no Job defaults).
 */
export function defaultCronJob(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  setIfEmpty(spec, 'concurrencyPolicy', 'Allow');
  setIfNil(spec, 'suspend', false);
  setIfNil(spec, 'successfulJobsHistoryLimit', 3);
  setIfNil(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = child(spec, 'jobTemplate');
  defaultPodTemplate(jobTemplate && child(jobTemplate, 'spec'));
}
