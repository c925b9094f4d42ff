/**
 * HorizontalPodAutoscaler (autoscaling/v2, also served as autoscaling/v1): stored at v2,
 * converted to and from v1 as kube-apiserver's conversion does (the CPU utilization target
 * is `targetCPUUtilizationPercentage` in v1; other metrics, the behavior and the status
 * conditions ride in v1 as the `autoscaling.alpha.kubernetes.io/*` annotations). Defaults
 * (SetDefaults_HorizontalPodAutoscaler): minReplicas 1; in v2 a CPU utilization target of
 * 80% when no metric is given, and a given behavior completed with the default scale-up and
 * scale-down rules. A status subresource; the printer's Reference, Targets, MinPods,
 * MaxPods, Replicas columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { jsonCopy } from '../../json_copy.js';
import { ageColumn, arr, col, nameColumn, rec, scalar, str } from '../../printers.js';
import { invalidValue, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

type Obj = Record<string, unknown>;

const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
const DEFAULT_CPU_UTILIZATION = 80;

function isCpuUtilization(m: Obj): boolean {
  const r = rec(m.resource);
  return m.type === 'Resource' && r.name === 'cpu' && rec(r.target).type === 'Utilization';
}

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: nil members take the defaults. */
function defaultRules(rules: unknown, up: boolean): Obj {
  const r = rules === undefined || rules === null ? {} : { ...rec(rules) };
  r.stabilizationWindowSeconds ??= up ? 0 : 300;
  r.selectPolicy ??= 'Max';
  r.policies ??= up
    ? [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ]
    : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  return r;
}

function setDefaults(obj: Obj, version: string): void {
  const spec = rec(obj.spec);
  obj.spec = spec;
  spec.minReplicas ??= 1;
  if (version !== 'v2') return;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  }
  if (spec.behavior !== undefined && spec.behavior !== null) {
    const b = { ...rec(spec.behavior) };
    b.scaleUp = defaultRules(b.scaleUp, true);
    b.scaleDown = defaultRules(b.scaleDown, false);
    spec.behavior = b;
  }
}

function annotationsOf(obj: UnstructuredObject): Record<string, string> {
  return { ...(obj.metadata?.annotations ?? {}) };
}

function parsed(v: string | undefined): unknown {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

/** v2 → v1: the CPU utilization target in its field, the rest in annotations. */
function toV1(obj: UnstructuredObject): UnstructuredObject {
  const spec = rec(obj.spec);
  const status = rec(obj.status);
  const annotations = annotationsOf(obj);
  const metrics = arr(spec.metrics);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (spec.behavior !== undefined) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  const current = arr(status.currentMetrics);
  const cpuNow = current.find((m) => m.type === 'Resource' && rec(m.resource).name === 'cpu');
  const otherNow = current.filter((m) => m !== cpuNow);
  if (otherNow.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherNow);
  if (Array.isArray(status.conditions) && status.conditions.length > 0) {
    annotations[CONDITIONS_ANNOTATION] = JSON.stringify(status.conditions);
  }
  const v1Spec: Obj = { scaleTargetRef: spec.scaleTargetRef };
  if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas;
  const target = rec(rec(cpu?.resource).target).averageUtilization;
  if (typeof target === 'number') v1Spec.targetCPUUtilizationPercentage = target;
  const v1Status: Obj = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) {
    if (status[k] !== undefined) v1Status[k] = status[k];
  }
  const cpuCurrent = rec(rec(cpuNow?.resource).current).averageUtilization;
  if (typeof cpuCurrent === 'number') v1Status.currentCPUUtilizationPercentage = cpuCurrent;
  const out: UnstructuredObject = {
    ...obj,
    apiVersion: 'autoscaling/v1',
    metadata: { ...obj.metadata, annotations },
    spec: v1Spec,
  };
  if (Object.keys(annotations).length === 0 && out.metadata) delete out.metadata.annotations;
  if (obj.status !== undefined) out.status = v1Status;
  return out;
}

/** v1 → v2: the CPU utilization target as a Resource metric, the annotations taken back. */
function toV2(obj: UnstructuredObject): UnstructuredObject {
  const spec = rec(obj.spec);
  const status = rec(obj.status);
  const annotations = annotationsOf(obj);
  const metrics: unknown[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage },
      },
    });
  }
  const others = parsed(annotations[METRICS_ANNOTATION]);
  if (Array.isArray(others)) metrics.push(...(others as unknown[]));
  const behavior = parsed(annotations[BEHAVIOR_ANNOTATION]);
  const current: unknown[] = [];
  if (typeof status.currentCPUUtilizationPercentage === 'number') {
    current.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        current: { averageUtilization: status.currentCPUUtilizationPercentage },
      },
    });
  }
  const otherNow = parsed(annotations[CURRENT_METRICS_ANNOTATION]);
  if (Array.isArray(otherNow)) current.push(...(otherNow as unknown[]));
  const conditions = parsed(annotations[CONDITIONS_ANNOTATION]);
  for (const k of [
    METRICS_ANNOTATION,
    BEHAVIOR_ANNOTATION,
    CONDITIONS_ANNOTATION,
    CURRENT_METRICS_ANNOTATION,
  ]) {
    delete annotations[k];
  }
  const v2Spec: Obj = { scaleTargetRef: spec.scaleTargetRef };
  if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  v2Spec.maxReplicas = spec.maxReplicas;
  if (metrics.length > 0) v2Spec.metrics = metrics;
  if (behavior !== undefined) v2Spec.behavior = behavior;
  const v2Status: Obj = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) {
    if (status[k] !== undefined) v2Status[k] = status[k];
  }
  if (current.length > 0) v2Status.currentMetrics = current;
  if (Array.isArray(conditions)) v2Status.conditions = conditions;
  const out: UnstructuredObject = {
    ...obj,
    apiVersion: 'autoscaling/v2',
    metadata: { ...obj.metadata, annotations },
    spec: v2Spec,
  };
  if (Object.keys(annotations).length === 0 && out.metadata) delete out.metadata.annotations;
  if (obj.status !== undefined) out.status = v2Status;
  return out;
}

