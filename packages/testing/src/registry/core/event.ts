/**
 * Event (core/v1). A PUT of a missing Event creates it (AllowCreateOnUpdate).
 *
 * @module
 */
import { root } from '../../fieldmanager/builtin_schema.js';
import { CORE_EVENT, eventPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';

/** core/v1 Events. */
export const events = defineKind({
  group: '',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  fieldSelectors: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  printers: eventPrinters(CORE_EVENT),
  mergeType: { type: root({}), implicitStructs: ['involvedObject', 'source'] },
  strategy: { allowCreateOnUpdate: true },
});
