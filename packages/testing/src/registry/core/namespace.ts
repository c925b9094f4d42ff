/**
 * Namespace (core/v1), as kube-apiserver's `pkg/registry/core/namespace`: the
 * `kubernetes.io/metadata.name` label and `status.phase: Active` are decoding defaults
 * (SetDefaults_Namespace, SetDefaults_NamespaceStatus), set on every write — an update that
 * drops the label gets it back —; the label again in Canonicalize, once a generated name is
 * known; `spec.finalizers: [kubernetes]` and phase Active on create; a delete marks the
 * namespace Terminating and the namespace controller empties it, and it goes once empty.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { listAtomic, open, root, scalar, conditions } from '../../fieldmanager/builtin_schema.js';
import { jsonCopy } from '../../json_copy.js';
import { ageColumn, col, nameColumn, rec, str } from '../../printers.js';
import { generic } from '../generic.js';
import { defineKind } from '../kind.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The namespace with its name label (itself when the label already says so). */
function withNameLabel(obj: UnstructuredObject): UnstructuredObject {
  const meta = obj.metadata ?? {};
  const name = meta.name ?? '';
  if (meta.labels?.[NAME_LABEL] === name) return obj;
  return { ...obj, metadata: { ...meta, labels: { ...meta.labels, [NAME_LABEL]: name } } };
}

/** SetDefaults_Namespace (the label, once the name is known) and SetDefaults_NamespaceStatus. */
function decode(obj: UnstructuredObject): UnstructuredObject {
  const out = (obj.metadata?.name ?? '') === '' ? obj : withNameLabel(obj);
  const status = isObject(out.status) ? out.status : {};
  if (typeof status.phase === 'string' && status.phase !== '') return out;
  return { ...out, status: { ...status, phase: 'Active' } };
}

/** Namespaces. */
export const namespaces = defineKind({
  group: '',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  statusSubresource: true,
  nameRule: 'label',
  fieldSelectors: ['status.phase'],
  printers: [
    nameColumn,
    {
      column: col('Status', 'string', 0, 'The status of the namespace.'),
      cell: (o) => str(rec(o.status).phase, 'Active'),
    },
    ageColumn,
  ],
  mergeType: {
    type: root({ spec: open({ finalizers: listAtomic(scalar) }), status: open({ conditions }) }),
    implicitStructs: ['spec', 'status'],
  },
  strategy: {
    decode,
    prepareForCreate(obj, ctx) {
      const out = generic.prepareForCreate(obj, ctx);
      if (ctx.seed) return out;
      const spec = isObject(out.spec) ? out.spec : {};
      return { ...out, spec: { finalizers: ['kubernetes'], ...spec }, status: { phase: 'Active' } };
    },
    canonicalize: withNameLabel,
    // A namespace goes through its controller (spec.finalizers), never by an update.
    shouldDeleteDuringUpdate: () => false,
    delete(existing, opts, ctx) {
      const name = existing.obj.metadata?.name ?? '';
      let current = existing;
      if (existing.obj.metadata?.deletionTimestamp === undefined) {
        const next = jsonCopy(existing.obj);
        const m = (next.metadata ??= {});
        m.deletionTimestamp = ctx.now;
        m.deletionGracePeriodSeconds = 0;
        next.status = { ...rec(next.status), phase: 'Terminating' };
        if (opts.dryRun === true) return { ...existing, obj: next, json: JSON.stringify(next) };
        current = ctx.services.commit(ctx.type, '', name, next);
      } else if (opts.dryRun === true) {
        return existing;
      }
      ctx.services.namespaceTerminating(name);
      return ctx.read.get('namespaces', name) ?? current;
    },
    afterWrite(stored, ctx) {
      // Its last metadata finalizer may have gone: a terminating namespace goes once empty.
      if (stored.obj.metadata?.deletionTimestamp !== undefined) {
        ctx.services.finishIfEmpty(stored.obj.metadata.name ?? '');
      }
    },
  },
});
