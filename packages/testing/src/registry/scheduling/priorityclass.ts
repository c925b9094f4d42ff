/**
 * PriorityClass (scheduling.k8s.io/v1, cluster-scoped): preemptionPolicy defaults to
 * PreemptLowerPriority; names starting `system-` are reserved and user values are at most
 * one billion (ValidatePriorityClass); value and preemptionPolicy cannot change. The two
 * system classes kube-apiserver creates at start are there from the start. Printer:
 * Value, Global-Default, Age, PreemptionPolicy.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, col, nameColumn, str } from '../../printers.js';
import { forbidden, immutable } from '../field_errors.js';
import { defineKind } from '../kind.js';

const HIGHEST_USER_DEFINABLE = 1_000_000_000;
/** The system priority classes kube-apiserver bootstraps (name → value). */
const SYSTEM_CLASSES: Record<string, number> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};

function validate(obj: UnstructuredObject): StatusCause[] {
  const name = obj.metadata?.name ?? '';
  const value = typeof obj.value === 'number' ? obj.value : 0;
  const known = SYSTEM_CLASSES[name] === value && obj.globalDefault !== true;
  if (known) return [];
  if (name.startsWith('system-')) {
    return [
      forbidden(
        'metadata.name',
        "priority class names with 'system-' prefix are reserved for system use only",
      ),
    ];
  }
  if (value > HIGHEST_USER_DEFINABLE) {
    return [
      forbidden(
        'value',
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE}`,
      ),
    ];
  }
  return [];
}

/** PriorityClasses. */
export const priorityClasses = defineKind({
  group: 'scheduling.k8s.io',
  resource: 'priorityclasses',
  kind: 'PriorityClass',
  namespaced: false,
  shortNames: ['pc'],
  bootstrap: () =>
    Object.entries(SYSTEM_CLASSES).map(([name, value]) => ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
      description: `Used for system critical pods that must ${name === 'system-node-critical' ? 'not be moved from their current node' : 'run in the cluster, but can be moved to another node if necessary'}.`,
    })),
  printers: [
    nameColumn,
    {
      column: col(
        'Value',
        'integer',
        0,
        'value represents the integer value of this priority class.',
      ),
      cell: (o) => (typeof o.value === 'number' ? o.value : 0),
    },
    {
      column: col(
        'Global-Default',
        'boolean',
        0,
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
      ),
      cell: (o) => o.globalDefault === true,
    },
    ageColumn,
    {
      column: col(
        'PreemptionPolicy',
        'string',
        0,
        'preemptionPolicy is the Policy for preempting pods with lower priority.',
      ),
      cell: (o) => str(o.preemptionPolicy, ''),
    },
  ],
  strategy: {
    decode: defaulter((obj) => {
      obj.preemptionPolicy ??= 'PreemptLowerPriority';
    }),
    validate: (obj) => validate(obj),
    validateUpdate(obj, old) {
      const causes = validate(obj);
      if ((obj.value ?? 0) !== (old.value ?? 0))
        causes.push(forbidden('value', 'may not be changed in an update.'));
      if (obj.preemptionPolicy !== old.preemptionPolicy)
        causes.push(immutable('preemptionPolicy', obj.preemptionPolicy));
      return causes;
    },
  },
});
