/**
 * PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1, cluster-scoped):
 * SetDefaults_PriorityLevelConfiguration (Limited: nominalConcurrencyShares 30,
 * lendablePercent 0, queuing 64 queues, hand size 8, queue length limit 50; Exempt:
 * nominalConcurrencyShares and lendablePercent 0), type Exempt or Limited with its
 * member, a status subresource, and the printer's columns.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { notSupported, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

const TYPES = ['Exempt', 'Limited'];

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const type = spec.type;
  if (type === undefined || type === '') causes.push(required('spec.type'));
  else if (type !== 'Exempt' && type !== 'Limited')
    causes.push(notSupported('spec.type', type, TYPES));
  else if (type === 'Limited' && spec.limited === undefined)
    causes.push(required('spec.limited', 'must not be empty when type is Limited'));
  return causes;
}

/** A queuing cell: the number, or `<none>` when the level does not queue. */
function queuing(field: string): (o: UnstructuredObject) => unknown {
  return (o) => {
    const limited = rec(rec(o.spec).limited);
    const response = rec(limited.limitResponse);
    if (response.type !== 'Queue') return '<none>';
    const v = rec(response.queuing)[field];
    return typeof v === 'number' ? v : 0;
  };
}

/** PriorityLevelConfigurations. */
export const priorityLevelConfigurations = defineKind({
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  namespaced: false,
  statusSubresource: true,
  tracksGeneration: true,
  printers: [
    nameColumn,
    {
      column: col(
        'Type',
        'string',
        0,
        '`type` indicates whether this priority level is subject to limitation on request execution.',
      ),
      cell: (o) => str(rec(o.spec).type, ''),
    },
    {
      column: col(
        'NominalConcurrencyShares',
        'string',
        0,
        '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.',
      ),
      cell: (o) => {
        const spec = rec(o.spec);
        if (spec.type !== 'Limited') return '<none>';
        const n = rec(spec.limited).nominalConcurrencyShares;
        return typeof n === 'number' ? n : 0;
      },
    },
    {
      column: col(
        'Queues',
        'string',
        0,
        '`queues` is the number of queues for this priority level.',
      ),
      cell: queuing('queues'),
    },
    {
      column: col(
        'HandSize',
        'string',
        0,
        '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.',
      ),
      cell: queuing('handSize'),
    },
    {
      column: col(
        'QueueLengthLimit',
        'string',
        0,
        '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.',
      ),
      cell: queuing('queueLengthLimit'),
    },
    ageColumn,
  ],
  strategy: {
    decode: defaulter((obj) => {
      const spec = rec(obj.spec);
      obj.spec = spec;
      if (spec.limited !== undefined && spec.limited !== null) {
        const limited = { ...rec(spec.limited) };
        limited.nominalConcurrencyShares ??= 30;
        limited.lendablePercent ??= 0;
        const response = rec(limited.limitResponse);
        if (response.type === 'Queue') {
          const q = { ...rec(response.queuing) };
          q.queues ??= 64;
          q.handSize ??= 8;
          q.queueLengthLimit ??= 50;
          limited.limitResponse = { ...response, queuing: q };
        }
        spec.limited = limited;
      }
      if (spec.exempt !== undefined && spec.exempt !== null) {
        const exempt = { ...rec(spec.exempt) };
        exempt.nominalConcurrencyShares ??= 0;
        exempt.lendablePercent ??= 0;
        spec.exempt = exempt;
      }
    }),
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validate(obj)),
  },
});
