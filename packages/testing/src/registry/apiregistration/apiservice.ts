/**
 * APIService (apiregistration.k8s.io/v1, cluster-scoped): the aggregator's registrations.
 * Every built-in group version has its local APIService from the start (`v1.apps`,
 * Available: Local), as kube-apiserver's autoregister controller makes them. Validation
 * (ValidateAPIService): the name is `spec.version + "." + spec.group`, the priorities lie
 * in range, a service reference or none; a service port defaults to 443. A status
 * subresource; the printer's Service and Available columns.
 *
 * An APIService with a service does not proxy anything: the test server serves only what
 * it has.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { defaulter } from '../../defaults/index.js';
import { ageColumn, arr, col, nameColumn, rec, str } from '../../printers.js';
import { invalidValue, required } from '../field_errors.js';
import { defineKind } from '../kind.js';
import type { KindDefinition } from '../types.js';
import { GROUP_PRIORITIES } from './priorities.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(obj.spec);
  const group = str(spec.group, '');
  const version = str(spec.version, '');
  const name = obj.metadata?.name ?? '';
  const wanted = `${version}.${group}`;
  if (name !== '' && name !== wanted) {
    causes.push(
      invalidValue(
        'metadata.name',
        name,
        `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(wanted)}`,
      ),
    );
  }
  if (group === '' && name !== 'v1.')
    causes.push(
      required('spec.group', 'only v1 may have an empty group and it better be legacy kube'),
    );
  if (version === '') causes.push(required('spec.version'));
  const gp = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (gp <= 0 || gp > 20000) {
    causes.push(
      invalidValue('spec.groupPriorityMinimum', gp, 'must be positive and less than 20000'),
    );
  }
  const vp = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (vp <= 0 || vp > 1000) {
    causes.push(invalidValue('spec.versionPriority', vp, 'must be positive and less than 1000'));
  }
  return causes;
}

/** The local APIServices kube-apiserver registers, one per built-in group version. */
function localApiServices(kinds: readonly KindDefinition[]): UnstructuredObject[] {
  const seen = new Set<string>();
  const groupVersions: [string, string][] = [];
  for (const k of kinds) {
    for (const v of k.versions ?? ['v1']) {
      if (seen.has(`${v}.${k.group}`)) continue;
      seen.add(`${v}.${k.group}`);
      groupVersions.push([k.group, v]);
    }
  }
  return groupVersions.map(([group, version]) => {
    const p = GROUP_PRIORITIES[group];
    return {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: {
        name: `${version}.${group}`,
        labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' },
      },
      spec: {
        ...(group === '' ? {} : { group }),
        version,
        groupPriorityMinimum: p?.group ?? 1000,
        versionPriority: p?.versions[version] ?? 100,
      },
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            lastTransitionTime: '1970-01-01T00:00:00Z',
            reason: 'Local',
            message: 'Local APIServices are always available',
          },
        ],
      },
    };
  });
}

/** APIServices. */
export const apiServices = defineKind({
  group: 'apiregistration.k8s.io',
  resource: 'apiservices',
  kind: 'APIService',
  namespaced: false,
  statusSubresource: true,
  nameRule: 'pathSegment',
  bootstrap: localApiServices,
  printers: [
    nameColumn,
    {
      column: col(
        'Service',
        'string',
        0,
        'The reference to the service that hosts this API endpoint.',
      ),
      cell: (o) => {
        const s = rec(o.spec).service;
        if (s === undefined || s === null) return 'Local';
        return `${str(rec(s).namespace, '')}/${str(rec(s).name, '')}`;
      },
    },
    {
      column: col('Available', 'string', 0, 'Whether this service is available.'),
      cell: (o) => {
        const c = arr(rec(o.status).conditions).find((x) => x.type === 'Available');
        if (c === undefined) return 'Unknown';
        // The reason is shown only when the service is not available.
        const status = str(c.status, '');
        return status === 'True' ? status : `${status} (${str(c.reason, '')})`;
      },
    },
    ageColumn,
  ],
  strategy: {
    decode: defaulter((obj) => {
      const service = rec(obj.spec).service;
      if (service !== undefined && service !== null) rec(service).port ??= 443;
    }),
    validate: (obj) => validate(obj),
    validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validate(obj)),
  },
});