function convert(obj: UnstructuredObject, version: string): UnstructuredObject {
  const from = obj.apiVersion === 'autoscaling/v1' ? 'v1' : 'v2';
  if (from === version) return { ...jsonCopy(obj), apiVersion: `autoscaling/${version}` };
  return version === 'v1' ? toV1(jsonCopy(obj)) : toV2(jsonCopy(obj));
}

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const ref = rec(spec.scaleTargetRef);
  if (str(ref.kind, '') === '') causes.push(required('spec.scaleTargetRef.kind'));
  if (str(ref.name, '') === '') causes.push(required('spec.scaleTargetRef.name'));
  const min = spec.minReplicas;
  if (typeof min === 'number' && min < 1) {
    causes.push(invalidValue('spec.minReplicas', min, 'must be greater than or equal to 1'));
  }
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (max < 1) causes.push(invalidValue('spec.maxReplicas', max, 'must be greater than 0'));
  else if (typeof min === 'number' && min > max) {
    causes.push(
      invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'),
    );
  }
  return causes;
}

/** The Targets cell (formatHPAMetrics): two metrics, `name: current/target`, then `+ N more...`. */
function targets(o: UnstructuredObject): string {
  const specs = arr(rec(o.spec).metrics);
  if (specs.length === 0) return '<none>';
  const statuses = arr(rec(o.status).currentMetrics);
  const list: string[] = [];
  specs.forEach((m, i) => {
    const now = statuses[i];
    const src = rec(m[String(m.type).charAt(0).toLowerCase() + String(m.type).slice(1)]);
    const current = rec(
      rec(now?.[String(m.type).charAt(0).toLowerCase() + String(m.type).slice(1)]).current,
    );
    const target = rec(src.target);
    const name =
      m.type === 'Resource' || m.type === 'ContainerResource' ? `${str(src.name, '')}: ` : '';
    let cell: string;
    if (
      target.type === 'Utilization' ||
      (target.averageValue === undefined && target.value === undefined)
    ) {
      const cur =
        typeof current.averageUtilization === 'number'
          ? `${current.averageUtilization}%`
          : '<unknown>';
      const want =
        typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
      cell = `${cur}/${want}`;
    } else {
      const key = target.averageValue !== undefined ? 'averageValue' : 'value';
      const cur = scalar(current[key], '<unknown>');
      cell = `${cur}/${scalar(target[key], '')}`;
      if (key === 'averageValue' && m.type !== 'Resource' && m.type !== 'ContainerResource') {
        cell += ' (avg)';
      }
    }
    list.push(`${name}${cell}`);
  });
  const shown = list.slice(0, 2).join(', ');
  return list.length > 2 ? `${shown} + ${list.length - 2} more...` : shown;
}

/** HorizontalPodAutoscalers. */
export const horizontalPodAutoscalers = defineKind({
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  versions: ['v2', 'v1'],
  shortNames: ['hpa'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  convert,
  printers: [
    nameColumn,
    {
      column: col(
        'Reference',
        'string',
        0,
        'scaleTargetRef points to the target resource to scale.',
      ),
      cell: (o) => {
        const ref = rec(rec(o.spec).scaleTargetRef);
        return `${str(ref.kind, '')}/${str(ref.name, '')}`;
      },
    },
    {
      column: col(
        'Targets',
        'string',
        0,
        'metrics contains the specifications for which to use to calculate the desired replica count.',
      ),
      cell: targets,
    },
    {
      column: col(
        'MinPods',
        'string',
        0,
        'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.',
      ),
      cell: (o) => {
        const min = rec(o.spec).minReplicas;
        return typeof min === 'number' ? min : '<unset>';
      },
    },
    {
      column: col(
        'MaxPods',
        'string',
        0,
        'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.',
      ),
      cell: (o) => {
        const max = rec(o.spec).maxReplicas;
        return typeof max === 'number' ? max : 0;
      },
    },
    {
      column: col(
        'Replicas',
        'string',
        0,
        'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
      ),
      cell: (o) => {
        const n = rec(o.status).currentReplicas;
        return typeof n === 'number' ? n : 0;
      },
    },
    ageColumn,
  ],
  strategy: {
    decode: (obj, ctx) => defaulter((o) => setDefaults(o, ctx.version))(obj),
    validate: (obj) => validate(obj),
    validateUpdate: (obj) => validate(obj),
  },
});
